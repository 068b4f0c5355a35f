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
 * Limitation: the Locations and SyncTargets are read from the Placement's own workspace (spec.locationWorkspace other
 * than the workspace itself is not resolved), because a syncer only syncs the workspace its SyncTarget lives in.
 */
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import { clusterOf } from '../../client/store.js';
import { commit } from '../../controllers/runtime/committer.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { syncTargetKey } from '../api/keys.js';
import { namespacesGVR, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { estimateAvailableReplicas } from '../decisions/capacity-estimate.js';
import { decideEvacuations } from '../decisions/failover.js';
import { locationStatus } from '../decisions/location-status.js';
import { placementStatus } from '../decisions/placement-status.js';
import { isReady, selectTargets } from '../decisions/select-targets.js';
import { SYNC_TARGET_RESOURCE, type GroupResource, type LocationLike, type PlacementLike, type SyncTargetLike } from '../decisions/types.js';
import { assignedKeys, placementForNamespace, scheduledNamespaceMetadata } from './namespace-assignment.js';
import { DEFAULT_NAME, locationsGVR, PLACEMENT_ANNOTATION, placementsGVR } from './types.js';

export interface SchedulingControllerOptions {
  /** How long an unhealthy SyncTarget keeps its work before it is evacuated (default 60 s). */
  tolerationSeconds?: number;
  /** A heartbeat older than this makes a SyncTarget unhealthy (default 60 s, kcp's default). */
  heartbeatThresholdSeconds?: number;
  /** How often every workspace is re-examined even without events (default 1000 ms): health changes with time. */
  resyncMs?: number;
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
      };
      const controller = new Controller({ name: 'scheduling', workers: 1, reconcile: (cluster) => reconcileWorkspace(ctx, opts, informers, cluster) });
      const byCluster = (o: KubeObject) => controller.enqueue(clusterOf(o));
      for (const inf of Object.values(informers) as Informer<KubeObject>[]) {
        inf.addEventHandler({ add: byCluster, update: (_o, n) => byCluster(n), delete: byCluster });
      }
      return { name: 'scheduling', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}

interface Informers {
  targets: Informer<SyncTarget>;
  locations: Informer<Location>;
  placements: Informer<Placement>;
  namespaces: Informer<KubeObject>;
}

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
  const placements = inCluster(inf.placements, cluster).filter((p) => !p.metadata?.deletionTimestamp);
  const namespaces = inCluster(inf.namespaces, cluster);
  // Workspaces without compute (most of them) cost nothing: no periodic re-examination until a SyncTarget, Location or
  // Placement appears there.
  if (targets.length === 0 && locations.length === 0 && placements.length === 0 && !namespaces.some((ns) => ns.metadata?.annotations?.[PLACEMENT_ANNOTATION] !== undefined)) return;

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
  const health = decideEvacuations(targets, { tolerationSeconds: opts.tolerationSeconds ?? 60, heartbeatThresholdSeconds: opts.heartbeatThresholdSeconds ?? 60 }, now);
  const nameOfKey = new Map(targets.map((t) => [syncTargetKey(cluster, t.metadata!.name!), t.metadata!.name!]));

  const bound = new Map<string, KubeObject[]>();
  for (const ns of namespaces) {
    const p = placementForNamespace(ns, placements);
    if (p) bound.set(p.metadata!.name!, [...(bound.get(p.metadata!.name!) ?? []), ns]);
  }

  const chosenFor = new Map<string, string[]>();
  for (const placement of placements) {
    const name = placement.metadata!.name!;
    const members = bound.get(name) ?? [];
    const current = [...new Set(members.flatMap((ns) => assignedKeys(ns).map((k) => nameOfKey.get(k)).filter((n): n is string => !!n)))];
    const selection = selectTargets({
      placement,
      locations,
      syncTargets: targets,
      locationWorkspace: cluster,
      current,
      evacuating: health.evacuate,
      requiredResources: requiredResourcesOf(targets),
      availableReplicas: podRoomOf(targets),
      now,
    });
    chosenFor.set(name, selection.targets);
    const next = deepCopy(placement);
    next.status = { ...(next.status ?? {}), ...placementStatus({ selection, boundNamespaces: members.length, previousConditions: placement.status?.conditions, now }) };
    if (!selection.selectedLocation) delete next.status.selectedLocation;
    await commit(ctx.client, placementsGVR, placement, next, scope);
  }

  for (const ns of namespaces) {
    const placement = placementForNamespace(ns, placements)?.metadata!.name!;
    // Only namespaces this controller placed are ever released; state labels written by hand stay untouched.
    if (placement === undefined && ns.metadata?.annotations?.[PLACEMENT_ANNOTATION] === undefined) continue;
    const keys = placement === undefined ? [] : (chosenFor.get(placement) ?? []).map((t) => syncTargetKey(cluster, t));
    const meta = scheduledNamespaceMetadata(ns, placement, keys);
    if (jsonEqual(meta.labels, ns.metadata?.labels ?? {}) && jsonEqual(meta.annotations, ns.metadata?.annotations ?? {})) continue;
    const next = deepCopy(ns);
    next.metadata!.labels = meta.labels;
    next.metadata!.annotations = meta.annotations;
    await commit(ctx.client, namespacesGVR, ns, next, scope);
  }
  if (health.nextCheckAt) resync.requeueAfterMs = Math.min(resync.requeueAfterMs, Math.max(50, Date.parse(health.nextCheckAt) - Date.now() + 50));
  return resync;
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
