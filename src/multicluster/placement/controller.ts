/**
 * The placement controller: decides, per object, where every kind of a placed namespace runs, and folds the clusters'
 * statuses of objects that run on several. One pass per namespace (`<logical cluster>|<namespace>`):
 *
 * - the namespace's SyncTargets are its state labels (the scheduler's choice for its Placement), resolved by key
 *   across workspaces (a Placement may use another workspace's compute);
 * - decisions/place-namespace.ts decides every object of a kind in api/kind-placement.ts's table (One kinds on one
 *   cluster, sticky; Every kinds on every accepting cluster; followers by the follow graph; PodDisruptionBudgets'
 *   budgets apportioned; HPAs of split Deployments observe-only per cluster);
 * - the decision is written on the object with one merge patch, only when it changed: the state labels
 *   `state.workload.kcp.io/<key>: Sync` the syncer syncs by, the Scheduled condition (SCHEDULED_ANNOTATION), the
 *   per-cluster spec (CLUSTER_SPEC_ANNOTATION), and stale per-cluster status annotations removed. Every placed object
 *   carries the condition once decided (the syncer waits for it); one turning False with Incompatible, NoRoom or
 *   NoClusters is also a Warning Event on the object;
 * - objects synced to several clusters (or with a per-cluster spec) get their status folded from the clusters'
 *   reports (decisions/aggregate-kind-status.ts); an HPA of a split Deployment scales it (upstream-hpa.ts); a
 *   PodDisruptionBudget that matches nothing running anywhere gets the status of a budget without pods;
 * - a namespace no longer placed (or an object pinned with `workload.kcp.io/cluster` since) has the controller's marks
 *   removed again, so its objects stop syncing.
 *
 * Every kind is watched across all workspaces (`/clusters/*`), ConfigMaps, Secrets, Endpoints, EndpointSlices and
 * PodTemplates as metadata only. Passes run on any event of an object, its namespace, or a change of a SyncTarget that
 * matters here (readiness, negotiated resources, allocatable, spec.resources); namespaces with an HPA acting upstream
 * also every `hpaSyncMs` (15 s, kube's HPA sync period).
 */
import { statusIsBinders } from '../decisions/volume-binding.js';
import { MIRROR_LABEL } from '../api/mirrors.js';
import { goEqual, nowRFC3339, type KubeObject } from '../../apimachinery/object.js';
import { setStatusCondition } from '../../apimachinery/conditions.js';
import type { Informer } from '../../client/informer.js';
import { clusterOf, formatObjectKey } from '../../client/store.js';
import { Controller } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller } from '../../controllers/runtime/context.js';
import { EventRecorder } from '../../controllers/runtime/event-recorder.js';
import { logger } from '../../logging/logger.js';
import { stateLabel, syncTargetKey } from '../api/keys.js';
import {
  CLUSTER_SPEC_ANNOTATION,
  CONTROLLER_MANAGED_SLICES,
  ENDPOINTS_CONTROLLER_NAME,
  ENDPOINTS_MANAGED_BY_LABEL,
  kindPlacements,
  SLICE_MANAGED_BY_LABEL,
  ownStateKeys,
  SCHEDULED_ANNOTATION,
  STATUS_ANNOTATION_PREFIX,
  statusAnnotation,
  type KindPlacement,
} from '../api/kind-placement.js';
import { CLUSTER_LABEL, namespacesGVR, resourcesOf, STATE_LABEL_PREFIX, SYNCER_FINALIZER_PREFIX, syncTargetsGVR, type SyncTarget } from '../api/types.js';
import { aggregateKindStatus, unplacedBudgetStatus } from '../decisions/aggregate-kind-status.js';
import { estimateAvailableReplicas, podRequestsOf, type AssignedWorkload } from '../decisions/capacity-estimate.js';
import type { Acceptance } from '../decisions/choose-cluster.js';
import { placeNamespace, type NamespaceTarget, type ObjectPlacement, type PlacedObject } from '../decisions/place-namespace.js';
import { MOVING_ANNOTATION, WARNING_REASONS, type MovingCondition } from '../decisions/move-policy.js';
import { isReady } from '../decisions/select-targets.js';
import type { SyncTargetLike } from '../decisions/types.js';
import { podsOf, podTemplateOf } from '../decisions/workload-references.js';
import { assignedKeys } from '../scheduling/namespace-assignment.js';
import { NAMESPACES_BY_STATE_KEY_INDEX, stateKeysOf, SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer } from '../scheduling/consumer-clusters.js';
import { SPLIT_FROM_LABEL, SPLIT_NAMESPACE_ANNOTATION } from '../scheduling/types.js';
import { UpstreamAutoscalers } from './upstream-hpa.js';

export interface PlacementControllerOptions {
  /** How often a namespace with an HPA acting upstream is evaluated without events (default 15 s). */
  hpaSyncMs?: number;
}

/** Kinds read as metadata only: their placement needs names, labels and annotations alone. */
const METADATA_ONLY = new Set(['configmaps', 'secrets', 'endpoints', 'endpointslices', 'podtemplates']);
/**
 * What is never placed and exists in every namespace of every workspace (isClusterLocal), left out of the caches:
 * with thousands of workspaces they would be most of them.
 */
/**
 * Label selectors leaving out what the endpoints controllers keep (isClusterLocal: never placed), so that their
 * writes on every pod's readiness start no placement pass.
 */
const CONTROLLERS_OWN: Record<string, string[]> = {
  endpoints: [`${ENDPOINTS_MANAGED_BY_LABEL}!=${ENDPOINTS_CONTROLLER_NAME}`],
  endpointslices: [`${SLICE_MANAGED_BY_LABEL} notin (${[...CONTROLLER_MANAGED_SLICES].join(',')})`],
};
const FIELD_SELECTORS: Record<string, string> = { configmaps: 'metadata.name!=kube-root-ca.crt', serviceaccounts: 'metadata.name!=default' };
/** Kinds with a status the clusters report. */
const WITH_STATUS = new Set(['StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod', 'ReplicaSet', 'ReplicationController', 'PersistentVolumeClaim', 'Service', 'Ingress', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']);
const BY_NAMESPACE = 'placement/by-namespace';
const BY_STATE_KEY = 'placement/by-state-key';
const BY_CLUSTER_LABEL = 'placement/by-cluster-label';
const EVENT_COMPONENT = 'placement-controller';

interface KindInformer {
  kind: KindPlacement;
  informer: Informer<KubeObject>;
}

export function placementControllerInstaller(opts: PlacementControllerOptions = {}): ControllerInstaller {
  return {
    name: 'placement',
    install(ctx) {
      const targets = ctx.informers.informerFor<SyncTarget>(syncTargetsGVR, { cluster: '*' });
      const namespaces = ctx.informers.informerFor<KubeObject>(namespacesGVR, { cluster: '*' });
      targets.addIndexer(SYNC_TARGETS_BY_KEY_INDEX, syncTargetKeyIndexer((o) => clusterOf(o)));
      namespaces.addIndexer(NAMESPACES_BY_STATE_KEY_INDEX, stateKeysOf);
      const kinds: KindInformer[] = kindPlacements
        .filter((k) => k.mode !== 'None')
        .map((k) => {
          const informer = ctx.informers.informerFor<KubeObject>({ group: k.group, version: k.version, resource: k.resource }, {
            cluster: '*',
            ...(METADATA_ONLY.has(k.resource) ? { metadataOnly: true } : {}),
            ...(FIELD_SELECTORS[k.resource] ? { fieldSelector: FIELD_SELECTORS[k.resource] } : {}),
            // Mirrors of what the clusters run (pods, a CronJob's Jobs: syncer/workspace-mirrors.ts) are never placed
            // (isClusterLocal): left out of the caches, so their status churn costs no placement pass.
            labelSelector: [`!${MIRROR_LABEL}`, ...(CONTROLLERS_OWN[k.resource] ?? [])].join(','),
          });
          informer.addIndexer(BY_NAMESPACE, (o) => (o.metadata?.namespace ? [`${clusterOf(o)}|${o.metadata.namespace}`] : []));
          if (k.mode === 'One') informer.addIndexer(BY_STATE_KEY, (o) => ownStateKeys(o));
          if (k.mode === 'Split') informer.addIndexer(BY_CLUSTER_LABEL, (o) => (o.metadata?.labels?.[CLUSTER_LABEL] !== undefined && o.metadata.labels[SPLIT_FROM_LABEL] !== undefined ? [o.metadata.labels[CLUSTER_LABEL]] : []));
          return { kind: k, informer };
        });
      const hpas = new UpstreamAutoscalers();
      const events = new EventRecorder(ctx.client, EVENT_COMPONENT);
      const controller = new Controller({
        name: 'placement',
        // Namespaces are independent but for the room on a cluster, which two concurrent passes may both count on
        // (as two did before); 2 workers left the namespaces of 50 apps applied at once waiting seconds in line.
        workers: 4,
        reconcile: (key) => reconcileNamespace({ ctx, opts, targets, namespaces, kinds, hpas, events }, key),
      });
      const byObject = (o: KubeObject) => {
        if (o.metadata?.namespace) controller.enqueue(`${clusterOf(o)}|${o.metadata.namespace}`);
      };
      for (const { kind, informer } of kinds) informer.addEventHandler({ add: byObject, update: (o, n) => (statusOnly(kind, o, n) ? undefined : byObject(n)), delete: byObject });
      const byNamespace = (ns: KubeObject) => controller.enqueue(`${clusterOf(ns)}|${ns.metadata?.name}`);
      namespaces.addEventHandler({ add: byNamespace, update: (_o, n) => byNamespace(n), delete: byNamespace });
      const byTarget = (t: KubeObject) => {
        if (!t.metadata?.name) return;
        const key = syncTargetKeyIndexer((o) => clusterOf(o))(t)[0]!;
        for (const ns of namespaces.lister.byIndex(NAMESPACES_BY_STATE_KEY_INDEX, key)) byNamespace(ns);
      };
      targets.addEventHandler({ add: byTarget, update: (o, n) => (targetFacts(o) !== targetFacts(n) ? byTarget(n) : undefined), delete: byTarget });
      return { name: 'placement', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}

/**
 * Whether an update changed nothing a decision reads: only the status (and write bookkeeping). Decisions read specs,
 * labels and annotations (the clusters' statuses come as annotations); status is read only of HPAs and of split
 * roots (an HPA acting upstream), whose updates always count. The split children's statuses, synced up from the
 * clusters all the time, started a pass over their whole namespace each.
 */
function statusOnly(kind: KindPlacement, o: KubeObject, n: KubeObject): boolean {
  if (kind.kind === 'HorizontalPodAutoscaler' || (kind.mode === 'Split' && n.metadata?.labels?.[SPLIT_FROM_LABEL] === undefined)) return false;
  const rest = (x: KubeObject) => {
    const { status: _s, metadata, ...body } = x;
    void _s;
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata ?? {};
    void _rv;
    void _mf;
    return JSON.stringify([body, meta]);
  };
  return rest(o) === rest(n);
}

/** What of a SyncTarget placement decisions read (heartbeats alone change nothing here). */
function targetFacts(t: SyncTarget): string {
  return JSON.stringify([t.spec?.resources, t.status?.syncedResources, isReady(t as SyncTarget & SyncTargetLike), t.status?.allocatable, t.metadata?.deletionTimestamp]);
}

interface Deps {
  ctx: ControllerContext;
  opts: PlacementControllerOptions;
  targets: Informer<SyncTarget>;
  namespaces: Informer<KubeObject>;
  kinds: KindInformer[];
  hpas: UpstreamAutoscalers;
  events: EventRecorder;
}

interface ResolvedTarget extends NamespaceTarget {
  cluster: string;
  target: SyncTarget;
}

async function reconcileNamespace(d: Deps, key: string): Promise<{ requeueAfterMs: number } | void> {
  if (!d.targets.hasSynced() || !d.namespaces.hasSynced() || !d.kinds.every((k) => k.informer.hasSynced())) return { requeueAfterMs: 200 };
  const bar = key.indexOf('|');
  const cluster = key.slice(0, bar);
  const namespace = key.slice(bar + 1);
  const ns = d.namespaces.lister.get(formatObjectKey({ cluster, namespace: '', name: namespace }));
  const objects: PlacedObject[] = d.kinds.flatMap(({ kind, informer }) => informer.lister.byIndex(BY_NAMESPACE, key).map((obj) => ({ kind, obj })));
  const scope = { cluster, namespace };
  if (!ns || ns.metadata?.deletionTimestamp || ns.metadata?.annotations?.[SPLIT_NAMESPACE_ANNOTATION] !== 'true') {
    for (const o of objects) await release(d, o, scope);
    return;
  }
  const lookup = (k: string): ResolvedTarget | undefined => {
    const t = d.targets.lister.byIndex(SYNC_TARGETS_BY_KEY_INDEX, k)[0];
    if (!t?.metadata?.name || t.metadata.deletionTimestamp) return undefined;
    return { name: t.metadata.name, key: k, ready: isReady(t as SyncTarget & SyncTargetLike), cluster: clusterOf(t), target: t };
  };
  const resolved: ResolvedTarget[] = [];
  for (const k of assignedKeys(ns)) {
    const r = lookup(k);
    if (r && !resolved.some((x) => x.name === r.name)) resolved.push(r);
  }
  // Targets the namespace is leaving where its split children still run (the splitter moves their replicas off, make
  // before break): the followers those children use stay there until they are gone.
  const leaving: ResolvedTarget[] = [];
  const split = d.kinds.find((k) => k.kind.mode === 'Split');
  for (const child of split ? split.informer.lister.byIndex(BY_NAMESPACE, key) : []) {
    const name = child.metadata?.labels?.[CLUSTER_LABEL];
    if (!name || child.metadata?.labels?.[SPLIT_FROM_LABEL] === undefined || child.metadata.deletionTimestamp) continue;
    if (resolved.some((r) => r.name === name) || leaving.some((r) => r.name === name)) continue;
    const viaFinalizer = (child.metadata.finalizers ?? []).filter((f) => f.startsWith(SYNCER_FINALIZER_PREFIX)).map((f) => lookup(f.slice(SYNCER_FINALIZER_PREFIX.length)));
    const homes = [...new Set([...resolved.map((r) => r.cluster), cluster])];
    const r = viaFinalizer.find((x) => x?.name === name) ?? homes.map((c) => lookup(syncTargetKey(c, name))).find((x) => x !== undefined);
    if (r) leaving.push(r);
  }
  const byName = new Map([...resolved, ...leaving].map((r) => [r.name, r]));
  const occupancy = new Map<string, AssignedWorkload[]>();
  const plan = placeNamespace({
    objects,
    targets: resolved,
    leaving,
    acceptance: (name, group, resource) => acceptanceOf(byName.get(name)!.target, group, resource),
    room: (name, kind, obj) => {
      const r = byName.get(name)!;
      let others = occupancy.get(r.key);
      if (!others) occupancy.set(r.key, (others = occupantsOf(d, r)));
      return estimateAvailableReplicas(r.target.status?.allocatable, podRequestsOf(podTemplateOf(kind, obj)), others);
    },
    nameOfKey: (k) => lookup(k)?.name,
    target: (k) => {
      const r = lookup(k);
      if (r && !byName.has(r.name)) byName.set(r.name, r);
      return r;
    },
  });
  const decided = new Set(plan.placements.map((p) => p.obj));
  let failed = 0;
  const attempt = async (what: string, obj: KubeObject, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      failed++;
      logger.warn('placement: could not write a decision', { cluster, namespace, name: obj.metadata?.name, what, error: (err as Error).message });
    }
  };
  // Each decision is a patch of its own object's metadata, independent of the others: WRITE_CONCURRENCY at a time (one
  // after the other, an app of 40 objects applied at once waited ~40 round trips for its last decision).
  await forEachConcurrently(plan.placements, WRITE_CONCURRENCY, (p) => attempt('placement', p.obj, () => apply(d, p, byName, scope)));
  await forEachConcurrently(objects.filter((o) => !decided.has(o.obj) && !o.obj.metadata?.deletionTimestamp), WRITE_CONCURRENCY, (o) => attempt('release', o.obj, () => release(d, o, scope)));
  let upstreamHpas = false;
  const liveHpas = new Set<string>();
  const aggregated: { p: ObjectPlacement; keys: { name: string; key: string }[] }[] = [];
  const unplacedBudgets: ObjectPlacement[] = [];
  for (const p of plan.placements) {
    const keys = p.clusters.map((c) => ({ name: c, key: byName.get(c)!.key }));
    if (p.upstreamHpa) {
      upstreamHpas = true;
      liveHpas.add(p.obj.metadata?.uid ?? '');
      const root = d.kinds.find((k) => k.kind.mode === 'Split')!.informer.lister.get(formatObjectKey({ cluster, namespace, name: p.upstreamHpa.root }));
      await attempt('autoscaling', p.obj, () => d.hpas.reconcile(d.ctx.client, cluster, p.obj, root, keys));
    } else if (WITH_STATUS.has(p.kind.kind) && (p.clusters.length > 1 || p.clusterSpec !== undefined)) {
      aggregated.push({ p, keys });
    } else if (p.kind.kind === 'PodDisruptionBudget' && p.clusters.length === 0 && !p.obj.metadata?.deletionTimestamp) {
      unplacedBudgets.push(p);
    }
  }
  // A budget no workload here matches is on no cluster, so no disruption controller would ever report on it: it is
  // given the status one gives a budget without pods (its generation observed).
  await forEachConcurrently(unplacedBudgets, WRITE_CONCURRENCY, (p) =>
    attempt('status', p.obj, async () => {
      const status = unplacedBudgetStatus(p.obj as Parameters<typeof unplacedBudgetStatus>[0], nowRFC3339());
      if (goEqual(status, p.obj.status ?? {})) return;
      await d.ctx.client.patch(gvrOf(p.kind), p.obj.metadata!.name!, 'json', [{ op: 'add', path: '/status', value: status }], { ...scope, subresource: 'status' });
    }),
  );
  // Each folded status is its own object's: written side by side, as the decisions are (one after the other, a pass
  // over a namespace of several multi-cluster Services held its worker for as many round trips).
  await forEachConcurrently(aggregated, WRITE_CONCURRENCY, ({ p, keys }) => attempt('status', p.obj, () => writeAggregatedStatus(d, p, keys, scope)));
  if (failed > 0) return { requeueAfterMs: 1000 };
  if (upstreamHpas) return { requeueAfterMs: d.opts.hpaSyncMs ?? 15_000 };
}

/** How many objects' decisions one namespace pass writes at the same time. */
const WRITE_CONCURRENCY = 8;

/** Runs fn over items, at most `limit` at a time. */
async function forEachConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** Whether `target` serves `group`/`resource`: it must sync it (spec.resources) and negotiation must accept it. */
function acceptanceOf(target: SyncTarget, group: string, resource: string): { acceptance: Acceptance; message?: string } {
  const name = group ? `${resource}.${group}` : resource;
  if (!resourcesOf(target).includes(name)) return { acceptance: 'Incompatible', message: `the SyncTarget does not sync ${name} (spec.resources)` };
  const r = target.status?.syncedResources?.find((x) => (x.group ?? '') === group && x.resource === resource);
  if (!r || r.state === 'Pending') return { acceptance: 'Pending' };
  if (r.state === 'Accepted') return { acceptance: 'Accepted' };
  return { acceptance: 'Incompatible', ...(r.message ? { message: r.message } : {}) };
}

/**
 * What runs on `r` already, in every workspace: objects of One kinds whose state labels name it, and the split
 * children labelled with its name in namespaces carrying its state label (in its own workspace, any namespace).
 */
function occupantsOf(d: Deps, r: ResolvedTarget): AssignedWorkload[] {
  const out: AssignedWorkload[] = [];
  for (const { kind, informer } of d.kinds) {
    if (kind.mode === 'One') {
      for (const o of informer.lister.byIndex(BY_STATE_KEY, r.key)) {
        if (!o.metadata?.deletionTimestamp) out.push({ requests: podRequestsOf(podTemplateOf(kind.kind, o)), replicas: podsOf(kind.kind, o) });
      }
    } else if (kind.mode === 'Split') {
      for (const o of informer.lister.byIndex(BY_CLUSTER_LABEL, r.name)) {
        if (o.metadata?.deletionTimestamp) continue;
        const ws = clusterOf(o);
        const ns = ws === r.cluster ? undefined : d.namespaces.lister.get(formatObjectKey({ cluster: ws, namespace: '', name: o.metadata?.namespace ?? '' }));
        if (ws !== r.cluster && ns?.metadata?.labels?.[stateLabel(r.key)] === undefined) continue;
        out.push({ requests: podRequestsOf(podTemplateOf('Deployment', o)), replicas: podsOf('Deployment', o) });
      }
    }
  }
  return out;
}

/** Writes one decision on its object when it differs from what the object carries; records a Warning when it fails. */
async function apply(d: Deps, p: ObjectPlacement, byName: ReadonlyMap<string, ResolvedTarget>, scope: { cluster: string; namespace: string }): Promise<void> {
  const meta = p.obj.metadata ?? {};
  const labels = meta.labels ?? {};
  const annotations = meta.annotations ?? {};
  const keys = new Set(p.clusters.map((c) => byName.get(c)!.key));
  const labelPatch: Record<string, string | null> = {};
  for (const k of Object.keys(labels)) if (k.startsWith(STATE_LABEL_PREFIX) && !keys.has(k.slice(STATE_LABEL_PREFIX.length))) labelPatch[k] = null;
  for (const k of keys) if (labels[stateLabel(k)] !== 'Sync') labelPatch[stateLabel(k)] = 'Sync';
  const annotationPatch: Record<string, string | null> = {};
  let warn: { reason: string; message: string } | undefined;
  // A follower nothing uses that was never placed is left untouched, as on one cluster, where nothing writes a
  // ConfigMap, Secret or Ingress after its create: a mark written there would fail a client's update with the object
  // its create returned (409), as upstream's immutable ConfigMap and Secret specs do. Once placed, NotUsed is recorded.
  const untouched = p.condition.reason === 'NotUsed' && annotations[SCHEDULED_ANNOTATION] === undefined && !wasSynced(p.obj);
  const next = untouched ? undefined : nextCondition(annotations[SCHEDULED_ANNOTATION], p.condition);
  if (next !== undefined) {
    annotationPatch[SCHEDULED_ANNOTATION] = next;
    const before = parseCondition(annotations[SCHEDULED_ANNOTATION]);
    const warns = p.condition.status === 'False' && p.condition.reason !== 'Pending' && p.condition.reason !== 'NotUsed';
    if (warns && (before?.reason !== p.condition.reason || before?.message !== p.condition.message)) warn = p.condition;
  }
  let moved: { type: 'Normal' | 'Warning'; reason: string; message: string } | undefined;
  if (p.moving === null && annotations[MOVING_ANNOTATION] !== undefined) annotationPatch[MOVING_ANNOTATION] = null;
  else if (p.moving) {
    const text = nextMovingCondition(annotations[MOVING_ANNOTATION], p.moving);
    if (text !== undefined) {
      annotationPatch[MOVING_ANNOTATION] = text;
      moved = { type: (WARNING_REASONS as readonly string[]).includes(p.moving.reason) ? 'Warning' : 'Normal', reason: p.moving.reason, message: p.moving.message };
    }
  }
  const clusterSpec = p.clusterSpec ? JSON.stringify(Object.fromEntries(Object.entries(p.clusterSpec).map(([c, v]) => [byName.get(c)!.key, v]).sort(([a], [b]) => (a < b ? -1 : 1)))) : undefined;
  if (annotations[CLUSTER_SPEC_ANNOTATION] !== clusterSpec) annotationPatch[CLUSTER_SPEC_ANNOTATION] = clusterSpec ?? null;
  for (const k of Object.keys(annotations)) if (k.startsWith(STATUS_ANNOTATION_PREFIX) && !keys.has(k.slice(STATUS_ANNOTATION_PREFIX.length))) annotationPatch[k] = null;
  if (Object.keys(labelPatch).length === 0 && Object.keys(annotationPatch).length === 0) return;
  const metadata: Record<string, unknown> = {};
  if (Object.keys(labelPatch).length) metadata.labels = labelPatch;
  if (Object.keys(annotationPatch).length) metadata.annotations = annotationPatch;
  await d.ctx.client.patch(gvrOf(p.kind), meta.name!, 'merge', { metadata }, { ...scope, fieldManager: EVENT_COMPONENT });
  if (warn) {
    await d.events.record(scope.cluster, { apiVersion: p.kind.group ? `${p.kind.group}/${p.kind.version}` : p.kind.version, kind: p.kind.kind, namespace: scope.namespace, name: meta.name!, uid: meta.uid }, 'Warning', warn.reason, warn.message);
  }
  if (moved) {
    await d.events.record(scope.cluster, { apiVersion: p.kind.group ? `${p.kind.group}/${p.kind.version}` : p.kind.version, kind: p.kind.kind, namespace: scope.namespace, name: meta.name!, uid: meta.uid }, moved.type, moved.reason, moved.message);
  }
}

/**
 * Whether a syncer has the object on a cluster: a state label or a syncer's finalizer (say an object
 * of a namespace once assigned by hand, then placed): NotUsed is written on it, which takes its copies away.
 */
function wasSynced(obj: KubeObject): boolean {
  const meta = obj.metadata ?? {};
  return (
    Object.keys(meta.labels ?? {}).some((k) => k.startsWith(STATE_LABEL_PREFIX)) ||
    (meta.finalizers ?? []).some((f) => f.startsWith(SYNCER_FINALIZER_PREFIX))
  );
}

/** Removes what this controller wrote on an object it no longer places (only objects carrying its Scheduled mark). */
async function release(d: Deps, o: PlacedObject, scope: { cluster: string; namespace: string }): Promise<void> {
  const meta = o.obj.metadata ?? {};
  const annotations = meta.annotations ?? {};
  if (meta.deletionTimestamp || (annotations[SCHEDULED_ANNOTATION] === undefined && annotations[CLUSTER_SPEC_ANNOTATION] === undefined)) return;
  const labels: Record<string, null> = {};
  for (const k of Object.keys(meta.labels ?? {})) if (k.startsWith(STATE_LABEL_PREFIX)) labels[k] = null;
  const drop: Record<string, null> = { [SCHEDULED_ANNOTATION]: null, [CLUSTER_SPEC_ANNOTATION]: null, [MOVING_ANNOTATION]: null };
  for (const k of Object.keys(annotations)) if (k.startsWith(STATUS_ANNOTATION_PREFIX)) drop[k] = null;
  await d.ctx.client.patch(gvrOf(o.kind), meta.name!, 'merge', { metadata: { labels, annotations: drop } }, { ...scope, fieldManager: EVENT_COMPONENT }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 404) throw err;
  });
}

/** Folds the clusters' reported statuses into the object's status (subresource), when it changed. */
async function writeAggregatedStatus(d: Deps, p: ObjectPlacement, clusters: readonly { name: string; key: string }[], scope: { cluster: string; namespace: string }): Promise<void> {
  // A claim bound to a volume of the workspace: its status is the workspace binder's (controllers/volume-binder.ts).
  if (statusIsBinders(p.kind.resource, p.obj)) return;
  const annotations = p.obj.metadata?.annotations ?? {};
  const reported = clusters.map(({ name, key }) => {
    const text = annotations[statusAnnotation(key)];
    let status: Record<string, unknown> | undefined;
    try {
      status = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      status = undefined;
    }
    return { cluster: name, ...(status ? { status } : {}) };
  });
  const previous = p.obj.status as Record<string, unknown> | undefined;
  const status = aggregateKindStatus({ kind: p.kind.kind, generation: p.obj.metadata?.generation, clusters: reported, previous, now: nowRFC3339() });
  if (goEqual(status, previous ?? {})) return;
  await d.ctx.client.patch(gvrOf(p.kind), p.obj.metadata!.name!, 'json', [{ op: 'add', path: '/status', value: status }], { ...scope, subresource: 'status' });
}

function gvrOf(k: KindPlacement): { group: string; version: string; resource: string } {
  return { group: k.group, version: k.version, resource: k.resource };
}

interface ScheduledCondition {
  type: 'Scheduled';
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

function parseCondition(text: string | undefined): ScheduledCondition | undefined {
  if (!text) return undefined;
  try {
    const c = JSON.parse(text) as ScheduledCondition;
    return c?.type === 'Scheduled' ? c : undefined;
  } catch {
    return undefined;
  }
}

/** The Moving annotation's value for `next`, or undefined when the recorded condition already says the same. */
function nextMovingCondition(text: string | undefined, next: MovingCondition): string | undefined {
  let cur: (MovingCondition & { type: string; lastTransitionTime: string }) | undefined;
  try {
    cur = text ? JSON.parse(text) : undefined;
  } catch {
    cur = undefined;
  }
  if (cur && cur.status === next.status && cur.reason === next.reason && cur.message === next.message) return undefined;
  const lastTransitionTime = cur && cur.status === next.status && cur.lastTransitionTime ? cur.lastTransitionTime : nowRFC3339();
  return JSON.stringify({ type: 'Moving', ...next, lastTransitionTime });
}

/** The annotation value for `next`, or undefined when the recorded condition already says the same. */
function nextCondition(text: string | undefined, next: { status: 'True' | 'False'; reason: string; message: string }): string | undefined {
  const cur = parseCondition(text);
  const conditions: ScheduledCondition[] = cur ? [{ ...cur }] : [];
  return setStatusCondition(conditions, { type: 'Scheduled', ...next }, nowRFC3339()) ? JSON.stringify(conditions[0]) : undefined;
}
