/**
 * The deployment splitter: in namespaces the scheduler placed (SPLIT_NAMESPACE_ANNOTATION), every root Deployment
 * (no own cluster label, not itself a child) is divided over the namespace's SyncTargets by splitReplicas (Webster,
 * static weights from the `scheduling.atrium.io/replica-weight` SyncTarget label, Steady: a scale or a lost cluster
 * moves only what must move). Each share becomes a child Deployment `<root>--<target>` labelled to its target, which
 * the syncer syncs like any other object; the root itself is never synced (skip rule in syncer/transform.ts). The
 * children's statuses, synced up by the syncer, are folded onto the root's status (aggregateDeploymentStatus), so
 * `kubectl rollout status` and `kubectl wait --for=condition=Available` on the root tell the truth.
 *
 * Failover: when the scheduler takes a SyncTarget off a namespace (evacuation, drain, a smaller spread), its share is
 * re-divided over the remaining targets, gradually (planMoves): the replacements are requested first, at most
 * `maxSurge` not-yet-ready replacements at a time, and the leaving child is scaled down only as replacements become
 * ready; it is deleted once it holds 0. While it still holds replicas its (possibly stale, if the cluster is gone)
 * status counts towards the root's, clipped to what it still holds. If its target is not Ready its syncer cannot
 * release the child's syncer finalizer, so the splitter removes it: the copy on the unreachable cluster is left alone
 * (never deleted on a guess) and is cleaned up by that cluster's syncer if it comes back.
 *
 * Capacity: each target's share is capped by estimateAvailableReplicas (SyncTarget status.allocatable minus what the
 * other split children there request), and replicas that stay unready on a Ready target past `unschedulableGraceMs`
 * (UnschedulableTracker) are taken off it and placed elsewhere.
 *
 * Deployments are served only in workspaces with compute (a SyncTarget or a Placement), so each workspace gets its own
 * Deployment informer once the type is served there (a LIST answers until then); a pass runs on Deployment, namespace
 * and SyncTarget events, when a shortfall's grace period ends, and every resyncMs.
 *
 * Across workspaces: a pass runs for every workspace with split namespaces (or children left to clean up), whether or
 * not it holds SyncTargets itself, since a Placement may place its namespaces onto another workspace's SyncTargets.
 * The namespace's assignment keys are resolved against the SyncTargets of all workspaces (namespaceTargets), and a
 * target's capacity estimate counts the split children on it in every workspace that uses it (its own, and those its
 * CONSUMER_CLUSTERS_ANNOTATION lists) whose Deployments this controller watches.
 */
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { Informer } from '../../client/informer.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import { logger } from '../../logging/logger.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { stripClusterAnnotation } from '../../controllers/runtime/committer.js';
import { CLUSTER_LABEL, namespacesGVR, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { aggregateDeploymentStatus } from '../decisions/aggregate-status.js';
import { estimateAvailableReplicas, podRequestsOf } from '../decisions/capacity-estimate.js';
import { planMoves } from '../decisions/failover.js';
import { isReady } from '../decisions/select-targets.js';
import { splitReplicas, staticWeightOf, type SplitTarget } from '../decisions/split-replicas.js';
import type { SyncTargetLike } from '../decisions/types.js';
import { assignedKeys } from '../scheduling/namespace-assignment.js';
import { SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer } from '../scheduling/consumer-clusters.js';
import { deploymentsGVR, SPLIT_CHILDREN_ANNOTATION, SPLIT_FROM_LABEL, SPLIT_NAMESPACE_ANNOTATION, splitFromValue } from '../scheduling/types.js';
import { clusterStatuses, desiredChild, isSplitRoot, replicasOf, updatedChild } from './children.js';
import { UnschedulableTracker } from './unschedulable.js';
import { childrenOnTarget, namespaceTargets, unreleasableSyncerFinalizers, workspacesUsing, type ResolvedTarget, type TargetLookup } from './targets.js';

/**
 * Namespace informer index: by logical cluster, the namespaces a pass must look at: split ones
 * (SPLIT_NAMESPACE_ANNOTATION) and those that may still hold children (SPLIT_CHILDREN_ANNOTATION).
 */
const SPLIT_NAMESPACES_INDEX = 'deployment-splitter/split-namespaces';

/** How many roots of a workspace one pass reconciles at the same time. */
const ROOT_CONCURRENCY = 8;

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
  /** How long a child may stay short of ready replicas on a Ready target before they move elsewhere (default 30 s). */
  unschedulableGraceMs?: number;
}

export function splitterControllerInstaller(opts: SplitterControllerOptions = {}): ControllerInstaller {
  return {
    name: 'deployment-splitter',
    install(ctx) {
      const targets = ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' });
      const namespaces = ctx.informers.informerFor<KubeObject>(namespacesGVR, { cluster: '*' });
      targets.addIndexer(SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer((o) => clusterOf(o)));
      namespaces.addIndexer(SPLIT_NAMESPACES_INDEX, (ns) => (isSplit(ns) || ns.metadata?.annotations?.[SPLIT_CHILDREN_ANNOTATION] === 'true' ? [clusterOf(ns)] : []));
      // One tracker per workspace: a pass forgets the shortfalls of children it no longer sees, which must not
      // include other workspaces' children.
      const trackers = new Map<string, UnschedulableTracker>();
      const trackerOf = (cluster: string) => {
        let t = trackers.get(cluster);
        if (!t) trackers.set(cluster, (t = new UnschedulableTracker(opts.unschedulableGraceMs ?? 30_000)));
        return t;
      };
      const controller = new Controller({ name: 'deployment-splitter', workers: 1, reconcile: (cluster) => reconcileWorkspace(ctx, opts, targets, namespaces, cluster, trackerOf(cluster), watchDeployments, watched, unwatchDeployments) });
      const byCluster = (o: KubeObject) => controller.enqueue(clusterOf(o));
      for (const inf of [targets, namespaces] as Informer<KubeObject>[]) inf.addEventHandler({ add: byCluster, update: (_o, n) => byCluster(n), delete: byCluster });
      // Once a workspace serves Deployments, their events (a new root, a child's status synced up) start a pass at
      // once instead of at the next resync: that wait was most of what splitting added to a Deployment's ready time.
      // The informer reads one workspace (not `/clusters/*`), so its objects carry no cluster annotation: clusterOf()
      // would say `root` and a pass of root would run instead of this workspace's. Its events name the workspace.
      const watched = new Map<string, Informer<KubeObject>>();
      const handlers = new Map<string, { add(o: KubeObject): void; update(o: KubeObject, n: KubeObject): void; delete(o: KubeObject): void }>();
      const watchDeployments = (cluster: string): Informer<KubeObject> => {
        let inf = watched.get(cluster);
        if (!inf) {
          inf = ctx.informers.informerFor<KubeObject>(deploymentsGVR, { cluster });
          const pass = () => controller.enqueue(cluster);
          const events = { add: pass, update: pass, delete: pass };
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
        const events = handlers.get(cluster);
        handlers.delete(cluster);
        if (events) inf.removeEventHandler(events);
        await ctx.informers.drop(inf);
      };
      return { name: 'deployment-splitter', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}

async function reconcileWorkspace(
  ctx: ControllerContext,
  opts: SplitterControllerOptions,
  targetInformer: Informer<SyncTarget>,
  namespaceInformer: Informer<KubeObject>,
  cluster: string,
  tracker: UnschedulableTracker,
  watchDeployments?: (cluster: string) => Informer<KubeObject>,
  watched?: ReadonlyMap<string, Informer<KubeObject>>,
  unwatchDeployments?: (cluster: string) => Promise<void>,
): Promise<{ requeueAfterMs: number } | void> {
  const namespaceList = namespaceInformer.lister.byIndex(SPLIT_NAMESPACES_INDEX, cluster);
  // Without split namespaces there is nothing to divide; children left from a namespace that was released still
  // need removing: their namespace is marked (SPLIT_CHILDREN_ANNOTATION), and they are in the workspace's informer if
  // a pass ever ran here.
  if (namespaceList.length === 0 && !watched?.get(cluster)?.lister.list().some((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined)) return;
  const resyncMs = opts.resyncMs ?? 5000;
  const scope = { cluster };
  // The workspace's Deployments come from its informer once that has synced: a LIST per pass cost the server a full
  // encode of every Deployment on every event (a burst of 1,000 creates meant hundreds of such LISTs). Until the type
  // is served (404: the workspace has no compute yet) and the informer has synced, one LIST per pass answers instead.
  // Without split namespaces (only children left to clean up) a LIST answers: it also finds the type gone, which an
  // informer whose relist fails would not show.
  const informer = watched?.get(cluster);
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
        await unwatchDeployments?.(cluster);
        return;
      }
      throw err;
    }
    watchDeployments?.(cluster);
  }
  const lookup: TargetLookup = (key) => {
    const t = targetInformer.lister.byIndex(SYNC_TARGETS_BY_KEY_INDEX, key)[0] as (SyncTarget & SyncTargetLike) | undefined;
    return t && { cluster: clusterOf(t), key, target: t };
  };
  const namespaceOf = (c: string, name: string) => namespaceInformer.lister.get(formatObjectKey({ cluster: c, namespace: '', name }));
  const targetsOf = (ns: string, kids: readonly KubeObject[]) => namespaceTargets(assignedKeys(namespaceOf(cluster, ns) ?? {}), kids, cluster, lookup);
  const splitNamespaces = new Map(namespaceList.filter(isSplit).map((ns) => [ns.metadata!.name!, ns]));
  const rootKey = (ns: string | undefined, name: string) => `${ns}/${name}`;
  const roots = new Map<string, KubeObject>();
  const children = new Map<string, KubeObject[]>();
  for (const d of deployments) {
    const from = d.metadata?.labels?.[SPLIT_FROM_LABEL];
    if (from !== undefined) {
      const k = rootKey(d.metadata?.namespace, from);
      children.set(k, [...(children.get(k) ?? []), d]);
    } else if (splitNamespaces.has(d.metadata!.namespace!) && isSplitRoot(d)) {
      roots.set(rootKey(d.metadata!.namespace, splitFromValue(d.metadata!.name!)), d);
    }
  }

  for (const [k, kids] of children) {
    // Children of a root that is gone or no longer split: remove them (the garbage collector would only catch the first).
    if (!roots.has(k)) for (const kid of kids) await deleteChild(ctx, cluster, kid, targetsOf(kid.metadata!.namespace!, [kid]).byName, lookup);
  }
  // A marked namespace without children left (deleted ones still waiting for a syncer count) is unmarked; a split
  // namespace is marked before its first child is created.
  // Every namespace holding children is marked (also those whose children predate the mark, or whose mark a stale
  // view removed); marks written in this pass are remembered, as the namespace informer may not show them yet.
  const withChildren = new Set(deployments.filter((d) => d.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined).map((d) => d.metadata!.namespace!));
  const written = new Map<string, boolean>();
  const setMark = async (name: string, marked: boolean) => {
    const ns = namespaceOf(cluster, name);
    const current = written.get(name) ?? ns?.metadata?.annotations?.[SPLIT_CHILDREN_ANNOTATION] === 'true';
    if (!ns || current === marked) return;
    await markChildren(ctx, cluster, ns, marked);
    written.set(name, marked);
  };
  for (const ns of namespaceList) if (!withChildren.has(ns.metadata!.name!)) await setMark(ns.metadata!.name!, false);
  for (const name of withChildren) await setMark(name, true);
  const ensureMarked = (namespace: string) => setMark(namespace, true);
  const foreign = foreignOccupants(cluster, watched, namespaceOf);
  let failed = 0;
  const reconcileOne = async ([k, root]: [string, KubeObject]) => {
    const kids = children.get(k) ?? [];
    const { assigned, byName } = targetsOf(root.metadata!.namespace!, kids);
    const others = [...children].filter(([ck]) => ck !== k).flatMap(([, kids]) => kids);
    const occupants = (name: string): Occupant[] => {
      const r = byName.get(name)!;
      return [...childrenOnTarget(r, cluster, others, namespaceOf).map(occupantOf), ...foreign(r)];
    };
    try {
      await reconcileRoot(ctx, opts, cluster, root, kids, occupants, assigned, byName, lookup, tracker, ensureMarked);
    } catch (err) {
      // One root the server refuses (or that fails for a moment) must not hold up the others of the workspace; it is
      // tried again at the next pass.
      failed++;
      logger.warn('deployment splitter: a Deployment could not be split', { cluster, namespace: root.metadata?.namespace, name: root.metadata?.name, error: (err as Error).message });
    }
  };
  // The roots are reconciled ROOT_CONCURRENCY at a time: each decides from this pass's snapshot (its own children and
  // the others' as listed at the start), as one after the other did, so the order changes nothing but the wait. One
  // after the other, a burst of new Deployments (50 apps applied at once) made every pass take seconds of writes.
  const queue = [...roots];
  await Promise.all(Array.from({ length: Math.min(ROOT_CONCURRENCY, queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await reconcileOne(next);
  }));
  tracker.retain([...children.values()].flat());
  if (failed > 0) return { requeueAfterMs: resyncMs };
  // Events drive every pass; the timer is for what changes with time alone: a shortfall passing its grace period.
  const due = tracker.nextDeadline(Date.now());
  return { requeueAfterMs: due === undefined ? resyncMs : Math.max(50, Math.min(resyncMs, due)) };
}

/** What a split child occupies on its target. */
function occupantOf(c: KubeObject): Occupant {
  return { requests: podRequestsOf((c.spec as { template?: unknown } | undefined)?.template), replicas: replicasOf(c) };
}

/**
 * What the split children of other workspaces occupy on a target (childrenOnTarget over workspacesUsing, without
 * `cluster`, whose children the pass has in hand), memoized per target key for one pass. Workspaces whose Deployments
 * are not watched (or not synced) yet are not counted.
 */
function foreignOccupants(
  cluster: string,
  watched: ReadonlyMap<string, Informer<KubeObject>> | undefined,
  namespaceOf: (cluster: string, name: string) => KubeObject | undefined,
): (r: ResolvedTarget) => Occupant[] {
  const memo = new Map<string, Occupant[]>();
  return (r) => {
    let out = memo.get(r.key);
    if (out) return out;
    out = [];
    for (const ws of workspacesUsing(r)) {
      const inf = ws === cluster ? undefined : watched?.get(ws);
      if (inf?.hasSynced()) out.push(...childrenOnTarget(r, ws, inf.lister.list(), namespaceOf).map(occupantOf));
    }
    memo.set(r.key, out);
    return out;
  };
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
  ensureMarked: (namespace: string) => Promise<void>,
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
    targets: assigned.map((name) => splitTarget(name, root, kids, occupants(name), targets.get(name)!.target, current[name] ?? 0, tracker)),
    current: kids.length > 0 ? current : undefined,
  });
  const evacuating = Object.keys(current).filter((t) => !assigned.includes(t));
  const plan = planMoves({
    current,
    desired: split.assignment,
    ready,
    evacuating,
    unreachable: evacuating.filter((t) => !targets.has(t) || !isReady(targets.get(t)!.target)),
    maxInFlight: opts.maxSurge ?? Math.max(1, Math.ceil(total * 0.25)),
  });
  const live: KubeObject[] = [];
  for (const [target, replicas] of Object.entries(plan.replicas)) {
    if (evacuating.includes(target) && replicas === 0) continue;
    const desired = desiredChild(root, target, replicas);
    const existing = kids.find((k) => k.metadata?.labels?.[CLUSTER_LABEL] === target && k.metadata?.name === desired.metadata!.name);
    if (!existing) {
      await ensureMarked(root.metadata!.namespace!);
      live.push(await ctx.client.create(deploymentsGVR, desired, scope));
      continue;
    }
    const next = updatedChild(existing, desired);
    live.push(jsonEqual(next, existing) ? existing : await ctx.client.update(deploymentsGVR, stripClusterAnnotation(next), scope));
  }
  for (const kid of kids) if (!live.some((l) => l.metadata?.name === kid.metadata?.name)) await deleteChild(ctx, cluster, kid, targets, lookup);

  const status = aggregateDeploymentStatus({
    generation: root.metadata?.generation ?? 1,
    replicas: total,
    previousObservedGeneration: (root.status as { observedGeneration?: number } | undefined)?.observedGeneration,
    clusters: clusterStatuses(live.map((kid) => clippedToSpec(kid)), Object.keys(plan.replicas)),
  });
  if (jsonEqual(status, root.status)) return;
  const next = deepCopy(root);
  next.status = status as Record<string, unknown>;
  await ctx.client.updateStatus(deploymentsGVR, stripClusterAnnotation(next), scope);
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
): SplitTarget {
  const out: SplitTarget = { name, weight: staticWeightOf(target) };
  const fit = estimateAvailableReplicas(target.status?.allocatable, podRequestsOf((root.spec as { template?: unknown } | undefined)?.template), others);
  if (fit !== undefined) out.availableReplicas = Math.max(0, fit - held);
  const kid = kids.find((k) => k.metadata?.labels?.[CLUSTER_LABEL] === name);
  const stuck = kid ? tracker.observe(kid, isReady(target), Date.now()) : 0;
  if (stuck > 0) out.unschedulableReplicas = stuck;
  return out;
}

/**
 * A child whose status counters are capped at its spec.replicas: a child being scaled down off a lost cluster keeps
 * its last reported status, which must not count more replicas than it still holds.
 */
function clippedToSpec(kid: KubeObject): KubeObject {
  const status = kid.status as Record<string, unknown> | undefined;
  if (!status) return kid;
  const cap = replicasOf(kid);
  const clipped: Record<string, unknown> = { ...status };
  for (const f of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas']) {
    if (typeof clipped[f] === 'number') clipped[f] = Math.min(clipped[f] as number, cap);
  }
  return { ...kid, status: clipped };
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
  if (target && isReady(target.target)) return;
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
