/**
 * The garbage collector: deletes objects whose owners are all gone (Background), lets owners deleted in the
 * Foreground wait for their blocking dependents (`foregroundDeletion` finalizer), and strips owner references from
 * dependents of owners deleted with Orphan (`orphan` finalizer). Works for every resource discovery lists with
 * list/watch/delete (custom resources included, picked up by periodic re-discovery) in every logical cluster
 * (wildcard informers).
 *
 * Logical clusters: `/clusters/*` discovery answers with root's resources, and a wildcard informer covers a resource
 * in every cluster. A custom resource whose CRD exists only in other workspaces is not in that list, so a wildcard
 * informer on CRDs tells which clusters define their own: those clusters (and only those) are discovered on their
 * own, when their CRDs change, and their extra resources get per-cluster monitors. Idle workspaces without CRDs
 * cost nothing: no discovery, no timer, no informer.
 *
 * Memory: the informers list and watch PartialObjectMetadata (as upstream's metadata informers): the server never
 * encodes, and the collector never parses or keeps, a spec or data.
 *
 * Safety: a dependent is deleted only once each owner is confirmed absent (a live GET answered 404 or another uid,
 * or the owner's deletion was observed; both remembered in an AbsentOwnerCache keyed by exact coordinates, since a
 * uid is never reused) or waiting in the foreground, and the delete carries a uid precondition. State is derived
 * from the API alone, so a restart resumes any cascade where it stopped.
 *
 * Throughput: dependents are processed by 64 workers at once (upstream runs 20; ours are cheap awaits, not threads), so the storage
 * commits their deletes in groups; one deleted owner costs no GET per dependent (absent cache), and a foreground owner
 * checks "still blocked?" on an index of blocking references instead of scanning its dependents.
 *
 * Invalid references: a namespaced dependent naming an owner that lives in another namespace is treated as having
 * a dangling owner (the owner is looked up in the dependent's namespace), and a cluster-scoped dependent naming a
 * namespaced kind as unresolvable; both get a Warning Event with reason OwnerRefInvalidNamespace, as upstream.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { discoverResources, type DiscoveredResource } from '../../client/discovery.js';
import type { Informer } from '../../client/informer.js';
import { apiVersionOf, parseApiVersion } from '../../client/resource.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../client/store.js';
import { logger } from '../../logging/logger.js';
import { Controller, type ReconcileResult } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { EventRecorder } from '../runtime/event-recorder.js';
import { AbsentOwnerCache } from './absent-owners.js';
import { nodeId, OwnershipGraph, parseNodeId } from './graph.js';
import {
  decideDependentAction,
  foregroundDeletionFinalizer,
  hasFinalizer,
  orphanFinalizer,
  ownerReferencesOf,
  patchedOwnerReferences,
  type OwnerReference,
  type OwnerState,
} from './owner-references.js';

/**
 * How often discovery is re-read regardless of CRD events. CRD changes trigger a discovery at once; this only
 * catches resources that appear without a CRD (none today) and recovers from a failed discovery.
 */
const rediscoveryIntervalMs = 60_000;
/** Parallel reconciles (upstream's ConcurrentGCSyncs default). */
const workers = 64;
/** A foreground owner re-queues its dependents at most this often (they are queued on their own events otherwise). */
const foregroundKickIntervalMs = 10_000;
/** CRD changes in one cluster within this window share one discovery of that cluster. */
const clusterDiscoveryDelayMs = 50;

const CLUSTER_ANNOTATION = 'kcp.io/cluster';

/**
 * Resources the collector never monitors, as upstream's garbagecollector.DefaultIgnoredResources: Events (core and
 * events.k8s.io) are the most frequently written objects and nobody makes them dependents, so watching them cost
 * every Event a watch event and a graph update for nothing.
 */
const IGNORED_RESOURCES = new Set(['/events', 'events.k8s.io/events']);

/** Whether the collector monitors a discovered resource: it can list, watch and delete it, and it is not ignored. */
function collectable(r: DiscoveredResource): boolean {
  return !IGNORED_RESOURCES.has(`${r.group}/${r.resource}`) && ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v));
}
const crdResource: DiscoveredResource = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  verbs: ['list', 'watch'],
  preferred: true,
};

/**
 * Keeps only what the collector reads (metadata without managedFields) under the resource's own apiVersion and kind
 * (the wire form is PartialObjectMetadata), and stamps the logical cluster annotation on objects from a per-cluster
 * informer so every object says where it lives.
 */
function metadataOnly(cluster: string | undefined, r: DiscoveredResource) {
  const apiVersion = apiVersionOf(r);
  return (obj: KubeObject): KubeObject => {
    const { managedFields: _managed, ...metadata } = obj.metadata ?? {};
    if (cluster && cluster !== '*' && !metadata.annotations?.[CLUSTER_ANNOTATION]) {
      metadata.annotations = { ...(metadata.annotations ?? {}), [CLUSTER_ANNOTATION]: cluster };
    }
    return { apiVersion, kind: r.kind, metadata };
  };
}

interface Monitor {
  resource: DiscoveredResource;
  informer: Informer;
}

export const garbageCollectorInstaller: ControllerInstaller = {
  name: 'garbagecollector',
  install(ctx: ControllerContext): RunningController {
    const gc = new GarbageCollector(ctx);
    return { name: 'garbagecollector', start: () => gc.start(), stop: () => gc.stop() };
  },
};

class GarbageCollector {
  private readonly graph = new OwnershipGraph();
  /** `<group>/<resource>` → monitor over every cluster (resources root serves). */
  private readonly monitors = new Map<string, Monitor>();
  /** `<cluster>|<group>/<resource>` → monitor of a resource only that cluster serves (its own CRDs). */
  private readonly clusterMonitors = new Map<string, Monitor>();
  /** `<group>/<Kind>` → the preferred-version resource serving that kind. */
  private kinds = new Map<string, DiscoveredResource>();
  /** `<group>/<version>/<Kind>` → the resource serving that kind in exactly that version. */
  private versionedKinds = new Map<string, DiscoveredResource>();
  /** Owners confirmed gone: their dependents need no GET. */
  private readonly absentOwners = new AbsentOwnerCache();
  /** Foreground owner uid → when its dependents were last queued. */
  private readonly foregroundKicks = new Map<string, number>();
  /** `<dependent uid>/<owner uid>` pairs already reported as OwnerRefInvalidNamespace (one Event each). */
  private readonly reportedInvalidRefs = new Set<string>();
  private readonly events: EventRecorder;
  private rootDiscovery: NodeJS.Timeout | undefined;
  /** `<cluster>|<group>/<Kind>` → the same, for kinds only that cluster serves. */
  private readonly clusterKinds = new Map<string, DiscoveredResource>();
  /** Non-root clusters → how many CRDs each holds (from the CRD informer). */
  private readonly crdCounts = new Map<string, number>();
  private readonly clusterDiscoveries = new Map<string, NodeJS.Timeout>();
  private crdInformer: Informer | undefined;
  private readonly controller: Controller<string>;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private discovering: Promise<void> | undefined;
  private discoveryChain: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: ControllerContext) {
    this.controller = new Controller<string>({ name: 'garbagecollector', workers, reconcile: (id) => this.reconcile(id), rateLimiter: { baseDelayMs: 20, maxDelayMs: 30_000 } });
    this.events = new EventRecorder(ctx.client, 'garbage-collector-controller');
  }

  start(): void {
    this.watchCRDs();
    this.discovering = this.serialDiscover().then(
      async () => {
        await Promise.all([...this.monitors.values()].map((m) => m.informer.waitForSync()));
        if (!this.stopped) this.controller.start();
      },
      (err) => logger.warn('garbage collector: initial discovery failed', { error: (err as Error).message }),
    );
    this.timer = setInterval(() => {
      void this.serialDiscover().catch((err) => logger.warn('garbage collector: discovery failed', { error: (err as Error).message }));
    }, rediscoveryIntervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.rootDiscovery) clearTimeout(this.rootDiscovery);
    for (const t of this.clusterDiscoveries.values()) clearTimeout(t);
    this.clusterDiscoveries.clear();
    await this.discovering?.catch(() => undefined);
    await this.controller.stop();
  }

  /** discover(), one run at a time (timer, CRD events and start may overlap). */
  private serialDiscover(): Promise<void> {
    const run = this.discoveryChain.then(() => this.discover());
    this.discoveryChain = run.catch(() => undefined);
    return run;
  }

  /** Starts monitoring newly served resources and stops monitoring vanished ones. */
  private async discover(): Promise<void> {
    const found = await discoverResources(this.ctx.client, '*');
    if (this.stopped) return;
    const kinds = new Map<string, DiscoveredResource>();
    const versionedKinds = new Map<string, DiscoveredResource>();
    const wanted = new Map<string, DiscoveredResource>();
    for (const r of found.resources) versionedKinds.set(`${r.group}/${r.version}/${r.kind}`, r);
    for (const r of found.resources) {
      if (!r.preferred) continue;
      kinds.set(`${r.group}/${r.kind}`, r);
      if (collectable(r)) wanted.set(`${r.group}/${r.resource}`, r);
    }
    // Kinds only served in a non-preferred version still resolve.
    for (const r of found.resources) if (!kinds.has(`${r.group}/${r.kind}`)) kinds.set(`${r.group}/${r.kind}`, r);
    const newKinds = [...kinds.keys()].filter((k) => !this.kinds.has(k));
    this.kinds = kinds;
    this.versionedKinds = versionedKinds;
    for (const [gr, r] of wanted) {
      const existing = this.monitors.get(gr);
      if (existing && existing.resource.version === r.version) continue;
      if (existing) await this.unmonitor(gr, existing);
      this.monitor(gr, r);
    }
    for (const [gr, m] of this.monitors) if (!wanted.has(gr)) await this.unmonitor(gr, m);
    this.enqueueReferencing(new Set(newKinds));
    // A resource root now serves is watched everywhere by its wildcard monitor: per-cluster ones are redundant.
    for (const [key, m] of this.clusterMonitors) {
      const gr = key.slice(key.indexOf('|') + 1);
      if (this.monitors.has(gr)) await this.unmonitorCluster(key, m, false);
    }
  }

  /**
   * Follows CRDs in every cluster: a change in root re-reads the wildcard discovery (root's resources are served
   * everywhere), a change elsewhere schedules that cluster's own discovery.
   */
  private watchCRDs(): void {
    const informer = this.ctx.informers.informerFor(crdResource, { cluster: '*', metadataOnly: true, transform: metadataOnly('*', crdResource), transformId: 'gc-metadata' });
    const changed = (obj: KubeObject, delta: number) => {
      const cluster = clusterOf(obj);
      if (cluster === 'root') {
        // CRD events can reach a handler before that CRD's resource is served: a miss is retried by the next event
        // (its Established condition update) or, at the latest, by the periodic discovery.
        if (this.informersSynced()) this.scheduleRootDiscovery();
        return;
      }
      const count = (this.crdCounts.get(cluster) ?? 0) + delta;
      if (count > 0) this.crdCounts.set(cluster, count);
      else this.crdCounts.delete(cluster);
      this.scheduleClusterDiscovery(cluster);
    };
    informer.addEventHandler({ add: (o) => changed(o, 1), update: (_o, n) => changed(n, 0), delete: (o) => changed(o, -1) });
    this.crdInformer = informer;
  }

  private scheduleRootDiscovery(): void {
    if (this.stopped || this.rootDiscovery) return;
    this.rootDiscovery = setTimeout(() => {
      this.rootDiscovery = undefined;
      void this.serialDiscover().catch((err) => logger.warn('garbage collector: discovery failed', { error: (err as Error).message }));
    }, clusterDiscoveryDelayMs);
    this.rootDiscovery.unref?.();
  }

  private informersSynced(): boolean {
    return this.crdInformer?.hasSynced() === true;
  }

  private scheduleClusterDiscovery(cluster: string): void {
    if (this.stopped || this.clusterDiscoveries.has(cluster)) return;
    const timer = setTimeout(() => {
      this.clusterDiscoveries.delete(cluster);
      this.discoverCluster(cluster).catch((err) => {
        logger.warn('garbage collector: cluster discovery failed', { cluster, error: (err as Error).message });
        // A CRD just created may not be served yet: try again once more later.
        if (this.crdCounts.has(cluster)) setTimeout(() => this.scheduleClusterDiscovery(cluster), 1000).unref?.();
      });
    }, clusterDiscoveryDelayMs);
    timer.unref?.();
    this.clusterDiscoveries.set(cluster, timer);
  }

  /** Monitors the resources `cluster` serves beyond root's (its custom resources); drops those it no longer serves. */
  private async discoverCluster(cluster: string): Promise<void> {
    const wanted = new Map<string, DiscoveredResource>();
    const kinds = new Map<string, DiscoveredResource>();
    if (this.crdCounts.has(cluster)) {
      const found = await discoverResources(this.ctx.client, cluster);
      if (this.stopped) return;
      for (const r of found.resources) {
        if (!r.preferred || this.kinds.has(`${r.group}/${r.kind}`)) continue;
        kinds.set(`${cluster}|${r.group}/${r.kind}`, r);
        if (!this.monitors.has(`${r.group}/${r.resource}`) && collectable(r)) {
          wanted.set(`${cluster}|${r.group}/${r.resource}`, r);
        }
      }
    }
    for (const key of [...this.clusterKinds.keys()]) if (key.startsWith(`${cluster}|`) && !kinds.has(key)) this.clusterKinds.delete(key);
    const newKinds = new Set([...kinds.keys()].filter((k) => !this.clusterKinds.has(k)).map((k) => k.slice(k.indexOf('|') + 1)));
    for (const [k, r] of kinds) this.clusterKinds.set(k, r);
    for (const [key, r] of wanted) {
      const existing = this.clusterMonitors.get(key);
      if (existing && existing.resource.version === r.version) continue;
      if (existing) await this.unmonitorCluster(key, existing, true);
      this.monitor(key, r, cluster);
    }
    for (const [key, m] of this.clusterMonitors) {
      if (key.startsWith(`${cluster}|`) && !wanted.has(key)) await this.unmonitorCluster(key, m, true);
    }
    this.enqueueReferencing(newKinds, cluster);
  }

  private async unmonitorCluster(key: string, m: Monitor, forgetObjects: boolean): Promise<void> {
    this.clusterMonitors.delete(key);
    if (forgetObjects) {
      for (const obj of m.informer.lister.list()) {
        this.graph.remove(nodeId(m.resource, obj));
        this.enqueueDependents(obj, true);
      }
    }
    await this.ctx.informers.drop(m.informer);
  }

  /** Monitors `r` everywhere (`cluster` undefined, key `<group>/<resource>`) or in one cluster (key `<cluster>|...`). */
  private monitor(key: string, r: DiscoveredResource, cluster?: string): void {
    const scope = cluster ?? '*';
    const informer = this.ctx.informers.informerFor(r, { cluster: scope, metadataOnly: true, transform: metadataOnly(scope, r), transformId: 'gc-metadata' });
    const graphResource = { group: r.group, resource: r.resource };
    informer.addEventHandler({
      add: (obj) => {
        const id = nodeId(graphResource, obj);
        this.graph.upsert(id, obj);
        if (needsAttention(obj)) this.controller.enqueue(id);
        // A dependent may have been seen before its owner (different informers): let waiting owners re-check.
        this.enqueueDependents(obj, false);
      },
      update: (_old, obj) => {
        const id = nodeId(graphResource, obj);
        const previousOwners = this.graph.upsert(id, obj);
        if (needsAttention(obj)) this.controller.enqueue(id);
        this.enqueueWaitingOwners(clusterOf(obj), [...previousOwners, ...ownerReferencesOf(obj).map((r) => r.uid)]);
      },
      delete: (obj) => {
        const id = nodeId(graphResource, obj);
        const owners = this.graph.remove(id);
        const uid = obj.metadata?.uid;
        if (uid) {
          this.foregroundKicks.delete(uid);
          // Seen deleted: that uid is gone for good, so its dependents need no GET to learn it.
          if (this.graph.dependentsOf(uid).length > 0) {
            this.absentOwners.add({ cluster: clusterOf(obj), namespace: obj.metadata?.namespace ?? '', group: r.group, kind: r.kind, name: obj.metadata?.name ?? '', uid });
          }
        }
        this.enqueueDependents(obj, true);
        this.enqueueWaitingOwners(clusterOf(obj), owners);
      },
    });
    if (cluster) this.clusterMonitors.set(key, { resource: r, informer });
    else this.monitors.set(key, { resource: r, informer });
  }

  /**
   * Queues every cached object naming an owner of one of `groupKinds` (`<group>/<Kind>`), optionally only in one
   * cluster. A dependent judged while its owner's kind was not served yet was left alone ("unresolvable") and has no
   * event of its own to bring it back once discovery learns the kind. Runs only when discovery found new kinds.
   */
  private enqueueReferencing(groupKinds: Set<string>, cluster?: string): void {
    if (groupKinds.size === 0) return;
    for (const m of this.allMonitors()) {
      for (const obj of m.informer.lister.list()) {
        if (cluster && clusterOf(obj) !== cluster) continue;
        const refs = ownerReferencesOf(obj);
        if (refs.some((ref) => groupKinds.has(`${parseApiVersion(ref.apiVersion ?? '').group}/${ref.kind}`))) this.controller.enqueue(nodeId(m.resource, obj));
      }
    }
  }

  /** The monitor holding objects of group/resource in `cluster`. */
  private monitorFor(group: string, resource: string, cluster: string): Monitor | undefined {
    return this.monitors.get(`${group}/${resource}`) ?? this.clusterMonitors.get(`${cluster}|${group}/${resource}`);
  }

  private allMonitors(): Monitor[] {
    return [...this.monitors.values(), ...this.clusterMonitors.values()];
  }

  private async unmonitor(gr: string, m: Monitor): Promise<void> {
    this.monitors.delete(gr);
    for (const obj of m.informer.lister.list()) {
      this.graph.remove(nodeId(m.resource, obj));
      this.enqueueDependents(obj, true);
    }
    await this.ctx.informers.drop(m.informer);
  }

  /** Queues the dependents of an object (all of them, or with `onlyIfGone` false just to refresh their view). */
  private enqueueDependents(owner: KubeObject, ownerGone: boolean): void {
    const uid = owner.metadata?.uid;
    if (!uid) return;
    const cluster = clusterOf(owner);
    for (const dep of this.graph.dependentsOf(uid)) {
      if (parseNodeId(dep).key.startsWith(`${cluster}|`) && (ownerGone || this.objectOf(dep)?.metadata?.deletionTimestamp === undefined)) this.controller.enqueue(dep);
    }
  }

  /** Queues those of the given owners that are being deleted with a GC finalizer (their wait may be over). */
  private enqueueWaitingOwners(cluster: string, ownerUids: string[]): void {
    for (const uid of new Set(ownerUids)) {
      const id = this.graph.nodeOfUid(uid);
      if (!id || !parseNodeId(id).key.startsWith(`${cluster}|`)) continue;
      const owner = this.objectOf(id);
      if (owner?.metadata?.deletionTimestamp && (hasFinalizer(owner, foregroundDeletionFinalizer) || hasFinalizer(owner, orphanFinalizer))) this.controller.enqueue(id);
    }
  }

  private objectOf(id: string): KubeObject | undefined {
    const { group, resource, key } = parseNodeId(id);
    return this.monitorFor(group, resource, key.slice(0, key.indexOf('|')))?.informer.lister.get(key);
  }

  /** Cached dependents of `owner` in its own logical cluster, with their node ids. */
  private dependentsInCluster(owner: KubeObject): { id: string; obj: KubeObject }[] {
    const uid = owner.metadata?.uid ?? '';
    const cluster = clusterOf(owner);
    const out: { id: string; obj: KubeObject }[] = [];
    for (const id of this.graph.dependentsOf(uid)) {
      if (!parseNodeId(id).key.startsWith(`${cluster}|`)) continue;
      const obj = this.objectOf(id);
      if (obj && ownerReferencesOf(obj).some((r) => r.uid === uid)) out.push({ id, obj });
    }
    return out;
  }

  private async reconcile(id: string): Promise<ReconcileResult | void> {
    // Stopping drains the queue through reconcile: skip the work instead (everything is re-derived from the API on
    // the next start), so a shutdown in the middle of a large cascade is not held up by it.
    if (this.stopped) return;
    const { group, resource, key } = parseNodeId(id);
    const monitor = this.monitorFor(group, resource, key.slice(0, key.indexOf('|')));
    const obj = this.objectOf(id);
    if (!monitor || !obj) return;
    if (obj.metadata?.deletionTimestamp) {
      if (hasFinalizer(obj, orphanFinalizer)) return this.orphanDependents(monitor.resource, obj);
      if (hasFinalizer(obj, foregroundDeletionFinalizer)) return this.processDeletingDependents(monitor.resource, obj);
      return;
    }
    return this.attemptToDelete(monitor.resource, obj);
  }

  /** A live object with owner references: delete it if no owner holds it, or tidy its references. */
  private async attemptToDelete(r: DiscoveredResource, obj: KubeObject): Promise<ReconcileResult | void> {
    const refs = ownerReferencesOf(obj);
    if (refs.length === 0) return;
    const cluster = clusterOf(obj);
    const unobserved: string[] = [];
    const owners = await Promise.all(
      refs.map(async (ref) => ({ uid: ref.uid, state: await this.ownerState(ref, r, obj, cluster, unobserved), blocks: ref.blockOwnerDeletion === true })),
    );
    const dependents = this.dependentsInCluster(obj);
    const decision = decideDependentAction(owners, {
      hasDependents: dependents.length > 0,
      finalizers: obj.metadata?.finalizers ?? [],
      aDependentWaits: dependents.some((d) => !!d.obj.metadata?.deletionTimestamp && hasFinalizer(d.obj, foregroundDeletionFinalizer)),
    });
    const name = obj.metadata?.name ?? '';
    const scope = { cluster, namespace: obj.metadata?.namespace };
    if (decision.action === 'patch') {
      const next = patchedOwnerReferences(refs, decision.removeOwnerUids, decision.unblockOwnerUids);
      if (!next) return;
      await this.ctx.client.patch(r, name, 'merge', { metadata: { ownerReferences: next, resourceVersion: obj.metadata?.resourceVersion } }, scope);
    } else if (decision.action === 'delete') {
      logger.debug('garbage collector: deleting object whose owners are gone', { resource: r.resource, cluster, namespace: scope.namespace, name, policy: decision.propagationPolicy });
      let resourceVersion = obj.metadata?.resourceVersion;
      try {
        if (decision.unblockOwnersFirst) {
          const unblocked = refs.map((ref) => (ref.blockOwnerDeletion ? { ...ref, blockOwnerDeletion: false } : ref));
          const patched = await this.ctx.client.patch(r, name, 'merge', { metadata: { ownerReferences: unblocked, resourceVersion } }, scope);
          resourceVersion = patched.metadata?.resourceVersion;
        }
        // The resourceVersion precondition makes the delete apply only to the very object judged here: if the
        // cache was behind (say its owner references were just changed), the server answers 409 instead.
        await this.ctx.client.delete(r, name, scope, {
          propagationPolicy: decision.propagationPolicy,
          preconditions: { uid: obj.metadata?.uid, resourceVersion },
        });
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        // Replaced (uid) or changed (resourceVersion) since cached: look again once the cache has caught up.
        if (err instanceof StatusError && err.code === 409) return { requeue: true };
        throw err;
      }
      return;
    }
    // An owner a live GET found but its informer has not shown yet (say its monitor started listing after this check,
    // and the owner is deleted before that list): no event of the owner's will bring this dependent back, so look
    // again (with backoff) until the cache shows the owner or it is gone, as upstream requeues an owner's virtual
    // node until an informer has observed it.
    if (unobserved.length > 0) return { requeue: true };
  }

  /** The resource serving an owner reference's kind: its exact version when served, else the preferred one. */
  private ownerResource(ref: OwnerReference, cluster: string): DiscoveredResource | undefined {
    const { group, version } = parseApiVersion(ref.apiVersion ?? '');
    return this.versionedKinds.get(`${group}/${version}/${ref.kind}`) ?? this.kinds.get(`${group}/${ref.kind}`) ?? this.clusterKinds.get(`${cluster}|${group}/${ref.kind}`);
  }

  /**
   * The state of one owner of `dependent`. Confirmed absent before (absent cache) → dangling without a round trip;
   * present in the cache with the right uid and not deleting → solid without a round trip; otherwise a live GET
   * decides (and a 404 or another uid is remembered), so a lagging cache never gets a dependent deleted.
   */
  private async ownerState(
    ref: OwnerReference,
    dependentResource: DiscoveredResource,
    dependent: KubeObject,
    cluster: string,
    unobserved: string[],
  ): Promise<OwnerState> {
    const target = this.ownerResource(ref, cluster);
    if (!target) return 'unresolvable';
    const dependentNamespace = dependent.metadata?.namespace ?? '';
    if (target.namespaced && !dependentNamespace) {
      // A cluster-scoped object cannot be owned by a namespaced one: never collected on that owner's account.
      this.reportInvalidNamespace(dependentResource, dependent, ref, cluster);
      return 'unresolvable';
    }
    const namespace = target.namespaced ? dependentNamespace : '';
    const coordinates = { cluster, namespace, group: target.group, kind: ref.kind, name: ref.name, uid: ref.uid };
    if (this.absentOwners.has(coordinates)) return 'dangling';
    const cached = this.monitorFor(target.group, target.resource, cluster)?.informer.lister.get(formatObjectKey({ cluster, namespace, name: ref.name }));
    if (cached && cached.metadata?.uid === ref.uid && !cached.metadata?.deletionTimestamp) return 'solid';
    if (target.namespaced) this.checkOwnerNamespace(dependentResource, dependent, ref, cluster);
    let live: KubeObject;
    try {
      live = await this.ctx.client.get(target, ref.name, { cluster, namespace: namespace || undefined });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) {
        this.absentOwners.add(coordinates);
        return 'dangling';
      }
      throw err;
    }
    if (live.metadata?.uid !== ref.uid) {
      this.absentOwners.add(coordinates);
      return 'dangling';
    }
    // Present, and its monitor's cache does not hold it yet: the caller looks again until it does.
    if (!cached && this.monitorFor(target.group, target.resource, cluster)) unobserved.push(ref.uid);
    if (live.metadata?.deletionTimestamp && hasFinalizer(live, foregroundDeletionFinalizer)) return 'waiting';
    return 'solid';
  }

  /** Reports a namespaced dependent whose owner uid is known to live in another namespace of its cluster. */
  private checkOwnerNamespace(dependentResource: DiscoveredResource, dependent: KubeObject, ref: OwnerReference, cluster: string): void {
    const ownerId = this.graph.nodeOfUid(ref.uid);
    if (!ownerId) return;
    const { key } = parseNodeId(ownerId);
    const { cluster: ownerCluster, namespace: ownerNamespace } = parseObjectKey(key);
    if (ownerCluster === cluster && ownerNamespace !== '' && ownerNamespace !== (dependent.metadata?.namespace ?? '')) {
      this.reportInvalidNamespace(dependentResource, dependent, ref, cluster);
    }
  }

  /** One Warning Event (reason OwnerRefInvalidNamespace) per dependent and owner, worded as upstream's. */
  private reportInvalidNamespace(dependentResource: DiscoveredResource, dependent: KubeObject, ref: OwnerReference, cluster: string): void {
    const key = `${dependent.metadata?.uid ?? ''}/${ref.uid}`;
    if (this.reportedInvalidRefs.has(key)) return;
    this.reportedInvalidRefs.add(key);
    if (this.reportedInvalidRefs.size > 10_000) this.reportedInvalidRefs.delete(this.reportedInvalidRefs.values().next().value!);
    const namespace = dependent.metadata?.namespace ?? '';
    const owner = `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
    void this.events.record(
      cluster,
      { apiVersion: apiVersionOf(dependentResource), kind: dependentResource.kind, namespace, name: dependent.metadata?.name ?? '', uid: dependent.metadata?.uid },
      'Warning',
      'OwnerRefInvalidNamespace',
      `ownerRef ${owner} does not exist in namespace ${JSON.stringify(namespace)}`,
    );
  }

  /**
   * Foreground: make dependents go; drop the finalizer once no dependent blocks (blockOwnerDeletion) remains. The
   * dependents are queued when the wait starts and then at most every foregroundKickIntervalMs (their own events
   * queue them in between); "still blocked?" reads the graph's blocking index, so each pass is cheap however many
   * dependents there are.
   */
  private async processDeletingDependents(r: DiscoveredResource, owner: KubeObject): Promise<ReconcileResult | void> {
    // Judging "no blocking dependents" from a cache still filling would release the owner too early.
    if (!this.allMonitors().every((m) => m.informer.hasSynced())) return { requeueAfterMs: 500 };
    const uid = owner.metadata?.uid ?? '';
    const cluster = clusterOf(owner);
    const now = Date.now();
    const lastKick = this.foregroundKicks.get(uid);
    if (lastKick === undefined || now - lastKick >= foregroundKickIntervalMs) {
      this.foregroundKicks.set(uid, now);
      for (const dep of this.dependentsInCluster(owner)) {
        if (!dep.obj.metadata?.deletionTimestamp) this.controller.enqueue(dep.id);
      }
    }
    for (const id of this.graph.blockingDependentsOf(uid)) {
      if (parseNodeId(id).key.startsWith(`${cluster}|`)) return { requeueAfterMs: foregroundKickIntervalMs };
    }
    await this.removeFinalizer(r, owner, foregroundDeletionFinalizer);
  }

  /** Orphan: remove this owner from every dependent's ownerReferences, then drop the `orphan` finalizer. */
  private async orphanDependents(r: DiscoveredResource, owner: KubeObject): Promise<void> {
    if (!this.allMonitors().every((m) => m.informer.hasSynced())) throw new Error('caches not synced yet');
    const uid = owner.metadata?.uid ?? '';
    const cluster = clusterOf(owner);
    for (const { id, obj: dep } of this.dependentsInCluster(owner)) {
      const depResource = this.resourceOfNode(id);
      if (!depResource) continue;
      const next = ownerReferencesOf(dep).filter((ref) => ref.uid !== uid);
      try {
        await this.ctx.client.patch(
          depResource,
          dep.metadata?.name ?? '',
          'merge',
          { metadata: { ownerReferences: next.length > 0 ? next : null, resourceVersion: dep.metadata?.resourceVersion } },
          { cluster, namespace: dep.metadata?.namespace },
        );
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
    await this.removeFinalizer(r, owner, orphanFinalizer);
  }

  private async removeFinalizer(r: DiscoveredResource, obj: KubeObject, finalizer: string): Promise<void> {
    const rest = (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
    try {
      await this.ctx.client.patch(
        r,
        obj.metadata?.name ?? '',
        'merge',
        { metadata: { finalizers: rest.length > 0 ? rest : null, resourceVersion: obj.metadata?.resourceVersion } },
        { cluster: clusterOf(obj), namespace: obj.metadata?.namespace },
      );
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }

  private resourceOfNode(id: string): DiscoveredResource | undefined {
    const { group, resource, key } = parseNodeId(id);
    return this.monitorFor(group, resource, key.slice(0, key.indexOf('|')))?.resource;
  }
}

/** Objects the collector must look at: those with owners, and those waiting for it (GC finalizers while deleting). */
function needsAttention(obj: KubeObject): boolean {
  if (ownerReferencesOf(obj).length > 0) return true;
  return !!obj.metadata?.deletionTimestamp && (hasFinalizer(obj, foregroundDeletionFinalizer) || hasFinalizer(obj, orphanFinalizer));
}
