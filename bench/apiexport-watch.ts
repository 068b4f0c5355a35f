/**
 * Issue 17 target benchmark: "A provider watching through the virtual workspace across 1,000 binding workspaces:
 * event delivery p99 at most 50 ms at 200 writes/s; memory per binding at most 20 KB." One server process (with
 * --expose-gc, bench/workspace-server-child.ts):
 *
 * - memory: 1,000 workspaces are created and the server left to settle; its RSS and V8 heap (after a full GC) are taken before and
 *   after each of them binds one APIExport (every binding Bound, the server settled again): the growth per binding.
 * - delivery: one watch on the virtual workspace's `/clusters/*` for the exported resource; widgets are created at a
 *   fixed 200/s (open loop, not waiting for earlier writes) spread round-robin over the 1,000 binding workspaces for
 *   ~20 s; per widget, the time from the create's acknowledgement (its 201 received) to its ADDED event received by
 *   the watch (0 when the event came first — atrium publishes a commit's events before the creates it acknowledges
 *   answer, so usually it does), p50/p99, and events that never arrived; and, the stricter reading, the time from the
 *   create sent, which adds the create's own latency.
 *
 * `ATRIUM_BENCH_SERVER_NODE_OPTIONS` adds node options to the server process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
 * `ATRIUM_BENCH_BINDINGS` (default 1,000), `ATRIUM_BENCH_WATCH_SECONDS` (default 20) and `ATRIUM_BENCH_WRITE_RATE`
 * (default 200) scale it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Figure, runLoad, type LoadTarget } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const bindings = Number(process.env.ATRIUM_BENCH_BINDINGS ?? 1000);
const seconds = Number(process.env.ATRIUM_BENCH_WATCH_SECONDS ?? 20);
const rate = Number(process.env.ATRIUM_BENCH_WRITE_RATE ?? 200);
const DELIVERY_BUDGET_MS = 50;
const MEMORY_BUDGET_KB = 20;
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

interface Child {
  proc: ChildProcess;
  url: string;
}

function startChild(rootDir: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, 'workspace-server-child.js'), [rootDir], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: ['--expose-gc', ...(process.env.ATRIUM_BENCH_SERVER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [])] });
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
    proc.once('exit', (code) => reject(new Error(`workspace-server-child exited with ${code}`)));
  });
}

function ask<T>(c: Child, send: string, answer: string, field: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (m?.type !== answer) return;
      c.proc.off('message', onMessage);
      resolve(m[field] as T);
    };
    c.proc.on('message', onMessage);
    c.proc.send({ type: send });
  });
}
const rssOf = (c: Child) => ask<number>(c, 'rss', 'rss', 'rss');
const heapOf = (c: Child) => ask<number>(c, 'rss', 'rss', 'heapUsed');
const settled = (c: Child) => ask<number>(c, 'settle', 'settled', 'ms');

function call(target: LoadTarget, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(new URL(path, target.base), { method, agent: target.agent, headers: data ? { 'Content-Type': 'application/json', 'Content-Length': String(data.length) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, tries = 3000, everyMs = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export async function runAPIExportWatchBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-apiexport-watch-'));
  const server = await startChild(rootDir);
  const pki = join(rootDir, 'pki');
  const tls = { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) };
  const agent = new Agent({ keepAlive: true, maxSockets: 32, ...tls });
  const watchAgent = new Agent({ keepAlive: false, ...tls });
  const target = { base: server.url, agent };
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await call(target, method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json)}`);
    return r.json;
  };
  const cores = availableParallelism();
  const load0 = loadavg()[0]!;
  let watchReq: ReturnType<typeof request> | undefined;
  try {
    // The provider and the export.
    await must('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'provider' }, spec: {} });
    const providerCluster = await until('provider Ready', async () => {
      const w = (await call(target, 'GET', `/clusters/root${WS}/provider`)).json;
      return w?.status?.phase === 'Ready' ? (w.spec.cluster as string) : undefined;
    });
    await must('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apiresourceschemas', {
      apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIResourceSchema', metadata: { name: 'v1.widgets.example.io' },
      spec: { group: 'example.io', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, data: { type: 'string' } } } } } }] },
    });
    await must('POST', '/clusters/root:provider/apis/apis.kcp.io/v1alpha2/apiexports', {
      apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'widgets' },
      spec: { resources: [{ name: 'widgets', group: 'example.io', schema: 'v1.widgets.example.io', storage: { crd: {} } }] },
    });

    // 1,000 tenant workspaces, all Ready, the server settled: the baseline.
    const made = await runLoad(target, bindings, 16, (i) => ({ method: 'POST', path: `/clusters/root${WS}`, body: Buffer.from(JSON.stringify({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: `t-${i}` }, spec: {} })) }));
    if (made.errors) throw new Error(`${made.errors} workspace creates failed`);
    await until('every workspace Ready', async () => {
      const l = (await call(target, 'GET', `/clusters/root${WS}`)).json;
      const ready = (l?.items ?? []).filter((w: any) => w.status?.phase === 'Ready' && String(w.metadata.name).startsWith('t-')).length;
      return ready === bindings ? true : undefined;
    });
    await settled(server);
    const rssBefore = await rssOf(server);
    const heapBefore = await heapOf(server);

    // Every workspace binds the export.
    const binding = Buffer.from(JSON.stringify({ apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIBinding', metadata: { name: 'widgets' }, spec: { reference: { export: { path: 'root:provider', name: 'widgets' } } } }));
    const bindStarted = performance.now();
    const bound = await runLoad(target, bindings, 16, (i) => ({ method: 'POST', path: `/clusters/root:t-${i}/apis/apis.kcp.io/v1alpha2/apibindings`, body: binding }));
    if (bound.errors) throw new Error(`${bound.errors} binding creates failed`);
    // By GETs, not a LIST: a LIST would put every binding into the shared list cache (bounded process-wide, what any
    // LIST of them costs) and count it here.
    for (let i = 0; i < bindings; i++) {
      await until(`t-${i} Bound`, async () => ((await call(target, 'GET', `/clusters/root:t-${i}/apis/apis.kcp.io/v1alpha2/apibindings/widgets`)).json?.status?.phase === 'Bound' ? true : undefined), 3000, 20);
    }
    const bindSeconds = (performance.now() - bindStarted) / 1000;
    await settled(server);
    const rssAfter = await rssOf(server);
    const heapAfter = await heapOf(server);
    // RSS after a GC moves by a few MiB with the allocator's reuse of freed pages (one run read 0.2 KB per binding); the
    // V8 heap's growth is steady run to run. The figure is the larger of the two.
    const rssKB = (rssAfter - rssBefore) / bindings / 1024;
    const heapKB = (heapAfter - heapBefore) / bindings / 1024;
    const perBindingKB = Math.max(rssKB, heapKB);

    // The logical cluster of each tenant (the watch's events carry it).
    const clusters: string[] = [];
    {
      const l = (await call(target, 'GET', `/clusters/root${WS}`)).json;
      const byName = new Map<string, string>((l.items as any[]).map((w) => [w.metadata.name as string, w.spec.cluster as string]));
      for (let i = 0; i < bindings; i++) clusters.push(byName.get(`t-${i}`)!);
    }

    // One watch on the virtual workspace's /clusters/* for widgets.
    const received = new Map<string, number>();
    let onEvent: ((key: string) => void) | undefined;
    await new Promise<void>((resolve, reject) => {
      const path = `/services/apiexport/${providerCluster}/widgets/clusters/*/apis/example.io/v1/widgets?watch=true`;
      watchReq = request(new URL(path, server.url), { method: 'GET', agent: watchAgent }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
        resolve();
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (!line.trim()) continue;
            const ev = JSON.parse(line);
            if (ev.type !== 'ADDED') continue;
            const key = `${ev.object.metadata.annotations?.['kcp.io/cluster']}/${ev.object.metadata.name}`;
            if (!received.has(key)) received.set(key, performance.now());
            onEvent?.(key);
          }
        });
      });
      watchReq.on('error', reject);
      watchReq.end();
    });
    // Wait for the default namespace of the tenants (created in the background) by a first widget in each, which also
    // warms the paths; their events must arrive too.
    const widgetObj = (name: string) => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name }, spec: { size: 1, data: 'x'.repeat(200) } });
    const widget = (name: string) => Buffer.from(JSON.stringify(widgetObj(name)));
    const warm = await runLoad(target, bindings, 16, (i) => ({ method: 'POST', path: `/clusters/root:t-${i}/apis/example.io/v1/namespaces/default/widgets`, body: widget('warm') }));
    if (warm.errors) throw new Error(`${warm.errors} warm-up creates failed`);
    await until('warm-up events', async () => (clusters.every((c) => received.has(`${c}/warm`)) ? true : undefined), 200, 50);
    await settled(server);

    // 200 writes/s over the binding workspaces, open loop.
    const total = Math.round(rate * seconds);
    const acked = new Array<number>(total).fill(NaN);
    const sentAt = new Array<number>(total).fill(NaN);
    let failures = 0;
    const writes: Promise<void>[] = [];
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const t = i % bindings;
      sentAt[i] = performance.now();
      writes.push(
        call(target, 'POST', `/clusters/root:t-${t}/apis/example.io/v1/namespaces/default/widgets`, widgetObj(`w-${i}`)).then(
          (r) => {
            if (r.status === 201) acked[i] = performance.now();
            else failures++;
          },
          () => {
            failures++;
          },
        ),
      );
    }
    await Promise.all(writes);
    const writeSeconds = (performance.now() - t0) / 1000;
    const key = (i: number) => `${clusters[i % bindings]}/w-${i}`;
    // Give stragglers up to 5 s.
    await until('events', async () => (Array.from({ length: total }, (_, i) => i).every((i) => Number.isNaN(acked[i]) || received.has(key(i))) ? true : undefined), 100, 50).catch(() => undefined);
    const fromAck: number[] = [];
    const fromSend: number[] = [];
    let lost = 0;
    let before = 0;
    for (let i = 0; i < total; i++) {
      if (Number.isNaN(acked[i])) continue;
      const r = received.get(key(i));
      if (r === undefined) {
        lost++;
        continue;
      }
      if (r < acked[i]!) before++;
      fromAck.push(Math.max(0, r - acked[i]!));
      fromSend.push(r - sentAt[i]!);
    }
    fromAck.sort((a, b) => a - b);
    fromSend.sort((a, b) => a - b);
    const p50 = quantile(fromAck, 0.5);
    const p99 = quantile(fromAck, 0.99);
    const sentP50 = quantile(fromSend, 0.5);
    const sentP99 = quantile(fromSend, 0.99);
    const earlyPct = (100 * before) / Math.max(1, fromAck.length);
    const load1 = loadavg()[0]!;
    const machine = `${cores} cores, load average ${load0.toFixed(1)} → ${load1.toFixed(1)}`;
    process.stderr.write(
      `apiexport-watch: ${bindings} bindings Bound in ${bindSeconds.toFixed(1)} s; RSS ${(rssBefore / 1048576).toFixed(1)} → ${(rssAfter / 1048576).toFixed(1)} MiB; ` +
        `${total} writes in ${writeSeconds.toFixed(1)} s (${(total / writeSeconds).toFixed(0)}/s), ${failures} failed, ${lost} events lost; ` +
        `send → event p50 ${sentP50.toFixed(1)} ms p99 ${sentP99.toFixed(1)} ms; ack → event p50 ${p50.toFixed(1)} ms p99 ${p99.toFixed(1)} ms (event first for ${earlyPct.toFixed(0)}%); ${machine}\n`,
    );
    return [
      {
        benchmark: 'apiexport-watch/delivery',
        metric: `create acknowledged → ADDED event on one /clusters/* watch of the virtual workspace, ${bindings} binding workspaces, ${total} creates at ${rate}/s (p50 ${p50.toFixed(1)} ms; ${lost} lost, ${failures} failed writes; ${machine}) p99`,
        value: p99,
        unit: 'ms',
        reference: 'budget',
        referenceValue: DELIVERY_BUDGET_MS,
        ratio: p99 / DELIVERY_BUDGET_MS,
        target: '<= 1.00 and none lost',
        pass: p99 <= DELIVERY_BUDGET_MS && lost === 0 && failures === 0,
      },
      {
        // The stricter reading: from the create sent, so the create's own latency (the durable commit) counts too.
        benchmark: 'apiexport-watch/delivery-from-send',
        metric: `create sent → ADDED event on the same watch (p50 ${sentP50.toFixed(1)} ms; the event arrived before the create's 201 for ${earlyPct.toFixed(0)}% of the creates) p99`,
        value: sentP99,
        unit: 'ms',
        reference: 'budget',
        referenceValue: DELIVERY_BUDGET_MS,
        ratio: sentP99 / DELIVERY_BUDGET_MS,
        // Diagnostic: on a loaded 2-core machine this is the run queue's (see the README), so it carries no verdict.
      },
      {
        benchmark: 'apiexport-watch/memory-per-binding',
        metric: `server memory growth per APIBinding over ${bindings} workspaces, the larger of RSS (${rssKB.toFixed(1)} KB; ${((rssAfter - rssBefore) / 1048576).toFixed(1)} MiB total, after GC) and V8 heap used (${heapKB.toFixed(1)} KB) (${machine})`,
        value: perBindingKB,
        unit: 'KB',
        reference: 'budget',
        referenceValue: MEMORY_BUDGET_KB,
        ratio: perBindingKB / MEMORY_BUDGET_KB,
        target: '<= 1.00',
        pass: perBindingKB <= MEMORY_BUDGET_KB,
      },
    ];
  } finally {
    watchReq?.destroy();
    agent.destroy();
    watchAgent.destroy();
    await new Promise<void>((resolve) => {
      server.proc.removeAllListeners('exit');
      server.proc.once('exit', () => resolve());
      server.proc.kill('SIGTERM');
    });
    rmSync(rootDir, { recursive: true, force: true });
  }
}

// Run on its own: `node dist/bench/apiexport-watch.js`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { printFigure } = await import('./lib.js');
  for (const f of await runAPIExportWatchBenchmarks()) printFigure(f);
}
