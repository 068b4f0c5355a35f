/**
 * Calling webhooks (k8s.io/apiserver pkg/util/webhook, the REST client admission webhooks and CRD conversion webhooks
 * share): a POST of a JSON review to the webhook's `url` or `service`, over TLS verified with the configuration's
 * caBundle (the system roots without one), bounded by a timeout, on keep-alive agents pooled per CA bundle so a busy
 * webhook keeps its connections. Failures are reported in the words Go's HTTP client uses, as upstream's errors embed
 * them (`Post "https://host/path?timeout=10s": context deadline exceeded`).
 *
 * Where a `service` is reached (a deliberate choice; kcp resolves service references through cluster DNS, which a
 * workspace without pods does not have): the Service is looked up in the request's logical cluster. One of type
 * ExternalName is reached at its externalName; any other at the first address of its Endpoints (manual endpoints, as
 * for a Service without a selector) on the port whose name or number matches; TLS verifies `<name>.<namespace>.svc`
 * as upstream does. Nothing else can reach it, and the error says so.
 */
import https from 'node:https';
import type { KubeObject } from '../../apimachinery/object.js';
import { isPlainObject } from '../../apimachinery/object.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';

export interface WebhookClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  /** Base64 of the PEM bundle, as in the API objects. */
  caBundle?: string;
}

/** A failed call, in Go's words (what `failed to call webhook: %w` wraps). */
export class WebhookCallError extends Error {}

const systemContext = (cluster: string) => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });

/** Go's time.Duration String of whole seconds (what client-go sends as ?timeout=). */
function goSeconds(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  const rest = s % 60;
  return `${m}m${rest}s`;
}

export class WebhookClient {
  private readonly agents = new Map<string, https.Agent>();

  constructor(private readonly registry?: ResourceRegistry) {}

  private agent(caBundle: string | undefined): https.Agent {
    const key = caBundle ?? '';
    let agent = this.agents.get(key);
    if (!agent) {
      const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
      agent = new https.Agent({ keepAlive: true, maxSockets: 128, maxFreeSockets: 16, ...(ca ? { ca } : {}) });
      if (this.agents.size > 256) for (const [k, a] of this.agents) if (k !== key) { a.destroy(); this.agents.delete(k); break; }
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Closes pooled connections. */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  /**
   * POSTs `body` as JSON and returns the decoded JSON answer. Throws WebhookCallError with Go's wording for transport
   * failures, timeouts, non-2xx answers and bodies that are not JSON.
   */
  async post(cluster: string, cc: WebhookClientConfig, body: unknown, timeoutMs: number): Promise<unknown> {
    const target = await this.resolve(cluster, cc);
    const url = new URL(target.url);
    url.searchParams.set('timeout', goSeconds(timeoutMs));
    const shown = `Post "${url.toString()}"`;
    const payload = Buffer.from(JSON.stringify(body));
    return await new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const fail = (msg: string) => {
        if (settled) return;
        settled = true;
        reject(new WebhookCallError(`${shown}: ${msg}`));
      };
      let req: ReturnType<typeof https.request>;
      // Go's transport sends a request again on a new connection when the kept-alive one it picked was closed by the
      // server before anything came back (errServerClosedIdle): a webhook server that restarted or closed its idle
      // connections is dialed afresh, so what is reported is what a new connection meets.
      const attempt = (retried: boolean): void => {
        let answered = false;
        req = https.request(
          url,
          {
            method: 'POST',
            agent: this.agent(cc.caBundle),
            headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.length },
            ...(target.serverName ? { servername: target.serverName } : {}),
          },
          (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', () => fail('unexpected EOF'));
            res.on('end', () => {
              if (settled) return;
              clearTimeout(timer);
              const text = Buffer.concat(chunks).toString('utf8');
              const code = res.statusCode ?? 0;
              if (code < 200 || code > 299) {
                // client-go's transformResponse for a body that is not a Status.
                settled = true;
                const shownBody = text.length > 0 ? text.trim() : '';
                reject(new WebhookCallError(code >= 500 ? `an error on the server (${JSON.stringify(shownBody)}) has prevented the request from succeeding` : `the server responded with the status code ${code} but did not return more information`));
                return;
              }
              try {
                settled = true;
                resolve(JSON.parse(text));
              } catch (e) {
                reject(new WebhookCallError(`couldn't get version/kind; json parse error: ${(e as Error).message}`));
              }
            });
          },
        );
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (settled) return;
          if (!retried && !answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
            attempt(true);
            return;
          }
          clearTimeout(timer);
          fail(goTransportError(err, url));
        });
        req.end(payload);
      };
      const timer = setTimeout(() => {
        fail('context deadline exceeded');
        req.destroy();
      }, timeoutMs);
      attempt(false);
    });
  }

  private async resolve(cluster: string, cc: WebhookClientConfig): Promise<{ url: string; serverName?: string }> {
    if (cc.url) return { url: cc.url };
    const svc = cc.service ?? {};
    const ns = svc.namespace ?? '';
    const name = svc.name ?? '';
    const port = svc.port ?? 443;
    const path = svc.path ?? '';
    const serverName = `${name}.${ns}.svc`;
    const unreachable = (why: string) => new WebhookCallError(`service "${ns}/${name}" cannot be reached: ${why}`);
    const services = this.registry?.lookup(cluster, '', 'v1', 'services');
    if (!services) throw unreachable('this workspace serves no Services');
    let service: KubeObject;
    try {
      service = await services.get(systemContext(cluster), ns, name);
    } catch {
      throw new WebhookCallError(`service "${name}" not found`);
    }
    const spec = isPlainObject(service.spec) ? service.spec : {};
    if (spec.type === 'ExternalName' && typeof spec.externalName === 'string') {
      return { url: `https://${spec.externalName}:${port}${path}`, serverName };
    }
    const ports = Array.isArray(spec.ports) ? (spec.ports as Record<string, unknown>[]) : [];
    const servicePort = ports.find((p) => p.port === port);
    if (!servicePort) throw unreachable(`the service has no port ${port}`);
    const endpointsStore = this.registry?.lookup(cluster, '', 'v1', 'endpoints');
    let endpoints: KubeObject | undefined;
    try {
      endpoints = endpointsStore ? await endpointsStore.get(systemContext(cluster), ns, name) : undefined;
    } catch {
      endpoints = undefined;
    }
    for (const subset of Array.isArray(endpoints?.subsets) ? (endpoints!.subsets as Record<string, unknown>[]) : []) {
      const address = (Array.isArray(subset.addresses) ? subset.addresses : [])[0] as { ip?: string; hostname?: string } | undefined;
      const epPorts = Array.isArray(subset.ports) ? (subset.ports as Record<string, unknown>[]) : [];
      const epPort = epPorts.find((p) => (servicePort.name ? p.name === servicePort.name : true));
      if (address?.ip && typeof epPort?.port === 'number') {
        const host = address.ip.includes(':') ? `[${address.ip}]` : address.ip;
        return { url: `https://${host}:${epPort.port}${path}`, serverName };
      }
    }
    throw unreachable('a workspace runs no pods: use a Service of type ExternalName, or give the Service Endpoints with an address');
  }
}

/** Node's socket and TLS errors in the words of Go's net/http and crypto/tls. */
function goTransportError(err: NodeJS.ErrnoException, url: URL): string {
  const hostPort = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || '443'}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'EHOSTUNREACH':
      return `dial tcp ${hostPort}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${url.hostname}`;
    default:
      return err.message;
  }
}
