/**
 * The test harness every integration and end-to-end suite shares: a real atrium server on 127.0.0.1:0 in a temp root
 * dir, an HTTPS client with the admin certificate, and the real kubectl pointed at it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/server.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes (a protobuf answer is not text). */
  raw: Buffer;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Send no credentials at all. */
  anonymous?: boolean;
  /** Use this bearer token instead of the admin client certificate. */
  token?: string;
}

export interface TestServer {
  server: RunningServer;
  rootDir: string;
  url: string;
  kubeconfig: string;
  request(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<HttpResponse>;
  /** Runs the real kubectl with --kubeconfig set; never throws on a non-zero exit. */
  kubectl(args: string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** The server's root dir (kept after stop()); a new temp dir, removed by stop() unless keepRootDir, by default. */
  rootDir?: string;
  keepRootDir?: boolean;
  server?: Partial<ServerOptions>;
  /**
   * Static token users: the lines of a --token-auth-file (`token,user,uid[,"group1,group2"]`), written to
   * <rootDir>/tokens.csv, which the server then authenticates with.
   */
  tokens?: string[];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const rootDir = options.rootDir ?? mkdtempSync(join(tmpdir(), 'atrium-test-'));
  const tokens: Partial<ServerOptions> = {};
  if (options.tokens) {
    mkdirSync(rootDir, { recursive: true });
    tokens.tokenAuthFile = join(rootDir, 'tokens.csv');
    writeFileSync(tokens.tokenAuthFile, options.tokens.join('\n') + '\n');
  }
  // Built-in controllers (namespace, serviceaccount, root CA, GC) write into namespaces on their own; suites that
  // assert exact contents opt out by default, controller suites opt in with `server: { builtinControllers: true }`.
  const server = await startServer({ rootDir, bindAddress: '127.0.0.1', securePort: 0, builtinControllers: false, ...tokens, ...(options.server ?? {}) });
  return harnessFor(server, rootDir, async () => {
    await server.stop();
    if (!options.keepRootDir && !options.rootDir) rmSync(rootDir, { recursive: true, force: true });
  });
}

/** A harness around a server started elsewhere (e.g. a child process) from its root dir and URL. */
export function harnessFor(server: RunningServer, rootDir: string, stop: () => Promise<void>): TestServer {
  const pki = join(rootDir, 'pki');
  const agent = new Agent({
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
    keepAlive: true,
  });
  const anonAgent = new Agent({ ca: readFileSync(join(pki, 'ca.crt')), keepAlive: true });
  const kubeconfig = join(rootDir, 'admin.kubeconfig');
  return {
    server,
    rootDir,
    url: server.url,
    kubeconfig,
    request: (method, path, body, opts) => doRequest(opts?.anonymous || opts?.token ? anonAgent : agent, server.url, method, path, body, opts),
    kubectl: (args, opts) => runKubectl(kubeconfig, args, opts),
    async stop() {
      agent.destroy();
      anonAgent.destroy();
      await stop();
    },
  };
}

export function doRequest(agent: Agent, base: string, method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    let payload: Buffer | undefined;
    if (body !== undefined) {
      payload = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      if (!headers['Content-Type'] && !headers['content-type']) headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    const req = httpsRequest(new URL(path, base), { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, raw, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

export function kubectlPath(): string {
  const r = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  if (!p) throw new Error('kubectl is not installed: the end-to-end tests need the real kubectl 1.32 on PATH');
  return p;
}

export function runKubectl(
  kubeconfig: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cacheDir = join(kubeconfig, '..', 'kubectl-cache');
    const child = spawn(kubectlPath(), ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], {
      env: { ...process.env, HOME: process.env.ATRIUM_TEST_HOME ?? process.env.HOME, ...(opts.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** The project's bin/ (the kubectl plugins), from dist/test/helpers. */
export const pluginBinDir = resolve(import.meta.dirname, '..', '..', '..', 'bin');

/**
 * kubectl as a user runs it with the project's plugins: KUBECONFIG in the environment (no --kubeconfig flag, so
 * the plugins find it as kubectl hands it over), bin/ first on PATH and HOME as given.
 */
export function runKubectlWithPlugins(args: string[], kubeconfig: string, home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(kubectlPath(), args, {
      env: { ...process.env, KUBECONFIG: kubeconfig, PATH: `${pluginBinDir}:${process.env.PATH}`, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}

/** Writes `dir/<name>.kubeconfig` for the server that authenticates with a bearer token only (no client certificate). */
export function writeTokenKubeconfig(ts: TestServer, dir: string, name: string, token: string): string {
  const path = join(dir, `${name}.kubeconfig`);
  const ca = Buffer.from(readFileSync(join(ts.rootDir, 'pki', 'ca.crt'))).toString('base64');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: atrium, cluster: {server: "${ts.url}", certificate-authority-data: ${ca}}}]`,
      `users: [{name: ${name}, user: {token: "${token}"}}]`,
      `contexts: [{name: ${name}, context: {cluster: atrium, user: ${name}}}]`,
      `current-context: ${name}`,
    ].join('\n'),
  );
  return path;
}
