/**
 * Issue 6 benchmarks, atrium on etcd (a local single-member etcd started for the run):
 * - 1 KB ConfigMap creates per second through an atrium replica on etcd, against raw etcd puts of the same
 *   size with the same client library and configuration (etcd3 through createEtcdClient, as atrium uses it)
 *   at the same concurrency, in the same run (target >= 50%);
 * - watch delivery latency from a write through replica A to a watcher on replica B, at a steady 500 writes/s
 *   paced by a timer (target p99 < 50 ms). Latency is the time the watcher on B received the event minus the
 *   time the write's request was sent to A, so it includes A's request handling, the etcd commit, etcd's watch
 *   stream to B, B's watch cache and B's HTTP watch response. p99 is taken over several thousand events after
 *   a warm-up.
 *
 * - the floor (no target): the same load against an HTTPS server that only puts each body into etcd through the
 *   same client (etcd-floor-child.ts), which shows how much of the gap to raw puts is HTTPS and the client itself.
 *
 * The API load comes from a lean HTTP/1.1 client (lean-https-client.ts): node:https costs more CPU per request
 * than atrium does to answer it, and on a small shared machine that would measure the load generator. Each
 * phase also reports the CPU each process used and the load average, so a figure taken on a busy machine can
 * be recognised as such.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEtcdClient } from '../src/storage/etcd/etcd-client.js';
import { startEtcd } from '../test/helpers/etcd.js';
import { type Figure } from './lib.js';
import { LeanHttpsClient } from './lean-https-client.js';

const here = dirname(fileURLToPath(import.meta.url));
const concurrency = Number(process.env.C ?? 64);
const log = (line: string) => process.stderr.write(`  [etcd bench] ${line}\n`);

function payload1k(name: string): Buffer {
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(900) } }));
}

/** Raw etcd puts of 1 KB values through the etcd3 client atrium builds (same library, same options) at `concurrency`. */
async function rawEtcdPuts(endpoints: string[], total: number, warmup: number, onMeasureStart: () => void): Promise<number> {
  const client = createEtcdClient({ endpoints });
  const value = Buffer.alloc(1024, 'x');
  const burst = async (count: number, prefix: string) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          const i = next++;
          if (i >= count) return;
          await client.put(`/bench/raw/${prefix}/${i}`).value(value).exec();
        }
      }),
    );
    return count / ((performance.now() - t0) / 1000);
  };
  try {
    // Warmed up like the API side (its replica has served `warmup` creates first): a cold client runs its first
    // thousands of calls through the unoptimised JIT tiers at a fraction of its steady rate.
    await burst(warmup, 'warm');
    onMeasureStart();
    return await burst(total, 'measured');
  } finally {
    client.close();
  }
}

/** CPU seconds (user + system) a process used so far, from /proc; 0 where /proc is unavailable. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** etcd's count of handled unary KV calls by method (Range, Put, Txn, ...), from its Prometheus metrics. */
async function etcdKvCalls(endpoint: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^grpc_server_handled_total\{[^}]*grpc_method="(\w+)",grpc_service="etcdserverpb.KV"[^}]*\} (\d+)/gm)) {
    calls.set(m[1]!, (calls.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return calls;
}

/** A cumulative Prometheus histogram of etcd's (bucket upper bound in seconds → count). */
async function etcdHistogram(endpoint: string, name: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  const buckets = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`, 'gm'))) buckets.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return buckets;
}

/** The bucket bound under which 99% of the observations between two histogram snapshots fall, as "≤ N ms". */
function histogramP99(before: Map<number, number>, after: Map<number, number>): string {
  const bounds = [...after.keys()].sort((x, y) => x - y);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total === 0) return 'no samples';
  for (const le of bounds) {
    if ((after.get(le)! - (before.get(le) ?? 0)) / total >= 0.99) return `≤ ${le === Infinity ? '∞' : (le * 1000).toFixed(0)} ms (${total} samples)`;
  }
  return '?';
}

/**
 * Raw etcd put latency at a steady `rate` through the same client library: the floor under the watch latency
 * (a write must commit, fsync included, before any watcher can see it).
 */
async function rawPacedPutLatency(endpoints: string[], rate: number, seconds: number): Promise<{ p50: number; p99: number }> {
  const client = createEtcdClient({ endpoints });
  const value = Buffer.alloc(1024, 'x');
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const total = rate * seconds;
  const start = performance.now();
  let i = 0;
  try {
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (i < total && start + (i * 1000) / rate <= now) {
          const sent = performance.now();
          inflight.push(client.put(`/bench/paced/${i++}`).value(value).exec().then(() => void latencies.push(performance.now() - sent)));
        }
        if (i >= total) return resolve();
        setTimeout(tick, Math.max(0, start + (i * 1000) / rate - performance.now()));
      };
      tick();
    });
    await Promise.all(inflight);
  } finally {
    client.close();
  }
  latencies.sort((x, y) => x - y);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/** The pid of the etcd serving dataDir (the test helper does not expose it). */
function etcdPid(dataDir: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dataDir)) return Number(entry);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

/** Measures the CPU each process spends during a phase, for the diagnostic line printed after it. */
class PhaseMeter {
  private start: number[] = [];
  private wall = 0;
  private load = '';
  constructor(private readonly procs: Array<[string, number | undefined]>) {}
  begin(): void {
    this.start = this.procs.map(([, pid]) => cpuSeconds(pid));
    this.wall = performance.now();
    this.load = loadavg()[0]!.toFixed(2);
  }
  /** Logs the phase and returns the CPU µs per op of each measured process, by name. */
  end(phase: string, ops: number): Map<string, number> {
    const seconds = (performance.now() - this.wall) / 1000;
    const perOp = new Map<string, number>();
    const parts = this.procs.map(([name, pid], i) => {
      const used = cpuSeconds(pid) - this.start[i]!;
      perOp.set(name, (1e6 * used) / ops);
      return `${name} ${((100 * used) / seconds).toFixed(0)}% (${((1e6 * used) / ops).toFixed(0)} µs/op)`;
    });
    log(`${phase}: ${ops} ops in ${seconds.toFixed(1)} s; CPU ${parts.join(', ')}; load average ${this.load} → ${loadavg()[0]!.toFixed(2)}`);
    return perOp;
  }
}

interface Child {
  proc: ChildProcess;
  url: string;
}

function startReplica(rootDir: string, endpoints: string[]): Promise<Child> {
  return new Promise((resolve, reject) => {
    // ATRIUM_BENCH_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the replicas.
    const proc = fork(join(here, 'etcd-server-child.js'), [rootDir, endpoints.join(',')], {
      execArgv: process.env.ATRIUM_BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      env: { ...process.env, ATRIUM_LOG_LEVEL: 'warn' },
    });
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
    proc.once('exit', (code) => reject(new Error(`etcd-server-child exited with ${code}`)));
  });
}

/** Starts event-loop delay measurement in each replica. */
function loopStart(children: Child[]): void {
  for (const c of children) c.proc.send({ cmd: 'loop-start' });
}

/** Each replica's event-loop delay since loopStart, as "p99/max ms". */
async function loopReport(children: Child[]): Promise<string[]> {
  return Promise.all(
    children.map(
      (c) =>
        new Promise<string>((resolve) => {
          const onMessage = (m: { loop?: { p99: number; max: number } }) => {
            if (!m.loop) return;
            c.proc.off('message', onMessage);
            resolve(`p99 ${m.loop.p99.toFixed(1)} max ${m.loop.max.toFixed(1)} ms`);
          };
          c.proc.on('message', onMessage);
          c.proc.send({ cmd: 'loop-report' });
        }),
    ),
  );
}

function stopReplica(c: Child): Promise<void> {
  return new Promise((resolve) => {
    c.proc.removeAllListeners('exit');
    c.proc.once('exit', () => resolve());
    c.proc.kill('SIGTERM');
  });
}

/**
 * Opens a watch and calls onLine with each raw event line and its receive time; resolves once the response
 * headers arrived. Lines are not JSON-parsed here: the caller pulls out what it needs, keeping the watcher cheap.
 */
function watchLines(base: string, agent: Agent, path: string, onLine: (line: string, receivedAt: number) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { agent, method: 'GET' }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const receivedAt = performance.now();
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          onLine(buffer.slice(0, nl), receivedAt);
          buffer = buffer.slice(nl + 1);
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/** Sends `total` creates at `concurrency` and returns creates/s and the p99 request latency in ms. */
async function createBurst(client: LeanHttpsClient, path: string, total: number, name: (i: number) => string): Promise<{ rate: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const req = client.post(path, payload1k(name(i)));
        const sent = performance.now();
        const status = await client.send(req);
        latencies.push(performance.now() - sent);
        if (status !== 201) failed++;
      }
    }),
  );
  if (failed) throw new Error(`${failed} of ${total} creates failed`);
  latencies.sort((x, y) => x - y);
  return { rate: total / ((performance.now() - t0) / 1000), p99: latencies[Math.floor(0.99 * latencies.length)]! };
}

/** Creates/s through etcd-floor-child.ts (a server that only puts each POST body into etcd), measured like the API. */
async function floorServerRate(
  pkiDir: string,
  endpoints: string[],
  creds: { ca: Buffer; cert: Buffer; key: Buffer },
  total: number,
  warmup: number,
  alsoMeter: Array<[string, number | undefined]>,
): Promise<number> {
  const proc = fork(join(here, 'etcd-floor-child.js'), [pkiDir, endpoints.join(',')], {
    execArgv: process.env.ATRIUM_BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      proc.once('message', (m: { url: string }) => resolve(m.url));
      proc.once('exit', (code) => reject(new Error(`etcd-floor-child exited with ${code}`)));
    });
    const client = await LeanHttpsClient.open({ url, connections: concurrency, ...creds });
    try {
      await createBurst(client, '/floor', warmup, (i) => `warm-${i}`);
      const meter = new PhaseMeter([['bench', process.pid], ['floor server', proc.pid], ...alsoMeter]);
      meter.begin();
      const { rate } = await createBurst(client, '/floor', total, (i) => `f-${i}`);
      meter.end('floor server POSTs', total);
      return rate;
    } finally {
      client.close();
    }
  } finally {
    proc.removeAllListeners('exit');
    proc.kill('SIGTERM');
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export async function runEtcdBenchmarks(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const etcd = await startEtcd();
  const dirA = mkdtempSync(join(tmpdir(), 'atrium-bench-etcd-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'atrium-bench-etcd-b-'));
  const replicas: Child[] = [];
  let client: LeanHttpsClient | undefined;
  let agent: Agent | undefined;
  try {
    // B starts first and so wins the controller lease; creates are measured through A, which serves
    // requests only (as a replica behind a load balancer that is not the controller leader).
    const b = await startReplica(dirB, etcd.endpoints);
    replicas.push(b);
    cpSync(join(dirB, 'pki'), join(dirA, 'pki'), { recursive: true });
    cpSync(join(dirB, 'admin.token'), join(dirA, 'admin.token'));
    const a = await startReplica(dirA, etcd.endpoints);
    replicas.push(a);
    const meter = new PhaseMeter([
      ['bench', process.pid],
      ['etcd', etcdPid(etcd.members[0]!.dataDir)],
      ['A', a.proc.pid],
      ['B', b.proc.pid],
    ]);
    const pki = join(dirA, 'pki');
    const creds = { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) };
    client = await LeanHttpsClient.open({ url: a.url, connections: concurrency, ...creds });
    agent = new Agent({ keepAlive: true, maxSockets: 4, ...creds });

    const creates = 8000;
    const createWarmup = 3000;
    for (const ns of ['bench', 'bench-watch']) {
      const status = await client.send(client.post('/api/v1/namespaces', Buffer.from(JSON.stringify({ metadata: { name: ns } }))));
      if (status !== 201) throw new Error(`creating namespace ${ns} answered ${status}`);
    }
    await createBurst(client, '/api/v1/namespaces/bench/configmaps', createWarmup, (i) => `warm-${i}`);
    // The reference is measured right before and right after the API run and averaged, so drift in the
    // machine's load during the run (it is shared) affects both sides alike.
    const rawBefore = await rawEtcdPuts(etcd.endpoints, creates, createWarmup, () => meter.begin());
    meter.end('raw etcd puts (before)', creates);
    meter.begin();
    const callsBefore = await etcdKvCalls(etcd.endpoints[0]!);
    const create = await createBurst(client, '/api/v1/namespaces/bench/configmaps', creates, (i) => `cm-${i}`);
    const callsAfter = await etcdKvCalls(etcd.endpoints[0]!);
    const apiCpu = meter.end('API creates', creates);
    // Both replicas' calls count (B's health probe, leases, controllers), so this is an upper bound per create.
    const perCreate = [...callsAfter].map(([method, n]) => [method, (n - (callsBefore.get(method) ?? 0)) / creates] as const).filter(([, n]) => n > 0);
    log(`etcd KV calls per API create (both replicas): ${perCreate.map(([m, n]) => `${m} ${n.toFixed(3)}`).join(', ')}`);
    const rawAfter = await rawEtcdPuts(etcd.endpoints, creates, createWarmup, () => meter.begin());
    meter.end('raw etcd puts (after)', creates);
    const rawRate = (rawBefore + rawAfter) / 2;
    // The floor: what an HTTPS server doing nothing but one put per POST reaches with the same client and TLS.
    const floor = await floorServerRate(pki, etcd.endpoints, creds, creates, createWarmup, [['etcd', etcdPid(etcd.members[0]!.dataDir)]]);
    figures.push({
      benchmark: 'etcd/create-configmap-1k',
      metric: `creates/s through atrium on etcd (c=${concurrency}, p99 ${create.p99.toFixed(1)} ms)`,
      value: create.rate,
      unit: 'ops/s',
      reference: `raw etcd puts of 1 KB through etcd3 at c=${concurrency}, mean of ${rawBefore.toFixed(0)} before and ${rawAfter.toFixed(0)} after, each after ${createWarmup} warm-up puts`,
      referenceValue: rawRate,
      ratio: create.rate / rawRate,
      target: '>= 0.50',
      pass: create.rate / rawRate >= 0.5,
    });
    // The machine's budget: at the target rate, every process on it (load generator, etcd, both replicas) shares
    // its cores, so the CPU all of them spend per create bounds the rate however the API work were spread out.
    const cores = availableParallelism();
    const targetRate = 0.5 * rawRate;
    const budget = (cores * 1e6) / targetRate;
    const spent = [...apiCpu.values()].reduce((x, y) => x + y, 0);
    figures.push({
      benchmark: 'etcd/create-cpu-budget',
      metric: `CPU per API create over all processes (${[...apiCpu].map(([n, us]) => `${n} ${us.toFixed(0)}`).join(', ')} µs; A's one thread alone caps it at ${(1e6 / apiCpu.get('A')!).toFixed(0)}/s)`,
      value: spent,
      unit: 'µs',
      reference: `what ${cores} cores allow per create at the target rate (0.50 × raw = ${targetRate.toFixed(0)}/s)`,
      referenceValue: budget,
      ratio: spent / budget,
    });
    figures.push({
      benchmark: 'etcd/floor-server',
      metric: `POST/s of an HTTPS server that only puts each body into etcd (same TLS, client and load; atrium reaches ${(create.rate / floor).toFixed(2)} of it)`,
      value: floor,
      unit: 'ops/s',
      reference: 'raw etcd puts, as above',
      referenceValue: rawRate,
      ratio: floor / rawRate,
    });

    // Watch latency: writes through A at a steady rate, a watcher on B. ATRIUM_BENCH_WATCH_RATE lowers the
    // rate for diagnosis; the target is defined at 500 writes/s.
    const rate = Number(process.env.ATRIUM_BENCH_WATCH_RATE ?? 500);
    const warmupSeconds = 2;
    const measuredSeconds = Number(process.env.ATRIUM_BENCH_WATCH_SECONDS ?? 10);
    const warmup = rate * warmupSeconds;
    const total = warmup + rate * measuredSeconds;
    const sentAt = new Float64Array(total);
    const ackedAt = new Float64Array(total);
    const seenAt = new Float64Array(total);
    let seen = 0;
    const namePattern = /"name":"w-(\d+)"/;
    const stopWatch = await watchLines(b.url, agent, '/api/v1/namespaces/bench-watch/configmaps?watch=true&resourceVersion=0', (line, receivedAt) => {
      const m = namePattern.exec(line);
      if (!m) return;
      const i = Number(m[1]);
      if (i < total && seenAt[i] === 0) {
        seenAt[i] = receivedAt;
        seen++;
      }
    });
    let failed = 0;
    const inflight: Promise<void>[] = [];
    const send = (i: number) => {
      const req = client!.post('/api/v1/namespaces/bench-watch/configmaps', payload1k(`w-${i}`));
      sentAt[i] = performance.now();
      inflight.push(
        client!.send(req).then((status) => {
          ackedAt[i] = performance.now();
          if (status !== 201) failed++;
        }),
      );
    };
    // A timer paces the writes: each tick sends every write whose due time has come (due = start + i/rate),
    // so the rate stays steady even when a tick fires late, and each write is stamped when it is sent.
    const paced = await rawPacedPutLatency(etcd.endpoints, rate, 4);
    log(`raw etcd put latency at ${rate}/s through etcd3 (the floor): p50 ${paced.p50.toFixed(1)} p99 ${paced.p99.toFixed(1)} ms`);
    const fsyncBefore = await etcdHistogram(etcd.endpoints[0]!, 'etcd_disk_wal_fsync_duration_seconds');
    loopStart([a, b]);
    const start = performance.now();
    let i = 0;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (i < total && start + (i * 1000) / rate <= now) send(i++);
        if (i >= total) return resolve();
        setTimeout(tick, Math.max(0, start + (i * 1000) / rate - performance.now()));
      };
      tick();
    });
    const writeSeconds = (performance.now() - start) / 1000;
    await Promise.all(inflight);
    const deadline = performance.now() + 10_000;
    while (seen < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stopWatch();
    const [loopA, loopB] = await loopReport([a, b]);
    log(`event-loop delay during the watch phase: A ${loopA}, B ${loopB}`);
    log(`etcd WAL fsync p99 during the watch phase: ${histogramP99(fsyncBefore, await etcdHistogram(etcd.endpoints[0]!, 'etcd_disk_wal_fsync_duration_seconds'))}`);
    if (failed) throw new Error(`${failed} of ${total} watched writes failed`);
    if (seen < total) throw new Error(`watcher on replica B saw ${seen} of ${total} writes`);
    const latencies: number[] = [];
    const afterAck: number[] = [];
    const writeLatencies: number[] = [];
    for (let j = warmup; j < total; j++) {
      latencies.push(seenAt[j]! - sentAt[j]!);
      afterAck.push(seenAt[j]! - ackedAt[j]!);
      writeLatencies.push(ackedAt[j]! - sentAt[j]!);
    }
    for (const list of [latencies, afterAck, writeLatencies]) list.sort((x, y) => x - y);
    const p99 = quantile(latencies, 0.99);
    log(
      `watch at ${rate}/s: ${latencies.length} events measured after ${warmup} warm-up; send→watch p50 ${quantile(latencies, 0.5).toFixed(1)} p99 ${p99.toFixed(1)} max ${latencies.at(-1)!.toFixed(1)} ms; ` +
        `create request p50 ${quantile(writeLatencies, 0.5).toFixed(1)} p99 ${quantile(writeLatencies, 0.99).toFixed(1)} ms; ` +
        `response→watch p50 ${quantile(afterAck, 0.5).toFixed(1)} p99 ${quantile(afterAck, 0.99).toFixed(1)} ms; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    figures.push({
      benchmark: 'etcd/watch-latency-cross-replica',
      metric: `p99 write→watch latency at ${rate} writes/s over ${latencies.length} events (p50 ${quantile(latencies, 0.5).toFixed(1)} ms, ${(total / writeSeconds).toFixed(0)} writes/s achieved)`,
      value: p99,
      unit: 'ms',
      reference: 'target',
      referenceValue: 50,
      ratio: p99 / 50,
      target: '< 1.00 (p99 < 50 ms)',
      pass: p99 < 50,
    });
  } finally {
    client?.close();
    agent?.destroy();
    for (const r of replicas) await stopReplica(r);
    await etcd.stop();
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { printFigure } = await import('./lib.js');
  log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`);
  for (const f of await runEtcdBenchmarks()) printFigure(f);
  log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`);
}
