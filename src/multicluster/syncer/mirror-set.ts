/**
 * Keeps read-only mirrors of one downstream resource (the cluster's pods, a CronJob's Jobs, Events) in one upstream
 * workspace, written by this syncer alone:
 *
 * - one queue key per downstream object; its mirror (found by MIRROR_SOURCE_ANNOTATION in a cache of this
 *   SyncTarget's mirrors, selected by MIRROR_CLUSTER_LABEL) is created, rewritten when its content hash changed,
 *   its status written when it changed, and deleted when the original is gone (or no longer mirrored). Nothing is
 *   written when nothing changed: a pod's status churn is one status write per change, metadata untouched;
 * - everything is read from the two caches, so a restart converges (mirrors of originals gone while the syncer was
 *   down are deleted when the mirror cache lists them);
 * - a mirror of another cluster with the wanted name is never taken over (a one-cluster workload moving: the new
 *   mirror waits until the old one is gone);
 * - pods: a mirror deleted by someone else (`kubectl delete pod`) while its owner upstream lives on (or that has no
 *   owner: a released pod) deletes the original on the cluster (exactly that uid); its controller there makes a new pod, which is mirrored in turn. A
 *   terminating original without a mirror gets none;
 * - draining (the SyncTarget goes, or the workspace leaves the cluster): every mirror is deleted.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { EventHandler, Informer } from '../../client/informer.js';
import type { InformerFactory } from '../../client/informer-factory.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { logger } from '../../logging/logger.js';
import { kindPlacementOfKind } from '../api/kind-placement.js';
import { MIRROR_CLUSTER_LABEL, MIRROR_LABEL, MIRROR_SOURCE_ANNOTATION, MIRROR_SOURCE_UID_ANNOTATION, MIRROR_SYNC_TARGET_KEY_ANNOTATION, isMirror } from '../api/mirrors.js';
import { ephemeralContainersDiffer, ephemeralContainersOf, ephemeralContainersPatch, withEphemeralContainersOf } from '../decisions/ephemeral-containers.js';
import { controllerOf, mirrorChanges, type MirrorCluster } from '../decisions/mirror-objects.js';
import type { NamespaceMapper } from './namespace-mapper.js';
import { contentHash } from './transform.js';

const BY_SOURCE = 'mirror-set/by-source';

/** MirrorSetDeps.coalesceMs by default. */
export const MIRROR_COALESCE_MS = 250;

export interface MirrorSetDeps {
  gvr: GroupVersionResource;
  /** Whether the upstream resource has a status subresource (status is written there after a create). */
  hasStatus: boolean;
  upstream: RestClient;
  upstreamCluster: string;
  upstreamInformers: InformerFactory;
  /** The downstream informer of the resource (every object of the cluster; shared with other workspaces). */
  downstream: Informer;
  downstreamClient: RestClient;
  namespaces: NamespaceMapper;
  cluster: MirrorCluster;
  /** Cheap filter: whether a downstream object could have a mirror at all. */
  candidate(down: KubeObject): boolean;
  /** The mirror of a candidate in upstream namespace `namespace`: undefined for none, 'wait' to look again later. */
  desired(down: KubeObject, namespace: string): Promise<KubeObject | undefined | 'wait'>;
  /** When to look at a downstream object again although nothing changed (an event's TTL); undefined for never. */
  recheckAfterMs?(down: KubeObject): number | undefined;
  /**
   * How long a change of a downstream object that already exists waits before its mirror is rewritten (default
   * MIRROR_COALESCE_MS): a pod's status moves through several states within its ready delay, and each was a write
   * upstream and a watch event to every controller there. New and deleted objects are handled at once.
   */
  coalesceMs?: number;
  /**
   * Pods: spec.ephemeralContainers (`kubectl debug`) is written through pods/ephemeralcontainers, after the create or
   * PUT of the rest (a Pod refuses them on create and in a PUT).
   */
  ephemeralContainers?: boolean;
  /** Pods: a mirror deleted by someone else deletes its original. */
  deleteOriginalWithMirror?: boolean;
  /** A mirror was deleted by someone else (a user, or the garbage collector after its owner went). */
  onForeignDelete?(mirror: KubeObject): void;
  workers?: number;
}

export class MirrorSet {
  readonly mirrors: Informer;
  private readonly controller: Controller;
  private readonly handlers: [Informer, EventHandler<KubeObject>][] = [];
  /** Mirrors this syncer deleted itself (by uid): their delete events are not a user's. */
  private readonly deletedHere = new Set<string>();
  /** Originals (by uid) whose mirror a user deleted: no new mirror while they terminate. */
  private readonly deletedByUser = new Set<string>();
  /** Per mirror name, the status hash last written (a status that reads back otherwise is not written again and again). */
  private readonly writtenStatus = new Map<string, string>();
  draining = false;

  constructor(private readonly deps: MirrorSetDeps) {
    const { gvr, upstreamCluster, cluster } = deps;
    this.mirrors = deps.upstreamInformers.informerFor(gvr, { cluster: upstreamCluster, labelSelector: `${MIRROR_LABEL}=true,${MIRROR_CLUSTER_LABEL}=${cluster.name}` });
    this.mirrors.addIndexer(BY_SOURCE, (o) => {
      const source = o.metadata?.annotations?.[MIRROR_SOURCE_ANNOTATION];
      return source && o.metadata?.annotations?.[MIRROR_SYNC_TARGET_KEY_ANNOTATION] === cluster.key ? [source] : [];
    });
    this.controller = new Controller({ name: `mirror-${gvr.resource}-${cluster.name}`, workers: deps.workers ?? 4, reconcile: (k) => this.reconcile(k) });
    const enqueueDown = (o: KubeObject, delayMs = 0) => {
      const ns = o.metadata?.namespace ?? '';
      const key = `${ns}/${o.metadata?.name}`;
      if (this.deps.namespaces.upstreamOf(ns) === undefined && this.mirrors.lister.byIndex(BY_SOURCE, key).length === 0) return;
      this.controller.queue.addAfter(formatObjectKey({ cluster: 'root', namespace: ns, name: o.metadata?.name ?? '' }), delayMs);
    };
    const coalesceMs = deps.coalesceMs ?? MIRROR_COALESCE_MS;
    const enqueueMirror = (o: KubeObject) => {
      const source = o.metadata?.annotations?.[MIRROR_SOURCE_ANNOTATION];
      if (!source || o.metadata?.annotations?.[MIRROR_SYNC_TARGET_KEY_ANNOTATION] !== cluster.key) return;
      const slash = source.indexOf('/');
      this.controller.enqueue(formatObjectKey({ cluster: 'root', namespace: source.slice(0, slash), name: source.slice(slash + 1) }));
    };
    const onDownDelete = (o: KubeObject) => {
      if (o.metadata?.uid) this.deletedByUser.delete(o.metadata.uid);
      enqueueDown(o);
    };
    const onMirrorDelete = (o: KubeObject) => {
      const uid = o.metadata?.uid ?? '';
      this.writtenStatus.delete(o.metadata?.name ?? '');
      if (this.deletedHere.delete(uid)) return enqueueMirror(o);
      deps.onForeignDelete?.(o);
      if (deps.deleteOriginalWithMirror && !this.draining) {
        // Marked at once, before the owner check: the reconcile this delete enqueues must not mirror the pod anew.
        const original = this.originalOf(o);
        if (original) {
          this.deletedByUser.add(original.uid);
          void this.deleteOriginal(o, original)
            .catch((err) => {
              this.deletedByUser.delete(original.uid);
              logger.warn('syncer: could not delete the original of a deleted mirror', { resource: gvr.resource, name: o.metadata?.name, error: (err as Error).message });
            })
            .finally(() => enqueueMirror(o));
          return;
        }
      }
      enqueueMirror(o);
    };
    this.handlers.push([deps.downstream, { add: (o) => enqueueDown(o), update: (_o, n) => enqueueDown(n, coalesceMs), delete: onDownDelete }]);
    this.handlers.push([this.mirrors, { add: enqueueMirror, update: (_o, n) => enqueueMirror(n), delete: onMirrorDelete }]);
    for (const [inf, h] of this.handlers) inf.addEventHandler(h);
  }

  start(): void {
    this.mirrors.start();
    this.deps.downstream.start();
    this.controller.start();
  }

  async stop(): Promise<void> {
    await this.controller.stop();
    for (const [inf, h] of this.handlers) inf.removeEventHandler(h);
    await this.deps.upstreamInformers.drop(this.mirrors);
  }

  /** Re-examines every mirror and every original of this workspace (a drain started or was called off). */
  enqueueAll(): void {
    for (const o of this.deps.downstream.lister.list()) {
      const ns = o.metadata?.namespace ?? '';
      if (this.deps.namespaces.upstreamOf(ns) !== undefined) this.controller.enqueue(formatObjectKey({ cluster: 'root', namespace: ns, name: o.metadata?.name ?? '' }));
    }
    for (const m of this.mirrors.lister.list()) {
      const source = m.metadata?.annotations?.[MIRROR_SOURCE_ANNOTATION];
      if (!source) continue;
      const slash = source.indexOf('/');
      this.controller.enqueue(formatObjectKey({ cluster: 'root', namespace: source.slice(0, slash), name: source.slice(slash + 1) }));
    }
  }

  /** How many mirrors of this SyncTarget are left (a drain is done at 0); undefined until the cache listed. */
  remaining(): number | undefined {
    if (!this.mirrors.hasSynced()) return undefined;
    return this.mirrors.lister.list().filter((m) => m.metadata?.annotations?.[MIRROR_SYNC_TARGET_KEY_ANNOTATION] === this.deps.cluster.key).length;
  }

  /** The mirror of a downstream object, from the cache. */
  mirrorOf(downNamespace: string, name: string): KubeObject | undefined {
    return this.mirrors.lister.byIndex(BY_SOURCE, `${downNamespace}/${name}`)[0];
  }

  private synced(): boolean {
    return this.mirrors.hasSynced() && this.deps.downstream.hasSynced() && this.deps.namespaces.upstream.hasSynced() && this.deps.namespaces.downstream.hasSynced();
  }

  private scope(namespace: string) {
    return { cluster: this.deps.upstreamCluster, namespace };
  }

  private async deleteMirror(m: KubeObject): Promise<void> {
    const uid = m.metadata?.uid ?? '';
    this.deletedHere.add(uid);
    try {
      await this.deps.upstream.delete(this.deps.gvr, m.metadata!.name!, this.scope(m.metadata!.namespace!), { preconditions: { uid } });
    } catch (err) {
      this.deletedHere.delete(uid);
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  private async reconcile(key: string): Promise<{ requeueAfterMs?: number; requeue?: boolean } | void> {
    if (!this.synced()) return { requeueAfterMs: 200 };
    const k = parseObjectKey(key);
    const down = this.deps.downstream.lister.get(key);
    const have = this.mirrors.lister.byIndex(BY_SOURCE, `${k.namespace}/${k.name}`);
    const upNs = this.deps.namespaces.upstreamOf(k.namespace);
    let desired: KubeObject | undefined;
    if (down && upNs !== undefined && !this.draining && this.deps.candidate(down) && !this.deletedByUser.has(down.metadata?.uid ?? '')) {
      const d = await this.deps.desired(down, upNs);
      if (d === 'wait') return { requeue: true };
      desired = d;
    }
    const current = desired ? have.find((m) => m.metadata?.name === desired!.metadata?.name && m.metadata?.namespace === desired!.metadata?.namespace) : undefined;
    for (const m of have) if (m !== current) await this.deleteMirror(m);
    if (!desired) return;
    const ns = desired.metadata!.namespace!;
    const recheck = this.deps.recheckAfterMs?.(down!);
    const again = recheck === undefined ? undefined : { requeueAfterMs: recheck };
    if (!current) {
      // A terminating original is not mirrored anew (its mirror was deleted, or it is about to go).
      if (down!.metadata?.deletionTimestamp) return;
      return (await this.create(desired, ns)) ?? again;
    }
    const changes = mirrorChanges(current, desired);
    let written = current;
    try {
      if (changes.content) {
        const body = { ...desired, metadata: { ...desired.metadata, uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion } };
        written = await this.deps.upstream.update(this.deps.gvr, this.deps.ephemeralContainers ? withEphemeralContainersOf(body, current) : body, this.scope(ns));
      }
      if (this.deps.ephemeralContainers && ephemeralContainersDiffer(written, desired)) written = await this.writeEphemeralContainers(desired);
    } catch (err) {
      // A change the upstream object cannot take (most of a pod's spec is immutable): the mirror is made anew.
      if (!(err instanceof StatusError && err.code === 422)) throw err;
      await this.deleteMirror(current);
      return { requeueAfterMs: 100 };
    }
    if (changes.status) await this.writeStatus(written, desired);
    return again;
  }

  private async create(desired: KubeObject, ns: string): Promise<{ requeueAfterMs: number } | void> {
    let created: KubeObject;
    try {
      created = await this.deps.upstream.create(this.deps.gvr, this.deps.ephemeralContainers ? withEphemeralContainersOf(desired, undefined) : desired, this.scope(ns));
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      const other = await this.deps.upstream.get(this.deps.gvr, desired.metadata!.name!, this.scope(ns)).catch(() => undefined);
      // Another cluster's mirror of the same name (a workload moving) or ours not in the cache yet: look again later.
      if (!other || isMirror(other)) return { requeueAfterMs: 2000 };
      logger.warn('syncer: an object of that name exists upstream; not mirrored', { resource: this.deps.gvr.resource, namespace: ns, name: desired.metadata?.name });
      return;
    }
    if (this.deps.ephemeralContainers && ephemeralContainersOf(desired)) created = await this.writeEphemeralContainers(desired);
    if (this.deps.hasStatus) await this.writeStatus(created, desired);
  }

  /**
   * The cluster's ephemeral containers onto a pod mirror, through the workspace's pods/ephemeralcontainers: merged by
   * name (a strategic merge patch), so containers the mirror already has are never taken away. That subresource
   * sends a mirror's write to its original (streams/mirror-ephemeral-containers.ts), where these containers already
   * are, and records the original's on the mirror.
   */
  private async writeEphemeralContainers(desired: KubeObject): Promise<KubeObject> {
    return this.deps.upstream.patch(this.deps.gvr, desired.metadata!.name!, 'strategic', ephemeralContainersPatch(desired), { ...this.scope(desired.metadata!.namespace!), subresource: 'ephemeralcontainers' });
  }

  private async writeStatus(current: KubeObject, desired: KubeObject): Promise<void> {
    const name = desired.metadata!.name!;
    const hash = contentHash(desired.status);
    if (this.writtenStatus.get(name) === hash && contentHash(current.status ?? {}) !== hash) return;
    try {
      await this.deps.upstream.patch(this.deps.gvr, name, 'json', [{ op: 'add', path: '/status', value: desired.status }], { ...this.scope(desired.metadata!.namespace!), subresource: 'status' });
      this.writtenStatus.set(name, hash);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }

  /**
   * A mirror pod deleted by someone else: its original on the cluster is deleted too (the familiar restart), unless
   * its upstream owner is gone or going (the garbage collector removing mirrors with their workload, whose copies
   * the syncer removes anyway).
   */
  private async deleteOriginal(mirror: KubeObject, original: { namespace: string; name: string; uid: string }): Promise<void> {
    const { namespace: downNs, name, uid } = original;
    // A mirror with an owner that is gone was deleted with it (the cluster's garbage collector takes the original); one
    // without an owner (a released pod) was deleted by a user.
    if (controllerOf(mirror) && !(await this.ownerLives(mirror))) {
      this.deletedByUser.delete(uid);
      return;
    }
    try {
      await this.deps.downstreamClient.delete(this.deps.gvr, name, { namespace: downNs }, { preconditions: { uid } });
      logger.info('syncer: deleted a pod on its cluster whose mirror was deleted', { syncTarget: this.deps.cluster.name, namespace: mirror.metadata?.namespace, name: mirror.metadata?.name });
    } catch (err) {
      this.deletedByUser.delete(uid);
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  /** The live original of a mirror (same uid, not terminating), from the downstream cache. */
  private originalOf(mirror: KubeObject): { namespace: string; name: string; uid: string } | undefined {
    const source = mirror.metadata?.annotations?.[MIRROR_SOURCE_ANNOTATION];
    const uid = mirror.metadata?.annotations?.[MIRROR_SOURCE_UID_ANNOTATION];
    if (!source || !uid) return undefined;
    const slash = source.indexOf('/');
    const namespace = source.slice(0, slash);
    const name = source.slice(slash + 1);
    const down = this.deps.downstream.lister.get(formatObjectKey({ cluster: 'root', namespace, name }));
    if (!down || down.metadata?.uid !== uid || down.metadata?.deletionTimestamp) return undefined;
    return { namespace, name, uid };
  }

  private async ownerLives(mirror: KubeObject): Promise<boolean> {
    const owner = controllerOf(mirror);
    if (!owner?.kind || !owner.name) return false;
    const group = owner.apiVersion?.includes('/') ? owner.apiVersion.split('/')[0]! : '';
    const placement = kindPlacementOfKind(group, owner.kind);
    if (!placement) return false;
    try {
      const o = await this.deps.upstream.get({ group: placement.group, version: placement.version, resource: placement.resource }, owner.name, this.scope(mirror.metadata!.namespace!));
      return o.metadata?.uid === owner.uid && !o.metadata?.deletionTimestamp;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return false;
      throw err;
    }
  }
}
