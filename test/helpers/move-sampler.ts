/**
 * Samples a moving application every `intervalMs` for as long as it runs: upstream first (the root Deployment's
 * status), then on every physical cluster the app's pods (Ready and not terminating) and the Service's ready
 * endpoint addresses. Used by the move suites and bench/moves.ts to prove make-before-break (ready pods never below
 * the workload's budget, a Service with ready endpoints somewhere at every instant) and status truth (the upstream
 * ready count never above what the clusters run). Reads go to the servers as they are; nothing is mocked.
 *
 * Status truth to the count: with `deploymentSelector`, the sampler also watches the app's Deployments on every
 * cluster (the split children's copies) and records, at every change it receives, what each cluster's Deployments
 * report ready (status.readyReplicas) and their sum, as a step function of time (`downstream`). statusLag() then
 * checks each upstream sample against it: status reaches upstream through each cluster's syncer and the splitter, so
 * an upstream reading must be a sum of what each cluster reported at some instant of the preceding `lagMs`
 * (docs/multicluster.md, "Status that never lies").
 */
import type { KubeObject } from '../../src/apimachinery/object.js';
import type { RestClient } from '../../src/client/rest-client.js';
import type { WatchStream } from '../../src/client/watch-stream.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const endpointsGVR = { group: '', version: 'v1', resource: 'endpoints' };
const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };

export interface MoveSample {
  /** ms since the sampler started, when the upstream read was sent. */
  t: number;
  /** ms since the sampler started, when the upstream read was answered. */
  tRead: number;
  /** Ready, not terminating pods of the app per cluster. */
  ready: Record<string, number>;
  /** Ready endpoint addresses of the Service per cluster. */
  endpoints: Record<string, number>;
  /** The root's status.readyReplicas / availableReplicas read just before the clusters. */
  upstreamReady: number;
  upstreamAvailable: number;
  /** The root's conditions (type=status/reason) as read. */
  conditions: string;
}

export interface SamplerOptions {
  up: RestClient;
  namespace: string;
  deployment: string;
  /** Label selector of the app's pods, e.g. `app=web`. */
  selector: string;
  /** Service name whose Endpoints are counted. */
  service?: string;
  clusters: { name: string; client: RestClient }[];
  intervalMs?: number;
  /** The logical cluster (workspace) of the upstream Deployment; atrium's default workspace otherwise. */
  cluster?: string;
  /**
   * Label selector of the app's Deployments on the clusters (the split children's copies carry the root's labels):
   * when set, start() watches them and records `downstream` (see the file comment).
   */
  deploymentSelector?: string;
}

/** What the clusters report ready at one instant (ms since the sampler started), from their Deployments' status. */
export interface DownstreamPoint {
  t: number;
  /** The sum over the clusters. */
  ready: number;
  /** Per cluster. */
  clusters: Record<string, number>;
}

export const sumOf = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

function podReady(p: KubeObject): boolean {
  if (p.metadata?.deletionTimestamp) return false;
  const conds = (p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

export class MoveSampler {
  readonly samples: MoveSample[] = [];
  /** The clusters' reported ready count over time, one point per change received (deploymentSelector only). */
  readonly downstream: DownstreamPoint[] = [];
  private running = false;
  private loop?: Promise<void>;
  private readonly started = Date.now();
  private readonly watches: WatchStream[] = [];
  private readonly watching: Promise<void>[] = [];

  constructor(private readonly opts: SamplerOptions) {}

  /**
   * Starts watching what the clusters report (deploymentSelector: the app's Deployments on every cluster, the split
   * children's copies); resolves once every cluster is listed, the first point of `downstream` saying what runs now.
   */
  async watchDownstream(): Promise<void> {
    const { clusters, deploymentSelector } = this.opts;
    if (!deploymentSelector) return;
    const reported = new Map<string, number>();
    const record = () => {
      const per: Record<string, number> = {};
      for (const c of clusters) per[c.name] = 0;
      for (const [k, v] of reported) per[k.slice(0, k.indexOf('/'))]! += v;
      const ready = Object.values(per).reduce((a, b) => a + b, 0);
      const t = Date.now() - this.started;
      const last = this.downstream.at(-1);
      if (!last || JSON.stringify(last.clusters) !== JSON.stringify(per)) this.downstream.push({ t, ready, clusters: per });
    };
    await Promise.all(
      clusters.map(async (c) => {
        const key = (d: KubeObject) => `${c.name}/${d.metadata?.namespace}/${d.metadata?.name}`;
        const readyOf = (d: KubeObject) => (d.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
        const initial = await c.client.list(deploymentsGVR, {}, { labelSelector: deploymentSelector });
        for (const d of initial.items) reported.set(key(d), readyOf(d));
        const w = await c.client.watch(deploymentsGVR, {}, { labelSelector: deploymentSelector, resourceVersion: initial.metadata.resourceVersion });
        this.watches.push(w);
        this.watching.push(
          (async () => {
            for await (const ev of w) {
              if (ev.type === 'BOOKMARK') continue;
              if (ev.type === 'DELETED') reported.delete(key(ev.object));
              else reported.set(key(ev.object), readyOf(ev.object));
              record();
            }
          })().catch(() => undefined),
        );
      }),
    );
    record();
  }

  start(): this {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const next = Date.now() + (this.opts.intervalMs ?? 100);
        try {
          this.samples.push(await this.sample());
        } catch {
          // A read failing (a server busy) is a missing sample, not a wrong one.
        }
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    })();
    return this;
  }

  async stop(): Promise<MoveSample[]> {
    this.running = false;
    await this.loop;
    for (const w of this.watches) w.stop();
    await Promise.all(this.watching);
    return this.samples;
  }

  async sample(): Promise<MoveSample> {
    const { up, namespace, deployment, selector, service, clusters, cluster } = this.opts;
    const t = Date.now() - this.started;
    const root = await up.get(deploymentsGVR, deployment, { namespace, ...(cluster ? { cluster } : {}) });
    const tRead = Date.now() - this.started;
    const status = (root.status ?? {}) as { readyReplicas?: number; availableReplicas?: number; conditions?: { type: string; status: string; reason?: string }[] };
    const ready: Record<string, number> = {};
    const endpoints: Record<string, number> = {};
    await Promise.all(
      clusters.map(async (c) => {
        const pods = await c.client.list(podsGVR, {}, { labelSelector: selector });
        ready[c.name] = pods.items.filter(podReady).length;
        if (service) {
          const eps = await c.client.list(endpointsGVR, {});
          endpoints[c.name] = eps.items
            .filter((e) => e.metadata?.name === service)
            .reduce((n, e) => n + ((e as { subsets?: { addresses?: unknown[] }[] }).subsets ?? []).reduce((m, s) => m + (s.addresses?.length ?? 0), 0), 0);
        }
      }),
    );
    return {
      t,
      tRead,
      ready,
      endpoints,
      upstreamReady: status.readyReplicas ?? 0,
      upstreamAvailable: status.availableReplicas ?? 0,
      conditions: (status.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? `/${c.reason}` : ''}`).join(','),
    };
  }
}

export interface StatusLagReport {
  /** The first upstream sample no combination of the clusters' reports of its window explains, described. */
  violation?: string;
  /** Per upstream sample the smallest window that explains it (see statusLag); the largest over all samples. */
  maxLagMs: number;
  /** Samples checked (those read after the series' first point). */
  checked: number;
}

/** The values cluster `c` reported over [from, to]: the one standing at `from` and every later one up to `to`. */
function valuesOver(series: readonly DownstreamPoint[], c: string, from: number, to: number): Set<number> {
  const out = new Set<number>();
  let standing: number | undefined;
  for (const p of series) {
    if (p.t <= from) standing = p.clusters[c] ?? 0;
    else if (p.t <= to) out.add(p.clusters[c] ?? 0);
    else break;
  }
  if (standing !== undefined) out.add(standing);
  return out;
}

/** Whether `value` is a sum of one value per cluster, each reported by it over [from, to]. */
function explains(series: readonly DownstreamPoint[], clusters: readonly string[], value: number, from: number, to: number): boolean {
  let sums = new Set<number>([0]);
  for (const c of clusters) {
    const next = new Set<number>();
    for (const v of valuesOver(series, c, from, to)) for (const s of sums) if (s + v <= value) next.add(s + v);
    sums = next;
  }
  return sums.has(value);
}

/**
 * Checks every upstream sample against what the clusters reported. Each cluster's report reaches upstream on its own
 * path (its syncer's watch and status write, then the splitter's), so the root's sum may add one cluster's newer
 * report to another's older one: sample `s` (read between s.t and s.tRead) must equal a sum of one value per cluster,
 * each reported by that cluster at some instant of [s.t − lagMs, s.tRead]. So upstream never reports a count that was
 * not the clusters' own, nor more ready than the most each of them reported within the window.
 */
export function statusLag(samples: readonly MoveSample[], series: readonly DownstreamPoint[], lagMs: number): StatusLagReport {
  let maxLagMs = 0;
  let checked = 0;
  let violation: string | undefined;
  const clusters = [...new Set(series.flatMap((p) => Object.keys(p.clusters)))].sort();
  for (const s of samples) {
    // The series starts when the watches listed (before sampling starts): a window reaching further back is cut there.
    if (series.length === 0 || s.t < series[0]!.t) continue;
    checked++;
    if (!explains(series, clusters, s.upstreamReady, s.t - lagMs, s.tRead)) {
      violation ??= `upstream ${s.upstreamReady} ready at ${s.t}–${s.tRead} ms; the clusters reported ${JSON.stringify(series.filter((p) => p.t >= s.t - lagMs && p.t <= s.tRead).map((p) => `${p.t}:${JSON.stringify(p.clusters)}`))} in the ${lagMs} ms before`;
      continue;
    }
    // The smallest window that explains it: widened from the read itself back past each change within the window (a
    // window starting just before a change still sees the value it replaced).
    const starts = [s.t, ...series.filter((p) => p.t <= s.t && p.t > s.t - lagMs).map((p) => p.t - 1).reverse()];
    const from = starts.find((f) => explains(series, clusters, s.upstreamReady, f, s.tRead)) ?? s.t - lagMs;
    maxLagMs = Math.max(maxLagMs, s.t - from);
  }
  return { violation, maxLagMs, checked };
}

/** One line per sample, for failure messages. */
export function formatSamples(samples: readonly MoveSample[], last = 40): string {
  return samples
    .slice(-last)
    .map((s) => `${String(s.t).padStart(6)}ms ready ${JSON.stringify(s.ready)} endpoints ${JSON.stringify(s.endpoints)} upstream ${s.upstreamReady}/${s.upstreamAvailable} ${s.conditions}`)
    .join('\n');
}
