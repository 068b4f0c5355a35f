/**
 * What the `kubectl ws` plugin needs from a kubeconfig and the server: the current workspace (from the current
 * cluster's server URL, `https://host/clusters/<path>`), an HTTPS client with the current user's credentials, and
 * saving a changed kubeconfig back to its file.
 */
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, delimiter } from 'node:path';
import { Agent, request } from 'node:https';
import YAML from 'yaml';
import { readKubeconfig, type Kubeconfig } from '../../apiserver/kubeconfig/kubeconfig.js';

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

/** A small HTTPS client over the kubeconfig's current context. */
export class WorkspaceClient {
  private constructor(
    readonly path: string,
    readonly kubeconfig: Kubeconfig,
    private readonly agent: Agent,
    private readonly token: string | undefined,
  ) {}

  static async open(path: string): Promise<WorkspaceClient> {
    const kc = await readKubeconfig(path);
    const cluster = kc.currentCluster();
    const creds = await kc.currentCredentials();
    const agent = new Agent({
      ca: await kc.currentCaPem(),
      cert: creds.certPem,
      key: creds.keyPem,
      rejectUnauthorized: !cluster['insecure-skip-tls-verify'],
      keepAlive: true,
    });
    return new WorkspaceClient(path, kc, agent, creds.token);
  }

  close(): void {
    this.agent.destroy();
  }

  /** The current server URL of the current context. */
  server(): string {
    return this.kubeconfig.currentServer();
  }

  /** One request to `<base>/clusters/<cluster><apiPath>`; never throws on an HTTP error status. */
  send(method: string, base: URL, cluster: string, apiPath: string, body?: unknown): Promise<ApiResponse> {
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
          resolve({ status: res.statusCode ?? 0, json, text });
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
