/**
 * /healthz, /livez and /readyz as kube-apiserver serves them (k8s.io/apiserver pkg/server/healthz): the root path runs
 * every named check, honours `?exclude=<name>` and `?verbose`, and on failure always lists every check (a failing one
 * as `[-]name failed: reason withheld`) followed by `<name> check failed`, 500; each check is also served on its own
 * at `<root>/<name>` ("ok", or 500 `internal server error: <why>`).
 *
 * The checks, named as kube-apiserver 1.32 names the ones atrium has an equivalent of:
 * - ping, log: always ok (log checks that glog flushes; atrium logs synchronously).
 * - etcd (healthz, livez, readyz): the storage answers; SQLite is always ok, etcd follows EtcdStore.isHealthy().
 * - etcd-readiness (readyz): the same probe (upstream's is a shorter-timeout variant of it).
 * - informer-sync (readyz): the bootstrap (CRD, namespace, RBAC caches) is done.
 * - shutdown (readyz): fails once the server has begun stopping.
 * Not served, because atrium has no equivalent: api-priority-and-fairness (no APF), kms-providers (no encryption at
 * rest), the poststarthook/* hooks (atrium's start sequence completes before it listens).
 */
import type { ServerResponse } from 'node:http';

export interface HealthCheck {
  name: string;
  /** Undefined when healthy, else why not. */
  check(): string | undefined;
}

export interface HealthChecks {
  healthz: HealthCheck[];
  livez: HealthCheck[];
  readyz: HealthCheck[];
}

export interface HealthState {
  /** Why the storage is unhealthy, or '' when it is fine. */
  storageProblem(): string;
  /** The start sequence (informer-like caches, bootstrap) has finished. */
  started(): boolean;
  /** stop() has begun. */
  shuttingDown(): boolean;
}

export function healthChecks(state: HealthState): HealthChecks {
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const log: HealthCheck = { name: 'log', check: () => undefined };
  const etcd: HealthCheck = { name: 'etcd', check: () => state.storageProblem() || undefined };
  const etcdReadiness: HealthCheck = { name: 'etcd-readiness', check: () => state.storageProblem() || undefined };
  const informerSync: HealthCheck = { name: 'informer-sync', check: () => (state.started() ? undefined : 'informers not started yet') };
  const shutdown: HealthCheck = { name: 'shutdown', check: () => (state.shuttingDown() ? 'process is shutting down' : undefined) };
  return {
    healthz: [ping, log, etcd],
    livez: [ping, log, etcd],
    readyz: [ping, log, etcd, etcdReadiness, informerSync, shutdown],
  };
}

const TEXT = 'text/plain; charset=utf-8';

function write(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/**
 * Serves `path` if it is a health root or one of its checks; false otherwise (the caller answers 404 then). Like
 * upstream's PathRecorderMux, the method does not matter.
 */
export function serveHealth(res: ServerResponse, path: string, query: URLSearchParams, all: HealthChecks): boolean {
  const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
  if (!m) return false;
  const name = m[1] as keyof HealthChecks;
  const checks = all[name];
  if (m[2] !== undefined) {
    const c = checks.find((x) => x.name === m[2]);
    if (!c) return false;
    const why = c.check();
    if (why === undefined) write(res, 200, 'ok');
    else write(res, 500, `internal server error: ${why}\n`);
    return true;
  }
  const excluded = new Set(query.getAll('exclude'));
  let out = '';
  let failed = false;
  for (const c of checks) {
    if (excluded.delete(c.name)) {
      out += `[+]${c.name} excluded: ok\n`;
      continue;
    }
    if (c.check() === undefined) out += `[+]${c.name} ok\n`;
    else {
      out += `[-]${c.name} failed: reason withheld\n`;
      failed = true;
    }
  }
  if (excluded.size) out += `warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((s) => JSON.stringify(s)).join(',')}\n`;
  // Always verbose on failure; http.Error appends a newline.
  if (failed) write(res, 500, `${out}${name} check failed\n`);
  else if (!query.has('verbose')) write(res, 200, 'ok');
  else write(res, 200, `${out}${name} check passed\n`);
  return true;
}
