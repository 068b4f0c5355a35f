/**
 * Mirrors the ControllerRevisions of synced StatefulSets and DaemonSets up into their workspace, so that
 * `kubectl rollout history` and `kubectl rollout undo` work upstream (kubectl lists the revisions of the namespace
 * matching the object's selector and controlled by it, reads `revision` and `data`, and patches the object with the
 * chosen revision's data; the syncer then sends the changed template down and the cluster rolls back).
 *
 * The clusters' StatefulSet and DaemonSet controllers make the revisions of their copies; ControllerRevisions
 * themselves are never synced down (api/kind-placement.ts: mode None; isClusterLocal for the mirrors). One
 * RevisionMirror runs beside the ResourceSyncer of statefulsets and of daemonsets, one queue key per upstream object:
 *
 * - the revisions the downstream copy controls (by owner uid) appear upstream in the object's namespace with the same
 *   name, `revision`, `data` and labels (minus the syncer's internal ones), REVISION_MIRROR_LABEL, and one
 *   ownerReference: the upstream object (controller, blockOwnerDeletion), so kubectl finds them and the garbage
 *   collector removes them with the object;
 * - changed revisions (renumbered when a template comes back) are updated, revisions gone downstream deleted;
 * - one writer per object: of the SyncTargets the object is synced to (its Sync state labels, else its namespace's),
 *   only the one with the smallest key mirrors. A DaemonSet's revisions are the same on every cluster (named
 *   `<name>-<hash of the template>`, numbered the same way), so one cluster's history is the object's; with one writer
 *   two syncers never take turns rewriting it, and when the writer's cluster leaves, the next one takes over the same
 *   mirrors (they are found by the upstream owner's uid). Everything is read from API state: a restart converges.
 */
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { Informer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { logger } from '../../logging/logger.js';
import { STATE_LABEL_PREFIX } from '../api/types.js';
import { REVISION_MIRROR_LABEL } from '../api/kind-placement.js';
import type { NamespaceMapper } from './namespace-mapper.js';

export { REVISION_MIRROR_LABEL };

export const controllerRevisionsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'controllerrevisions' };

/** The resources whose revisions are mirrored, and their kinds. */
export const MIRRORED_REVISION_OWNERS: Readonly<Record<string, string>> = { statefulsets: 'StatefulSet', daemonsets: 'DaemonSet' };

const BY_OWNER_UID = 'revision-mirror/by-owner-uid';

interface ControllerRevision extends KubeObject {
  revision?: number;
  data?: unknown;
}

const controllerUid = (o: KubeObject) => (o.metadata?.ownerReferences as { uid?: string; controller?: boolean }[] | undefined)?.find((r) => r.controller)?.uid;

/** Labels a mirror carries: the downstream ones but the syncer's internal and state labels, plus the mark. */
export function mirrorLabels(down: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(down.metadata?.labels ?? {})) {
    if (k.startsWith('internal.workload.kcp.io/') || k.startsWith(STATE_LABEL_PREFIX) || k === 'workload.kcp.io/cluster') continue;
    out[k] = v;
  }
  out[REVISION_MIRROR_LABEL] = 'true';
  return out;
}

/**
 * Whether the syncer of `key` writes the mirrors of `up`: the smallest key among the object's Sync state labels (its
 * namespace's when it has none of its own); with no state labels at all (assigned by `workload.kcp.io/cluster`), the
 * one syncer it is assigned to.
 */
export function isRevisionWriter(up: KubeObject, ns: KubeObject | undefined, key: string): boolean {
  const keys = (o: KubeObject | undefined) =>
    Object.entries(o?.metadata?.labels ?? {})
      .filter(([k, v]) => k.startsWith(STATE_LABEL_PREFIX) && v === 'Sync')
      .map(([k]) => k.slice(STATE_LABEL_PREFIX.length));
  let candidates = keys(up);
  if (candidates.length === 0) candidates = keys(ns);
  if (candidates.length === 0) return true;
  return candidates.sort()[0] === key;
}

export interface RevisionMirrorDeps {
  gvr: GroupVersionResource;
  upstream: RestClient;
  upstreamCluster: string;
  upstreamInformers: InformerFactory;
  downstreamInformers: InformerFactory;
  /** The owners: the ResourceSyncer's informers (upstream objects; our downstream copies). */
  upstreamOwners: Informer;
  downstreamOwners: Informer;
  /** Whether a downstream owner is one of our copies. */
  isOurCopy(o: KubeObject): boolean;
  namespaces: NamespaceMapper;
  key: string;
}

export class RevisionMirror {
  private readonly upstreamRevisions: Informer<ControllerRevision>;
  private readonly downstreamRevisions: Informer<ControllerRevision>;
  private readonly controller: Controller;
  private readonly kind: string;

  constructor(private readonly deps: RevisionMirrorDeps) {
    this.kind = MIRRORED_REVISION_OWNERS[deps.gvr.resource]!;
    this.upstreamRevisions = deps.upstreamInformers.informerFor(controllerRevisionsGVR, { cluster: deps.upstreamCluster, labelSelector: `${REVISION_MIRROR_LABEL}=true` });
    // The clusters' revisions carry none of our labels: every revision of the cluster is watched (shared by resource
    // and workspace), indexed by the uid of its controller.
    this.downstreamRevisions = deps.downstreamInformers.informerFor(controllerRevisionsGVR, {});
    this.downstreamRevisions.addIndexer(BY_OWNER_UID, (o) => {
      const uid = controllerUid(o);
      return uid ? [uid] : [];
    });
    this.upstreamRevisions.addIndexer(BY_OWNER_UID, (o) => {
      const uid = controllerUid(o);
      return uid ? [uid] : [];
    });
    this.controller = new Controller({ name: `revision-mirror-${deps.gvr.resource}`, workers: 4, reconcile: (k) => this.reconcile(k) });
    const enqueueUp = (o: KubeObject) => this.controller.enqueue(formatObjectKey({ cluster: deps.upstreamCluster, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' }));
    const enqueueDownOwner = (o: KubeObject) => {
      if (!this.deps.isOurCopy(o)) return;
      const ns = deps.namespaces.upstreamOf(o.metadata?.namespace ?? '');
      if (ns !== undefined) this.controller.enqueue(formatObjectKey({ cluster: deps.upstreamCluster, namespace: ns, name: o.metadata?.name ?? '' }));
    };
    const ownerKind = (o: KubeObject) => (o.metadata?.ownerReferences as { kind?: string; name?: string; controller?: boolean }[] | undefined)?.find((r) => r.controller);
    const enqueueDownRevision = (o: KubeObject) => {
      const owner = ownerKind(o);
      if (owner?.kind !== this.kind || !owner.name) return;
      const ns = deps.namespaces.upstreamOf(o.metadata?.namespace ?? '');
      if (ns !== undefined) this.controller.enqueue(formatObjectKey({ cluster: deps.upstreamCluster, namespace: ns, name: owner.name }));
    };
    const enqueueUpRevision = (o: KubeObject) => {
      const owner = ownerKind(o);
      if (owner?.kind === this.kind && owner.name) this.controller.enqueue(formatObjectKey({ cluster: deps.upstreamCluster, namespace: o.metadata?.namespace ?? '', name: owner.name }));
    };
    this.handlers = [
      [deps.upstreamOwners, { add: enqueueUp, update: (_o: KubeObject, n: KubeObject) => enqueueUp(n), delete: enqueueUp }],
      [deps.downstreamOwners, { add: enqueueDownOwner, update: (_o: KubeObject, n: KubeObject) => enqueueDownOwner(n), delete: enqueueDownOwner }],
      [this.downstreamRevisions as Informer, { add: enqueueDownRevision, update: (_o: KubeObject, n: KubeObject) => enqueueDownRevision(n), delete: enqueueDownRevision }],
      [this.upstreamRevisions as Informer, { add: enqueueUpRevision, update: (_o: KubeObject, n: KubeObject) => enqueueUpRevision(n), delete: enqueueUpRevision }],
    ];
    for (const [inf, h] of this.handlers) inf.addEventHandler(h);
  }

  private readonly handlers: [Informer, { add(o: KubeObject): void; update(o: KubeObject, n: KubeObject): void; delete(o: KubeObject): void }][];

  start(): void {
    this.upstreamRevisions.start();
    this.downstreamRevisions.start();
    this.controller.start();
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    for (const [inf, h] of this.handlers) inf.removeEventHandler(h);
    await Promise.all([this.deps.upstreamInformers.drop(this.upstreamRevisions as Informer), this.deps.downstreamInformers.drop(this.downstreamRevisions as Informer)]);
  }

  private synced(): boolean {
    return this.upstreamRevisions.hasSynced() && this.downstreamRevisions.hasSynced() && this.deps.upstreamOwners.hasSynced() && this.deps.downstreamOwners.hasSynced() && this.deps.namespaces.upstream.hasSynced() && this.deps.namespaces.downstream.hasSynced();
  }

  private async reconcile(key: string): Promise<{ requeueAfterMs: number } | void> {
    if (!this.synced()) return { requeueAfterMs: 200 };
    const k = parseObjectKey(key);
    const up = this.deps.upstreamOwners.lister.get(key);
    // A deleted object's mirrors go with it (garbage collector, by their ownerReference).
    if (!up?.metadata?.uid || up.metadata.deletionTimestamp) return;
    const nsObj = this.deps.namespaces.upstreamNamespace(k.namespace);
    if (!isRevisionWriter(up, nsObj, this.deps.key)) return;
    const downNs = this.deps.namespaces.downstreamName(k.namespace);
    const down = this.deps.downstreamOwners.lister.get(formatObjectKey({ cluster: 'root', namespace: downNs, name: k.name }));
    // No copy (yet, or the object is leaving this cluster): the mirrors stay as they are until a writer has a copy.
    if (!down?.metadata?.uid || !this.deps.isOurCopy(down)) return;
    const wanted = this.downstreamRevisions.lister.byIndex(BY_OWNER_UID, down.metadata.uid).filter((r) => r.metadata?.namespace === downNs && !r.metadata?.deletionTimestamp);
    const have = this.upstreamRevisions.lister.byIndex(BY_OWNER_UID, up.metadata.uid).filter((r) => r.metadata?.namespace === k.namespace);
    const { upstream, upstreamCluster } = this.deps;
    const scope = { cluster: upstreamCluster, namespace: k.namespace };
    const ownerRef = { apiVersion: up.apiVersion ?? 'apps/v1', kind: this.kind, name: k.name, uid: up.metadata.uid, controller: true, blockOwnerDeletion: true };
    const wantedNames = new Set<string>();
    for (const d of wanted) {
      const name = d.metadata!.name!;
      wantedNames.add(name);
      const desired: ControllerRevision = {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name, namespace: k.namespace, labels: mirrorLabels(d), ownerReferences: [ownerRef] },
        data: d.data,
        revision: d.revision,
      };
      const cur = have.find((h) => h.metadata?.name === name);
      if (cur) {
        if (cur.revision === desired.revision && jsonEqual(cur.data, desired.data) && jsonEqual(cur.metadata?.labels ?? {}, desired.metadata!.labels) && jsonEqual(cur.metadata?.ownerReferences, desired.metadata!.ownerReferences)) continue;
        await upstream.update(controllerRevisionsGVR, { ...desired, metadata: { ...cur.metadata, ...desired.metadata, resourceVersion: cur.metadata?.resourceVersion } }, scope);
        continue;
      }
      try {
        await upstream.create(controllerRevisionsGVR, desired, scope);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
        // Exists: a mirror of an earlier object of this name (the garbage collector not there yet) or someone's own.
        const other = await upstream.get<ControllerRevision>(controllerRevisionsGVR, name, scope).catch(() => undefined);
        if (other && other.metadata?.labels?.[REVISION_MIRROR_LABEL] === 'true' && controllerUid(other) !== up.metadata.uid) {
          await upstream.delete(controllerRevisionsGVR, name, { ...scope }).catch(() => undefined);
          return { requeueAfterMs: 200 };
        }
        logger.warn('syncer: a ControllerRevision of that name exists upstream; not mirrored', { namespace: k.namespace, name });
      }
    }
    for (const h of have) {
      if (wantedNames.has(h.metadata!.name!)) continue;
      try {
        await upstream.delete(controllerRevisionsGVR, h.metadata!.name!, scope);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
  }
}
