/**
 * RestClient: talks to an atrium (or any Kubernetes) API server over HTTPS exactly as any other client does: JSON
 * bodies, client certificates or a bearer token, `/clusters/<name>` logical-cluster prefixes. Every non-2xx answer
 * becomes a StatusError carrying the server's Status, so callers branch on `err.code` / `err.reason` as client-go
 * users branch on apierrors.IsNotFound & co.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import { StatusError } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import { readKubeconfig } from './kubeconfig/kubeconfig.js';
import { resourcePath, type GroupVersionResource, type RequestScope } from './resource.js';
import { normalizeStatus, readWatchStream, type WatchStream } from './watch-stream.js';

export interface RestClientConfig {
  /** https://host:port of the server (no path). */
  url: string;
  /** PEM of the CA that signed the serving certificate. */
  ca?: string;
  /** Client certificate and key (PEM). */
  cert?: string;
  key?: string;
  /** Bearer token; used when set, in addition to any client certificate. */
  token?: string;
  /** User-Agent; also the default field manager on the server. */
  userAgent?: string;
  /**
   * Opens connections in place of TLS to `url`: a server's loopback (ServerConnection.connectLoopback) for clients in
   * the server's own process. Requests and their authentication (use `token`) are unchanged.
   */
  connect?: () => Duplex;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  /**
   * Ask for metadata only (`Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`): items come
   * back as PartialObjectMetadata, which spares the server encoding and the client parsing specs and data.
   */
  metadataOnly?: boolean;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** Events carry PartialObjectMetadata (as for ListOptions.metadataOnly). */
  metadataOnly?: boolean;
}

const partialObjectMetadataAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: string[];
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

export type PatchType = 'json' | 'merge' | 'strategic';

/**
 * A typed list (a built-in kind's) carries no apiVersion/kind on its items; like client-go's unstructured list
 * decoding, the items get them from the list (its apiVersion, its kind without `List`), so callers see whole objects.
 */
function withItemTypeMeta<T extends KubeObject>(list: ObjectList<T>): ObjectList<T> {
  const kind = list.kind?.endsWith('List') ? list.kind.slice(0, -4) : undefined;
  if (!Array.isArray(list.items) || !list.apiVersion || !kind) return list;
  for (const item of list.items) {
    if (item && typeof item === 'object') {
      item.apiVersion ??= list.apiVersion;
      item.kind ??= kind;
    }
  }
  return list;
}

const patchContentTypes: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export interface RawResponse {
  status: number;
  body: unknown;
  text: string;
}

/**
 * How many requests (watches aside) one client has on the wire at once; more wait for a connection. Unbounded, a
 * burst of controller requests opened a new TLS connection for each one beyond those idle (512 handshakes in atrium
 * over a 50-app burst, each costing both ends), while the server answers them one at a time anyway.
 */
const REQUEST_SOCKETS = 64;

/**
 * A typed-enough REST client for any group/version/resource. Scope `cluster` is a logical cluster name (`*` for
 * wildcard list/watch); `namespace` selects a namespace (omit for cluster-scoped resources or all namespaces).
 */
export class RestClient {
  /** Requests: at most REQUEST_SOCKETS connections, kept alive. */
  private readonly agent: Agent;
  /** Watches: one connection each for as long as the watch lasts, however many. */
  private readonly watchAgent: Agent;

  constructor(readonly config: RestClientConfig) {
    // One TLS context for every connection: given only ca/cert/key, each new connection parsed the certificates and
    // the key into a context of its own.
    const tls = { ca: config.ca, cert: config.cert, key: config.key, secureContext: createSecureContext({ ca: config.ca, cert: config.cert, key: config.key }) };
    this.agent = new Agent({ ...tls, keepAlive: true, maxSockets: REQUEST_SOCKETS });
    this.watchAgent = new Agent({ ...tls, keepAlive: true, maxSockets: Infinity });
    const connect = config.connect;
    if (connect) {
      // node:http's Agent takes any Duplex a createConnection override returns, and speaks HTTP/1.1 on it.
      for (const agent of [this.agent, this.watchAgent]) (agent as unknown as { createConnection: () => Duplex }).createConnection = connect;
    }
  }

  /** A client from a kubeconfig file's current context (inline or file credentials, token or certificates). */
  static async fromKubeconfig(path: string, overrides: Partial<RestClientConfig> = {}): Promise<RestClient> {
    const kc = await readKubeconfig(path);
    const creds = await kc.currentCredentials();
    const server = new URL(kc.currentServer());
    return new RestClient({
      url: `${server.protocol}//${server.host}`,
      ca: await kc.currentCaPem(),
      cert: creds.certPem,
      key: creds.keyPem,
      token: creds.token,
      ...overrides,
    });
  }

  /** Closes idle keep-alive connections. Open watches must be stopped by their owners. */
  close(): void {
    this.agent.destroy();
    this.watchAgent.destroy();
  }

  async get<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, name: string, scope: RequestScope = {}): Promise<T> {
    return (await this.call('GET', resourcePath(gvr, { ...scope, name }))) as T;
  }

  /** One page (or everything, when no limit) of a collection. */
  async list<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, scope: RequestScope = {}, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const { metadataOnly, ...params } = opts;
    const q = query({ ...params, limit: params.limit === undefined ? undefined : String(params.limit) });
    if (!metadataOnly) return withItemTypeMeta((await this.call('GET', resourcePath(gvr, scope) + q)) as ObjectList<T>);
    const r = await this.raw('GET', resourcePath(gvr, scope) + q, undefined, undefined, partialObjectMetadataAccept);
    if (r.status < 200 || r.status > 299) throw new StatusError(normalizeStatus(r.body, r.status, r.text));
    return r.body as ObjectList<T>;
  }

  /** Lists every page, following `continue` tokens; returns all items and the first page's resourceVersion. */
  async listAll<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, scope: RequestScope = {}, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const first = await this.list<T>(gvr, scope, opts);
    const items = [...first.items];
    let cont = first.metadata.continue;
    while (cont) {
      const next = await this.list<T>(gvr, scope, { ...opts, resourceVersion: undefined, continue: cont });
      items.push(...next.items);
      cont = next.metadata.continue;
    }
    return { ...first, metadata: { resourceVersion: first.metadata.resourceVersion }, items };
  }

  /**
   * Opens a watch. Resolves once the server has answered 200; a non-200 answer (e.g. 410 for a compacted
   * resourceVersion) rejects with a StatusError.
   */
  watch<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, scope: RequestScope = {}, opts: WatchOptions = {}): Promise<WatchStream<T>> {
    const { metadataOnly, ...params } = opts;
    const q = query({
      ...params,
      watch: 'true',
      allowWatchBookmarks: params.allowWatchBookmarks ? 'true' : undefined,
      timeoutSeconds: params.timeoutSeconds === undefined ? undefined : String(params.timeoutSeconds),
    });
    const url = new URL(resourcePath(gvr, scope) + q, this.config.url);
    const headers = this.headers();
    if (metadataOnly) headers.Accept = partialObjectMetadataAccept;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method: 'GET', agent: this.watchAgent, headers }, (res) => {
        if (res.statusCode !== 200) {
          readBody(res).then(({ text, body }) => reject(new StatusError(normalizeStatus(body, res.statusCode ?? 500, text))), reject);
          return;
        }
        resolve(readWatchStream<T>(res, () => req.destroy()));
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** POST; the namespace defaults to the object's metadata.namespace. */
  async create<T extends KubeObject>(gvr: GroupVersionResource, obj: T, scope: RequestScope = {}): Promise<T> {
    return (await this.call('POST', resourcePath(gvr, withNamespace(scope, obj)), obj)) as T;
  }

  /** POST to a subresource of a named object (pods/binding, pods/eviction): the server's answer, often a Status. */
  async createSubresource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, name: string, subresource: string, body: KubeObject, scope: RequestScope = {}): Promise<T> {
    return (await this.call('POST', resourcePath(gvr, { ...scope, name, subresource }), body)) as T;
  }

  /** PUT of the whole object (metadata.resourceVersion, when set, is a precondition: stale → 409 Conflict). */
  async update<T extends KubeObject>(gvr: GroupVersionResource, obj: T, scope: RequestScope = {}): Promise<T> {
    return (await this.call('PUT', resourcePath(gvr, { ...withNamespace(scope, obj), name: obj.metadata?.name ?? '' }), obj)) as T;
  }

  /** PUT to the status subresource: only .status changes. */
  updateStatus<T extends KubeObject>(gvr: GroupVersionResource, obj: T, scope: RequestScope = {}): Promise<T> {
    return this.updateSubresource(gvr, obj, 'status', scope);
  }

  /** PUT to any subresource (e.g. a namespace's `finalize`). */
  async updateSubresource<T extends KubeObject>(gvr: GroupVersionResource, obj: T, subresource: string, scope: RequestScope = {}): Promise<T> {
    const path = resourcePath(gvr, { ...withNamespace(scope, obj), name: obj.metadata?.name ?? '', subresource });
    return (await this.call('PUT', path, obj)) as T;
  }

  async patch<T extends KubeObject = KubeObject>(
    gvr: GroupVersionResource,
    name: string,
    type: PatchType,
    patch: unknown,
    scope: RequestScope & { subresource?: string; fieldManager?: string } = {},
  ): Promise<T> {
    const q = query({ fieldManager: scope.fieldManager });
    const path = resourcePath(gvr, { cluster: scope.cluster, namespace: scope.namespace, name, subresource: scope.subresource }) + q;
    return (await this.call('PATCH', path, patch, patchContentTypes[type])) as T;
  }

  /**
   * DELETE. Resolves with the server's answer: the object when it is only marked for deletion (finalizers), or a
   * Status when it is gone.
   */
  async delete(gvr: GroupVersionResource, name: string, scope: RequestScope = {}, opts: DeleteOptions = {}): Promise<KubeObject> {
    return (await this.call('DELETE', resourcePath(gvr, { ...scope, name }), { kind: 'DeleteOptions', apiVersion: 'v1', ...opts })) as KubeObject;
  }

  /** deletecollection on a (namespaced) collection. */
  async deleteCollection(gvr: GroupVersionResource, scope: RequestScope = {}, opts: DeleteOptions = {}, listOpts: ListOptions = {}): Promise<unknown> {
    return this.call('DELETE', resourcePath(gvr, scope) + query({ ...listOpts, limit: undefined, metadataOnly: undefined }), { kind: 'DeleteOptions', apiVersion: 'v1', ...opts });
  }

  /** Any request (discovery, non-resource paths). Non-2xx → StatusError. */
  async call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<unknown> {
    const r = await this.raw(method, path, body, contentType);
    if (r.status < 200 || r.status > 299) throw new StatusError(normalizeStatus(r.body, r.status, r.text));
    return r.body;
  }

  /** Any request, returning status and parsed body whatever the status code (`accept` overrides the Accept header). */
  raw(method: string, path: string, body?: unknown, contentType = 'application/json', accept?: string): Promise<RawResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = this.headers();
    if (accept) headers.Accept = accept;
    if (payload) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(payload.length);
    }
    const attempt = (retried: boolean): Promise<RawResponse> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(new URL(path, this.config.url), { method, agent: this.agent, headers }, (res) => {
          readBody(res).then(({ text, body: parsed }) => resolve({ status: res.statusCode ?? 0, body: parsed, text }), reject);
        });
        req.on('error', (err: NodeJS.ErrnoException) => {
          // A kept-alive connection the server closed while idle fails as ECONNRESET ("socket hang up") before the
          // request reached it: sent again once on a new connection, as Go's transport does for a closed idle one.
          if (!retried && req.reusedSocket && err.code === 'ECONNRESET') attempt(true).then(resolve, reject);
          else reject(err);
        });
        if (payload) req.write(payload);
        req.end();
      });
    return attempt(false);
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json', 'User-Agent': this.config.userAgent ?? 'atrium-controller/v0.0.0' };
    if (this.config.token) h.Authorization = `Bearer ${this.config.token}`;
    return h;
  }
}

function withNamespace(scope: RequestScope, obj: KubeObject): RequestScope {
  return { ...scope, namespace: scope.namespace ?? obj.metadata?.namespace };
}

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

function readBody(res: import('node:http').IncomingMessage): Promise<{ text: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      resolve({ text, body });
    });
    res.on('error', reject);
  });
}
