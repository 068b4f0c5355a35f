/**
 * What the `kubectl ws` plugin needs from a kubeconfig and the server: the current workspace (from the current
 * cluster's server URL, `https://host/clusters/<path>`), an HTTPS client with the current user's credentials, and
 * saving a changed kubeconfig back to its file.
 */
import { homedir } from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { Agent, request } from 'node:https';
import YAML from 'yaml';
import {
  readKubeconfig,
  type Kubeconfig,
  type KubeconfigCluster,
  type KubeconfigContext,
  type KubeconfigUser,
} from '../../client/kubeconfig/kubeconfig.js';
import { isValidPath } from '../paths.js';

function unbase64(data: string): string {
  return Buffer.from(data, 'base64').toString('utf8');
}

/** Which kubeconfig file to use: --kubeconfig, else the first entry of $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPath(flag?: string): string {
  if (flag) return flag;
  const env = process.env.KUBECONFIG;
  if (env) return env.split(delimiter).find((p) => p.length > 0) ?? join(homedir(), '.kube', 'config');
  return join(homedir(), '.kube', 'config');
}

/**
 * Splits a server URL into the base (without the workspace part) and the workspace path (kcp's ParseClusterURL).
 * A URL without a `/clusters/` part addresses root, as atrium serves unprefixed requests from root.
 * Returns undefined when the URL cannot be parsed.
 */
export function parseClusterURL(server: string): { base: URL; path: string } | undefined {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    return undefined;
  }
  const m = /^(.*?)\/clusters\/([^/]+)\/?$/.exec(u.pathname);
  if (!m) {
    if (u.pathname !== '/' && u.pathname !== '') return undefined;
    u.pathname = '';
    return { base: u, path: 'root' };
  }
  const path = m[2]!;
  u.pathname = m[1]!;
  return { base: u, path };
}

/** A URL for `path` under `base` (joins like Go's path.Join with /clusters/<path>). */
export function workspaceURL(base: URL, path: string): string {
  const u = new URL(base.toString());
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/clusters/${path}`;
  return u.toString();
}

export interface ApiResponse {
  status: number;
  json: any;
  text: string;
}

/**
 * kubectl's connection flags as kcp's plugins bind them (kcp-dev/cli pkg/base Options.BindFlags: clientcmd's
 * recommended override flags minus --client-certificate, --client-key, --as, --as-group, --cluster and
 * --request-timeout), plus the plugins' own --workspace. They apply to this invocation only: the kubeconfig file is
 * read as it is, and what the plugin writes back is built from the file's entries, never from these values (except
 * that a new workspace URL is derived from the --server/--workspace-adjusted server).
 */
export interface ConnectionOverrides {
  /** --context: the kubeconfig context to use instead of current-context. */
  context?: string;
  /** --user: the kubeconfig user to use instead of the context's. */
  user?: string;
  /** --server/-s: the API server URL instead of the cluster's. */
  server?: string;
  /** --token: the bearer token instead of the user's (token and tokenFile). */
  token?: string;
  /** --namespace/-n: accepted for kubectl compatibility; the workspace commands touch only cluster-scoped objects. */
  namespace?: string;
  /** --insecure-skip-tls-verify: do not verify the server certificate (drops the cluster's CA, as clientcmd does). */
  insecureSkipTlsVerify?: boolean;
  /** --certificate-authority: a CA file instead of the cluster's CA. */
  certificateAuthority?: string;
  /** --tls-server-name: the name to verify the server certificate against. */
  tlsServerName?: string;
  /** --workspace/-w (tree, create): target this workspace (`:abs`, relative, `.`, `..`) instead of the current one. */
  workspace?: string;
}

/** A context, cluster and user resolved from a kubeconfig and the overrides (clientcmd's DirectClientConfig). */
interface Resolved {
  contextName: string;
  context: KubeconfigContext;
  cluster: KubeconfigCluster;
  user: KubeconfigUser;
}

function lookup<T>(list: { name: string }[], key: string, name: string): T | undefined {
  const hit = list.find((e) => e.name === name) as Record<string, unknown> | undefined;
  return hit?.[key] as T | undefined;
}

function resolveEntries(kc: Kubeconfig, o: ConnectionOverrides): Resolved {
  const file = kc.file;
  const contextName = o.context || file['current-context'];
  let context = lookup<KubeconfigContext>(file.contexts, 'context', contextName);
  if (!context) {
    if (o.context) throw new ConfigError(`context ${JSON.stringify(contextName)} does not exist`);
    if (!contextName) throw new ConfigError('current-context is not set');
    throw new ConfigError(`context ${JSON.stringify(contextName)} does not exist`);
  }
  context = { ...context };
  if (o.user) context.user = o.user;
  if (o.namespace) context.namespace = o.namespace;
  const user = lookup<KubeconfigUser>(file.users, 'user', context.user);
  if (!user && o.user) throw new ConfigError(`auth info ${JSON.stringify(context.user)} does not exist`);
  const cluster = lookup<KubeconfigCluster>(file.clusters, 'cluster', context.cluster);
  if (!cluster && !o.server) throw new ConfigError(`cluster ${JSON.stringify(context.cluster)} does not exist`);
  const merged: KubeconfigCluster = { ...(cluster ?? { server: '' }) };
  if (o.server) merged.server = o.server;
  if (o.certificateAuthority) {
    merged['certificate-authority'] = o.certificateAuthority;
    delete merged['certificate-authority-data'];
  }
  if (o.insecureSkipTlsVerify) {
    merged['insecure-skip-tls-verify'] = true;
    // clientcmd: --insecure-skip-tls-verify without a CA flag drops the configured CA.
    if (!o.certificateAuthority) {
      delete merged['certificate-authority'];
      delete merged['certificate-authority-data'];
    }
  }
  if (o.tlsServerName) merged['tls-server-name'] = o.tlsServerName;
  const u: KubeconfigUser = { ...(user ?? {}) };
  if (o.token) {
    u.token = o.token;
    delete u.tokenFile;
  }
  return { contextName, context, cluster: merged, user: u };
}

/** A kubeconfig or flag problem, printed as kcp prints clientcmd's errors. */
export class ConfigError extends Error {}

/**
 * The server with --workspace applied (kcp's workspaceOverrideClientConfig): `:a:b` is absolute, anything else is
 * relative to the current workspace, `.` and `..` are resolved; the workspace need not exist.
 */
export function workspaceOverrideServer(server: string, workspace: string): string {
  const parsed = parseClusterURL(server);
  if (!parsed) throw new ConfigError(`current URL ${JSON.stringify(server)} does not point to a workspace`);
  const joined = workspace.startsWith(':') ? workspace.slice(1) : `${parsed.path}:${workspace}`;
  const out: string[] = [];
  for (const part of joined.split(':')) {
    if (part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new ConfigError('cannot go above the root workspace');
      out.pop();
      continue;
    }
    out.push(part);
  }
  const path = out.join(':');
  if (!isValidPath(path)) throw new ConfigError(`invalid workspace path: ${workspace}`);
  return workspaceURL(parsed.base, path);
}

/** client-go's default number of retries of an answer carrying Retry-After. */
const MAX_RETRIES = 10;

/** A small HTTPS client over the kubeconfig's current context (or the one the overrides pick). */
export class WorkspaceClient {
  private constructor(
    readonly path: string,
    readonly kubeconfig: Kubeconfig,
    private readonly resolved: Resolved,
    private readonly serverURL: string,
    private readonly agent: Agent,
    private readonly token: string | undefined,
  ) {}

  static async open(path: string, overrides: ConnectionOverrides = {}): Promise<WorkspaceClient> {
    const kc = await readKubeconfig(path);
    const resolved = resolveEntries(kc, overrides);
    const { cluster, user } = resolved;
    const abs = (p: string) => (isAbsolute(p) ? p : resolvePath(kc.baseDir, p));
    // A CA given on the command line is relative to the working directory, one in the file to the file.
    const caFile = overrides.certificateAuthority ? resolvePath(overrides.certificateAuthority) : cluster['certificate-authority'] ? abs(cluster['certificate-authority']) : undefined;
    const ca = cluster['certificate-authority-data'] ? unbase64(cluster['certificate-authority-data']) : caFile ? await readFile(caFile, 'utf8') : undefined;
    const cert = user['client-certificate-data'] ? unbase64(user['client-certificate-data']) : user['client-certificate'] ? await readFile(abs(user['client-certificate']), 'utf8') : undefined;
    const key = user['client-key-data'] ? unbase64(user['client-key-data']) : user['client-key'] ? await readFile(abs(user['client-key']), 'utf8') : undefined;
    const token = user.token ? user.token : user.tokenFile ? (await readFile(abs(user.tokenFile), 'utf8')).trim() : undefined;
    const agent = new Agent({
      ca,
      cert,
      key,
      servername: cluster['tls-server-name'],
      rejectUnauthorized: !cluster['insecure-skip-tls-verify'],
      keepAlive: true,
    });
    let server = cluster.server;
    if (overrides.workspace) server = workspaceOverrideServer(server, overrides.workspace);
    return new WorkspaceClient(path, kc, resolved, server, agent, token);
  }

  /** The name of the context in use: --context, else the kubeconfig's current-context. */
  contextName(): string {
    return this.resolved.contextName;
  }

  close(): void {
    this.agent.destroy();
  }

  /** The server URL in use: the context's cluster's, or --server, with --workspace applied. */
  server(): string {
    return this.serverURL;
  }

  /**
   * A request to `<base>/clusters/<cluster><apiPath>`; never throws on an HTTP error status. As client-go does, an
   * answer of 429 or 5xx carrying Retry-After (in seconds) is retried after that delay, up to 10 times: kcp answers
   * `GET workspaces/~` so while a new home initializes.
   */
  async send(method: string, base: URL, cluster: string, apiPath: string, body?: unknown): Promise<ApiResponse> {
    for (let retries = 0; ; retries++) {
      const { response, retryAfter } = await this.sendOnce(method, base, cluster, apiPath, body);
      const retryable = response.status === 429 || response.status >= 500;
      if (!retryable || retryAfter === undefined || retries >= MAX_RETRIES) return response;
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
    }
  }

  private sendOnce(method: string, base: URL, cluster: string, apiPath: string, body?: unknown): Promise<{ response: ApiResponse; retryAfter?: number }> {
    const url = new URL(workspaceURL(base, cluster) + apiPath);
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'kubectl-ws' };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    return new Promise((resolve, reject) => {
      const req = request(url, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const header = res.headers['retry-after'];
          const seconds = typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header.trim()) : undefined;
          resolve({ response: { status: res.statusCode ?? 0, json, text }, retryAfter: seconds });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** Writes the (modified) kubeconfig document back to its file. */
  async save(): Promise<void> {
    await writeFile(this.path, YAML.stringify(this.kubeconfig.file), { mode: 0o600 });
  }
}

/** The error text client-go shows for a failed request: the Status message, else the HTTP status. */
export function apiErrorMessage(r: ApiResponse): string {
  if (r.json && typeof r.json.message === 'string') return r.json.message;
  return `the server responded with the status code ${r.status} but did not return more information`;
}
