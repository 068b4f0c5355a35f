/**
 * Which logical clusters have compute: those holding a SyncTarget (their own clusters) or a Placement (their own
 * compute, or another workspace's through spec.locationWorkspace). Terminating objects count until they are gone, so
 * the workload types stay served while a SyncTarget's syncer drains or a Placement's cleanup runs (see
 * PLACEMENT_CLEANUP_FINALIZER).
 *
 * Kept in process from storage, as the tenancy index is: one list and one wildcard watch per resource through the
 * registry with a system context, on every replica (on etcd each replica keeps its own). A watch that fails (e.g. 410
 * after compaction) is re-listed and re-watched; listeners hear about every cluster that gained or lost compute.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { StatusError } from '../../apimachinery/status.js';
import { CLUSTER_ANNOTATION } from '../../client/resource.js';
import { logger } from '../../logging/logger.js';
import type { GenericStore, WatchEventType } from '../../registry/generic/store.js';
import type { RequestContext } from '../../registry/rest.js';
import type { WatchHandle } from '../../storage/interface.js';

/** A listener: `cluster` gained (true) or lost (false) compute. */
export type ComputeListener = (cluster: string, hasCompute: boolean) => void;

const systemContext: RequestContext = { cluster: 'root', user: { username: 'system:atrium:compute-index', groups: ['system:masters'] } };

/** One watched resource (SyncTargets or Placements): its objects' names by logical cluster. */
class Holders {
  readonly byCluster = new Map<string, Set<string>>();
  watch?: WatchHandle;
  retry?: NodeJS.Timeout;
  failures = 0;

  constructor(readonly store: GenericStore) {}
}

export class ComputeIndex {
  private readonly holders: Holders[];
  private readonly listeners: ComputeListener[] = [];
  private stopped = false;

  /** `stores`: the SyncTarget and Placement stores (any resource whose objects give a cluster compute). */
  constructor(stores: readonly GenericStore[]) {
    this.holders = stores.map((s) => new Holders(s));
  }

  /** Whether `cluster` holds a SyncTarget or a Placement (terminating ones included). */
  hasCompute(cluster: string): boolean {
    for (const h of this.holders) if ((h.byCluster.get(cluster)?.size ?? 0) > 0) return true;
    return false;
  }

  /** Every cluster with compute. */
  clusters(): string[] {
    const out = new Set<string>();
    for (const h of this.holders) for (const [c, names] of h.byCluster) if (names.size > 0) out.add(c);
    return [...out].sort();
  }

  onChange(listener: ComputeListener): void {
    this.listeners.push(listener);
  }

  /** Lists and starts watching; resolves once the index reflects storage. */
  async start(): Promise<void> {
    for (const h of this.holders) await this.listAndWatch(h);
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.holders) {
      h.watch?.stop();
      clearTimeout(h.retry);
    }
  }

  private async listAndWatch(h: Holders): Promise<void> {
    const list = await h.store.list(systemContext, '', { selection: {} }, true);
    const next = new Map<string, Set<string>>();
    for (const o of list.items) {
      const where = placeOf(o);
      if (!where) continue;
      let names = next.get(where.cluster);
      if (!names) next.set(where.cluster, (names = new Set()));
      names.add(where.name);
    }
    this.replace(h, next);
    if (this.stopped) return;
    h.watch = await h.store.watch(
      systemContext,
      '',
      { selection: {}, resourceVersion: list.resourceVersion, allowBookmarks: false },
      {
        event: (type, o) => {
          if (type !== 'BOOKMARK') this.observe(h, type, o);
          h.failures = 0;
          return true;
        },
        error: (err: StatusError) => this.restart(h, err.message),
        end: () => this.restart(h, 'the watch ended'),
      },
      true,
    );
  }

  /** A failed watch: list and watch again, after a delay growing with repeated failures (up to 5 s). */
  private restart(h: Holders, why: string): void {
    h.watch = undefined;
    if (this.stopped) return;
    h.failures++;
    if (h.failures === 1 || h.failures % 10 === 0) logger.warn('compute index: watch ended, listing again', { resource: h.store.def.resource, reason: why });
    h.retry = setTimeout(() => {
      this.listAndWatch(h).catch((err: unknown) => this.restart(h, (err as Error).message));
    }, Math.min(5000, 100 * 2 ** Math.min(h.failures, 6)));
    h.retry.unref?.();
  }

  private observe(h: Holders, type: WatchEventType, o: KubeObject): void {
    const where = placeOf(o);
    if (!where) return;
    const before = this.hasCompute(where.cluster);
    let names = h.byCluster.get(where.cluster);
    if (type === 'DELETED') {
      names?.delete(where.name);
      if (names?.size === 0) h.byCluster.delete(where.cluster);
    } else {
      if (!names) h.byCluster.set(where.cluster, (names = new Set()));
      names.add(where.name);
    }
    this.notifyIfChanged(where.cluster, before);
  }

  /** Replaces what `h` knows (a fresh list) and tells listeners about every cluster whose compute changed. */
  private replace(h: Holders, next: Map<string, Set<string>>): void {
    const touched = new Set([...h.byCluster.keys(), ...next.keys()]);
    const before = new Map([...touched].map((c) => [c, this.hasCompute(c)]));
    h.byCluster.clear();
    for (const [c, names] of next) h.byCluster.set(c, names);
    for (const c of touched) this.notifyIfChanged(c, before.get(c)!);
  }

  private notifyIfChanged(cluster: string, before: boolean): void {
    const now = this.hasCompute(cluster);
    if (now === before) return;
    for (const l of this.listeners) {
      try {
        l(cluster, now);
      } catch (err) {
        logger.error('compute index: listener failed', { cluster, error: (err as Error).message });
      }
    }
  }
}

/** The logical cluster (from the wildcard read's annotation) and name of an object. */
function placeOf(o: KubeObject): { cluster: string; name: string } | undefined {
  const cluster = o.metadata?.annotations?.[CLUSTER_ANNOTATION];
  const name = o.metadata?.name;
  return cluster && name ? { cluster, name } : undefined;
}
