/**
 * The deployment splitter: in namespaces the scheduler placed (SPLIT_NAMESPACE_ANNOTATION), every root Deployment
 * (no own cluster label, not itself a child) is divided over the namespace's SyncTargets by splitReplicas (Webster,
 * static weights from the `scheduling.atrium.io/replica-weight` SyncTarget label, Steady: a scale or a lost cluster
 * moves only what must move). Each share becomes a child Deployment `<root>--<target>` labelled to its target, which
 * the syncer syncs like any other object; the root itself is never synced (skip rule in syncer/transform.ts). The
 * children's statuses, synced up by the syncer, are folded onto the root's status (aggregateDeploymentStatus), so
 * `kubectl rollout status` and `kubectl wait --for=condition=Available` on the root tell the truth.
 *
 * Moves: when the scheduler takes a SyncTarget off a namespace (a placement change or `kubectl atrium move`, a drain,
 * failover, a smaller spread), its share is re-divided over the remaining targets make before break (stepMove,
 * decisions/step-move.ts): within the root's own maxSurge (replicas + maxSurge at most over all clusters) and keeping
 * at least max(replicas − maxUnavailable, what its PodDisruptionBudgets require) ready, the leaving child is scaled
 * down only as replacements report ready, and deleted once it holds 0. Until it is gone its status counts towards the
 * root's as its cluster reports it (the root's counts are the sums of what the clusters report); the root shows the
 * Moving condition. A target that is not Ready (heartbeat lost) counts for nothing (status: ClusterUnreachable) and its
 * share is replaced at once. Its syncer cannot
 * release the child's syncer finalizer, so the splitter removes it: the copy on the unreachable cluster is left alone
 * (never deleted on a guess) and is cleaned up by that cluster's syncer if it comes back.
 *
 * Capacity: each target's share is capped by estimateAvailableReplicas (SyncTarget status.allocatable minus what the
 * other split children there request), and replicas that stay unready on a Ready target past `unschedulableGraceMs`
 * (UnschedulableTracker) are taken off it and placed elsewhere as far as their pods' mirrors show the cluster's
 * scheduler turned them away (unschedulable.ts; a pod that runs but is not ready yet stays).
 *
 * Deployments are served only in workspaces with compute (a SyncTarget or a Placement), so each workspace gets its own
 * Deployment informer once the type is served there (a LIST answers until then).
 *
 * Two kinds of keys. A root key (`<cluster>|<namespace>|<split-from value>`) reconciles one root and its children: it
 * is queued by that root's and its children's events, so a new Deployment or a child's status coming up is handled at
 * once, without a pass over every Deployment of the workspace (with 50 apps, ~107 roots, passes queued behind one
 * another made splitting and folding status take seconds). A workspace key (`<cluster>`) does what concerns the
 * workspace: the Deployment informer, children whose root is gone, the namespace marks, and it queues every root key;
 * it runs on namespace and SyncTarget events (a target lost, room changed), when a shortfall's grace period ends, and
 * every resyncMs. Roots are reconciled ROOT_WORKERS at a time, each from the informers' current state.
 *
 * Across workspaces: a pass runs for every workspace with split namespaces (or children left to clean up), whether or
 * not it holds SyncTargets itself, since a Placement may place its namespaces onto another workspace's SyncTargets.
 * The namespace's assignment keys are resolved against the SyncTargets of all workspaces (namespaceTargets), and a
 * target's capacity estimate counts the split children on it in every workspace that uses it (its own, and those its
 * CONSUMER_CLUSTERS_ANNOTATION lists) whose Deployments this controller watches.
 */
import { logger } from '../../logging/logger.js';
import { deepCopy, goEqual, jsonEqual, nowRFC3339, type KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { WriteCache } from '../../controllers/runtime/write-cache.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { stripClusterAnnotation } from '../../controllers/runtime/committer.js';
import { CLUSTER_LABEL, namespacesGVR, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { aggregateDeploymentStatus } from '../decisions/aggregate-status.js';
import { estimateAvailableReplicas, podRequestsOf } from '../decisions/capacity-estimate.js';
import { rolloutBudget, pdbMinAvailable, stepMove } from '../decisions/step-move.js';
import { findCondition } from '../../apimachinery/conditions.js';
import { fromLabelSelector } from '../../apimachinery/labels/selector.js';
import type { Condition } from '../decisions/types.js';
import { isReady } from '../decisions/select-targets.js';
import { splitReplicas, staticWeightOf, type SplitTarget } from '../decisions/split-replicas.js';
import { pinnedTargets, workloadPinOf } from '../decisions/workload-pin.js';
import { nodePinOf } from '../decisions/node-pin.js';
import type { LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import { locationsGVR } from '../scheduling/types.js';
import type { SyncTargetLike } from '../decisions/types.js';
import { assignedKeys } from '../scheduling/namespace-assignment.js';
import { SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer } from '../scheduling/consumer-clusters.js';
import { deploymentsGVR, SPLIT_CHILDREN_ANNOTATION, SPLIT_FROM_LABEL, SPLIT_NAMESPACE_ANNOTATION, splitFromValue } from '../scheduling/types.js';
import { clusterStatuses, desiredChild, isSplitRoot, replicasOf, updatedChild } from './children.js';
import { MIRRORS_BY_PLACE_INDEX, UnschedulableTracker, mirrorPlaceKeys, mirrorsKey, unschedulableReplicas } from './unschedulable.js';
import { slimPodsInformer } from '../../controllers/endpoints/slim-pods.js';
import { childrenOnTarget, namespaceTargets, unreleasableSyncerFinalizers, workspacesUsing, type ResolvedTarget, type TargetLookup } from './targets.js';

/**
 * Namespace informer index: by logical cluster, the namespaces a pass must look at: split ones
 * (SPLIT_NAMESPACE_ANNOTATION) and those that may still hold children (SPLIT_CHILDREN_ANNOTATION).
 */
const SPLIT_NAMESPACES_INDEX = 'deployment-splitter/split-namespaces';

/** How many roots are reconciled at the same time (a workspace key takes a worker too). */
const ROOT_WORKERS = 8;

/** Workspace Deployment informer indexes: roots and children by `<namespace>/<split-from value>`, children by target. */
const ROOTS_INDEX = 'deployment-splitter/roots';
const CHILDREN_INDEX = 'deployment-splitter/children';
const CHILDREN_BY_TARGET_INDEX = 'deployment-splitter/children-by-target';

/** The root group a Deployment belongs to: its own for a root (or any Deployment not a child), its root's for a child. */
function groupOf(d: KubeObject): string {
  const from = d.metadata?.labels?.[SPLIT_FROM_LABEL];
  return `${d.metadata?.namespace ?? ''}/${from ?? splitFromValue(d.metadata?.name ?? '')}`;
}

/** What a child of another root occupies on a target: its pod template's requests times its replicas. */
type Occupant = { requests: ReturnType<typeof podRequestsOf>; replicas: number };

export interface SplitterControllerOptions {
  /**
   * How often every workspace with split namespaces is re-examined without an event (default 5 s); a child short of ready
   * replicas is looked at again as soon as its grace period ends, whatever this is.
   */
  resyncMs?: number;
  /**
   * During a move off a SyncTarget, at most this many replacement replicas may be requested and not yet ready
   * (default: 25% of the Deployment's replicas, rounded up, at least 1 — Deployment's default maxSurge).
   */
  maxSurge?: number;
  /** How long a child may stay short of ready replicas on a Ready target before those its cluster could not schedule move elsewhere (default 30 s). */
  unschedulableGraceMs?: number;
}

export function splitterControllerInstaller(opts: SplitterControllerOptions = {}): ControllerInstaller {
  return {
    name: 'deployment-splitter',
    install(ctx) {
      const targets = ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' });
      const namespaces = ctx.informers.informerFor<KubeObject>(namespacesGVR, { cluster: '*' });
      // Locations: a root pinned to a Location (decisions/workload-pin.ts) runs on the namespace's clusters it selects.
      const locations = ctx.informers.informerFor<KubeObject>(locationsGVR, { cluster: '*' });
      targets.addIndexer(SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer((o) => clusterOf(o)));
      namespaces.addIndexer(SPLIT_NAMESPACES_INDEX, (ns) => (isSplit(ns) || ns.metadata?.annotations?.[SPLIT_CHILDREN_ANNOTATION] === 'true' ? [clusterOf(ns)] : []));
      // One tracker per workspace: a pass forgets the shortfalls of children it no longer sees, which must not
      // include other workspaces' children.
      const trackers = new Map<string, UnschedulableTracker>();
      // The slim cache of every workspace's pods (shared with the workspace endpoints controllers): the mirrors of a
      // child's pods say how many of them its cluster could not schedule (unschedulable.ts).
      const pods = slimPodsInformer(ctx.informers, { cluster: '*' });
      pods.addIndexer(MIRRORS_BY_PLACE_INDEX, mirrorPlaceKeys);
      const podMirrors = (cluster: string, namespace: string, syncTarget: string) =>
        pods.hasSynced() ? pods.lister.byIndex(MIRRORS_BY_PLACE_INDEX, mirrorsKey(cluster, namespace, syncTarget)) : [];
      const trackerOf = (cluster: string) => {
        let t = trackers.get(cluster);
        if (!t) trackers.set(cluster, (t = new UnschedulableTracker(opts.unschedulableGraceMs ?? 30_000)));
        return t;
      };
      const watched = new Map<string, Informer<KubeObject>>();
      const handlers = new Map<string, { add(o: KubeObject): void; update(o: KubeObject, n: KubeObject): void; delete(o: KubeObject): void }>();
      const lookup: TargetLookup = (key) => {
        const t = targets.lister.byIndex(SYNC_TARGETS_BY_KEY_INDEX, key)[0] as (SyncTarget & SyncTargetLike) | undefined;
        return t && { cluster: clusterOf(t), key, target: t };
      };
      const env: SplitterEnv = { ctx, opts, targets, namespaces, locations, lookup, watched, trackerOf, podMirrors, watchDeployments: (c) => watchDeployments(c), unwatchDeployments: (c) => unwatchDeployments(c), enqueueRoot: (c, group) => controller.enqueue(`${c}|${group}`), written: new WriteCache() };
      const controller = new Controller({
        name: 'deployment-splitter',
        workers: ROOT_WORKERS,
        reconcile: (key) => {
          const bar = key.indexOf('|');
          return bar < 0 ? reconcileWorkspace(env, key) : reconcileGroup(env, key.slice(0, bar), key.slice(bar + 1));
        },
      });
      // A workspace key queues every root of the workspace: only changes the split reads start one (not a heartbeat,
      // nor the mark this controller writes on a namespace before its first child there).
      const byCluster = (o: KubeObject) => controller.enqueue(clusterOf(o));
      targets.addEventHandler({ add: byCluster, update: (o, n) => (targetFacts(o) === targetFacts(n) ? undefined : byCluster(n)), delete: byCluster });
      namespaces.addEventHandler({ add: byCluster, update: (o, n) => (namespaceFacts(o) === namespaceFacts(n) ? undefined : byCluster(n)), delete: byCluster });
      // A Location's selector changing moves the roots pinned to it: the workspaces using its workspace look again.
      const byLocation = (l: KubeObject) => {
        for (const c of new Set([clusterOf(l), ...[...watched.keys()]])) controller.enqueue(c);
      };
      locations.addEventHandler({ add: byLocation, update: (o, n) => (jsonEqual(o.spec, n.spec) ? undefined : byLocation(n)), delete: byLocation });
      // Once a workspace serves Deployments, their events (a new root, a child's status synced up) queue their root's
      // key at once. The informer reads one workspace (not `/clusters/*`), so its objects carry no cluster annotation:
      // clusterOf() would say `root`. Its events name the workspace.
      const watchDeployments = (cluster: string): Informer<KubeObject> => {
        let inf = watched.get(cluster);
        if (!inf) {
          inf = ctx.informers.informerFor<KubeObject>(deploymentsGVR, { cluster });
          inf.addIndexer(ROOTS_INDEX, (d) => (d.metadata?.labels?.[SPLIT_FROM_LABEL] === undefined ? [groupOf(d)] : []));
          inf.addIndexer(CHILDREN_INDEX, (d) => (d.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined ? [groupOf(d)] : []));
          inf.addIndexer(CHILDREN_BY_TARGET_INDEX, (d) => (d.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined && d.metadata.labels[CLUSTER_LABEL] !== undefined ? [d.metadata.labels[CLUSTER_LABEL]] : []));
          const root = (d: KubeObject) => controller.enqueue(`${cluster}|${groupOf(d)}`);
          const events = { add: root, update: (_o: KubeObject, n: KubeObject) => root(n), delete: root };
          inf.addEventHandler(events);
          handlers.set(cluster, events);
          watched.set(cluster, inf);
        }
        return inf;
      };
      // Deployments no longer served in a workspace: its informer keeps what it last saw, which must not count.
      const unwatchDeployments = async (cluster: string): Promise<void> => {
        const inf = watched.get(cluster);
        if (!inf) return;
        watched.delete(cluster);
        env.written.forgetPrefix(`${cluster}|`);
        const events = handlers.get(cluster);
        handlers.delete(cluster);
        if (events) inf.removeEventHandler(events);
        await ctx.informers.drop(inf);
      };
      return { name: 'deployment-splitter', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}

/** What of a SyncTarget the split reads: all but its heartbeat and write bookkeeping. */
function targetFacts(t: KubeObject): string {
  const { lastSyncerHeartbeatTime: _hb, ...status } = (t.status ?? {}) as Record<string, unknown>;
  void _hb;
  return JSON.stringify([t.metadata?.labels, t.metadata?.annotations, t.metadata?.deletionTimestamp, t.spec, status]);
}

/** What of a namespace the split reads: its assignment (labels), whether it is split, whether it is going. */
function namespaceFacts(ns: KubeObject): string {
  return JSON.stringify([ns.metadata?.labels, ns.metadata?.annotations?.[SPLIT_NAMESPACE_ANNOTATION], ns.metadata?.deletionTimestamp]);
}

/** What the workspace and root keys share: the informers, the target lookup, the per-workspace Deployment informers. */
interface SplitterEnv {
  ctx: ControllerContext;
  opts: SplitterControllerOptions;
  targets: Informer<SyncTarget>;
  namespaces: Informer<KubeObject>;
  locations: Informer<KubeObject>;
  lookup: TargetLookup;
  watched: ReadonlyMap<string, Informer<KubeObject>>;
  trackerOf(cluster: string): UnschedulableTracker;
  /** The pod mirrors a workspace's namespace holds of one SyncTarget's cluster (empty until the cache has synced). */
  podMirrors(cluster: string, namespace: string, syncTarget: string): KubeObject[];
  watchDeployments(cluster: string): Informer<KubeObject>;
  unwatchDeployments(cluster: string): Promise<void>;
  /** Queues the root key of `group` (`<namespace>/<split-from value>`) in `cluster`. */
  enqueueRoot(cluster: string, group: string): void;
  /** The roots whose status this controller wrote, until the informers have caught up. */
  written: WriteCache;
}

/**
 * The workspace key: starts (or drops) the workspace's Deployment informer, removes children whose root is gone or no
 * longer split, keeps the namespace marks, and queues every root; its requeue is the resync and the next shortfall
 * deadline.
 */
async function reconcileWorkspace(env: SplitterEnv, cluster: string): Promise<{ requeueAfterMs: number } | void> {
  const { ctx, opts, lookup, watched } = env;
  const tracker = env.trackerOf(cluster);
  const namespaceList = env.namespaces.lister.byIndex(SPLIT_NAMESPACES_INDEX, cluster);
  // Without split namespaces there is nothing to divide; children left from a namespace that was released still
  // need removing: their namespace is marked (SPLIT_CHILDREN_ANNOTATION), and they are in the workspace's informer if
  // a pass ever ran here.
  if (namespaceList.length === 0 && !(watched.get(cluster)?.lister.list().some((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined) ?? false)) return;
  const resyncMs = opts.resyncMs ?? 5000;
  const scope = { cluster };
  // The workspace's Deployments come from its informer once that has synced: a LIST per pass cost the server a full
  // encode of every Deployment on every event (a burst of 1,000 creates meant hundreds of such LISTs). Until the type
  // is served (404: the workspace has no compute yet) and the informer has synced, one LIST per pass answers instead.
  // Without split namespaces (only children left to clean up) a LIST answers: it also finds the type gone, which an
  // informer whose relist fails would not show.
  const informer = watched.get(cluster);
  let deployments: readonly KubeObject[];
  if (informer?.hasSynced() && namespaceList.some(isSplit)) deployments = informer.lister.list();
  else {
    try {
      deployments = (await ctx.client.list(deploymentsGVR, scope)).items;
    } catch (err) {
      if ((err as { code?: number }).code === 404) {
        // Not served yet; or no longer served here (compute unbound; the Placement's cleanup finalizer held it until
        // its children were gone) with only marked namespaces left: unmark them and stop looking.
        if (namespaceList.some(isSplit)) return { requeueAfterMs: Math.min(resyncMs, 1000) };
        for (const ns of namespaceList) await markChildren(ctx, cluster, ns, false);
        await env.unwatchDeployments(cluster);
        return;
      }
      throw err;
    }
    env.watchDeployments(cluster);
  }
  const namespaceOf = (name: string) => env.namespaces.lister.get(formatObjectKey({ cluster, namespace: '', name }));
  const splitNamespaces = new Set(namespaceList.filter(isSplit).map((ns) => ns.metadata!.name!));
  const roots = new Set<string>();
  const children = new Map<string, KubeObject[]>();
  for (const d of deployments) {
    if (d.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined) children.set(groupOf(d), [...(children.get(groupOf(d)) ?? []), d]);
    else if (splitNamespaces.has(d.metadata!.namespace!) && isSplitRoot(d)) roots.add(groupOf(d));
  }
  for (const [group, kids] of children) {
    // Children of a root that is gone or no longer split: remove them (the garbage collector would only catch the first).
    if (!roots.has(group)) for (const kid of kids) await deleteChild(ctx, cluster, kid, namespaceTargets(assignedKeys(namespaceOf(kid.metadata!.namespace!) ?? {}), [kid], cluster, lookup).byName, lookup);
  }
  // A marked namespace without children left (deleted ones still waiting for a syncer count) is unmarked; every
  // namespace holding children is marked (also those whose children predate the mark, or whose mark a stale view
  // removed). A root key marks its namespace before creating the first child there.
  const withChildren = new Set([...children.values()].flat().map((d) => d.metadata!.namespace!));
  for (const ns of namespaceList) if (!withChildren.has(ns.metadata!.name!) && ns.metadata?.annotations?.[SPLIT_CHILDREN_ANNOTATION] === 'true') await markChildren(ctx, cluster, ns, false);
  for (const name of withChildren) {
    const ns = namespaceOf(name);
    if (ns && ns.metadata?.annotations?.[SPLIT_CHILDREN_ANNOTATION] !== 'true') await markChildren(ctx, cluster, ns, true);
  }
  for (const group of roots) env.enqueueRoot(cluster, group);
  tracker.retain([...children.values()].flat());
  // Events drive the roots; the timer is for what changes with time alone: a shortfall passing its grace period.
  const due = tracker.nextDeadline(Date.now());
  return { requeueAfterMs: due === undefined ? resyncMs : Math.max(50, Math.min(resyncMs, due)) };
}

/**
 * A root key: one root (`<namespace>/<split-from value>`) and its children, from the workspace's Deployment informer.
 * A root that is gone, no longer a root, or whose namespace is no longer split has its children removed.
 */
async function reconcileGroup(env: SplitterEnv, cluster: string, group: string): Promise<{ requeueAfterMs: number } | void> {
  const { ctx, lookup } = env;
  const informer = env.watched.get(cluster);
  if (!informer) return; // the workspace key starts the informer, and queues every root once it did
  if (!informer.hasSynced()) return { requeueAfterMs: 100 };
  const namespace = group.slice(0, group.indexOf('/'));
  const namespaceOf = (c: string, name: string) => env.namespaces.lister.get(formatObjectKey({ cluster: c, namespace: '', name }));
  const ns = namespaceOf(cluster, namespace);
  const kids = informer.lister.byIndex(CHILDREN_INDEX, group);
  const cachedRoot = ns && isSplit(ns) ? informer.lister.byIndex(ROOTS_INDEX, group).find(isSplitRoot) : undefined;
  // The root as this controller last wrote its status, while the watch has not brought that write yet.
  const writtenKey = `${cluster}|${group}`;
  const root = env.written.freshest(writtenKey, cachedRoot);
  const { assigned, byName } = namespaceTargets(assignedKeys(ns ?? {}), kids, cluster, lookup);
  if (!root) {
    for (const kid of kids) await deleteChild(ctx, cluster, kid, byName, lookup);
    return;
  }
  // What the children of other roots occupy on a target: this workspace's (by the target index) and the workspaces
  // using the same target.
  const own = new Set(kids);
  const occupants = (name: string): Occupant[] => {
    const r = byName.get(name)!;
    const here = informer.lister.byIndex(CHILDREN_BY_TARGET_INDEX, r.target.metadata?.name ?? '').filter((c) => !own.has(c));
    return [...childrenOnTarget(r, cluster, here, namespaceOf).map(occupantOf), ...foreignOccupants(cluster, env.watched, namespaceOf, r)];
  };
  const ensureMarked = async (name: string) => {
    const current = namespaceOf(cluster, name);
    if (current && current.metadata?.annotations?.[SPLIT_CHILDREN_ANNOTATION] !== 'true') await markChildren(ctx, cluster, current, true);
  };
  // The root's own pin (decisions/workload-pin.ts) narrows the namespace's clusters; Locations are those of the
  // namespace's location workspace (its targets' workspace; the root's own when it has none).
  // Pods pinned to a node by name (decisions/node-pin.ts) pin the Deployment to that node's cluster the same way.
  const nodePin = nodePinOf((((root.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template)?.spec), assigned);
  const pin = workloadPinOf(root) ?? (nodePin && 'cluster' in nodePin ? { cluster: nodePin.cluster } : undefined);
  const locationCluster = (assigned.length > 0 ? byName.get(assigned[0]!)?.cluster : undefined) ?? cluster;
  const location = pin && 'location' in pin ? env.locations.lister.get(formatObjectKey({ cluster: locationCluster, namespace: '', name: pin.location })) : undefined;
  const pinned = pinnedTargets({
    assigned,
    pin,
    labelsOf: (t) => byName.get(t)?.target.metadata?.labels ?? {},
    location: location && !location.metadata?.deletionTimestamp ? { instanceSelector: (location.spec as { instanceSelector?: LabelSelectorSpec | null } | undefined)?.instanceSelector } : undefined,
  });
  await reconcileRoot(ctx, env.opts, cluster, root, kids, occupants, pinned.targets, byName, lookup, env.trackerOf(cluster), (ns, target) => env.podMirrors(cluster, ns, target), ensureMarked, (written) => env.written.remember(writtenKey, written), pinned.unhonoured);
}

/** What a split child occupies on its target. */
function occupantOf(c: KubeObject): Occupant {
  return { requests: podRequestsOf((c.spec as { template?: unknown } | undefined)?.template), replicas: replicasOf(c) };
}

/**
 * What the split children of other workspaces occupy on target `r` (childrenOnTarget over workspacesUsing, without
 * `cluster`, whose children the caller counts). Workspaces whose Deployments are not watched (or not synced) yet are
 * not counted.
 */
function foreignOccupants(
  cluster: string,
  watched: ReadonlyMap<string, Informer<KubeObject>>,
  namespaceOf: (cluster: string, name: string) => KubeObject | undefined,
  r: ResolvedTarget,
): Occupant[] {
  const out: Occupant[] = [];
  for (const ws of workspacesUsing(r)) {
    const inf = ws === cluster ? undefined : watched.get(ws);
    if (inf?.hasSynced()) out.push(...childrenOnTarget(r, ws, inf.lister.byIndex(CHILDREN_BY_TARGET_INDEX, r.target.metadata?.name ?? ''), namespaceOf).map(occupantOf));
  }
  return out;
}

async function reconcileRoot(
  ctx: ControllerContext,
  opts: SplitterControllerOptions,
  cluster: string,
  root: KubeObject,
  kids: KubeObject[],
  occupants: (target: string) => Occupant[],
  assigned: string[],
  targets: Map<string, ResolvedTarget>,
  lookup: TargetLookup,
  tracker: UnschedulableTracker,
  podMirrors: (namespace: string, syncTarget: string) => KubeObject[],
  ensureMarked: (namespace: string) => Promise<void>,
  rememberStatusWrite: (written: KubeObject) => void,
  unhonouredPin?: string,
): Promise<void> {
  const scope = { cluster, namespace: root.metadata!.namespace };
  const current: Record<string, number> = {};
  const ready: Record<string, number> = {};
  for (const kid of kids) {
    const t = kid.metadata?.labels?.[CLUSTER_LABEL];
    if (!t) continue;
    current[t] = replicasOf(kid);
    ready[t] = (kid.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
  }
  const total = replicasOf(root);
  const split = splitReplicas({
    replicas: total,
    targets: assigned.map((name) => splitTarget(name, root, kids, occupants(name), targets.get(name)!.target, current[name] ?? 0, tracker, podMirrors)),
    current: kids.length > 0 ? current : undefined,
    // Ties by the root's uid: 1-replica Deployments spread over the clusters instead of all going to the first.
    tieBreak: root.metadata?.uid,
  });
  const evacuating = Object.keys(current).filter((t) => !assigned.includes(t));
  const unreachable = Object.keys(current).filter((t) => !targets.has(t) || !isReady(targets.get(t)!.target));
  // Make before break (decisions/step-move.ts): stepped by the root's own maxSurge/maxUnavailable and its PDBs.
  const budget = rolloutBudget((root.spec as { strategy?: unknown } | undefined)?.strategy, total);
  const pdbFloor = evacuating.length > 0 ? await disruptionFloor(ctx, scope, root, total) : 0;
  const plan = stepMove({
    current,
    desired: split.assignment,
    ready,
    leaving: evacuating,
    unreachable,
    maxSurge: opts.maxSurge ?? budget.maxSurge,
    maxUnavailable: budget.maxUnavailable,
    pdbMinAvailable: pdbFloor,
  });
  const live: KubeObject[] = [];
  // A target with no share gets no child (or loses it) while some target holds replicas: a 0-replica child cost a sync,
  // a Deployment and a ReplicaSet on its cluster and their statuses coming up, for nothing (half of the children of
  // 50 apps over 3 clusters), and made the followers (ConfigMaps, Services, ...) go where no pod of it runs. Only a
  // Deployment with no replica anywhere (scaled to 0, or no room on any cluster) keeps a child at 0 on every target,
  // so scaling to 0 keeps it on the clusters as Kubernetes keeps a Deployment, and its status comes from them.
  const anyShare = Object.values(plan.replicas).some((r) => r > 0);
  for (const [target, replicas] of Object.entries(plan.replicas)) {
    if (evacuating.includes(target) && replicas === 0) continue;
    if (replicas === 0 && anyShare) continue;
    const desired = desiredChild(root, target, replicas);
    const existing = kids.find((k) => k.metadata?.labels?.[CLUSTER_LABEL] === target && k.metadata?.name === desired.metadata!.name);
    if (!existing) {
      await ensureMarked(root.metadata!.namespace!);
      live.push(await ctx.client.create(deploymentsGVR, desired, scope));
      continue;
    }
    live.push(await writeChild(ctx, scope, existing, desired));
  }
  for (const kid of kids) if (!live.some((l) => l.metadata?.name === kid.metadata?.name)) await deleteChild(ctx, cluster, kid, targets, lookup);

  const status = aggregateDeploymentStatus({
    generation: root.metadata?.generation ?? 1,
    replicas: total,
    previousObservedGeneration: (root.status as { observedGeneration?: number } | undefined)?.observedGeneration,
    // What the clusters report, as they report it: the children that stay, and those being deleted until they are
    // gone (their copies run until the syncer has removed them, and the clusters count them until then). A lost
    // cluster's counts are not counted at all (unreachable).
    clusters: clusterStatuses([...live, ...kids.filter((k) => !live.some((l) => l.metadata?.name === k.metadata?.name))], Object.keys(plan.replicas), unreachable),
    minAvailable: Math.max(0, total - budget.maxUnavailable),
    move: evacuating.length > 0 ? { from: evacuating, to: assigned, remaining: plan.remaining, floor: plan.floor, previous: findCondition((root.status as { conditions?: Condition[] } | undefined)?.conditions, 'Moving'), lost: evacuating.filter((t) => unreachable.includes(t)) } : undefined,
    now: nowRFC3339(),
  });
  withPinCondition(status, (root.status as { conditions?: Condition[] } | undefined)?.conditions, unhonouredPin);
  if (goEqual(status, root.status)) return;
  // Only this controller writes a root's status, one root key at a time, so it is replaced without a resourceVersion:
  // an update carrying the cached one failed (409) whenever the root's metadata had moved on meanwhile (the
  // revision-history controller's annotation), and waited for a retry.
  rememberStatusWrite(await ctx.client.patch(deploymentsGVR, root.metadata!.name!, 'json', [{ op: 'add', path: '/status', value: status }], { ...scope, subresource: 'status' }));
}

/** How many times a child update meeting a newer resourceVersion is read and written again before backing off. */
const CONFLICT_RETRIES = 4;

/**
 * Writes the desired content onto an existing child (updatedChild), unless it already carries it. The syncer writes a
 * child's status and sync annotations as its cluster reports (every few hundred milliseconds while its pods turn
 * ready), so an update carrying the cached resourceVersion often meets a newer one (409): the child is read again and
 * written again at once, a few times, instead of the root's whole reconcile backing off — which held a move's next
 * step and the root's status for seconds.
 */
async function writeChild(ctx: ControllerContext, scope: { cluster: string; namespace?: string }, existing: KubeObject, desired: KubeObject): Promise<KubeObject> {
  let current = existing;
  for (let attempt = 0; ; attempt++) {
    const next = updatedChild(current, desired);
    if (jsonEqual(next, current)) return current;
    try {
      return await ctx.client.update(deploymentsGVR, stripClusterAnnotation(next), scope);
    } catch (err) {
      if ((err as { code?: number }).code !== 409 || attempt >= CONFLICT_RETRIES) throw err;
      current = await ctx.client.get(deploymentsGVR, existing.metadata!.name!, scope);
    }
  }
}

/**
 * A pin the root carries that names none of its namespace's clusters (decisions/workload-pin.ts) is said on the root,
 * as the condition `Pinned=False`, reason `NotAmongNamespaceClusters` (never ignored silently); the condition goes when
 * the pin is honoured again or removed. Its lastTransitionTime stays while the message does.
 */
function withPinCondition(status: { conditions?: Condition[] }, previous: Condition[] | undefined, unhonoured: string | undefined): void {
  if (!unhonoured) return;
  const before = findCondition(previous, 'Pinned');
  const condition: Condition = { type: 'Pinned', status: 'False', reason: 'NotAmongNamespaceClusters', message: unhonoured, lastTransitionTime: before?.message === unhonoured && before.lastTransitionTime ? before.lastTransitionTime : nowRFC3339() } as Condition;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Pinned'), condition];
}

const pdbsGVR = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };

/**
 * The most replicas of `root` the PodDisruptionBudgets of its namespace that select its pods require available
 * (pdbMinAvailable over `total`), read only while a move is under way (moves are rare; no informer kept for them).
 * PDBs that cannot be read (the type not served) count for nothing.
 */
async function disruptionFloor(ctx: ControllerContext, scope: { cluster: string; namespace?: string }, root: KubeObject, total: number): Promise<number> {
  const labels = ((root.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template?.metadata?.labels ?? {}) as Record<string, string>;
  let items: KubeObject[];
  try {
    items = (await ctx.client.list(pdbsGVR, scope)).items;
  } catch {
    return 0;
  }
  let floor = 0;
  for (const pdb of items) {
    const selector = (pdb.spec as { selector?: unknown } | undefined)?.selector;
    if (!selector) continue;
    try {
      if (!fromLabelSelector(selector as never).matches(labels)) continue;
    } catch {
      continue;
    }
    floor = Math.max(floor, pdbMinAvailable(pdb.spec, total));
  }
  return floor;
}

/**
 * What bounds `name`'s share of `root`: its weight, the capacity estimate (allocatable minus what `others`, the split
 * children of other roots on the target, request), and replicas stuck unready there.
 */
function splitTarget(
  name: string,
  root: KubeObject,
  kids: readonly KubeObject[],
  others: readonly Occupant[],
  target: SyncTarget & SyncTargetLike,
  held: number,
  tracker: UnschedulableTracker,
  podMirrors: (namespace: string, syncTarget: string) => KubeObject[],
): SplitTarget {
  const out: SplitTarget = { name, weight: staticWeightOf(target) };
  const fit = estimateAvailableReplicas(target.status?.allocatable, podRequestsOf((root.spec as { template?: unknown } | undefined)?.template), others);
  if (fit !== undefined) out.availableReplicas = Math.max(0, fit - held);
  const kid = kids.find((k) => k.metadata?.labels?.[CLUSTER_LABEL] === name);
  // Replicas short past the grace period count only as far as the cluster turned their pods away or never made them
  // (unschedulable.ts).
  const short = kid ? tracker.observe(kid, isReady(target), Date.now()) : 0;
  const stuck = kid && short > 0 ? unschedulableReplicas(kid, short, podMirrors(kid.metadata?.namespace ?? '', name)) : 0;
  if (stuck > 0) out.unschedulableReplicas = stuck;
  return out;
}

/**
 * Deletes a child; when its SyncTarget is gone or not Ready, also drops the syncer finalizers of targets that are gone
 * or not Ready (unreleasableSyncerFinalizers), which a syncer that cannot run would otherwise hold forever.
 */
async function deleteChild(ctx: ControllerContext, cluster: string, kid: KubeObject, targets: Map<string, ResolvedTarget>, lookup: TargetLookup): Promise<void> {
  const scope = { cluster, namespace: kid.metadata!.namespace };
  const name = kid.metadata!.name!;
  if (!kid.metadata?.deletionTimestamp) {
    await ctx.client.delete(deploymentsGVR, name, scope).catch(ignoreNotFound);
  }
  const targetName = kid.metadata?.labels?.[CLUSTER_LABEL];
  const target = targetName ? targets.get(targetName) : undefined;
  const ready = !!target && isReady(target.target);
  if (!kid.metadata?.deletionTimestamp) logger.info('splitter: removing a split child', { workspace: cluster, namespace: kid.metadata!.namespace, child: name, syncTarget: targetName, syncTargetReady: ready });
  if (ready) return;
  const latest = await ctx.client.get(deploymentsGVR, name, scope).catch(ignoreNotFound);
  const drop = unreleasableSyncerFinalizers(latest?.metadata?.finalizers ?? [], lookup);
  if (!latest || drop.length === 0) return;
  const next = deepCopy(latest);
  next.metadata!.finalizers = next.metadata!.finalizers!.filter((f) => !drop.includes(f));
  await ctx.client.update(deploymentsGVR, stripClusterAnnotation(next), scope).catch(ignoreNotFound);
}

function isSplit(ns: KubeObject): boolean {
  return ns.metadata?.annotations?.[SPLIT_NAMESPACE_ANNOTATION] === 'true';
}

/** Sets or removes SPLIT_CHILDREN_ANNOTATION on a namespace (a merge patch: the scheduler's concurrent writes stay). */
async function markChildren(ctx: ControllerContext, cluster: string, ns: KubeObject, marked: boolean): Promise<void> {
  const patch = { metadata: { annotations: { [SPLIT_CHILDREN_ANNOTATION]: marked ? 'true' : null } } };
  await ctx.client.patch(namespacesGVR, ns.metadata!.name!, 'merge', patch, { cluster }).catch(ignoreNotFound);
}

function ignoreNotFound(err: unknown): undefined {
  if ((err as { code?: number }).code === 404) return undefined;
  throw err;
}
