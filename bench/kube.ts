/**
 * Issue 21: kube-apiserver as the reference. One client-go load generator (bench/loadgen-go: a clientset with
 * client-go's defaults — protobuf for built-in kinds, HTTP/2 when offered — and no client-side rate limit, c=64) runs
 * against kube-apiserver v1.32.4 on etcd 3.5.16, atrium on etcd (the same etcd build) and atrium on SQLite, in turn,
 * for ATRIUM_KUBE_BENCH_ROUNDS rounds (default 2; medians reported): creates/s of 1 KB ConfigMaps, GET by name/s,
 * updates/s, p50 of a LIST of 5,000, and watch delivery p50/p99 with 500 and with 1,000 watchers at 100 writes/s. Each figure is
 * printed with its ratio to kube-apiserver's (throughputs: atrium / kube-apiserver, higher is better; latencies:
 * atrium / kube-apiserver, lower is better) and the machine's core count.
 *
 * The binaries are built from the Go module proxy by bench/kube/build-anchors.sh (the anchors tools' recipe) into
 * ~/.cache/atrium/anchors/bin (ATRIUM_ANCHORS) once and reused; kube-apiserver is started and stopped by
 * bench/kube/start-kube-apiserver.sh and stop-kube-apiserver.sh (copies of the anchors tools' scripts).
 */
import { spawn, spawnSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, homedir, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/etcd.js';
import type { Figure } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/bench
const source = resolve(here, '..', '..', 'bench'); // the bench/ sources: scripts and the Go load generator
const anchors = process.env.ATRIUM_ANCHORS ?? join(homedir(), '.cache', 'atrium', 'anchors');
const bin = join(anchors, 'bin');
const log = (line: string) => process.stderr.write(`  [kube bench] ${line}\n`);

/** The watcher counts of the watch phases (the issue's targets: 500 and 1,000). */
const WATCHER_COUNTS = [500, 1000] as const;
type WatchKey = `watch${(typeof WATCHER_COUNTS)[number]}${'P50Ms' | 'P99Ms' | 'Events' | 'Expected'}`;
type Metrics = Record<'createsPerSec' | 'getsPerSec' | 'updatesPerSec' | 'listP50Ms' | WatchKey | 'startMs' | 'peakRssMiB', number>;

export interface Started {
  kubeconfig: string;
  /** The API server's own start: from its process launch to ready (its storage already running). */
  startMs: number;
  /** The processes that serve it (the API server, and etcd where it has one): their peak RSS is summed. */
  pids(): number[];
  stop(): Promise<void>;
}

interface Target {
  name: string;
  /** Run only when ATRIUM_KUBE_BENCH_TARGETS names it. */
  optional?: boolean;
  start(): Promise<Started>;
}

/** A process's peak resident set (VmHWM) in MiB, 0 when it cannot be read. */
function peakRssMiB(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

/** Runs a command whose standard output the caller reads (it is also passed on to ours). */
function runCapturing(cmd: string, args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  process.stderr.write(r.stdout ?? '');
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
  return r.stdout;
}

function buildTools(withKas: boolean): string {
  log('kube-apiserver v1.32.4 and etcd v3.5.16: bench/kube/build-anchors.sh (cached builds are reused)');
  run('bash', [join(source, 'kube', 'build-anchors.sh'), withKas ? 'kas' : 'etcd'], { env: { ...process.env, ATRIUM_ANCHORS: anchors } });
  const loadgen = join(bin, 'atrium-loadgen');
  log('the client-go load generator: go build bench/loadgen-go');
  run('go', ['build', '-o', loadgen, '.'], { cwd: join(source, 'loadgen-go'), env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim() } });
  return loadgen;
}

async function waitFor(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A fresh single-member etcd 3.5.16 (the build kube-apiserver gets) in its own temp dir. */
async function startEtcd(): Promise<{ endpoint: string; pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-kube-bench-etcd-'));
  const client = `http://127.0.0.1:${await freePort()}`;
  const peer = `http://127.0.0.1:${await freePort()}`;
  const proc = spawn(join(bin, 'etcd'), ['--name', 'bench', '--data-dir', join(dir, 'data'), '--listen-client-urls', client, '--advertise-client-urls', client, '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `bench=${peer}`, '--log-level', 'warn'], { stdio: 'ignore' });
  await waitFor('etcd', async () => (await fetch(`${client}/health`).then((r) => r.ok).catch(() => false)), 30_000);
  return {
    endpoint: client,
    pid: proc.pid!,
    stop: async () => {
      await stopChild(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    proc.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

/** An atrium server in a child process (bench/server-child.ts, or etcd-server-child.ts on etcd). */
async function startAtrium(child: string, extraArgs: string[]): Promise<{ kubeconfig: string; proc: ChildProcess; rootDir: string; startMs: number }> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-kube-bench-'));
  const t0 = performance.now();
  const proc = fork(join(here, child), [rootDir, ...extraArgs], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    proc.once('message', () => resolve());
    proc.once('exit', (code) => reject(new Error(`${child} exited with ${code}`)));
  });
  return { kubeconfig: join(rootDir, 'admin.kubeconfig'), proc, rootDir, startMs: performance.now() - t0 };
}

/** atrium on a fresh etcd 3.5.16 (bench/etcd-server-child.ts; `one-thread` keeps the etcd client on its thread). */
async function atriumOnEtcd(args: string[]): Promise<Started> {
  const etcd = await startEtcd();
  const a = await startAtrium('etcd-server-child.js', [etcd.endpoint, ...args]);
  return {
    kubeconfig: a.kubeconfig,
    startMs: a.startMs,
    pids: () => [a.proc.pid!, etcd.pid],
    stop: async () => {
      await stopChild(a.proc);
      await etcd.stop();
      rmSync(a.rootDir, { recursive: true, force: true });
    },
  };
}

/** atrium on its embedded SQLite (bench/server-child.ts; `one-thread` keeps SQLite on the serving thread). */
export async function atriumOnSqlite(args: string[]): Promise<Started> {
  const a = await startAtrium('server-child.js', args);
  return {
    kubeconfig: a.kubeconfig,
    startMs: a.startMs,
    pids: () => [a.proc.pid!],
    stop: async () => {
      await stopChild(a.proc);
      rmSync(a.rootDir, { recursive: true, force: true });
    },
  };
}

/** Whether bench/kube/build-anchors.sh has built kube-apiserver and etcd (into ATRIUM_ANCHORS/bin). */
export function kubeApiserverBuilt(): boolean {
  return existsSync(join(bin, 'kube-apiserver')) && existsSync(join(bin, 'etcd'));
}

/**
 * kube-apiserver v1.32.4 on a fresh etcd 3.5.16 (bench/kube/start-kube-apiserver.sh, from the cached builds) in its own
 * temp dir; `extraArgs` are more kube-apiserver flags. stop() stops both and removes the dir.
 */
export function startKubeApiserver(extraArgs = ''): Started {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-kube-bench-kas-'));
  const out = runCapturing('bash', [join(source, 'kube', 'start-kube-apiserver.sh'), dir], { ...process.env, KUBE_APISERVER: join(bin, 'kube-apiserver'), ETCD: join(bin, 'etcd'), ...(extraArgs ? { KAS_EXTRA_ARGS: extraArgs } : {}) });
  // The script times kube-apiserver from its launch to /readyz (etcd already up), as startAtrium times atrium.
  const readyS = Number(/readyz after ([\d.]+)s/.exec(out)?.[1] ?? NaN);
  return {
    kubeconfig: join(dir, 'admin.kubeconfig'),
    startMs: readyS * 1000,
    pids: () => readFileSync(join(dir, 'pids'), 'utf8').split('\n').map((l) => Number(l.split(' ')[0])).filter((p) => p > 0),
    stop: async () => {
      run('bash', [join(source, 'kube', 'stop-kube-apiserver.sh'), dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const targets: Target[] = [
  { name: 'kube-apiserver', start: async () => startKubeApiserver() },
  { name: 'atrium on etcd', start: () => atriumOnEtcd([]) },
  // Not run by default: the etcd client on the server's thread, for comparison (ATRIUM_KUBE_BENCH_TARGETS).
  { name: 'atrium on etcd one thread', optional: true, start: () => atriumOnEtcd(['one-thread']) },
  { name: 'atrium on SQLite', start: () => atriumOnSqlite([]) },
  // Not run by default: SQLite on the server's thread, for comparison (ATRIUM_KUBE_BENCH_TARGETS).
  { name: 'atrium on SQLite one thread', optional: true, start: () => atriumOnSqlite(['one-thread']) },
];

function loadgenRun(loadgen: string, kubeconfig: string): Promise<Metrics> {
  return new Promise((resolve, reject) => {
    const args = ['-kubeconfig', kubeconfig, '-c', '64', '-duration', process.env.ATRIUM_KUBE_BENCH_DURATION ?? '5s', '-list-size', '5000', '-watchers', WATCHER_COUNTS.join(','), '-rate', '100', '-watch-duration', '10s'];
    const proc = spawn(loadgen, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Metrics) : reject(new Error(`loadgen exited with ${code}`))));
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function runKubeBenchmarks(): Promise<Figure[]> {
  // ATRIUM_KUBE_BENCH_TARGETS=atrium-on-sqlite,... runs a subset (a smoke run; ratios need kube-apiserver).
  const only = process.env.ATRIUM_KUBE_BENCH_TARGETS?.split(',');
  const withKas = !only || only.includes('kube-apiserver');
  const loadgen = buildTools(withKas);
  if (withKas && !existsSync(join(bin, 'kube-apiserver'))) throw new Error('kube-apiserver was not built');
  log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} before the run`);
  const rounds = Number(process.env.ATRIUM_KUBE_BENCH_ROUNDS ?? 2);
  const cores = availableParallelism();
  const results = new Map<string, Metrics[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      const id = target.name.replaceAll(' ', '-').toLowerCase();
      if (only ? !only.includes(id) : target.optional) continue;
      log(`round ${round}/${rounds}: ${target.name} (load average ${loadavg()[0]!.toFixed(1)})`);
      const t = await target.start();
      try {
        const m = { ...(await loadgenRun(loadgen, t.kubeconfig)), startMs: t.startMs };
        m.peakRssMiB = t.pids().reduce((sum, pid) => sum + peakRssMiB(pid), 0);
        log(`  ${JSON.stringify(m)}`);
        for (const n of WATCHER_COUNTS) {
          const lost = m[`watch${n}Expected`] - m[`watch${n}Events`];
          if (lost > 0) log(`  ${target.name}, ${n} watchers: ${lost} of ${m[`watch${n}Expected`]} watch events never arrived`);
        }
        results.get(target.name)!.push(m);
      } finally {
        await t.stop();
      }
    }
  }
  const med = (name: string, key: keyof Metrics) => (results.get(name)!.length ? median(results.get(name)!.map((m) => m[key])) : 0);
  const rows: [keyof Metrics, string, string][] = [
    ['createsPerSec', '1 KB ConfigMap creates, c=64', 'creates/s'],
    ['getsPerSec', 'GET by name, c=64', 'GET/s'],
    ['updatesPerSec', 'ConfigMap updates, c=64', 'updates/s'],
    ['listP50Ms', 'LIST of 5,000 ConfigMaps p50', 'ms'],
    ['startMs', 'start-up: launch to ready (storage already running)', 'ms'],
    ['peakRssMiB', 'peak RSS of the serving processes after the whole load (API server + etcd where it has one)', 'MiB'],
    ...WATCHER_COUNTS.flatMap((n): [keyof Metrics, string, string][] => [
      [`watch${n}P50Ms`, `watch delivery p50, ${n.toLocaleString('en')} watchers, 100 writes/s`, 'ms'],
      [`watch${n}P99Ms`, `watch delivery p99, ${n.toLocaleString('en')} watchers, 100 writes/s`, 'ms'],
    ]),
  ];
  const figures: Figure[] = [];
  for (const name of targets.filter((t) => t.name !== 'kube-apiserver' && results.get(t.name)!.length).map((t) => t.name)) {
    for (const [key, metric, unit] of rows) {
      const value = med(name, key);
      const reference = med('kube-apiserver', key);
      figures.push({
        benchmark: `kube (${cores} cores, client-go, median of ${rounds}): ${name}`,
        metric,
        value,
        unit,
        reference: 'kube-apiserver v1.32.4 + etcd 3.5.16',
        referenceValue: reference,
        ratio: reference ? value / reference : 0,
      });
    }
  }
  return figures;
}

// Usable on its own: node dist/bench/kube.js
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runKubeBenchmarks()) printFigure(f);
}
