/**
 * The writes of a controller that owns EndpointSlices (the endpointslice and endpointslice-mirroring controllers): the
 * slices a reconcile wants are matched to the ones that exist (rewritten only when they differ), the rest created or
 * deleted; one reconcile's creates, updates and deletes run side by side, and the slices created or deleted that the
 * cache does not show yet are remembered per key (upstream's endpointSliceTracker) — until it does, a sync would
 * create them twice, so it waits.
 */
import { type JsonObject, type KubeObject, deepCopy, jsonEqual } from '../../apimachinery/object.js';
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

/** One slice's list fields as stored: empty lists are Go's nil slices (null). */
export interface SliceLists {
  endpoints: JsonObject[] | null;
  ports: JsonObject[] | null;
}

/** What one reconcile wants of an owner's slices. */
export interface SliceSync {
  /** The wanted slices' endpoints and ports, one entry per slice. */
  desired: readonly { endpoints: JsonObject[]; ports: JsonObject[] }[];
  /** The owner's existing slices, each reused for a wanted one or deleted. */
  owned: readonly KubeObject[];
  /** Slices to delete whatever is wanted (an earlier owner's of the same name). */
  stale: readonly KubeObject[];
  labels: Record<string, string>;
  /** A reused slice's annotations from its current ones; undefined drops them. */
  annotations(current: Record<string, string>): Record<string, string> | undefined;
  /** A new slice holding `lists`. */
  newSlice(lists: SliceLists): KubeObject;
}

const listOrNull = (items: JsonObject[]): JsonObject[] | null => (items.length ? items : null);
const portsKey = (ports: unknown) => JSON.stringify(Array.isArray(ports) ? ports : []);

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

  /** Brings `key`'s slices in `cluster`/`namespace` to what `want` says; throws the first failed write. */
  async sync(key: string, cluster: string, namespace: string, want: SliceSync): Promise<void> {
    // Slices already being deleted (a finalizer holds them) are neither reused nor deleted again, as upstream's
    // controllers drop them first (dropEndpointSlicesPendingDeletion): endpoints recycled into one would go with it.
    const unused = new Set(want.owned.filter((s) => !s.metadata?.deletionTimestamp));
    const writes = this.batch(key, cluster, namespace);
    const contents = want.desired.map((content): SliceLists => ({ endpoints: listOrNull(content.endpoints), ports: listOrNull(content.ports) }));
    // First the slices whose ports a wanted one has (the same endpoints preferred), as upstream's reconciler places
    // endpoints into the existing slices of their port map.
    const reused: (KubeObject | undefined)[] = contents.map((lists) => {
      const samePorts = [...unused].filter((s) => portsKey(s.ports) === portsKey(lists.ports));
      const slice = samePorts.find((s) => jsonEqual(s.endpoints ?? null, lists.endpoints)) ?? samePorts[0];
      if (slice) unused.delete(slice);
      return slice;
    });
    contents.forEach((lists, i) => {
      let slice = reused[i];
      if (!slice) {
        const made = want.newSlice(lists);
        // A slice that would be created while one of the owner's of the same address type would be deleted takes
        // that one's place instead (upstream's finalize and recycleSlices): a Service's placeholder slice becomes its
        // first real one rather than being deleted beside a new one.
        slice = [...unused].find((s) => (s as { addressType?: unknown }).addressType === (made as { addressType?: unknown }).addressType);
        if (!slice) return writes.create(made);
        unused.delete(slice);
      }
      if (jsonEqual(slice.metadata?.labels ?? {}, want.labels) && jsonEqual(slice.endpoints ?? null, lists.endpoints) && jsonEqual(slice.ports ?? null, lists.ports)) return;
      const next = deepCopy(slice);
      next.metadata!.labels = want.labels;
      // A wildcard read's cluster annotation is not the slice's own.
      const current = { ...(next.metadata?.annotations ?? {}) };
      delete current['kcp.io/cluster'];
      const annotations = want.annotations(current);
      if (annotations) next.metadata!.annotations = annotations;
      else delete next.metadata!.annotations;
      next.endpoints = lists.endpoints;
      next.ports = lists.ports;
      writes.update(next);
    });
    for (const slice of [...unused, ...want.stale.filter((s) => !s.metadata?.deletionTimestamp)]) writes.delete(slice.metadata?.name ?? '');
    await writes.done();
  }

  /** One reconcile's writes for `key` in `cluster`/`namespace`: queue them, then `done()`. */
  private batch(key: string, cluster: string, namespace: string) {
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
