/**
 * Scheduling benchmarks (issue 8), in this process:
 *
 * 1. Placement latency: atrium plus 3 simulated clusters (push-mode SyncTargets, `bind compute`, spread All). A
 *    Deployment of 9 replicas is created in atrium and timed until its aggregated root reads 9 ready; the reference is
 *    the clusters' own ready delay: each cluster's share (3 replicas) created directly on all three at once, until all
 *    read 3 ready. Rounds alternate the two; the figure is the p99 of (through atrium − directly) per round. Target:
 *    under 1 s (ATRIUM_BENCH_SCHED_ROUNDS rounds, default 10).
 * 2. Scale: ATRIUM_BENCH_PCLUSTERS simulated clusters (default 100) in ATRIUM_BENCH_PCLUSTER_PROCESSES child processes
 *    (default 4; see pcluster-fleet-child.ts), each with a none-mode syncer beside it, registered to one atrium in
 *    this process; timed until every SyncTarget is Ready and HeartbeatHealthy, then total RSS and CPU are sampled over
 *    an idle window (ATRIUM_BENCH_IDLE_MS, default 20 s) that starts ATRIUM_BENCH_SETTLE_MS (default 30 s) after all
 *    Ready. Target: all Ready, and still Ready after the window.
 * Standalone: `node dist/bench/scheduling.js`; ATRIUM_BENCH_SCHED_ONLY=latency|scale runs one part.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../src/apimachinery/object.js';
import { startServer, type RunningServer } from '../src/server/server.js';
import { RestClient } from '../src/client/rest-client.js';
import { logger } from '../src/logging/logger.js';
import { syncTargetsGVR } from '../src/multicluster/api/types.js';
import { deploymentsGVR } from '../src/multicluster/scheduling/types.js';
import { multiclusterServerOptions, type MulticlusterOptions } from '../src/multicluster/server-options.js';
import { eventually } from '../test/helpers/eventually.js';
import { startFleet } from '../test/helpers/fleet.js';
import type { Figure } from './lib.js';

const READY_DELAY_MS = 200;

function deployment(name: string, replicas: number): KubeObject {
  const labels = { app: name };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels }, spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } } };
}

const readyOf = async (c: RestClient, name: string) => ((await c.get(deploymentsGVR, name, { namespace: 'default' })).status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
const isReadyTarget = (t: KubeObject) => ((t.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** atrium's multi-cluster timings in both benchmarks. */
const benchMulticluster = (): MulticlusterOptions => ({ pushSyncer: { heartbeatIntervalMs: 5000, importPollIntervalMs: 1000 }, scheduling: { resyncMs: 1000 }, splitter: { resyncMs: 1000 } });

async function startAtrium(dir: string): Promise<{ atrium: RunningServer; up: RestClient }> {
  const atrium = await startServer({
    rootDir: join(dir, 'atrium'),
    bindAddress: '127.0.0.1',
    securePort: 0,
    ...multiclusterServerOptions(benchMulticluster()),
  });
  return { atrium, up: new RestClient({ url: atrium.url, ca: atrium.caPem, token: atrium.adminToken, userAgent: 'atrium-bench/v0.0.0' }) };
}

async function placementLatency(rounds: number): Promise<Figure> {
  // atrium (with its built-in controllers, as `atrium start`) and three 2-node clusters, push mode, `bind compute`.
  const fleet = await startFleet({
    name: 'bench-sched',
    clusters: [1, 2, 3].map((i) => ({ name: `c${i}`, nodes: 2, readyDelayMs: READY_DELAY_MS })),
    multicluster: benchMulticluster(),
    server: { builtinControllers: true },
    bindCompute: true,
  });
  const { up } = fleet;
  const downs = fleet.clusters.map((c) => c.client);
  try {
    await eventually('3 Ready SyncTargets and the Deployment API', async () => (await up.list(syncTargetsGVR)).items.filter(isReadyTarget).length === 3 && !!(await up.list(deploymentsGVR, { namespace: 'default' })), 60_000, 50);
    const viaAtrium: number[] = [];
    const direct: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const name = `d${r}`;
      // The clusters' own ready delay: each cluster's share (3 replicas) created on all three at once.
      let t0 = Date.now();
      await Promise.all(downs.map((d) => d.create(deploymentsGVR, deployment(name, 3), { namespace: 'default' })));
      await eventually(`${name} ready directly on all 3 clusters`, async () => (await Promise.all(downs.map((d) => readyOf(d, name)))).every((n) => n === 3), 60_000, 10);
      direct.push(Date.now() - t0);
      await Promise.all(downs.map((d) => d.delete(deploymentsGVR, name, { namespace: 'default' })));
      t0 = Date.now();
      await up.create(deploymentsGVR, deployment(`a${r}`, 9), { namespace: 'default' });
      await eventually(`a${r} ready through atrium`, async () => (await readyOf(up, `a${r}`)) === 9, 60_000, 10);
      viaAtrium.push(Date.now() - t0);
      await up.delete(deploymentsGVR, `a${r}`, { namespace: 'default' });
    }
    // Added latency per round: through atrium minus directly (rounds alternate, so both see the same machine load).
    const added = viaAtrium.map((v, i) => v - direct[i]!);
    const p99 = percentile(added, 99);
    return {
      benchmark: 'scheduling: Deployment (9 replicas) created in atrium → all ready over 3 clusters (push syncers, spread)',
      metric: 'p99 added latency',
      value: p99,
      unit: 'ms',
      reference: `the clusters' own ready delay: 3 replicas created directly on each of the 3 clusters at once, p50 ${percentile(direct, 50)} ms p99 ${percentile(direct, 99)} ms; through atrium p50 ${percentile(viaAtrium, 50)} ms p99 ${percentile(viaAtrium, 99)} ms; added p50 ${percentile(added, 50)} ms; pod ready delay ${READY_DELAY_MS} ms; ${rounds} rounds`,
      referenceValue: percentile(direct, 99),
      ratio: percentile(viaAtrium, 99) / percentile(direct, 99),
      target: '< 1000 ms',
      pass: p99 < 1000,
    };
  } finally {
    await fleet.stop().catch(() => undefined);
  }
}

interface FleetUsage {
  rss: number;
  cpuMicros: number;
}

/** One child process of pcluster-fleet-child.js: its clusters announce themselves, usage is sampled on request. */
class Fleet {
  readonly proc: ChildProcess;
  private waiters: ((u: FleetUsage) => void)[] = [];
  readonly allStarted: Promise<void>;

  constructor(dir: string, first: number, count: number, upstream: { url: string; ca: string; token: string }, onStarted: (name: string, kubeconfig: string) => void) {
    const here = dirname(fileURLToPath(import.meta.url));
    this.proc = fork(join(here, 'pcluster-fleet-child.js'), [dir, String(first), String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ATRIUM_FLEET_UPSTREAM: JSON.stringify(upstream), ATRIUM_FLEET_READY_DELAY_MS: String(READY_DELAY_MS) } });
    let done!: () => void;
    let failed!: (err: Error) => void;
    this.allStarted = new Promise((resolve, reject) => ((done = resolve), (failed = reject)));
    // A child that dies before its clusters are up fails the run instead of leaving it waiting for them.
    this.proc.once('exit', (code, signal) => failed(new Error(`fleet child for clusters ${first}..${first + count - 1} exited (code ${code}, signal ${signal}) before all its clusters started`)));
    this.proc.on('message', (m: { kind: string; name?: string; kubeconfig?: string } & Partial<FleetUsage>) => {
      if (m.kind === 'started') onStarted(m.name!, m.kubeconfig!);
      else if (m.kind === 'all-started') done();
      else if (m.kind === 'usage') this.waiters.shift()?.({ rss: m.rss!, cpuMicros: m.cpuMicros! });
    });
  }

  usage(): Promise<FleetUsage> {
    return new Promise((r) => {
      this.waiters.push(r);
      this.proc.send('usage');
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.send('stop');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Every resource the SyncTarget syncs is negotiated and Accepted: the cluster can take work of every type. */
const allAccepted = (t: KubeObject) => {
  const synced = (t.status as { syncedResources?: { state: string }[] } | undefined)?.syncedResources ?? [];
  return synced.length > 0 && synced.every((r) => r.state === 'Accepted');
};

const conditionTrue = (t: KubeObject, type: string) => ((t.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/**
 * Scale: `count` simulated clusters in `processes` child processes (each cluster a full pcluster API server with its
 * controllers, in-memory SQLite, one shared CA/serving certificate/service-account key), each with a none-mode syncer
 * in the same child (separate from atrium, as `atrium syncer` runs), all registered to one atrium in this process.
 * Measured: time from the first cluster start until every SyncTarget is Ready with HeartbeatHealthy and every one of
 * its resources negotiated and Accepted (the cluster can take work of every type), the summed RSS
 * of all processes, and their CPU over an idle window afterwards.
 */
/**
 * What "runs on this 2-core machine" means for the fleet: once registered and idle, everything together (atrium, the
 * clusters, their syncers) uses at most half of one core, leaving the machine's other 1.5 cores to the workloads and
 * their users, and at most 4 GiB of memory (a sixth of this machine's 24 GiB).
 */
const IDLE_CPU_BUDGET = 0.5;
const RSS_BUDGET = 4 * 2 ** 30;

async function manyClusters(count: number, processes: number, idleWindowMs: number, settleMs: number): Promise<Figure> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-sched-many-'));
  const { atrium, up } = await startAtrium(dir);
  const fleets: Fleet[] = [];
  const registrations: Promise<void>[] = [];
  const t0 = Date.now();
  try {
    const per = Math.ceil(count / processes);
    for (let first = 1; first <= count; first += per) {
      const n = Math.min(per, count - first + 1);
      fleets.push(
        new Fleet(dir, first, n, { url: atrium.url, ca: atrium.caPem, token: atrium.adminToken }, (name) => {
          // No spec.kubeconfig: atrium does not dial the cluster; the syncer in the child connects (none mode).
          registrations.push(up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name } }).then(() => undefined));
        }),
      );
    }
    await Promise.all(fleets.map((f) => f.allStarted));
    const startedSeconds = (Date.now() - t0) / 1000;
    await Promise.all(registrations);
    let ready = 0;
    await eventually(`${count} Ready SyncTargets`, async () => (ready = (await up.list(syncTargetsGVR)).items.filter((t) => conditionTrue(t, 'Ready') && conditionTrue(t, 'HeartbeatHealthy') && allAccepted(t)).length) === count, 600_000, 500);
    const seconds = (Date.now() - t0) / 1000;
    // Idle: nothing to sync, only heartbeats, resyncs and controllers' own timers.
    const sample = async () => {
      const children = await Promise.all(fleets.map((f) => f.usage()));
      const own = process.cpuUsage();
      return { rss: process.memoryUsage().rss + children.reduce((a, u) => a + u.rss, 0), atriumRss: process.memoryUsage().rss, atriumCpu: own.user + own.system, cpu: own.user + own.system + children.reduce((a, u) => a + u.cpuMicros, 0) };
    };
    // Let the registration aftermath (API imports, negotiation, the per-resource syncers starting) finish first.
    await new Promise((r) => setTimeout(r, settleMs));
    const before = await sample();
    await new Promise((r) => setTimeout(r, idleWindowMs));
    const after = await sample();
    const stillReady = (await up.list(syncTargetsGVR)).items.filter((t) => conditionTrue(t, 'Ready') && conditionTrue(t, 'HeartbeatHealthy') && allAccepted(t)).length;
    const pct = (micros: number) => ((micros / 1000 / idleWindowMs) * 100).toFixed(1);
    const idleCpuShare = (after.cpu - before.cpu) / 1000 / idleWindowMs;
    const mib = (b: number) => Math.round(b / 2 ** 20);
    return {
      benchmark: `scheduling: ${count} simulated clusters (${fleets.length} child processes, in-memory SQLite, shared certs, none-mode syncers beside them) registered to one atrium`,
      metric: 'seconds until all Ready + HeartbeatHealthy + every resource Accepted',
      value: seconds,
      unit: 's',
      reference: `all servers up after ${startedSeconds.toFixed(1)} s; total RSS ${mib(after.rss)} MiB (atrium process ${mib(after.atriumRss)} MiB); idle CPU ${pct(after.cpu - before.cpu)}% of one core (atrium ${pct(after.atriumCpu - before.atriumCpu)}%) over ${idleWindowMs / 1000} s from ${settleMs / 1000} s after all Ready; ${stillReady}/${count} still Ready after it`,
      referenceValue: startedSeconds,
      ratio: seconds / startedSeconds,
      target: `${count}/${count} Ready; idle ≤ ${IDLE_CPU_BUDGET * 100}% of one core, RSS ≤ ${RSS_BUDGET / 2 ** 30} GiB in all`,
      pass: ready === count && stillReady === count && idleCpuShare <= IDLE_CPU_BUDGET && after.rss <= RSS_BUDGET,
    };
  } finally {
    up.close();
    await Promise.all(fleets.map((f) => f.stop().catch(() => undefined)));
    await atrium.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

const scaleArgs = (): [number, number, number, number] => [Number(process.env.ATRIUM_BENCH_PCLUSTERS ?? 100), Number(process.env.ATRIUM_BENCH_PCLUSTER_PROCESSES ?? 4), Number(process.env.ATRIUM_BENCH_IDLE_MS ?? 20_000), Number(process.env.ATRIUM_BENCH_SETTLE_MS ?? 30_000)];

export async function runSchedulingBenchmarks(): Promise<Figure[]> {
  logger.setLevel('error');
  return [await placementLatency(Number(process.env.ATRIUM_BENCH_SCHED_ROUNDS ?? 10)), await manyClusters(...scaleArgs())];
}

if (process.argv[1]?.endsWith('scheduling.js')) {
  const { printFigure } = await import('./lib.js');
  logger.setLevel(process.env.ATRIUM_BENCH_LOG_LEVEL === 'debug' ? 'debug' : 'error');
  // Standalone: print each figure as soon as it is measured (the scale run is long).
  const only = process.env.ATRIUM_BENCH_SCHED_ONLY; // 'latency' or 'scale'
  if (only !== 'scale') printFigure(await placementLatency(Number(process.env.ATRIUM_BENCH_SCHED_ROUNDS ?? 10)));
  if (only !== 'latency') printFigure(await manyClusters(...scaleArgs()));
  process.exit(0);
}
