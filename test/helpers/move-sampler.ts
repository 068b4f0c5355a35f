/**
 * Samples a moving application every `intervalMs` for as long as it runs: upstream first (the root Deployment's
 * status), then on every physical cluster the app's pods (Ready and not terminating) and the Service's ready
 * endpoint addresses. Used by the move suites and bench/moves.ts to prove make-before-break (ready pods never below
 * the workload's budget, a Service with ready endpoints somewhere at every instant) and status truth (the upstream
 * ready count never above what the clusters run). Reads go to the servers as they are; nothing is mocked.
 */
import type { KubeObject } from '../../src/apimachinery/object.js';
import type { RestClient } from '../../src/client/rest-client.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const endpointsGVR = { group: '', version: 'v1', resource: 'endpoints' };
const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };

export interface MoveSample {
  /** ms since the sampler started. */
  t: number;
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
}

export const sumOf = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

function podReady(p: KubeObject): boolean {
  if (p.metadata?.deletionTimestamp) return false;
  const conds = (p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

export class MoveSampler {
  readonly samples: MoveSample[] = [];
  private running = false;
  private loop?: Promise<void>;
  private readonly started = Date.now();

  constructor(private readonly opts: SamplerOptions) {}

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
    return this.samples;
  }

  async sample(): Promise<MoveSample> {
    const { up, namespace, deployment, selector, service, clusters } = this.opts;
    const t = Date.now() - this.started;
    const root = await up.get(deploymentsGVR, deployment, { namespace });
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
      ready,
      endpoints,
      upstreamReady: status.readyReplicas ?? 0,
      upstreamAvailable: status.availableReplicas ?? 0,
      conditions: (status.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? `/${c.reason}` : ''}`).join(','),
    };
  }
}

/** One line per sample, for failure messages. */
export function formatSamples(samples: readonly MoveSample[], last = 40): string {
  return samples
    .slice(-last)
    .map((s) => `${String(s.t).padStart(6)}ms ready ${JSON.stringify(s.ready)} endpoints ${JSON.stringify(s.endpoints)} upstream ${s.upstreamReady}/${s.upstreamAvailable} ${s.conditions}`)
    .join('\n');
}
