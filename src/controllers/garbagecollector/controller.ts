/**
 * The garbage collector: deletes objects whose owners are all gone (Background), lets owners deleted in the
 * Foreground wait for their blocking dependents (`foregroundDeletion` finalizer), and strips owner references from
 * dependents of owners deleted with Orphan (`orphan` finalizer). Works for every resource discovery lists with
 * list/watch/delete (custom resources included, picked up by periodic re-discovery) in every logical cluster
 * (wildcard informers).
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
  /** `<group>/<resource>` → monitor. */
  private readonly monitors = new Map<string, Monitor>();
  /** `<group>/<Kind>` → the preferred-version resource serving that kind. */
  private kinds = new Map<string, DiscoveredResource>();
  private readonly controller: Controller<string>;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private discovering: Promise<void> | undefined;

  constructor(private readonly ctx: ControllerContext) {
    this.controller = new Controller<string>({ name: 'garbagecollector', workers: 4, reconcile: (id) => this.reconcile(id), rateLimiter: { baseDelayMs: 20, maxDelayMs: 30_000 } });
  }

  start(): void {
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
  }

  private monitor(gr: string, r: DiscoveredResource): void {
    const informer = this.ctx.informers.informerFor(r, { cluster: '*' });
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
    this.monitors.set(gr, { resource: r, informer });
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
    return this.monitors.get(`${group}/${resource}`)?.informer.lister.get(key);
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
    const { group, resource } = parseNodeId(id);
    const monitor = this.monitors.get(`${group}/${resource}`);
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
    const target = this.kinds.get(`${group}/${ref.kind}`);
    if (!target) return 'unresolvable';
    const dependentNamespace = dependent.metadata?.namespace ?? '';
    if (target.namespaced && !dependentNamespace) return 'unresolvable';
    const namespace = target.namespaced ? dependentNamespace : '';
    const cached = this.monitors.get(`${target.group}/${target.resource}`)?.informer.lister.get(formatObjectKey({ cluster, namespace, name: ref.name }));
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
    if (![...this.monitors.values()].every((m) => m.informer.hasSynced())) return { requeueAfterMs: 500 };
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
    if (![...this.monitors.values()].every((m) => m.informer.hasSynced())) throw new Error('caches not synced yet');
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
    const { group, resource } = parseNodeId(id);
    return this.monitors.get(`${group}/${resource}`)?.resource;
  }
}

/** Objects the collector must look at: those with owners, and those waiting for it (GC finalizers while deleting). */
function needsAttention(obj: KubeObject): boolean {
  if (ownerReferencesOf(obj).length > 0) return true;
  return !!obj.metadata?.deletionTimestamp && (hasFinalizer(obj, foregroundDeletionFinalizer) || hasFinalizer(obj, orphanFinalizer));
}
