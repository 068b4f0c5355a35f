/**
 * The scheduling controller: one reconcile per logical cluster (workspace) that
 *
 * - creates the `default` Location (all SyncTargets of the workspace) when the workspace has SyncTargets and no
 *   Location, as kcp did, so `kubectl atrium bind compute` needs nothing else;
 * - keeps every Location's status (instances / availableInstances, locationStatus);
 * - decides which SyncTargets must give up their work (decideEvacuations: heartbeat stopped or NotReady for longer
 *   than the toleration, or drained with spec.evictAfter);
 * - for every Placement, chooses its Location and SyncTargets (selectTargets; stable: assigned targets are kept while
 *   they may keep work), writes its status (placementStatus) and writes the decision onto the namespaces it places:
 *   the state labels `state.workload.kcp.io/<key>: Sync` the syncer syncs by, plus the Placement and split
 *   annotations; namespaces no longer placed are released.
 *
 * The Locations and SyncTargets a Placement schedules onto are those of its spec.locationWorkspace (a path such as
 * `root:compute`, resolved through the LogicalCluster objects; empty means the Placement's own workspace), and the
 * state labels name SyncTarget keys of that workspace. A Placement naming a workspace that does not exist is Pending
 * with Ready=False/LocationNotFound.
 *
 * A deleted Placement is held by PLACEMENT_CLEANUP_FINALIZER until its namespaces are released and, when it was the
 * workspace's last compute, the splitter's children and the syncers' copies are gone (placement-cleanup.ts): the
 * workspace serves the workload types until then. Placements from before the finalizer existed get it added.
 *
 * Alongside, every SyncTarget carries CONSUMER_CLUSTERS_ANNOTATION: the other logical clusters whose namespaces carry
 * its state label (whatever the value), which its syncer reads to sync those workspaces as well as its own. It
 * reflects the labels as they are now; draining a cluster that left the list is the syncer's business.
 */
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import { clusterOf } from '../../client/store.js';
import { commit } from '../../controllers/runtime/committer.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { syncTargetKey } from '../api/keys.js';
import { CLUSTER_LABEL, CONSUMER_CLUSTERS_ANNOTATION, namespacesGVR, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { estimateAvailableReplicas } from '../decisions/capacity-estimate.js';
import { decideEvacuations } from '../decisions/failover.js';
import { locationStatus } from '../decisions/location-status.js';
import { placementStatus } from '../decisions/placement-status.js';
import { isReady, selectTargets, type TargetSelection } from '../decisions/select-targets.js';
import { SYNC_TARGET_RESOURCE, type GroupResource, type LocationLike, type PlacementLike, type SyncTargetLike } from '../decisions/types.js';
import { assignedKeys, placementForNamespace, scheduledNamespaceMetadata } from './namespace-assignment.js';
import { LOCATION_LABEL } from '../decisions/workload-pin.js';
import { DEFAULT_NAME, locationsGVR, PLACEMENT_ANNOTATION, PLACEMENT_CLEANUP_FINALIZER, placementsGVR } from './types.js';
import { awaitsCleanup, cleanupPending, finalizersWithCleanup } from './placement-cleanup.js';
import { workspaceWorkloadResources } from '../api/workload-resources.js';
import { logger } from '../../logging/logger.js';
import { directoryOf, resolvePlacementLocation, type WorkspaceDirectory } from './location-workspace.js';
import { consumerClusters, consumerClustersPatch, NAMESPACES_BY_STATE_KEY_INDEX, stateKeysOf, SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer } from './consumer-clusters.js';

export interface SchedulingControllerOptions {
  /** How long an unhealthy SyncTarget keeps its work before it is evacuated (default 60 s). */
  tolerationSeconds?: number;
  /** How often every workspace is re-examined even without events (default 1000 ms): health changes with time. */
  resyncMs?: number;
  /** How long a deleted Placement waits for its cleanup before it goes anyway (default 300 s). */
  placementCleanupTimeoutSeconds?: number;
}

type Location = KubeObject & LocationLike;
type Placement = KubeObject & PlacementLike;

export function schedulingControllerInstaller(opts: SchedulingControllerOptions = {}): ControllerInstaller {
  return {
    name: 'scheduling',
    install(ctx) {
      const informers = {
        targets: ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' }),
        locations: ctx.informers.informerFor<Location>(locationsGVR, { cluster: '*' }),
        placements: ctx.informers.informerFor<Placement>(placementsGVR, { cluster: '*' }),
        namespaces: ctx.informers.informerFor<KubeObject>(namespacesGVR, { cluster: '*' }),
        logicalClusters: ctx.informers.informerFor<KubeObject>(logicalClustersGVR, { cluster: '*' }),
        consumers: new Map<string, Set<string>>(),
      };
      const controller = new Controller({ name: 'scheduling', workers: 1, reconcile: (cluster) => reconcileWorkspace(ctx, opts, informers, cluster) });
      const byCluster = (o: KubeObject) => controller.enqueue(clusterOf(o));
      for (const inf of [informers.targets, informers.locations, informers.placements, informers.namespaces] as Informer<KubeObject>[]) {
        inf.addEventHandler({ add: byCluster, update: (_o, n) => byCluster(n), delete: byCluster });
      }
      // A change of SyncTargets or Locations in a location workspace concerns the workspaces whose Placements use it.
      const byConsumers = (o: KubeObject) => {
        for (const consumer of informers.consumers.get(clusterOf(o)) ?? []) controller.enqueue(consumer);
      };
      for (const inf of [informers.targets, informers.locations] as Informer<KubeObject>[]) {
        inf.addEventHandler({ add: byConsumers, update: (_o, n) => byConsumers(n), delete: byConsumers });
      }
      const consumerAnnotations = consumerClustersController(ctx, informers);
      return {
        name: 'scheduling',
        start: () => {
          controller.start();
          consumerAnnotations.start();
        },
        stop: async () => {
          await Promise.all([controller.stop(), consumerAnnotations.stop()]);
        },
      };
    },
  };
}

interface Informers {
  targets: Informer<SyncTarget>;
  locations: Informer<Location>;
  placements: Informer<Placement>;
  namespaces: Informer<KubeObject>;
  /** LogicalCluster objects: the directory resolving spec.locationWorkspace paths to logical clusters. */
  logicalClusters: Informer<KubeObject>;
  /** Location workspace → the other workspaces whose Placements use it (to re-examine them on its changes). */
  consumers: Map<string, Set<string>>;
}

const logicalClustersGVR = { group: 'core.kcp.io', version: 'v1alpha1', resource: 'logicalclusters' };

/** What a location workspace offers for scheduling: its live SyncTargets and Locations, and their health verdicts. */
interface LocationWorkspaceView {
  cluster: string;
  path: string;
  targets: (SyncTarget & SyncTargetLike)[];
  locations: Location[];
  health: ReturnType<typeof decideEvacuations>;
  nameOfKey: Map<string, string>;
}

/** How many namespaces' placement one workspace pass writes at the same time. */
const NAMESPACE_WRITE_CONCURRENCY = 8;

/** Objects of `inf` in `cluster`, sorted by name. */
function inCluster<T extends KubeObject>(inf: Informer<T>, cluster: string): T[] {
  return inf.lister
    .list()
    .filter((o) => clusterOf(o) === cluster)
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
}

async function reconcileWorkspace(ctx: ControllerContext, opts: SchedulingControllerOptions, inf: Informers, cluster: string): Promise<{ requeueAfterMs: number } | void> {
  const scope = { cluster };
  const resync = { requeueAfterMs: opts.resyncMs ?? 1000 };
  const targets = inCluster(inf.targets, cluster).filter((t) => !t.metadata?.deletionTimestamp) as (SyncTarget & SyncTargetLike)[];
  const locations = inCluster(inf.locations, cluster);
  const allPlacements = inCluster(inf.placements, cluster);
  const placements = allPlacements.filter((p) => !p.metadata?.deletionTimestamp);
  const leaving = allPlacements.filter(awaitsCleanup);
  const namespaces = inCluster(inf.namespaces, cluster);
  // Workspaces without compute (most of them) cost nothing: no periodic re-examination until a SyncTarget, Location or
  // Placement appears there.
  if (targets.length === 0 && locations.length === 0 && placements.length === 0 && leaving.length === 0 && !namespaces.some((ns) => ns.metadata?.annotations?.[PLACEMENT_ANNOTATION] !== undefined)) return;
  // Placements from before the cleanup finalizer existed get it; the pass starts over from the updated objects.
  let added = false;
  for (const p of placements) {
    const finalizers = finalizersWithCleanup(p);
    if (!finalizers) continue;
    await ctx.client.patch(placementsGVR, p.metadata!.name!, 'merge', { metadata: { finalizers, resourceVersion: p.metadata!.resourceVersion } }, scope);
    added = true;
  }
  if (added) return { requeueAfterMs: 50 };

  if (targets.length > 0 && locations.length === 0) {
    await ctx.client.create(locationsGVR, defaultLocation(), scope).catch(ignoreConflict);
    return { requeueAfterMs: 100 };
  }
  for (const location of locations) {
    const next = deepCopy(location);
    next.status = { ...(next.status ?? {}), ...locationStatus(location, targets) };
    await commit(ctx.client, locationsGVR, location, next, scope);
  }

  const now = new Date();
  // Built on first use only: it walks every LogicalCluster, and workspaces without Placements never need it.
  let built: WorkspaceDirectory | undefined;
  const dir = () => (built ??= directoryOf(inf.logicalClusters.lister.list(), clusterOf));
  const directory: WorkspaceDirectory = { clusterOfPath: (p) => dir().clusterOfPath(p), pathOfCluster: (c) => dir().pathOfCluster(c) };
  const views = new Map<string, LocationWorkspaceView>();
  const viewOf = (locationCluster: string, path: string): LocationWorkspaceView => {
    let view = views.get(locationCluster);
    if (!view) {
      const ts = locationCluster === cluster ? targets : (inCluster(inf.targets, locationCluster).filter((t) => !t.metadata?.deletionTimestamp) as (SyncTarget & SyncTargetLike)[]);
      view = {
        cluster: locationCluster,
        path,
        targets: ts,
        locations: locationCluster === cluster ? locations : inCluster(inf.locations, locationCluster).filter((l) => !l.metadata?.deletionTimestamp),
        health: decideEvacuations(ts, { tolerationSeconds: opts.tolerationSeconds ?? 60 }, now),
        nameOfKey: new Map(ts.map((t) => [syncTargetKey(locationCluster, t.metadata!.name!), t.metadata!.name!])),
      };
      views.set(locationCluster, view);
    }
    return view;
  };
  let nextCheckAt: string | undefined;

  const bound = new Map<string, KubeObject[]>();
  for (const ns of namespaces) {
    const p = placementForNamespace(ns, placements);
    if (p) bound.set(p.metadata!.name!, [...(bound.get(p.metadata!.name!) ?? []), ns]);
  }

  /** Per Placement: the chosen SyncTargets as keys of its location workspace. */
  const chosenFor = new Map<string, string[]>();
  /** Per Placement: its location workspace's view, for namespaces pinned to one of its SyncTargets. */
  const viewFor = new Map<string, LocationWorkspaceView>();
  const usedWorkspaces = new Set<string>();
  for (const placement of placements) {
    const name = placement.metadata!.name!;
    const members = bound.get(name) ?? [];
    const where = resolvePlacementLocation(placement, cluster, directory);
    let selection: TargetSelection;
    if (!where.found) {
      selection = { selectedLocation: null, locationFailure: 'LocationWorkspaceNotFound', locationStale: false, targets: [], added: [], removed: [], rejected: [] };
      chosenFor.set(name, []);
    } else {
      const view = viewOf(where.cluster, where.path);
      if (where.cluster !== cluster) usedWorkspaces.add(where.cluster);
      const current = [...new Set(members.flatMap((ns) => assignedKeys(ns).map((k) => view.nameOfKey.get(k)).filter((n): n is string => !!n)))];
      selection = selectTargets({
        placement,
        locations: view.locations,
        syncTargets: view.targets,
        locationWorkspace: view.path,
        current,
        evacuating: view.health.evacuate,
        requiredResources: requiredResourcesOf(view.targets),
        availableReplicas: podRoomOf(view.targets),
        now,
      });
      chosenFor.set(name, selection.targets.map((t) => syncTargetKey(view.cluster, t)));
      viewFor.set(name, view);
      if (view.health.nextCheckAt && (!nextCheckAt || view.health.nextCheckAt < nextCheckAt)) nextCheckAt = view.health.nextCheckAt;
    }
    const next = deepCopy(placement);
    next.status = { ...(next.status ?? {}), ...placementStatus({ selection, locationWorkspace: where.path, boundNamespaces: members.length, previousConditions: placement.status?.conditions, now }) };
    if (!selection.selectedLocation) delete next.status.selectedLocation;
    await commit(ctx.client, placementsGVR, placement, next, scope);
  }
  recordConsumer(inf.consumers, cluster, usedWorkspaces);

  const changed: { ns: KubeObject; next: KubeObject }[] = [];
  for (const ns of namespaces) {
    const placement = placementForNamespace(ns, placements)?.metadata!.name!;
    // Only namespaces this controller placed are ever released; state labels written by hand stay untouched.
    if (placement === undefined && ns.metadata?.annotations?.[PLACEMENT_ANNOTATION] === undefined) continue;
    const placementObj = placement === undefined ? undefined : placements.find((p) => p.metadata!.name === placement);
    const keys = placement === undefined ? [] : (pinnedKeys(ns, viewFor.get(placement)) ?? locationKeys(ns, placementObj, viewFor.get(placement), now) ?? chosenFor.get(placement) ?? []);
    const meta = scheduledNamespaceMetadata(ns, placement, keys);
    if (jsonEqual(meta.labels, ns.metadata?.labels ?? {}) && jsonEqual(meta.annotations, ns.metadata?.annotations ?? {})) continue;
    const next = deepCopy(ns);
    next.metadata!.labels = meta.labels;
    next.metadata!.annotations = meta.annotations;
    changed.push({ ns, next });
    const before = assignedKeys(ns);
    if (!jsonEqual(before, [...keys].sort())) {
      const view = placement === undefined ? undefined : viewFor.get(placement);
      logger.info('scheduling: namespace placed', {
        workspace: cluster,
        namespace: ns.metadata!.name,
        placement,
        added: keys.filter((k) => !before.includes(k)).map((k) => view?.nameOfKey.get(k) ?? k),
        removed: before.filter((k) => !keys.includes(k)).map((k) => view?.nameOfKey.get(k) ?? k),
        evacuating: view?.health.evacuate ?? [],
      });
    }
  }
  // Each namespace is its own write: NAMESPACE_WRITE_CONCURRENCY at a time (one after the other, 50 apps applied at
  // once waited seconds for their namespaces to be placed). Every write is attempted; the first failure fails the pass.
  let failure: unknown;
  let nextWrite = 0;
  await Promise.all(Array.from({ length: Math.min(NAMESPACE_WRITE_CONCURRENCY, changed.length) }, async () => {
    while (nextWrite < changed.length) {
      const { ns, next } = changed[nextWrite++]!;
      await commit(ctx.client, namespacesGVR, ns, next, scope).catch((err: unknown) => void (failure ??= err));
    }
  }));
  if (failure !== undefined) throw failure;
  if (leaving.length) await releaseCleanedUp(ctx, opts, inf, cluster, leaving, placements.length > 0);
  if (nextCheckAt) resync.requeueAfterMs = Math.min(resync.requeueAfterMs, Math.max(50, Date.parse(nextCheckAt) - Date.now() + 50));
  return resync;
}

/**
 * The keys of a namespace pinned to one SyncTarget by its own `workload.kcp.io/cluster: <name>` label (the
 * break-glass label, and what `kubectl atrium move namespace` sets): the one SyncTarget of that name in the
 * Placement's location workspace, unless it is being evacuated (gone, or drained: then the Placement's own choice
 * holds until the label is changed). Undefined when the namespace is not pinned or the pin cannot be honoured.
 * Admission (pin-admission.ts) refuses a pin naming no SyncTarget of the location workspace, so this never ignores a
 * label silently that it accepted.
 */
function pinnedKeys(ns: KubeObject, view: LocationWorkspaceView | undefined): string[] | undefined {
  const pin = ns.metadata?.labels?.[CLUSTER_LABEL];
  if (!pin || !view) return undefined;
  if (!view.targets.some((t) => t.metadata?.name === pin) || view.health.evacuate.includes(pin)) return undefined;
  return [syncTargetKey(view.cluster, pin)];
}

/**
 * The keys of a namespace pinned to a Location by its `scheduling.atrium.io/location: <name>` label (what `kubectl
 * atrium move namespace --to location/<name>` sets): the targets the Placement would choose were that Location its
 * only one (selectTargets, same spread, health and capacity rules, stable for the namespace's current targets).
 * Undefined when the namespace is not pinned to a Location or the location workspace has no such Location (admission
 * refuses that when the label is set). When none of the Location's targets can take the work now, the namespace keeps
 * the targets it has: nothing is taken away before a new cluster can run it.
 */
function locationKeys(ns: KubeObject, placement: Placement | undefined, view: LocationWorkspaceView | undefined, now: Date): string[] | undefined {
  const name = ns.metadata?.labels?.[LOCATION_LABEL];
  if (!name || !placement || !view) return undefined;
  const location = view.locations.find((l) => l.metadata?.name === name);
  if (!location) return undefined;
  const current = assignedKeys(ns).map((k) => view.nameOfKey.get(k)).filter((n): n is string => !!n);
  const selection = selectTargets({
    // The Location is the only choice: any selector matches it, and no earlier choice of the Placement holds.
    placement: { metadata: { name: placement.metadata!.name! }, spec: { ...placement.spec, locationSelectors: [{}] } },
    locations: [location],
    syncTargets: view.targets,
    locationWorkspace: view.path,
    current,
    evacuating: view.health.evacuate,
    requiredResources: requiredResourcesOf(view.targets),
    availableReplicas: podRoomOf(view.targets),
    now,
  });
  if (selection.targets.length === 0) return current.length > 0 ? assignedKeys(ns) : undefined;
  return selection.targets.map((t) => syncTargetKey(view.cluster, t));
}

/**
 * Releases the cleanup finalizer of each deleted Placement whose cleanup is done (placement-cleanup.ts). The
 * workspace's workload objects are read (only when no compute stays) from the API, while the types are still served.
 */
async function releaseCleanedUp(ctx: ControllerContext, opts: SchedulingControllerOptions, inf: Informers, cluster: string, leaving: Placement[], livePlacements: boolean): Promise<void> {
  const scope = { cluster };
  const computeStays = livePlacements || inf.targets.lister.list().some((t) => clusterOf(t) === cluster);
  let workloads: KubeObject[] | undefined;
  if (!computeStays) {
    workloads = [];
    for (const def of workspaceWorkloadResources) {
      try {
        const list = await ctx.client.list({ group: def.group, version: def.version, resource: def.resource }, scope);
        for (const o of list.items) workloads.push({ ...o, kind: def.kind });
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
    }
  }
  const releasable = (key: string) => inf.targets.lister.byIndex(SYNC_TARGETS_BY_KEY_INDEX, key).some((t) => isReady(t as SyncTarget & SyncTargetLike));
  const now = new Date();
  for (const p of leaving) {
    const pending = cleanupPending({ placement: p, namespaces: inCluster(inf.namespaces, cluster), computeStays, workloads, releasable, now, timeoutSeconds: opts.placementCleanupTimeoutSeconds ?? 300 });
    if (pending) continue;
    const finalizers = (p.metadata!.finalizers ?? []).filter((f) => f !== PLACEMENT_CLEANUP_FINALIZER);
    await ctx.client.patch(placementsGVR, p.metadata!.name!, 'merge', { metadata: { finalizers, resourceVersion: p.metadata!.resourceVersion } }, scope).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 404) throw err;
    });
    logger.info('scheduling: placement cleaned up', { workspace: cluster, placement: p.metadata!.name });
  }
}

/**
 * Keeps CONSUMER_CLUSTERS_ANNOTATION on every SyncTarget in step with the namespaces carrying its state label. Keyed
 * by the SyncTarget's logical cluster: a namespace whose state labels change enqueues the clusters of the targets
 * those labels name (found by key through an index, so no event walks all SyncTargets), a SyncTarget that appears or
 * whose annotation someone else changed enqueues its own cluster. A pass looks up each target's namespaces through
 * the namespace index by state key and patches the annotation only where it differs.
 */
function consumerClustersController(ctx: ControllerContext, inf: Informers): Controller {
  const { targets, namespaces } = inf;
  targets.addIndexer(SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer((o) => clusterOf(o)));
  namespaces.addIndexer(NAMESPACES_BY_STATE_KEY_INDEX, stateKeysOf);
  const controller = new Controller({ name: 'scheduling-consumer-clusters', workers: 1, reconcile: (cluster) => reconcileConsumerClusters(ctx, inf, cluster) });
  // Which workspaces may consume a location workspace follows their Placements: re-examine the location workspaces
  // a Placement names (before and after a change) and, for LogicalCluster changes, every workspace with SyncTargets.
  const byPlacement = (p: Placement) => {
    const where = resolvePlacementLocation(p, clusterOf(p), directoryOf(inf.logicalClusters.lister.list(), clusterOf));
    if (where.found) controller.enqueue(where.cluster);
  };
  inf.placements.addEventHandler({ add: byPlacement, update: (o, n) => (byPlacement(o), byPlacement(n)), delete: byPlacement });
  const everyTargetWorkspace = () => {
    for (const c of new Set(targets.lister.list().map((t) => clusterOf(t)))) controller.enqueue(c);
  };
  inf.logicalClusters.addEventHandler({ add: everyTargetWorkspace, update: everyTargetWorkspace, delete: everyTargetWorkspace });
  const byKeys = (keys: Iterable<string>) => {
    for (const key of keys) for (const t of targets.lister.byIndex(SYNC_TARGETS_BY_KEY_INDEX, key)) controller.enqueue(clusterOf(t));
  };
  namespaces.addEventHandler({
    add: (ns) => byKeys(stateKeysOf(ns)),
    update: (o, n) => {
      const before = stateKeysOf(o);
      const after = stateKeysOf(n);
      if (before.join(',') === after.join(',')) return;
      byKeys(new Set([...before, ...after]));
    },
    delete: (ns) => byKeys(stateKeysOf(ns)),
  });
  targets.addEventHandler({
    add: (t) => controller.enqueue(clusterOf(t)),
    // Only the annotation itself matters (the desired value depends on namespaces alone): heartbeats are ignored.
    update: (o, n) => {
      if (o.metadata?.annotations?.[CONSUMER_CLUSTERS_ANNOTATION] !== n.metadata?.annotations?.[CONSUMER_CLUSTERS_ANNOTATION]) controller.enqueue(clusterOf(n));
    },
  });
  return controller;
}

async function reconcileConsumerClusters(ctx: ControllerContext, inf: Informers, cluster: string): Promise<{ requeueAfterMs: number } | void> {
  const { targets, namespaces } = inf;
  // Decided from complete caches only: an empty list makes the syncers drain those workspaces.
  if (![targets, namespaces, inf.placements, inf.logicalClusters].every((i) => i.hasSynced())) return { requeueAfterMs: 200 };
  // A workspace consumes this one only through a Placement naming it (admitted with `bind` here): state labels
  // someone wrote by hand in a workspace without such a Placement do not make atrium sync that workspace.
  const directory = directoryOf(inf.logicalClusters.lister.list(), clusterOf);
  const consumes = new Map<string, boolean>();
  const placesHere = (consumer: string): boolean => {
    let yes = consumes.get(consumer);
    if (yes === undefined) {
      yes = inf.placements.lister.list().some((p) => {
        if (clusterOf(p) !== consumer) return false;
        const where = resolvePlacementLocation(p, consumer, directory);
        return where.found && where.cluster === cluster;
      });
      consumes.set(consumer, yes);
    }
    return yes;
  };
  for (const target of targets.lister.list()) {
    if (clusterOf(target) !== cluster) continue;
    const name = target.metadata!.name!;
    const placed = namespaces.lister.byIndex(NAMESPACES_BY_STATE_KEY_INDEX, syncTargetKey(cluster, name)).filter((ns) => clusterOf(ns) === cluster || placesHere(clusterOf(ns)));
    const patch = consumerClustersPatch(target, consumerClusters(cluster, placed, (o) => clusterOf(o)));
    if (!patch) continue;
    await ctx.client.patch(syncTargetsGVR, name, 'merge', patch, { cluster }).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 404) throw err;
    });
  }
}

/** Records that `consumer`'s Placements use exactly the location workspaces `used` (other than its own). */
function recordConsumer(consumers: Map<string, Set<string>>, consumer: string, used: ReadonlySet<string>): void {
  for (const [workspace, set] of consumers) {
    if (used.has(workspace)) continue;
    set.delete(consumer);
    if (set.size === 0) consumers.delete(workspace);
  }
  for (const workspace of used) {
    let set = consumers.get(workspace);
    if (!set) consumers.set(workspace, (set = new Set()));
    set.add(consumer);
  }
}

/** The workload resources the splitter places: required once any SyncTarget of the workspace reported them. */
const splitResources: GroupResource[] = [{ group: 'apps', resource: 'deployments' }];

/**
 * The resources a target must serve to be chosen: Deployments, once every Ready SyncTarget reported them Accepted or
 * Incompatible in status.syncedResources. Before that negotiation is still under way, and requiring them would keep a
 * slower target out of a first binding. From then on a target reporting them Incompatible loses its work and takes
 * no new work.
 */
export function requiredResourcesOf(targets: readonly SyncTargetLike[]): GroupResource[] {
  const reported = (t: SyncTargetLike, gr: GroupResource) =>
    (t.status?.syncedResources ?? []).some((r) => (r.group ?? '') === gr.group && r.resource === gr.resource && (r.state === 'Accepted' || r.state === 'Incompatible'));
  const ready = targets.filter((t) => isReady(t));
  return splitResources.filter((gr) => ready.length > 0 && ready.every((t) => reported(t, gr)));
}

/**
 * Room for new work per target, from status.allocatable: the pod slots it reports (a target reporting 0 allocatable
 * pods takes no new work). Targets reporting nothing are left out (unbounded). The per-workload estimate, which also
 * counts cpu and memory requests, is made by the splitter when it divides replicas.
 */
export function podRoomOf(targets: readonly (SyncTarget & SyncTargetLike)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of targets) {
    const room = estimateAvailableReplicas(t.status?.allocatable, { cpuMilli: 0, memory: 0 }, []);
    if (room !== undefined) out[t.metadata!.name!] = room;
  }
  return out;
}

/** The Location kcp created per workspace: every SyncTarget of the workspace. */
export function defaultLocation(): KubeObject {
  return {
    apiVersion: 'scheduling.kcp.io/v1alpha1',
    kind: 'Location',
    metadata: { name: DEFAULT_NAME },
    spec: { resource: { ...SYNC_TARGET_RESOURCE }, instanceSelector: {} },
  };
}

/**
 * The Placement `kubectl atrium bind compute` creates: any Location, every (non-system) namespace, and the workload
 * spread over `spread` SyncTargets of the Location (All by default, so the splitter divides replicas over them).
 */
export function defaultPlacement(locationWorkspace: string, spread: PlacementLike['spec']['clusterSpread'] = { mode: 'All' }): KubeObject {
  return {
    apiVersion: 'scheduling.kcp.io/v1alpha1',
    kind: 'Placement',
    metadata: { name: DEFAULT_NAME },
    spec: { locationWorkspace, locationSelectors: [{}], namespaceSelector: {}, locationResource: { ...SYNC_TARGET_RESOURCE }, clusterSpread: spread },
  };
}

function ignoreConflict(err: unknown): void {
  if ((err as { code?: number }).code === 409) return;
  throw err;
}
