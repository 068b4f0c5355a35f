/**
 * Issue 7 benchmark: syncer latency with 1,000 objects assigned across 3 clusters.
 *
 * One `atrium start` and three `atrium pcluster` processes, with one Syncer per cluster in this process (none mode:
 * the SyncTargets carry no kubeconfig; the syncers run here so `onSynced` can observe them). Separate processes
 * matter: in one process the four API servers' SQLite commits saturate a single core and the figure measures that.
 * 1,000 Deployments (replicas 0, so the clusters' controllers stay quiet), labelled round-robin for the three
 * SyncTargets, are created upstream twice, each time with fresh servers: at a steady 100/s, and in one burst (as fast
 * as 8 clients can send them, which measures draining a queue instead); ATRIUM_BENCH_SYNCER_RATE picks one (0 = the
 * burst). Then each downstream copy gets a status write, in the same way.
 *
 * Figures: p99 from the upstream create request to the downstream create (spec down), and from the downstream status
 * write to the upstream status write (status up), each against the issue's 1 s budget; Karmada's published 1.3 s
 * propagation latency is printed as a second reference line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../src/apimachinery/object.js';
import { RestClient } from '../src/client/rest-client.js';
import { logger } from '../src/logging/logger.js';
import { locatorOf } from '../src/multicluster/api/keys.js';
import { Syncer } from '../src/multicluster/syncer/syncer.js';
import { GiveUp, eventually } from '../test/helpers/eventually.js';
import type { Figure } from './lib.js';

const OBJECTS = 1000;
const CLUSTERS = 3;
const CONCURRENCY = 8;
/**
 * Upstream create rates measured, each with fresh servers: a steady 100/s, then a burst (Infinity: as fast as
 * CONCURRENCY clients go). ATRIUM_BENCH_SYNCER_RATE picks one (0 = the burst).
 */
const RATES = process.env.ATRIUM_BENCH_SYNCER_RATE === undefined ? [100, Infinity] : [Number(process.env.ATRIUM_BENCH_SYNCER_RATE) || Infinity];
const BUDGET_MS = 1000;
const KARMADA_MS = 1300;
const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

function p99(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)] ?? NaN;
}

const atriumBin = fileURLToPath(new URL('../../bin/atrium', import.meta.url));

/** Starts `atrium <args>` and waits for `<dir>/admin.kubeconfig` and the serving line; returns the child and a client. */
async function startChild(args: string[], dir: string): Promise<{ child: ChildProcess; client: RestClient }> {
  // ATRIUM_BENCH_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the servers.
  const nodeArgs = process.env.ATRIUM_BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // ATRIUM_BENCH_CHILD_LOG_DIR: each server's debug log (one line per request) goes to <dir>/<command>-<pid>.log.
  const logDir = process.env.ATRIUM_BENCH_CHILD_LOG_DIR;
  const child = spawn(process.execPath, [...nodeArgs, atriumBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ATRIUM_LOG_LEVEL: logDir ? 'debug' : 'error' } });
  if (logDir) {
    const log = createWriteStream(join(logDir, `${args[0]}-${child.pid}.log`));
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  await eventually(`${args[0]} to serve`, async () => {
    if (child.exitCode !== null) throw new GiveUp(`atrium ${args.join(' ')} exited: ${out}`);
    return out.includes('serving at') && existsSync(join(dir, 'admin.kubeconfig'));
  }, 30_000);
  return { child, client: await RestClient.fromKubeconfig(join(dir, 'admin.kubeconfig'), { userAgent: 'atrium-syncer/bench' }) };
}

async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await fn(next++);
  }));
}

/** Runs the benchmark at each rate; per rate, the two p99 figures (pass/fail against 1 s) and the Karmada lines. */
export async function runSyncerBenchmarks(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const rate of RATES) figures.push(...(await runAtRate(rate)));
  return figures;
}

async function runAtRate(RATE: number): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-syncer-'));
  logger.setLevel('error');
  const children: ChildProcess[] = [];
  const syncers: Syncer[] = [];
  const clients: RestClient[] = [];
  const sent = new Map<string, number>();
  const downLatency = new Map<string, number>();
  const statusWritten = new Map<string, number>();
  const upLatency = new Map<string, number>();
  let createSeconds = 0;
  try {
    const atrium = await startChild(['start', '--root-dir', join(dir, 'atrium'), '--secure-port', '0'], join(dir, 'atrium'));
    children.push(atrium.child);
    const up = atrium.client;
    clients.push(up);
    const down: RestClient[] = [];
    for (let c = 1; c <= CLUSTERS; c++) {
      const pc = await startChild(['pcluster', '--name', `bench${c}`, '--root-dir', join(dir, `pc${c}`), '--ready-delay', '100ms'], join(dir, `pc${c}`));
      children.push(pc.child);
      const d = pc.client;
      down.push(d);
      clients.push(d);
      await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: `bench${c}` }, spec: { resources: ['deployments.apps'] } });
      const syncer = new Syncer({
        upstream: await RestClient.fromKubeconfig(join(dir, 'atrium', 'admin.kubeconfig'), { userAgent: 'atrium-syncer/bench' }),
        upstreamCluster: 'root',
        downstream: await RestClient.fromKubeconfig(join(dir, `pc${c}`, 'admin.kubeconfig'), { userAgent: 'atrium-syncer/bench' }),
        syncTargetName: `bench${c}`,
        heartbeatIntervalMs: 5000,
        importPollIntervalMs: 2000,
        onSynced: (direction, _gvr, obj) => {
          const name = obj.metadata?.name ?? '';
          const now = performance.now();
          if (direction === 'down' && sent.has(name) && !downLatency.has(name)) downLatency.set(name, now - sent.get(name)!);
          if (direction === 'up' && statusWritten.has(name) && !upLatency.has(name)) upLatency.set(name, now - statusWritten.get(name)!);
        },
      });
      syncers.push(syncer);
      void syncer.start();
    }
    for (let c = 1; c <= CLUSTERS; c++) {
      await eventually(`bench${c} deployments Accepted`, async () => ((await up.get(syncTargetsGVR, `bench${c}`)).status as { syncedResources?: { state: string }[] } | undefined)?.syncedResources?.[0]?.state === 'Accepted', 120_000);
    }
    await up.create(namespacesGVR, { metadata: { name: 'bench' } });
    await eventually('deployments served', async () => (await up.list(deploymentsGVR, { namespace: 'bench' })) && true, 120_000);
    await eventually('syncers syncing deployments', async () => syncers.every((s) => s.syncing().includes('deployments.apps')), 120_000);
    const deployment = (i: number): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `d-${i}`, namespace: 'bench', labels: { 'workload.kcp.io/cluster': `bench${(i % CLUSTERS) + 1}`, app: `d-${i}` } },
      spec: { replicas: 0, selector: { matchLabels: { app: `d-${i}` } }, template: { metadata: { labels: { app: `d-${i}` } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    // A steady arrival rate (RATE objects/s): the latency of each write, not the time to drain a burst queued at once.
    const t0 = performance.now();
    await pool(OBJECTS, CONCURRENCY, async (i) => {
      const due = t0 + (i * 1000) / RATE - performance.now();
      if (due > 0) await new Promise((r) => setTimeout(r, due));
      sent.set(`d-${i}`, performance.now());
      await up.create(deploymentsGVR, deployment(i));
    });
    createSeconds = (performance.now() - t0) / 1000;
    await eventually('every object downstream', async () => downLatency.size >= OBJECTS, 120_000);
    // Let the clusters' own status writes (observedGeneration) reach upstream before measuring ours.
    await new Promise((r) => setTimeout(r, 2000));
    const nsOf: string[] = [];
    for (let c = 0; c < CLUSTERS; c++) nsOf[c] = (await down[c]!.list(namespacesGVR)).items.find((n) => locatorOf(n)?.namespace === 'bench')!.metadata!.name!;
    await pool(OBJECTS, CONCURRENCY, async (i) => {
      const c = i % CLUSTERS;
      const name = `d-${i}`;
      // The cluster's deployment controller may write the status at the same time: retry on conflict, timing the
      // attempt that succeeds.
      for (let attempt = 0; ; attempt++) {
        const cur = await down[c]!.get(deploymentsGVR, name, { namespace: nsOf[c] });
        statusWritten.set(name, performance.now());
        try {
          await down[c]!.updateStatus(deploymentsGVR, { ...cur, status: { ...(cur.status ?? {}), conditions: [{ type: 'BenchMarker', status: 'True', reason: 'Bench', message: name, lastUpdateTime: new Date().toISOString(), lastTransitionTime: new Date().toISOString() }] } }, { namespace: nsOf[c] });
          break;
        } catch (err) {
          if ((err as { code?: number }).code !== 409 || attempt > 20) throw err;
        }
      }
    });
    await eventually('every status upstream', async () => upLatency.size >= OBJECTS, 60_000);
  } finally {
    for (const s of syncers) {
      await s.stop();
      s.opts.upstream.close();
      s.opts.downstream.close();
    }
    for (const c of clients) c.close();
    await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => (c.once('exit', r), c.kill('SIGTERM'))))));
    logger.setLevel('info');
    rmSync(dir, { recursive: true, force: true });
  }
  const downP99 = p99([...downLatency.values()]);
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;
  console.log(`syncer: ${OBJECTS} creates in ${createSeconds.toFixed(1)} s (target rate ${RATE}/s); median down ${median([...downLatency.values()]).toFixed(0)} ms, median up ${median([...upLatency.values()]).toFixed(0)} ms`);
  const upP99 = p99([...upLatency.values()]);
  const figure = (metric: string, value: number, reference: string, referenceValue: number, pass?: boolean): Figure => ({
    benchmark: `syncer (${OBJECTS} objects, ${CLUSTERS} clusters, ${RATE === Infinity ? 'one burst' : `${RATE}/s`})`,
    metric,
    value,
    unit: 'ms',
    reference,
    referenceValue,
    ratio: value / referenceValue,
    ...(pass === undefined ? {} : { target: 'p99 ≤ 1 s', pass }),
  });
  return [
    figure('p99 upstream write → downstream object', downP99, '1 s budget', BUDGET_MS, downP99 <= BUDGET_MS),
    figure('p99 upstream write → downstream object', downP99, 'Karmada published', KARMADA_MS),
    figure('p99 downstream status → upstream status', upP99, '1 s budget', BUDGET_MS, upP99 <= BUDGET_MS),
    figure('p99 downstream status → upstream status', upP99, 'Karmada published', KARMADA_MS),
  ];
}
