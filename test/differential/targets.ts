/**
 * The servers a differential case is sent to: kube-apiserver v1.32.4 on etcd 3.5.16 (the reference, started by
 * bench/kube/start-kube-apiserver.sh from the binaries bench/kube/build-anchors.sh caches), atrium's root workspace on
 * SQLite and atrium's root workspace on a real etcd. Each is reached over HTTPS with an admin client certificate
 * (system:masters on kube-apiserver, atrium's admin on atrium).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { doRequest, harnessFor, startTestServer, type HttpResponse } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { startEtcd } from '../helpers/etcd.js';

export interface Target {
  name: 'kube' | 'sqlite' | 'etcd';
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  stop(): Promise<void>;
}

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const anchorsBin = join(process.env.ATRIUM_ANCHORS ?? join(homedir(), '.cache', 'atrium', 'anchors'), 'bin');

/**
 * Starts etcd + kube-apiserver in a temp dir for this suite and stops exactly those two processes (by the PIDs the
 * start script recorded) in stop(). Throws when the reference binaries are missing: `.ci/run` builds them, and a
 * differential suite without its reference must fail rather than pass vacuously.
 */
export async function startReference(): Promise<Target> {
  const kas = process.env.KUBE_APISERVER ?? join(anchorsBin, 'kube-apiserver');
  const etcd = process.env.ETCD ?? join(anchorsBin, 'etcd');
  for (const b of [kas, etcd]) {
    if (!existsSync(b)) throw new Error(`the differential suite's reference is missing: ${b} (build it with bench/kube/build-anchors.sh; .ci/run does)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'atrium-diff-kas-'));
  const run = join(dir, 'run');
  const started = spawnSync('bash', [join(repoRoot, 'bench', 'kube', 'start-kube-apiserver.sh'), run], {
    encoding: 'utf8',
    env: { ...process.env, KUBE_APISERVER: kas, ETCD: etcd },
    timeout: 240_000,
  });
  const stopScript = () => spawnSync('bash', [join(repoRoot, 'bench', 'kube', 'stop-kube-apiserver.sh'), run], { encoding: 'utf8', timeout: 60_000 });
  if (started.status !== 0) {
    stopScript();
    throw new Error(`kube-apiserver did not start:\n${started.stdout}\n${started.stderr}`);
  }
  const env = Object.fromEntries(
    readFileSync(join(run, 'env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const pki = join(run, 'pki');
  const agent = new Agent({
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
    keepAlive: true,
  });
  const base = env.KAS_URL!;
  return {
    name: 'kube',
    request: (method, path, body, headers) => doRequest(agent, base, method, path, body, { headers }),
    async stop() {
      agent.destroy();
      stopScript();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** atrium on SQLite (`etcd: false`) or on a real etcd of its own, with the built-in controllers off (as kube-apiserver runs without kube-controller-manager). */
export async function startAtrium(onEtcd: boolean): Promise<Target> {
  const etcd = onEtcd ? await startEtcd() : undefined;
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-diff-'));
  if (process.env.ATRIUM_DIFF_KINDS === 'workloads') {
    // The workload kinds: a simulated cluster's API and admission, none of its controllers (./workload-kinds.ts).
    const cluster = await startPcluster({ name: 'diff', rootDir, bindAddress: '127.0.0.1', securePort: 0, runControllers: false, builtinControllers: false, ...(etcd ? { etcd: { endpoints: etcd.endpoints, compactionIntervalMs: 0 } } : {}) });
    const ts = harnessFor(cluster, rootDir, async () => {
      await cluster.stop();
      await etcd?.stop();
      rmSync(rootDir, { recursive: true, force: true });
    });
    return { name: onEtcd ? 'etcd' : 'sqlite', request: (method, path, body, headers) => ts.request(method, path, body, { headers }), stop: () => ts.stop() };
  }
  const ts = await startTestServer({
    rootDir,
    server: etcd ? { etcd: { endpoints: etcd.endpoints, compactionIntervalMs: 0 } } : {},
  });
  return {
    name: onEtcd ? 'etcd' : 'sqlite',
    request: (method, path, body, headers) => ts.request(method, path, body, { headers }),
    async stop() {
      await ts.stop();
      await etcd?.stop();
      rmSync(rootDir, { recursive: true, force: true });
    },
  };
}
