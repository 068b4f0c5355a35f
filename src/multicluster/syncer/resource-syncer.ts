/**
 * Syncs one resource between the SyncTarget's workspace (upstream) and the physical cluster (downstream):
 *
 * - spec down: an assigned upstream object gets a downstream copy (toDownstream) in the mapped namespace, created or
 *   rewritten only when its content hash changed, then the syncer finalizer and its Synced condition (one write);
 * - fields a downstream controller owns are kept downstream and mirrored up (downstream-owned.ts);
 * - a Pod's ephemeral containers (`kubectl debug` upstream) go down through the copy's pods/ephemeralcontainers, the
 *   only way a cluster lets them change, before the rest of the copy is rewritten (decisions/ephemeral-containers.ts);
 * - status up: the downstream status, when it differs from what was last written, replaces the upstream status;
 * - syncing state: a per-target Synced condition annotation on the upstream object (sync-condition.ts), plus Events
 *   for failures;
 * - unassigned upstream objects: the downstream copy is deleted, then the finalizer (and the condition) released;
 *   deleted ones are gone upstream at once (the DELETE released the finalizer, decisions/deletion.ts; not so Pods and
 *   claims), and their copies, found without an upstream object, are deleted after them, as after a restart;
 * - a copy made from an earlier object of the same name (UPSTREAM_UID_ANNOTATION) is deleted and made again;
 * - status up for an object on one cluster keeps the conditions someone else set upstream that the kind's
 *   controllers do not manage.
 *
 * Only downstream objects carrying this target's DOWNSTREAM_CLUSTER_LABEL are ever read or written. One queue key
 * per upstream object (`<cluster>|<ns>/<name>`); downstream events map back to it through the namespace locator.
 * Failures stay in this resource's queue (with backoff): other resources keep syncing.
 */
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { EventHandler, Informer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import { resourcePath, type GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { stripClusterAnnotation } from '../../controllers/runtime/committer.js';
import { logger } from '../../logging/logger.js';
import { syncerFinalizer } from '../api/keys.js';
import { MIRROR_LABEL } from '../api/mirrors.js';
import { ADOPTED_ON_ANNOTATION, aggregatesStatus, awaitsPlacement, kindPlacementOf, kindPlacementOfKind, statusAnnotation } from '../api/kind-placement.js';
import { adoptsPods } from '../decisions/orphans.js';
import { workspaceNodeName } from '../api/node-names.js';
import { CLUSTER_LABEL, DOWNSTREAM_CLUSTER_LABEL, followerResources, SPEC_HASH_ANNOTATION, SYNCER_FIELD_MANAGER, UPSTREAM_UID_ANNOTATION } from '../api/types.js';
import { assignedElsewhere, downstreamOwnedPaths, keepDownstreamOwned, upstreamMirrorPatch } from './downstream-owned.js';
import { nextSyncCondition, onlySyncBookkeepingChanged, syncedAnnotation, withoutSyncConditions } from './sync-condition.js';
import { withForeignConditions } from '../decisions/foreign-conditions.js';
import type { NamespaceMapper } from './namespace-mapper.js';
import type { UpstreamCache } from './upstream-refs.js';
import { MIRRORED_REVISION_OWNERS, RevisionMirror } from './revision-mirror.js';
import { ephemeralContainersDiffer, ephemeralContainersOf, ephemeralContainersPatch, withEphemeralContainersOf } from '../decisions/ephemeral-containers.js';
import type { DownstreamPriorityClasses } from './priority-classes.js';
import type { DownstreamVolumes } from './workspace-volumes.js';
import { statusIsBinders } from '../decisions/volume-binding.js';
import { podsOf, podTemplateOf } from '../decisions/workload-references.js';
import type { CopyLookup, DependencyGate } from './dependency-gate.js';
import { contentHash, downstreamHashOf, heldOver, isAssigned, isClusterLocal, keepDownstreamAllocations, toDownstream, type TargetIdentity } from './transform.js';

export interface ResourceSyncerDeps {
  gvr: GroupVersionResource;
  namespaced: boolean;
  hasStatus: boolean;
  upstream: RestClient;
  upstreamCluster: string;
  downstream: RestClient;
  upstreamInformers: InformerFactory;
  downstreamInformers: InformerFactory;
  target: TargetIdentity;
  namespaces: NamespaceMapper;
  /** For followers (ConfigMaps, Secrets, ServiceAccounts): whether a workload in this upstream namespace is assigned. */
  workloadAssignedIn(namespace: string): boolean;
  /** Reports a sync failure on the upstream object (an Event). */
  recordWarning(obj: KubeObject, reason: string, message: string): void;
  /** Makes the PriorityClasses that synced pod specs name on the cluster (priority-classes.ts). */
  priorityClasses?: DownstreamPriorityClasses;
  /** Makes the copies of the workspace's own volumes its synced claims are bound to (workspace-volumes.ts). */
  volumes?: DownstreamVolumes;
  /** Holds a workload's first copy until the copies of what its pods name are on the cluster (dependency-gate.ts). */
  dependencies?: DependencyGate;
  /** Observes end-to-end latencies (benchmarks): 'down' when a downstream write succeeded, 'up' for status. */
  onSynced?(direction: 'down' | 'up', upstream: KubeObject): void;
  workers?: number;
}

/** Informer index of a resource's objects by namespace (enqueueAll and hasAssignedIn of one namespace). */
const BY_NAMESPACE = 'syncer/by-namespace';
const namespaceOf = (o: KubeObject): string[] => (o.metadata?.namespace ? [o.metadata.namespace] : []);

/** Resources whose objects a cluster's controllers make carrying the labels of one of ours (a Service's). */
const groupOf = (apiVersion: unknown) => (typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

const LABEL_COPYING_RESOURCES = new Set(['endpoints', 'endpointslices']);

/** How many times a downstream update meeting a newer resourceVersion is read and put again before backing off. */
const CONFLICT_RETRIES = 4;

/** The workload resources whose pods name followers, by `<group>/<resource>`, with the kind podTemplateOf reads. */
const POD_SPEC_KINDS: Readonly<Record<string, string>> = {
  '/pods': 'Pod',
  '/replicationcontrollers': 'ReplicationController',
  'apps/deployments': 'Deployment',
  'apps/replicasets': 'ReplicaSet',
  'apps/statefulsets': 'StatefulSet',
  'apps/daemonsets': 'DaemonSet',
  'batch/jobs': 'Job',
  'batch/cronjobs': 'CronJob',
};

export class ResourceSyncer implements CopyLookup {
  readonly upstreamInformer: Informer;
  readonly downstreamInformer: Informer;
  private readonly controller: Controller;
  /** The hash of the status this syncer last wrote (or found already written) per upstream key. */
  private readonly lastStatusHash = new Map<string, string>();
  /** Workloads (of any resource) waiting for the copy of an object of this one, per upstream key, by waiter id. */
  private readonly copyWaiters = new Map<string, Map<string, () => void>>();
  /** True once the SyncTarget is being deleted: nothing new is synced, everything is torn down. */
  draining = false;
  /** While draining: strip our label from downstream objects instead of deleting them (deletionPolicy Orphan). */
  orphanOnDrain = false;

  constructor(private readonly deps: ResourceSyncerDeps) {
    const { gvr, upstreamCluster, upstreamInformers, downstreamInformers, target } = deps;
    this.noStrategicMerge = kindPlacementOf(gvr.group, gvr.resource) === undefined;
    // Pods: the mirrors of what the clusters run (workspace-mirrors.ts) are most of a workspace's pods and change all
    // the time; they are never synced (isClusterLocal), so they stay out of this cache and cost no reconcile.
    this.upstreamInformer = upstreamInformers.informerFor(gvr, gvr.group === '' && gvr.resource === 'pods' ? { cluster: upstreamCluster, labelSelector: `!${MIRROR_LABEL}` } : { cluster: upstreamCluster });
    this.downstreamInformer = downstreamInformers.informerFor(gvr, { labelSelector: `${DOWNSTREAM_CLUSTER_LABEL}=${target.key}` });
    // Both informers may be shared (the downstream one with other workspaces' syncers of the resource): the same
    // index function under the same name, so whoever adds it last changes nothing.
    this.upstreamInformer.addIndexer(BY_NAMESPACE, namespaceOf);
    this.downstreamInformer.addIndexer(BY_NAMESPACE, namespaceOf);
    this.controller = new Controller({ name: `syncer-${gvr.resource}`, workers: deps.workers ?? 16, reconcile: (key) => this.reconcile(key) });
    const enqueueUp = (o: KubeObject) => {
      const key = this.upstreamKey(o);
      this.controller.enqueue(key);
      // A follower deleted or pinned elsewhere upstream will not be copied: its waiters look again now.
      this.wakeWaiters(key);
    };
    // An update that only records some syncer's Synced condition is not a change to sync (see onlySyncBookkeepingChanged).
    this.upstreamInformer.addEventHandler(this.upstreamHandler = { add: enqueueUp, update: (o, n) => onlySyncBookkeepingChanged(o, n) || enqueueUp(n), delete: enqueueUp });
    const enqueueDown = (o: KubeObject) => {
      const key = this.upstreamKeyOfDownstream(o);
      if (!key) return;
      this.controller.enqueue(key);
      if (this.downstreamInformer.lister.get(formatObjectKey({ cluster: 'root', namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' }))) this.wakeWaiters(key);
    };
    // The downstream informer is shared with the syncers of the same resource for other upstream workspaces.
    this.downstreamInformer.addEventHandler(this.downstreamHandler = { add: enqueueDown, update: (_o, n) => enqueueDown(n), delete: enqueueDown });
    // StatefulSets and DaemonSets: their clusters' ControllerRevisions mirrored up (rollout history and undo).
    if (gvr.group === 'apps' && MIRRORED_REVISION_OWNERS[gvr.resource] && deps.namespaced) {
      this.revisions = new RevisionMirror({
        gvr,
        upstream: deps.upstream,
        upstreamCluster,
        upstreamInformers,
        downstreamInformers,
        upstreamOwners: this.upstreamInformer,
        downstreamOwners: this.downstreamInformer,
        isOurCopy: (o) => this.isOurCopy(o),
        namespaces: deps.namespaces,
        key: target.key,
      });
    }
  }

  private readonly revisions?: RevisionMirror;

  private readonly upstreamHandler: EventHandler<KubeObject>;
  private readonly downstreamHandler: EventHandler<KubeObject>;

  get resource(): string {
    return this.deps.gvr.resource;
  }

  start(): void {
    this.upstreamInformer.start();
    this.downstreamInformer.start();
    this.controller.start();
    this.revisions?.start();
  }

  /** Stops the workers and closes this resource's two watches (they belong to this syncer alone). */
  async stop(): Promise<void> {
    // Workloads waiting for a copy of ours look again (without this syncer nothing of it is waited for).
    for (const key of [...this.copyWaiters.keys()]) this.wakeWaiters(key);
    await this.revisions?.stop();
    await this.controller.stop();
    this.upstreamInformer.removeEventHandler(this.upstreamHandler);
    this.downstreamInformer.removeEventHandler(this.downstreamHandler);
    await Promise.all([this.deps.upstreamInformers.drop(this.upstreamInformer), this.deps.downstreamInformers.drop(this.downstreamInformer)]);
  }

  /** Both caches have listed (until then nothing may be decided from what they lack). */
  synced(): boolean {
    return this.upstreamInformer.hasSynced() && this.downstreamInformer.hasSynced() && this.deps.namespaces.upstream.hasSynced() && this.deps.namespaces.downstream.hasSynced();
  }

  async waitForSync(): Promise<void> {
    await Promise.all([this.upstreamInformer.waitForSync(), this.downstreamInformer.waitForSync()]);
  }

  /** Re-examines every upstream object (namespace assignment changed, draining started). */
  enqueueAll(namespace?: string): void {
    // One namespace (its assignment changed, a workload there moved): its objects from the namespace indexes, not a
    // scan of every object of the resource (a burst of 50 apps made that quadratic).
    if (namespace !== undefined && this.deps.namespaced) {
      for (const o of this.upstreamInformer.lister.byIndex(BY_NAMESPACE, namespace)) this.controller.enqueue(this.upstreamKey(o));
      for (const o of this.downstreamInformer.lister.byIndex(BY_NAMESPACE, this.deps.namespaces.downstreamName(namespace))) {
        const k = this.upstreamKeyOfDownstream(o);
        if (k && parseObjectKey(k).namespace === namespace) this.controller.enqueue(k);
      }
      return;
    }
    for (const o of this.upstreamInformer.lister.list()) if (namespace === undefined || o.metadata?.namespace === namespace) this.controller.enqueue(this.upstreamKey(o));
    for (const o of this.downstreamInformer.lister.list()) {
      const k = this.upstreamKeyOfDownstream(o);
      if (k && (namespace === undefined || parseObjectKey(k).namespace === namespace)) this.controller.enqueue(k);
    }
  }

  /**
   * The upstream cache of the resource once it has listed (undefined before): what the mirrors' owner lookups read
   * instead of GETs (upstream-refs.ts).
   */
  cachedUpstream(): UpstreamCache | undefined {
    if (!this.upstreamInformer.hasSynced()) return undefined;
    const { upstreamCluster, namespaced } = this.deps;
    return {
      get: (namespace, name) => this.upstreamInformer.lister.get(formatObjectKey({ cluster: upstreamCluster, namespace: namespaced ? namespace : '', name })),
      inNamespace: (namespace) => (namespaced ? this.upstreamInformer.lister.byIndex(BY_NAMESPACE, namespace) : []),
    };
  }

  /** Whether any upstream object in `namespace` is assigned here (used to decide whether followers sync). */
  hasAssignedIn(namespace: string): boolean {
    for (const o of this.deps.namespaced ? this.upstreamInformer.lister.byIndex(BY_NAMESPACE, namespace) : []) {
      if (o.metadata?.namespace !== namespace || o.metadata.deletionTimestamp) continue;
      if (isAssigned(o, this.deps.namespaces.upstreamNamespace(namespace), this.deps.target, this.deps.gvr)) return true;
    }
    return false;
  }

  awaitsCopy(namespace: string, name: string): boolean {
    const up = this.upstreamInformer.lister.get(formatObjectKey({ cluster: this.deps.upstreamCluster, namespace, name }));
    if (!up || up.metadata?.deletionTimestamp || up.metadata?.labels?.[MIRROR_LABEL] !== undefined || isClusterLocal(this.deps.gvr.resource, up)) return false;
    // Pinned by hand to another cluster (`workload.kcp.io/cluster`): it is not coming here, nothing to wait for.
    if (up.metadata?.labels?.[CLUSTER_LABEL] !== undefined && !this.wants(up)) return false;
    const copy = this.downstreamInformer.lister.get(formatObjectKey({ cluster: 'root', namespace: this.deps.namespaces.downstreamName(namespace), name }));
    return !this.isOurCopy(copy);
  }

  whenCopied(namespace: string, name: string, id: string, wake: () => void): void {
    const key = formatObjectKey({ cluster: this.deps.upstreamCluster, namespace, name });
    const waiters = this.copyWaiters.get(key) ?? new Map<string, () => void>();
    waiters.set(id, wake);
    this.copyWaiters.set(key, waiters);
  }

  cancelWait(namespace: string, name: string, id: string): void {
    const key = formatObjectKey({ cluster: this.deps.upstreamCluster, namespace, name });
    const waiters = this.copyWaiters.get(key);
    if (waiters?.delete(id) && waiters.size === 0) this.copyWaiters.delete(key);
  }

  /** Wakes the workloads waiting for `key`'s copy (it appeared, or the upstream object changed or went). */
  private wakeWaiters(key: string): void {
    const waiters = this.copyWaiters.get(key);
    if (!waiters) return;
    this.copyWaiters.delete(key);
    for (const wake of waiters.values()) wake();
  }

  /** Whether an upstream object (live, in a live namespace) is held here by its own assignment alone (heldOver). */
  holdsOver(): boolean {
    return this.upstreamInformer.lister.list().some((o) => !o.metadata?.deletionTimestamp && heldOver(o, this.deps.target) && this.wants(o));
  }

  /** Upstream objects still holding this target's finalizer, and downstream objects still present. */
  remaining(): { upstreamFinalized: number; downstream: number } {
    const fin = syncerFinalizer(this.deps.target.key);
    return {
      upstreamFinalized: this.upstreamInformer.lister.list().filter((o) => o.metadata?.finalizers?.includes(fin)).length,
      // Only the copies of this workspace's objects: the downstream informer also holds other workspaces' copies.
      downstream: this.downstreamInformer.lister.list().filter((o) => this.upstreamKeyOfDownstream(o) !== undefined).length,
    };
  }

  private upstreamKey(o: KubeObject): string {
    return formatObjectKey({ cluster: this.deps.upstreamCluster, namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
  }

  /**
   * Whether a downstream object selected by our label is a copy this syncer made. The clusters' endpoint controllers
   * copy a Service's labels (ours included) onto the Endpoints and EndpointSlices they make for it: those carry no
   * content hash, which every copy of ours has, and are the cluster's.
   */
  private isOurCopy(o: KubeObject | undefined): o is KubeObject {
    if (!o) return false;
    return !LABEL_COPYING_RESOURCES.has(this.deps.gvr.resource) || o.metadata?.annotations?.[SPEC_HASH_ANNOTATION] !== undefined;
  }

  private upstreamKeyOfDownstream(o: KubeObject): string | undefined {
    if (!this.isOurCopy(o)) return undefined;
    if (!this.deps.namespaced) return formatObjectKey({ cluster: this.deps.upstreamCluster, namespace: '', name: o.metadata?.name ?? '' });
    const up = this.deps.namespaces.upstreamOf(o.metadata?.namespace ?? '');
    return up === undefined ? undefined : formatObjectKey({ cluster: this.deps.upstreamCluster, namespace: up, name: o.metadata?.name ?? '' });
  }

  private wants(up: KubeObject | undefined): boolean {
    if (!up || up.metadata?.deletionTimestamp || this.draining) return false;
    const ns = up.metadata?.namespace;
    if (isClusterLocal(this.deps.gvr.resource, up)) return false;
    const nsObj = ns ? this.deps.namespaces.upstreamNamespace(ns) : undefined;
    if (ns && (!nsObj || nsObj.metadata?.deletionTimestamp)) return false;
    if (isAssigned(up, nsObj, this.deps.target, this.deps.gvr)) return true;
    // ConfigMaps, Secrets and ServiceAccounts follow the workloads of their namespace, in namespaces assigned by hand;
    // in placed ones the placement controller labels exactly those the placed workloads use.
    if (nsObj?.metadata?.annotations?.['scheduling.atrium.io/split-workloads'] === 'true') return false;
    return !!ns && followerResources.has(this.deps.gvr.resource) && !up.metadata?.labels?.['workload.kcp.io/cluster'] && this.deps.workloadAssignedIn(ns);
  }

  private async reconcile(key: string): Promise<{ requeueAfterMs: number } | void> {
    // The shared downstream informer replays its objects to a new syncer at once: before this syncer's own caches
    // have listed, a missing upstream object would read as "deleted" and its live downstream copy would be removed.
    if (!this.synced()) return { requeueAfterMs: 100 };
    const { gvr, upstream, upstreamCluster, downstream, target } = this.deps;
    const k = parseObjectKey(key);
    const up = this.upstreamInformer.lister.get(key);
    const downNs = k.namespace ? this.deps.namespaces.downstreamName(k.namespace) : undefined;
    const cached = this.downstreamInformer.lister.get(formatObjectKey({ cluster: 'root', namespace: downNs ?? '', name: k.name }));
    const down = this.isOurCopy(cached) ? cached : undefined;
    const fin = syncerFinalizer(target.key);
    // In a placed namespace, an object the placement controller has not decided yet is left as it is: nothing is
    // created, and a copy synced before (by an older version's namespace-wide rule) is neither rewritten nor removed.
    if (up && !up.metadata?.deletionTimestamp && !this.draining && awaitsPlacement(up, up.metadata?.namespace ? this.deps.namespaces.upstreamNamespace(up.metadata.namespace) : undefined, gvr)) return;

    if (!this.wants(up)) {
      this.deps.dependencies?.forget(key);
      if (down) {
        if (this.draining && this.orphanOnDrain) {
          const kept = deepCopy(down);
          delete kept.metadata!.labels![DOWNSTREAM_CLUSTER_LABEL];
          delete kept.metadata!.annotations?.[SPEC_HASH_ANNOTATION];
          await downstream.update(gvr, kept, { namespace: downNs });
          return; // it leaves our label selection: the informer reports a delete and we come back
        }
        try {
          await downstream.delete(gvr, k.name, { namespace: downNs }, { propagationPolicy: 'Background', preconditions: { uid: down.metadata?.uid } });
        } catch (err) {
          if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
        }
        return; // the downstream delete event brings us back to release the finalizer
      }
      this.lastStatusHash.delete(key);
      if (up?.metadata?.finalizers?.includes(fin)) {
        // Confirm with a live read: the cache may lag behind a create we just made.
        if (downNs !== undefined || !this.deps.namespaced) {
          try {
            const live = await downstream.get(gvr, k.name, { namespace: downNs });
            // Still ours and there: its delete event will come. Without our label it is no longer ours (orphaned on
            // drain, or unlabelled by someone): no event will come, and the finalizer goes now.
            if (live.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] === target.key && this.isOurCopy(live)) return;
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 404)) throw err;
          }
        }
        // The claim left the cluster: so does the copy of the workspace volume it was bound to.
        await this.deps.volumes?.releaseFor(gvr.resource, up);
        const next = deepCopy(stripClusterAnnotation(up));
        next.metadata!.finalizers = next.metadata!.finalizers!.filter((f) => f !== fin);
        // The object left this cluster: its Synced condition and reported status for this target go with the finalizer.
        delete next.metadata!.annotations?.[syncedAnnotation(target.key)];
        delete next.metadata!.annotations?.[statusAnnotation(target.key)];
        await upstream.update(gvr, next, { cluster: upstreamCluster, namespace: k.namespace || undefined });
      }
      return;
    }

    let current = up!;
    const madeFrom = down?.metadata?.annotations?.[UPSTREAM_UID_ANNOTATION];
    if (down && madeFrom && madeFrom !== current.metadata?.uid) {
      // The copy of an object deleted and made again under this name (a DELETE does not wait for the copies:
      // decisions/deletion.ts): it is replaced, never taken for the new object's — a Job re-created from the same
      // manifest runs again, as on one cluster.
      this.lastStatusHash.delete(key);
      try {
        await downstream.delete(gvr, k.name, { namespace: downNs }, { propagationPolicy: 'Background', preconditions: { uid: down.metadata?.uid } });
      } catch (err) {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      }
      return; // the downstream delete event brings us back to create the new copy
    }
    if (!down && finishedRun(gvr.resource, current)) {
      // A Job or a bare Pod that ran to completion is never started again because its copy is gone: the cluster's
      // TTL-after-finished controller (a Job with ttlSecondsAfterFinished: the upstream Job goes too, as it would in
      // the cluster), its pod garbage collector, or a move to another cluster after it finished.
      const ttl = (current.spec as { ttlSecondsAfterFinished?: unknown } | undefined)?.ttlSecondsAfterFinished;
      if (gvr.resource === 'jobs' && typeof ttl === 'number' && current.metadata?.finalizers?.includes(fin)) {
        await upstream.delete(gvr, k.name, { cluster: upstreamCluster, namespace: k.namespace || undefined }, { propagationPolicy: 'Background', preconditions: { uid: current.metadata?.uid } }).catch((err: unknown) => {
          if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
        });
      }
      return;
    }
    // A claim naming a volume of the workspace goes down once the workspace's binder bound it, pre-bound to its copy.
    const awaitsBinding = down ? undefined : await this.deps.volumes?.awaitsBinding(gvr.resource, current);
    if (awaitsBinding !== undefined) return { requeueAfterMs: awaitsBinding };
    const podKind = POD_SPEC_KINDS[`${gvr.group}/${gvr.resource}`];
    // A workload that runs no pod (0 replicas) has nothing to wait for: a claim is not even sent where it runs none.
    if (!down && podKind && this.deps.dependencies && k.namespace && podsOf(podKind, current) > 0) {
      const podSpec = podTemplateOf(podKind, current)?.spec;
      const waitMs = this.deps.dependencies.wait(key, k.namespace, podSpec, () => this.controller.enqueue(key));
      if (waitMs !== undefined) return { requeueAfterMs: waitMs };
    }
    let targetNs: string | undefined;
    if (k.namespace) targetNs = await this.deps.namespaces.ensureDownstream(k.namespace);
    // Fields a downstream controller owns (see downstream-owned.ts): mirrored up, and kept as they are downstream.
    const owned = downstreamOwnedPaths(down);
    // A Pod's spec is immutable upstream (its nodeName is the cluster's binding): nothing of it is mirrored.
    if (down && owned.length > 0 && gvr.resource !== 'pods' && !assignedElsewhere(current, target.key)) {
      const mirror = upstreamMirrorPatch(current, down, owned);
      if (mirror) {
        try {
          current = await upstream.patch(gvr, k.name, 'merge', mirror, { cluster: upstreamCluster, namespace: k.namespace || undefined, fieldManager: SYNCER_FIELD_MANAGER });
          this.deps.onSynced?.('up', current);
        } catch (err) {
          // A value the upstream object cannot take (an immutable field) stays downstream only; syncing goes on.
          if (!(err instanceof StatusError && (err.code === 422 || err.code === 400))) throw err;
          this.deps.recordWarning(current, 'MirrorFailed', `a field the physical cluster set could not be mirrored upstream: ${err.message}`);
        }
      }
    }
    const desired = toDownstream(withoutSyncConditions(current), gvr.resource, targetNs, target.key, target.name);
    if (down && owned.length > 0) keepDownstreamOwned(desired, down, owned);
    let latestDown = down;
    // A pod spec naming a PriorityClass needs the class on the cluster before the cluster admits its pods.
    if (!down || downstreamHashOf(down) !== downstreamHashOf(desired)) {
      await this.deps.priorityClasses?.ensureFor(gvr.resource, desired);
      // A claim bound to a volume of the workspace goes down pre-bound to the volume's copy, made first.
      await this.deps.volumes?.ensureFor(gvr.resource, current, targetNs);
    }
    try {
      if (!down) {
        latestDown = await this.writeDown('POST', desired, targetNs);
        this.deps.dependencies?.forget(key);
        this.deps.onSynced?.('down', current);
      } else if (downstreamHashOf(down) !== downstreamHashOf(desired)) {
        latestDown = await this.updateDown(desired, down, targetNs);
        this.deps.onSynced?.('down', current);
      }
    } catch (err) {
      if (err instanceof StatusError && err.code === 409 && !down) {
        const existing = await downstream.get(gvr, k.name, { namespace: targetNs });
        if (existing.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] !== target.key || !this.isOurCopy(existing)) {
          const message = `${gvr.resource} ${targetNs ? targetNs + '/' : ''}${k.name} already exists in the physical cluster and was not created by this syncer; leaving it alone`;
          this.deps.recordWarning(current, 'SyncConflict', message);
          await this.setSyncCondition(current, 'False', 'SyncConflict', message);
          return;
        }
        throw err; // ours: the informer will catch up
      }
      if (err instanceof StatusError && (err.code === 422 || err.code === 400 || err.code === 403)) {
        const message = `the physical cluster refused the ${gvr.resource}: ${err.message}`;
        this.deps.recordWarning(current, 'SyncFailed', message);
        await this.setSyncCondition(current, 'False', 'SyncFailed', message);
      }
      throw err;
    }
    // The finalizer is added after the downstream write, together with the Synced condition: one upstream write per
    // new object, off the spec-down path. Nothing can be orphaned in between: a downstream object carrying our label
    // whose upstream object is gone is deleted by the same reconcile (its delete event, or the re-list on restart,
    // brings us here with no upstream object).
    // The Synced condition and, for an object on several clusters, this cluster's status annotation go up in one
    // write (with the finalizer when it is new): written one after the other, each was a write of its own and a watch
    // event to every controller of the resource.
    const annotations: Record<string, string | null> = {};
    const condition = nextSyncCondition(current, target.key, { status: 'True', reason: 'Synced' });
    if (condition !== undefined) annotations[syncedAnnotation(target.key)] = condition;
    const withStatus = this.deps.hasStatus && latestDown !== undefined && latestDown.status !== undefined;
    const reported = withStatus ? this.reportedStatusChange(current, latestDown!) : undefined;
    if (reported) annotations[reported[0]] = reported[1];
    const before = current;
    if (!current.metadata?.finalizers?.includes(fin)) current = await this.addFinalizer(current, fin, annotations);
    else if (Object.keys(annotations).length > 0) current = await this.patchAnnotations(current, annotations);
    if (reported && reported[1] !== null && current !== before) this.deps.onSynced?.('up', current);
    if (withStatus) await this.syncStatusUp(key, current, latestDown!);
    if (gvr.resource === 'pods' && latestDown) {
      await this.bindUpstreamPod(current, latestDown);
      await this.carryPodOwnerUp(current, latestDown);
    }
  }

  /**
   * A synced bare Pod that the cluster's ReplicaSet or ReplicationController adopted (the controller was placed where
   * its orphans run: decisions/orphans.ts) is owned upstream by that controller's upstream object, and released when
   * the cluster's controller releases it, as on one cluster. Only a reference this syncer set (ADOPTED_ON_ANNOTATION)
   * is ever removed; a pod someone else owns upstream is left alone.
   */
  private async carryPodOwnerUp(up: KubeObject, down: KubeObject): Promise<void> {
    const refs = up.metadata?.ownerReferences ?? [];
    const upController = refs.find((r) => r.controller === true);
    const target = this.deps.target.name;
    const ours = up.metadata?.annotations?.[ADOPTED_ON_ANNOTATION] === target;
    if (upController && !ours) return;
    const downController = (down.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
    // Carried up already: no lookup on every status change of an adopted pod.
    if (ours && upController && downController && upController.kind === downController.kind && upController.name === downController.name) return;
    let wanted: Record<string, unknown> | undefined;
    const kind = downController && typeof downController.kind === 'string' && adoptsPods(downController.kind) ? kindPlacementOfKind(groupOf(downController.apiVersion), downController.kind) : undefined;
    if (kind && typeof downController?.name === 'string') {
      const scope = { cluster: this.deps.upstreamCluster, namespace: up.metadata?.namespace || undefined };
      const owner = await this.deps.upstream.get({ group: kind.group, version: kind.version, resource: kind.resource }, downController.name, scope).catch((err: unknown) => {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      });
      if (owner?.metadata?.uid && owner.metadata.labels?.[MIRROR_LABEL] === undefined) {
        wanted = { apiVersion: kind.group ? `${kind.group}/${kind.version}` : kind.version, kind: kind.kind, name: downController.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
      }
    }
    if (wanted ? upController?.uid === wanted.uid : !upController) return;
    const next = [...refs.filter((r) => r !== upController), ...(wanted ? [wanted] : [])];
    try {
      await this.deps.upstream.patch(this.deps.gvr, up.metadata!.name!, 'merge', { metadata: { resourceVersion: up.metadata?.resourceVersion, ownerReferences: next.length ? next : null, annotations: { [ADOPTED_ON_ANNOTATION]: wanted ? target : null } } }, {
        cluster: this.deps.upstreamCluster,
        namespace: up.metadata?.namespace || undefined,
        fieldManager: SYNCER_FIELD_MANAGER,
      });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  /**
   * A bare Pod created upstream is synced (not mirrored): once its cluster bound it, its upstream spec.nodeName
   * becomes `<cluster>--<node>` (api/node-names.ts), as on the mirrors of controllers' pods (decisions/mirror-objects.ts), so `kubectl get
   * pods -o wide` shows every pod's cluster and node alike. Binding an unbound pod is the one change of a Pod's spec
   * upstream validation admits; toDownstream sends down only a nodeName its creator pinned, outside the content hash, so the copy is not rewritten for it.
   */
  private async bindUpstreamPod(up: KubeObject, down: KubeObject): Promise<void> {
    const node = (down.spec as { nodeName?: unknown } | undefined)?.nodeName;
    if (typeof node !== 'string' || !node || (up.spec as { nodeName?: unknown } | undefined)?.nodeName) return;
    try {
      await this.deps.upstream.patch(this.deps.gvr, up.metadata!.name!, 'merge', { spec: { nodeName: workspaceNodeName(this.deps.target.name, node) } }, {
        cluster: this.deps.upstreamCluster,
        namespace: up.metadata?.namespace || undefined,
        fieldManager: SYNCER_FIELD_MANAGER,
      });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 422))) throw err;
    }
  }

  /**
   * Adds this target's finalizer (and its Synced condition) to the upstream object. Built-in kinds take a strategic
   * merge patch, which merges into the finalizers and annotations of the object as stored: the syncers of every
   * cluster an object goes to add theirs at the same moment, and as a PUT of the whole object all but one of them
   * failed with a 409 and went round again (~350 conflicts in a burst of 50 apps). Custom resources have no strategic
   * merge patch (415, remembered): a PUT with the object's resourceVersion as before.
   */
  private async addFinalizer(up: KubeObject, fin: string, annotations: Record<string, string | null>): Promise<KubeObject> {
    const scope = { cluster: this.deps.upstreamCluster, namespace: up.metadata?.namespace || undefined };
    if (!this.noStrategicMerge) {
      const metadata: Record<string, unknown> = { uid: up.metadata?.uid, finalizers: [fin] };
      if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
      try {
        return await this.deps.upstream.patch(this.deps.gvr, up.metadata!.name!, 'strategic', { metadata }, { ...scope, fieldManager: SYNCER_FIELD_MANAGER });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 415)) throw err;
        this.noStrategicMerge = true;
      }
    }
    const next = deepCopy(stripClusterAnnotation(up));
    next.metadata!.finalizers = [...(next.metadata!.finalizers ?? []), fin];
    const merged: Record<string, string> = { ...(next.metadata!.annotations ?? {}) };
    for (const [k, v] of Object.entries(annotations)) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    next.metadata!.annotations = merged;
    return this.deps.upstream.update(this.deps.gvr, next, scope);
  }

  /** One merge patch of annotations on the upstream object (a 404: it is gone, nothing to record). */
  private async patchAnnotations(up: KubeObject, annotations: Record<string, string | null>): Promise<KubeObject> {
    try {
      return await this.deps.upstream.patch(this.deps.gvr, up.metadata!.name!, 'merge', { metadata: { annotations } }, {
        cluster: this.deps.upstreamCluster,
        namespace: up.metadata?.namespace || undefined,
        fieldManager: SYNCER_FIELD_MANAGER,
      });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return up;
      throw err;
    }
  }

  /**
   * This cluster's status annotation to write on `up` for `down`'s status, or undefined when it already holds it: the
   * status when the object is on several clusters (aggregatesStatus), removed (null) when it is on one alone.
   */
  private reportedStatusChange(up: KubeObject, down: KubeObject): [string, string | null] | undefined {
    const mine = statusAnnotation(this.deps.target.key);
    const value = aggregatesStatus(up) ? JSON.stringify(upstreamStatus(up, down, this.deps.gvr.resource)) : undefined;
    return up.metadata?.annotations?.[mine] === value ? undefined : [mine, value ?? null];
  }

  /**
   * The upstream resource has no strategic merge patch: finalizers are added by PUT. Known up front for the kinds
   * outside the placement table (custom resources: never a request that fails), learnt from a 415 otherwise.
   */
  private noStrategicMerge: boolean;

  /** Creates (POST) or replaces (PUT) a downstream object as field manager SYNCER_FIELD_MANAGER. */
  /**
   * Replaces the downstream copy `down` with `desired`. The cluster's controllers write the copy's status all the time
   * (a Deployment whose pods turn ready one by one changes it every few hundred milliseconds), so a PUT carrying the
   * cached resourceVersion often meets a newer one (409): it is read again and put again at once, a few times, instead
   * of the whole reconcile backing off — which delayed both the spec going down and the status coming up (the status
   * is synced after the write) by seconds while a Deployment scaled. What the cluster owns or allocated is kept from
   * the object as read.
   */
  private async updateDown(desired: KubeObject, down: KubeObject, namespace: string | undefined): Promise<KubeObject> {
    const { gvr, target } = this.deps;
    let current = down;
    if (gvr.resource === 'pods' && ephemeralContainersDiffer(current, desired)) current = await this.writeEphemeralContainersDown(desired, namespace);
    for (let attempt = 0; ; attempt++) {
      const body = deepCopy(desired);
      const owned = downstreamOwnedPaths(current);
      if (owned.length > 0) keepDownstreamOwned(body, current, owned);
      keepDownstreamAllocations(gvr.resource, body, current);
      body.metadata!.resourceVersion = current.metadata?.resourceVersion;
      try {
        return await this.writeDown('PUT', body, namespace);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409) || attempt >= CONFLICT_RETRIES) throw err;
        const fresh = await this.deps.downstream.get(gvr, desired.metadata!.name!, { namespace });
        // No longer ours (someone took our label away): the informer brings us back to decide.
        if (fresh.metadata?.labels?.[DOWNSTREAM_CLUSTER_LABEL] !== target.key || !this.isOurCopy(fresh)) throw err;
        current = fresh;
      }
    }
  }

  private async writeDown(method: 'POST' | 'PUT', obj: KubeObject, namespace: string | undefined): Promise<KubeObject> {
    // A pod is created without ephemeral containers (refused on create), which then go down as for an update.
    if (method === 'POST' && this.deps.gvr.resource === 'pods' && ephemeralContainersOf(obj)) {
      await this.writeDown('POST', withEphemeralContainersOf(obj, undefined), namespace);
      return this.writeEphemeralContainersDown(obj, namespace);
    }
    const path = resourcePath(this.deps.gvr, { namespace, name: method === 'PUT' ? obj.metadata!.name! : undefined }) + `?fieldManager=${SYNCER_FIELD_MANAGER}`;
    return (await this.deps.downstream.call(method, path, obj)) as KubeObject;
  }

  /**
   * The upstream pod's ephemeral containers onto its copy, through the copy's pods/ephemeralcontainers (a PUT of the
   * pod cannot change them), merged by name: those the copy has are kept, the cluster validates the new ones.
   */
  private async writeEphemeralContainersDown(desired: KubeObject, namespace: string | undefined): Promise<KubeObject> {
    return this.deps.downstream.patch(this.deps.gvr, desired.metadata!.name!, 'strategic', ephemeralContainersPatch(desired), { namespace, subresource: 'ephemeralcontainers', fieldManager: SYNCER_FIELD_MANAGER });
  }

  /** Records this target's Synced condition on the upstream object when it changed; returns the (new) object. */
  private async setSyncCondition(up: KubeObject, status: 'True' | 'False', reason: string, message?: string): Promise<KubeObject> {
    const key = this.deps.target.key;
    const value = nextSyncCondition(up, key, { status, reason, message });
    if (value === undefined) return up;
    return this.patchAnnotations(up, { [syncedAnnotation(key)]: value });
  }

  private async syncStatusUp(key: string, read: KubeObject, down: KubeObject): Promise<void> {
    let up = read;
    // A claim bound to a volume of the workspace: its status is the workspace binder's (controllers/volume-binder.ts).
    if (statusIsBinders(this.deps.gvr.resource, up)) return;
    const clusterStatus = upstreamStatus(up, down, this.deps.gvr.resource);
    const ns = up.metadata?.namespace;
    const mine = statusAnnotation(this.deps.target.key);
    const reported = up.metadata?.annotations?.[mine];
    // Synced to several clusters (or with a per-cluster spec): this cluster's status goes into its own annotation,
    // which the placement controller folds into the object's status. One cluster alone writes /status (below), and
    // first drops an annotation left from when there were several.
    const aggregated = aggregatesStatus(up);
    const value = aggregated ? JSON.stringify(clusterStatus) : undefined;
    if (reported !== value) {
      try {
        up = await this.deps.upstream.patch(this.deps.gvr, up.metadata!.name!, 'merge', { metadata: { annotations: { [mine]: value ?? null } } }, {
          cluster: this.deps.upstreamCluster,
          namespace: ns,
          fieldManager: SYNCER_FIELD_MANAGER,
        });
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      if (aggregated) this.deps.onSynced?.('up', up);
    }
    if (aggregated) return;
    // What someone else set upstream beside the cluster's own conditions stays (decisions/foreign-conditions.ts).
    let status = withForeignConditions(this.deps.gvr.resource, clusterStatus, up.status);
    const hash = contentHash(status);
    if (this.lastStatusHash.get(key) === hash) return;
    if (jsonEqual(up.status, status)) {
      this.lastStatusHash.set(key, hash);
      return;
    }
    const scope = { cluster: this.deps.upstreamCluster, namespace: ns, subresource: 'status' };
    // Written over the status as read (its resourceVersion a precondition): a condition someone set since the cache
    // was read is never lost. A conflict is read again and written again at once (not behind the reconcile's
    // back-off, which would hold the status for seconds), a few times.
    let base = up;
    for (let attempt = 0; ; attempt++) {
      try {
        // (A resourceVersion names one object: one deleted and made again under this name meanwhile is a conflict.)
        const ops = [{ op: 'replace', path: '/metadata/resourceVersion', value: base.metadata?.resourceVersion }, { op: 'add', path: '/status', value: status }];
        await this.deps.upstream.patch(this.deps.gvr, up.metadata!.name!, 'json', ops, scope);
        break;
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        if (!(err instanceof StatusError && err.code === 409) || attempt >= 3) throw err;
      }
      try {
        base = await this.deps.upstream.get(this.deps.gvr, up.metadata!.name!, { cluster: this.deps.upstreamCluster, namespace: ns });
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      // Changed meanwhile so that this write is no longer this syncer's: another object, on several clusters now, or a
      // claim the workspace's binder took.
      if (base.metadata?.uid !== up.metadata?.uid || aggregatesStatus(base) || statusIsBinders(this.deps.gvr.resource, base)) return;
      status = withForeignConditions(this.deps.gvr.resource, clusterStatus, base.status);
      if (jsonEqual(base.status, status)) break;
    }
    this.lastStatusHash.set(key, contentHash(status));
    this.deps.onSynced?.('up', up);
  }
}

/**
 * The downstream status as the upstream object is to carry it. status.observedGeneration counts the downstream copy's
 * generations, which are not the upstream object's: it goes up as the upstream generation once the downstream has
 * observed its own current generation (the copy syncStatusUp is called with always holds the current upstream spec),
 * and as one less until then, so that `kubectl rollout status` on the upstream object waits for the cluster.
 */
export function upstreamStatus(up: KubeObject, down: KubeObject, resource?: string): unknown {
  let status = down.status as Record<string, unknown> | undefined;
  if (resource === 'cronjobs' && status) status = cronJobStatusUp(status, up.metadata?.namespace);
  const observed = status?.observedGeneration;
  const downGeneration = down.metadata?.generation;
  const upGeneration = up.metadata?.generation;
  if (typeof observed !== 'number' || typeof downGeneration !== 'number' || typeof upGeneration !== 'number') return status;
  return { ...status, observedGeneration: observed >= downGeneration ? upGeneration : upGeneration - 1 };
}

/**
 * A CronJob's status as the upstream object carries it: its Jobs run in the cluster (they are not synced up), so each
 * status.active reference names the Job by its name in the upstream namespace, without the cluster's uid and
 * resourceVersion, which mean nothing upstream.
 */
function cronJobStatusUp(status: Record<string, unknown>, namespace: string | undefined): Record<string, unknown> {
  if (!Array.isArray(status.active)) return status;
  const active = (status.active as Record<string, unknown>[]).map((ref) => {
    const { uid: _uid, resourceVersion: _rv, ...rest } = ref;
    void _uid;
    void _rv;
    return namespace === undefined ? rest : { ...rest, namespace };
  });
  return { ...status, active };
}

/**
 * Whether `obj` is a run that is over: a Job with a Complete or Failed condition True, a Pod in phase Succeeded or
 * Failed (as its status came up from the cluster).
 */
export function finishedRun(resource: string, obj: KubeObject): boolean {
  const status = obj.status as { conditions?: { type?: string; status?: string }[]; phase?: string } | undefined;
  if (resource === 'jobs') return (status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
  if (resource === 'pods') return status?.phase === 'Succeeded' || status?.phase === 'Failed';
  return false;
}

/** Logs once why a resource cannot be synced. */
export function logResourceProblem(resource: string, message: string): void {
  logger.warn('syncer: resource not synced', { resource, message });
}
