/**
 * The writes of a controller that owns EndpointSlices (the endpointslice and endpointslice-mirroring controllers): one
 * reconcile's creates, updates and deletes run side by side, and the slices created or deleted that the cache does not
 * show yet are remembered per key (upstream's endpointSliceTracker) — until it does, a sync would create them twice,
 * so it waits.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { Informer } from '../../client/informer.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey } from '../../client/store.js';

const endpointSlicesGVR: GroupVersionResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };

interface Pending {
  created: Set<string>;
  deleted: Set<string>;
  /** When the writes landed: a cache that has not shown them after CACHE_LAG_LIMIT_MS never will (someone else
   * deleted a slice we created before our informer reported it, say) and is no longer waited for. */
  at: number;
}

const CACHE_LAG_LIMIT_MS = 2_000;

export class SliceWrites {
  private readonly inFlight = new Map<string, Pending>();

  constructor(
    private readonly client: RestClient,
    private readonly slices: Informer<KubeObject>,
  ) {}

  /** Whether the cache still lags this key's last writes (the reconcile should look again shortly). */
  cacheLags(key: string, cluster: string, namespace: string): boolean {
    const pending = this.inFlight.get(key);
    if (!pending) return false;
    if (Date.now() - pending.at > CACHE_LAG_LIMIT_MS) {
      this.inFlight.delete(key);
      return false;
    }
    const cached = (n: string) => !!this.slices.lister.get(formatObjectKey({ cluster, namespace, name: n }));
    for (const n of pending.created) if (cached(n)) pending.created.delete(n);
    for (const n of pending.deleted) if (!cached(n)) pending.deleted.delete(n);
    if (pending.created.size || pending.deleted.size) return true;
    this.inFlight.delete(key);
    return false;
  }

  /** One reconcile's writes for `key` in `cluster`/`namespace`: queue them, then `done()`. */
  batch(key: string, cluster: string, namespace: string) {
    const writes: Promise<unknown>[] = [];
    const pending: Pending = { created: new Set(), deleted: new Set(), at: 0 };
    const scope = { cluster, namespace };
    return {
      update: (slice: KubeObject) => void writes.push(this.client.update(endpointSlicesGVR, slice, scope)),
      create: (slice: KubeObject) => void writes.push(this.client.create(endpointSlicesGVR, slice, scope).then((s) => pending.created.add(s.metadata?.name ?? ''))),
      delete: (name: string) =>
        void writes.push(
          this.client
            .delete(endpointSlicesGVR, name, scope)
            .then(() => pending.deleted.add(name))
            .catch((err) => (err instanceof StatusError && err.code === 404 ? undefined : Promise.reject(err))),
        ),
      /** Waits for every write; throws the first failure (after recording what did land). */
      done: async (): Promise<void> => {
        const results = await Promise.allSettled(writes);
        pending.at = Date.now();
        if (pending.created.size || pending.deleted.size) this.inFlight.set(key, pending);
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      },
    };
  }
}
