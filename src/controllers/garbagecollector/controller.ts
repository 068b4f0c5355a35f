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
 * Memory: the informers keep metadata only (as upstream's metadata informers): the collector never reads a spec.
 *
 * Safety: a dependent is deleted only after a live GET showed each owner absent (404, or present with another uid)
 * or waiting in the foreground, and the delete carries a uid precondition. State is derived from the API alone, so a
 * restart resumes any cascade where it stopped.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { discoverResources, type DiscoveredResource } from '../../client/discovery.js';
import type { Informer } from '../../client/informer.js';
import { parseApiVersion } from '../../client/resource.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { logger } from '../../logging/logger.js';
import { Controller, type ReconcileResult } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
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

/** How often discovery is re-read to pick up new (custom) resources. */
const rediscoveryIntervalMs = 10_000;
/** CRD changes in one cluster within this window share one discovery of that cluster. */
const clusterDiscoveryDelayMs = 50;

const CLUSTER_ANNOTATION = 'kcp.io/cluster';
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
 * Keeps only what the collector reads (type and metadata, without managedFields), and stamps the logical cluster
 * annotation on objects from a per-cluster informer so every object says where it lives.
 */
function metadataOnly(cluster: string | undefined) {
  return (obj: KubeObject): KubeObject => {
    const { managedFields: _managed, ...metadata } = obj.metadata ?? {};
    if (cluster && cluster !== '*' && !metadata.annotations?.[CLUSTER_ANNOTATION]) {
      metadata.annotations = { ...(metadata.annotations ?? {}), [CLUSTER_ANNOTATION]: cluster };
    }
    return { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
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

  constructor(private readonly ctx: ControllerContext) {
    this.controller = new Controller<string>({ name: 'garbagecollector', workers: 4, reconcile: (id) => this.reconcile(id), rateLimiter: { baseDelayMs: 20, maxDelayMs: 30_000 } });
  }

  start(): void {
    this.watchCRDs();
    this.discovering = this.discover().then(
      async () => {
        await Promise.all([...this.monitors.values()].map((m) => m.informer.waitForSync()));
        if (!this.stopped) this.controller.start();
      },
      (err) => logger.warn('garbage collector: initial discovery failed', { error: (err as Error).message }),
    );
    this.timer = setInterval(() => {
      void this.discover().catch((err) => logger.warn('garbage collector: discovery failed', { error: (err as Error).message }));
    }, rediscoveryIntervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const t of this.clusterDiscoveries.values()) clearTimeout(t);
    this.clusterDiscoveries.clear();
    await this.discovering?.catch(() => undefined);
    await this.controller.stop();
  }

  /** Starts monitoring newly served resources and stops monitoring vanished ones. */
  private async discover(): Promise<void> {
    const found = await discoverResources(this.ctx.client, '*');
    if (this.stopped) return;
    const kinds = new Map<string, DiscoveredResource>();
    const wanted = new Map<string, DiscoveredResource>();
    for (const r of found.resources) {
      if (!r.preferred) continue;
      kinds.set(`${r.group}/${r.kind}`, r);
      if (['list', 'watch', 'delete'].every((v) => r.verbs.includes(v))) wanted.set(`${r.group}/${r.resource}`, r);
    }
    // Kinds only served in a non-preferred version still resolve.
    for (const r of found.resources) if (!kinds.has(`${r.group}/${r.kind}`)) kinds.set(`${r.group}/${r.kind}`, r);
    this.kinds = kinds;
    for (const [gr, r] of wanted) {
      const existing = this.monitors.get(gr);
      if (existing && existing.resource.version === r.version) continue;
      if (existing) await this.unmonitor(gr, existing);
      this.monitor(gr, r);
    }
    for (const [gr, m] of this.monitors) if (!wanted.has(gr)) await this.unmonitor(gr, m);
    // A resource root now serves is watched everywhere by its wildcard monitor: per-cluster ones are redundant.
    for (const [key, m] of this.clusterMonitors) {
      const gr = key.slice(key.indexOf('|') + 1);
      if (this.monitors.has(gr)) await this.unmonitorCluster(key, m, false);
    }
  }

  /** Follows CRDs in every cluster; a change in a non-root cluster schedules that cluster's own discovery. */
  private watchCRDs(): void {
    const informer = this.ctx.informers.informerFor(crdResource, { cluster: '*', transform: metadataOnly('*'), transformId: 'gc-metadata' });
    const changed = (obj: KubeObject, delta: number) => {
      const cluster = clusterOf(obj);
      if (cluster === 'root') return; // root's resources come from the wildcard discovery
      const count = (this.crdCounts.get(cluster) ?? 0) + delta;
      if (count > 0) this.crdCounts.set(cluster, count);
      else this.crdCounts.delete(cluster);
      this.scheduleClusterDiscovery(cluster);
    };
    informer.addEventHandler({ add: (o) => changed(o, 1), update: (_o, n) => changed(n, 0), delete: (o) => changed(o, -1) });
    this.crdInformer = informer;
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
        if (!this.monitors.has(`${r.group}/${r.resource}`) && ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v))) {
          wanted.set(`${cluster}|${r.group}/${r.resource}`, r);
        }
      }
    }
    for (const key of [...this.clusterKinds.keys()]) if (key.startsWith(`${cluster}|`) && !kinds.has(key)) this.clusterKinds.delete(key);
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
    const informer = this.ctx.informers.informerFor(r, { cluster: scope, transform: metadataOnly(scope), transformId: 'gc-metadata' });
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
        this.enqueueDependents(obj, true);
        this.enqueueWaitingOwners(clusterOf(obj), owners);
      },
    });
    if (cluster) this.clusterMonitors.set(key, { resource: r, informer });
    else this.monitors.set(key, { resource: r, informer });
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
    const owners = await Promise.all(refs.map(async (ref) => ({ uid: ref.uid, state: await this.ownerState(ref, obj, cluster), blocks: ref.blockOwnerDeletion === true })));
    const decision = decideDependentAction(owners, { hasDependents: this.dependentsInCluster(obj).length > 0, finalizers: obj.metadata?.finalizers ?? [] });
    const name = obj.metadata?.name ?? '';
    const scope = { cluster, namespace: obj.metadata?.namespace };
    if (decision.action === 'patch') {
      const next = patchedOwnerReferences(refs, decision.removeOwnerUids, decision.unblockOwnerUids);
      if (!next) return;
      await this.ctx.client.patch(r, name, 'merge', { metadata: { ownerReferences: next, resourceVersion: obj.metadata?.resourceVersion } }, scope);
    } else if (decision.action === 'delete') {
      logger.debug('garbage collector: deleting object whose owners are gone', { resource: r.resource, cluster, namespace: scope.namespace, name, policy: decision.propagationPolicy });
      try {
        await this.ctx.client.delete(r, name, scope, { propagationPolicy: decision.propagationPolicy, preconditions: { uid: obj.metadata?.uid } });
      } catch (err) {
        // Gone already, or replaced by a new object with the same name (uid precondition): nothing to do here.
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
        throw err;
      }
    }
  }

  /**
   * The state of one owner of `dependent`. Present in the cache with the right uid and not deleting → solid without a
   * round trip; otherwise a live GET decides, so a lagging cache never gets a dependent deleted.
   */
  private async ownerState(ref: OwnerReference, dependent: KubeObject, cluster: string): Promise<OwnerState> {
    const { group } = parseApiVersion(ref.apiVersion ?? '');
    const target = this.kinds.get(`${group}/${ref.kind}`) ?? this.clusterKinds.get(`${cluster}|${group}/${ref.kind}`);
    if (!target) return 'unresolvable';
    const dependentNamespace = dependent.metadata?.namespace ?? '';
    if (target.namespaced && !dependentNamespace) return 'unresolvable';
    const namespace = target.namespaced ? dependentNamespace : '';
    const cached = this.monitorFor(target.group, target.resource, cluster)?.informer.lister.get(formatObjectKey({ cluster, namespace, name: ref.name }));
    if (cached && cached.metadata?.uid === ref.uid && !cached.metadata?.deletionTimestamp) return 'solid';
    let live: KubeObject;
    try {
      live = await this.ctx.client.get(target, ref.name, { cluster, namespace: namespace || undefined });
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return 'dangling';
      throw err;
    }
    if (live.metadata?.uid !== ref.uid) return 'dangling';
    if (live.metadata?.deletionTimestamp && hasFinalizer(live, foregroundDeletionFinalizer)) return 'waiting';
    return 'solid';
  }

  /** Foreground: make dependents go; drop the finalizer once no dependent blocks (blockOwnerDeletion) remains. */
  private async processDeletingDependents(r: DiscoveredResource, owner: KubeObject): Promise<ReconcileResult | void> {
    // Judging "no blocking dependents" from a cache still filling would release the owner too early.
    if (!this.allMonitors().every((m) => m.informer.hasSynced())) return { requeueAfterMs: 500 };
    const uid = owner.metadata?.uid ?? '';
    const dependents = this.dependentsInCluster(owner);
    for (const dep of dependents) {
      if (!dep.obj.metadata?.deletionTimestamp) this.controller.enqueue(dep.id);
    }
    const blocking = dependents.filter(({ obj: d }) => ownerReferencesOf(d).some((ref) => ref.uid === uid && ref.blockOwnerDeletion === true));
    if (blocking.length > 0) return { requeueAfterMs: 10_000 };
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
