/**
 * The placement of every object of a placed namespace, decided at once: where each runs or goes (api/kind-placement.ts
 * says how per kind), why an object goes nowhere, and what differs per cluster. The placement controller feeds it the
 * namespace's objects and SyncTargets from its caches and writes the result on the objects. Pure.
 *
 * Order: the workloads first — split children and pinned objects where their label says, One kinds on one chosen
 * cluster (chooseCluster, sticky; a new one mounting a claim that is already on a cluster goes there when it can, so
 * a claim's data and the workloads using it stay together; a ReplicaSet or ReplicationController goes where the bare
 * Pods it would adopt run, decisions/orphans.ts; one whose pods are pinned to a node by name goes to that
 * node's cluster, decisions/node-pin.ts), Every kinds on every accepting cluster (a pinned one on its node's; a DaemonSet
 * rolling one cluster at a time, decisions/staged-rollout.ts) —, then every
 * follower by the follow graph
 * over those workloads, restricted to the clusters that accept the follower's kind. A PodDisruptionBudget gets its
 * budget apportioned over its clusters; an HPA whose target is split gets an observe-only copy per cluster targeting
 * that cluster's share, and acts upstream.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { CLUSTER_LABEL, SYNCER_FINALIZER_PREFIX } from '../api/types.js';
import { isClusterLocal, ownStateKeys, type KindPlacement } from '../api/kind-placement.js';
import { SPLIT_FROM_LABEL } from '../scheduling/types.js';
import { apportionBudget, type DisruptionBudget } from './apportion-budget.js';
import { acceptingClusters, chooseCluster, refusal, type Acceptance, type ClusterCandidate, type UnschedulableReason } from './choose-cluster.js';
import { followClusters, hpaTargets, podsPerCluster, selectedBy, type FollowContext, type PlacedWorkload } from './follow-graph.js';
import { nodePinOf } from './node-pin.js';
import { adoptsPods, orphanClusters } from './orphans.js';
import { daemonSetRolloutHolds } from './staged-rollout.js';
import { podReferences, podsOf, podTemplateOf } from './workload-references.js';
import { decideMove, MOVING_ANNOTATION, STANDING_REASONS, type MoveInput, type MovingCondition } from './move-policy.js';

export interface NamespaceTarget {
  /** The SyncTarget name (what CLUSTER_LABEL and split children name). */
  name: string;
  /** Its key (what state labels name). */
  key: string;
  ready: boolean;
}

export interface PlacedObject {
  kind: KindPlacement;
  obj: KubeObject;
}

export interface PlaceNamespaceInput {
  /** Every object of the namespace of a kind in the table (terminating ones included). */
  objects: readonly PlacedObject[];
  /** The namespace's SyncTargets (its state labels, resolved). */
  targets: readonly NamespaceTarget[];
  /**
   * SyncTargets the namespace is leaving (no longer in its state labels) where split children of it still run while
   * the splitter moves their replicas off, make before break. Followers (Services, ConfigMaps, Secrets, PDBs...) stay
   * there as long as a workload using them does; nothing new (One, Every kinds) is placed there.
   */
  leaving?: readonly NamespaceTarget[];
  /** Whether `target` serves `group`/`resource` (see ClusterCandidate). */
  acceptance(target: string, group: string, resource: string): { acceptance: Acceptance; message?: string };
  /** How many more pods like `obj`'s (of kind `kind`) fit on `target`; undefined when unknown. Asked only when choosing. */
  room?(target: string, kind: string, obj: KubeObject): number | undefined;
  /** The name of the SyncTarget of `key` among any workspace's (for sticky choices); undefined when unknown. */
  nameOfKey(key: string): string | undefined;
  /**
   * The SyncTarget of `key` among any workspace's, with its readiness: where a One object ran before when that is no
   * longer one of the namespace's clusters (decisions/move-policy.ts decides whether it may leave). Undefined: deleted.
   */
  target?(key: string): NamespaceTarget | undefined;
}

/** What is decided for one object the controller manages. */
export interface ObjectPlacement {
  kind: KindPlacement;
  obj: KubeObject;
  /** The clusters (SyncTarget names) it is synced to, sorted. */
  clusters: string[];
  /** The Scheduled condition (a follower nothing uses: False, NotUsed). */
  condition: { status: 'True' | 'False'; reason: string; message: string };
  /** Per cluster name: a JSON merge patch of spec for that cluster's copy. */
  clusterSpec?: Record<string, Record<string, unknown>>;
  /** An HPA whose target is split: it scales `root` (a Deployment) upstream. */
  upstreamHpa?: { root: string };
  /** A One kind's Moving condition (MOVING_ANNOTATION): set it; null: remove it; undefined: leave it as it is. */
  moving?: MovingCondition | null;
}

export interface NamespacePlacement {
  /** One entry per object the controller manages (not pinned, not split, not terminating). */
  placements: ObjectPlacement[];
  /** Every workload and where it runs (what followers were decided by). */
  workloads: PlacedWorkload[];
  /**
   * Clusters no longer the namespace's where One workloads stay (move-policy.ts: their data, a running or finished
   * Job); the objects they use follow them there.
   */
  kept: NamespaceTarget[];
}

const OBSERVE_ONLY = { minReplicas: 1, behavior: { scaleUp: { selectPolicy: 'Disabled' }, scaleDown: { selectPolicy: 'Disabled' } } };

/** Decides the namespace (see the file comment). */
export function placeNamespace(input: PlaceNamespaceInput): NamespacePlacement {
  const names = input.targets.map((t) => t.name).sort();
  const leaving = (input.leaving ?? []).filter((t) => !names.includes(t.name));
  const kept: NamespaceTarget[] = [];
  const candidatesFor = (k: KindPlacement, obj?: KubeObject, withLeaving = false): ClusterCandidate[] =>
    [...input.targets, ...(withLeaving ? leaving : [])].map((t) => {
      const a = input.acceptance(t.name, k.group, k.resource);
      const c: ClusterCandidate = { name: t.name, acceptance: a.acceptance, ready: t.ready };
      if (a.message) c.message = a.message;
      if (obj && input.room && a.acceptance === 'Accepted') {
        const room = input.room(t.name, k.kind, obj);
        if (room !== undefined) c.room = room;
      }
      return c;
    });
  const resourceName = (k: KindPlacement) => (k.group ? `${k.resource}.${k.group}` : k.resource);
  const placements: ObjectPlacement[] = [];
  const workloads: PlacedWorkload[] = [];
  const live = input.objects.filter((o) => !o.obj.metadata?.deletionTimestamp);
  const isWorkloadKind = (k: KindPlacement) => k.mode === 'Split' || k.mode === 'One' || (k.mode === 'Every' && k.kind === 'DaemonSet');
  const workloadOf = (o: PlacedObject, clusters: readonly string[], root?: string): PlacedWorkload => {
    const pods = podsOf(o.kind.kind, o.obj);
    return { kind: o.kind.kind, name: o.obj.metadata?.name ?? '', ...(root ? { root } : {}), template: podTemplateOf(o.kind.kind, o.obj), clusters: [...clusters], pods: Object.fromEntries(clusters.map((c) => [c, pods])) };
  };

  // Pinned objects (own CLUSTER_LABEL; split children among them) run where the label says; split roots are the
  // splitter's. Neither is placed here.
  const managed: PlacedObject[] = [];
  for (const o of live) {
    const labels = o.obj.metadata?.labels ?? {};
    const pinned = labels[CLUSTER_LABEL];
    if (pinned !== undefined) {
      if (isWorkloadKind(o.kind)) {
        const owner = o.obj.metadata?.ownerReferences?.find((r) => r.controller === true)?.name;
        const root = labels[SPLIT_FROM_LABEL] !== undefined ? (typeof owner === 'string' ? owner : labels[SPLIT_FROM_LABEL]) : undefined;
        workloads.push(workloadOf(o, [pinned], root));
      }
      continue;
    }
    if (o.kind.mode === 'Split' || o.kind.mode === 'None' || isClusterLocal(o.kind.resource, o.obj)) continue;
    managed.push(o);
  }

  // Where each claim is already (its own state labels; then the workloads placed in this pass that mount it): a new
  // workload mounting a claim goes where the claim's data is, when it can.
  const claimClusters = new Map<string, Set<string>>();
  for (const o of live) {
    if (o.kind.resource !== 'persistentvolumeclaims') continue;
    const at = ownStateKeys(o.obj).map((k) => input.nameOfKey(k)).filter((n): n is string => n !== undefined && names.includes(n));
    claimClusters.set(o.obj.metadata?.name ?? '', new Set(at));
  }
  const claimsOf = (o: PlacedObject) => [...podReferences(podTemplateOf(o.kind.kind, o.obj)?.spec).persistentVolumeClaims];
  // Older first, so that of two new workloads sharing a claim the first created decides where both go.
  const ordered = [...managed].sort((a, b) => compareAge(a.obj, b.obj));
  const knownClusters = [...names, ...leaving.map((t) => t.name)];
  // Bare Pods and the cluster each is on (its own state label, or what this pass decided for it: older objects are
  // placed first), for the controllers that adopt them.
  const barePods = () =>
    live.filter((o) => o.kind.kind === 'Pod').map((o) => ({ pod: o.obj, cluster: currentCluster(o.obj, names, input.nameOfKey) ?? placements.find((p) => p.obj === o.obj)?.clusters[0] }));
  const keyOfName = new Map(input.targets.map((t) => [t.name, t.key]));
  const nodePin = (o: PlacedObject) => nodePinOf(podTemplateOf(o.kind.kind, o.obj)?.spec, names, knownClusters);
  for (const o of ordered) {
    if (o.kind.mode === 'One') {
      const candidates = candidatesFor(o.kind);
      const current = currentCluster(o.obj, names, input.nameOfKey);
      const request = { current, pods: podsOf(o.kind.kind, o.obj), resource: resourceName(o.kind), tieBreak: o.obj.metadata?.uid ?? o.obj.metadata?.name ?? '' };
      let choice = current === undefined ? undefined : chooseCluster({ ...request, candidates });
      if (choice === undefined || !('cluster' in choice) || !choice.kept) {
        const all = candidatesFor(o.kind, o.obj);
        // Pods pinned to a node by name (decisions/node-pin.ts) go to that node's cluster, or nowhere.
        const pin = nodePin(o);
        if (pin && 'refused' in pin) {
          placements.push({ kind: o.kind, obj: o.obj, clusters: [], condition: unscheduled('NodeNotInPlacement', pin.refused) });
          continue;
        }
        // Else where its data is (the claims it mounts), or the pods it would adopt (decisions/orphans.ts).
        const near = pin ? new Set([pin.cluster]) : adoptsPods(o.kind.kind) ? orphanClusters(o.kind.kind, o.obj, barePods()) : new Set(claimsOf(o).flatMap((c) => [...(claimClusters.get(c) ?? [])]));
        const local = near.size > 0 ? chooseCluster({ ...request, current: undefined, candidates: all.filter((c) => near.has(c.name)) }) : undefined;
        choice = pin ? local! : local && 'cluster' in local ? local : chooseCluster({ ...request, current: undefined, candidates: all });
      }
      // Its cluster left the namespace: whether it may follow (its data, a running or finished Job).
      const before = current === undefined ? previousCluster(o.obj, names, input) : undefined;
      let moving: MovingCondition | null | undefined = standing(o.obj) ? null : undefined;
      if (before) {
        const verdict = decideMove({ kind: o.kind.kind, obj: o.obj, from: before.from, ...('cluster' in choice ? { to: choice.cluster } : {}) });
        if (verdict.condition) moving = verdict.condition;
        if (verdict.place === 'from') {
          if (before.target && !kept.some((t) => t.name === before.target!.name)) kept.push(before.target);
          placements.push({ kind: o.kind, obj: o.obj, clusters: [before.from.name], condition: scheduled([before.from.name]), ...(moving !== undefined ? { moving } : {}) });
          workloads.push(workloadOf(o, [before.from.name]));
          continue;
        }
        if (verdict.place === 'none') {
          placements.push({ kind: o.kind, obj: o.obj, clusters: [], condition: unscheduled('ClusterLost', verdict.condition?.message ?? 'its cluster is gone'), ...(moving !== undefined ? { moving } : {}) });
          continue;
        }
      }
      const withMoving = moving !== undefined ? { moving } : {};
      if ('cluster' in choice) {
        for (const claim of claimsOf(o)) {
          const set = claimClusters.get(claim) ?? new Set<string>();
          set.add(choice.cluster);
          claimClusters.set(claim, set);
        }
        placements.push({ kind: o.kind, obj: o.obj, clusters: [choice.cluster], condition: scheduled([choice.cluster]), ...withMoving });
        workloads.push(workloadOf(o, [choice.cluster]));
      } else {
        placements.push({ kind: o.kind, obj: o.obj, clusters: [], condition: unscheduled(choice.reason, choice.message), ...withMoving });
      }
    } else if (o.kind.mode === 'Every') {
      const pin = nodePin(o);
      if (pin && 'refused' in pin) {
        placements.push({ kind: o.kind, obj: o.obj, clusters: [], condition: unscheduled('NodeNotInPlacement', pin.refused) });
        continue;
      }
      // Pinned to nodes of one cluster: its pods run there only, so the copies elsewhere would run nothing.
      const candidates = candidatesFor(o.kind).filter((c) => !pin || c.name === pin.cluster);
      const clusters = acceptingClusters(candidates);
      if (clusters.length > 0) {
        const placement: ObjectPlacement = { kind: o.kind, obj: o.obj, clusters, condition: scheduled(clusters) };
        // A DaemonSet rolls one cluster at a time (decisions/staged-rollout.ts): the others' copies are held.
        const holds = o.kind.kind === 'DaemonSet' ? daemonSetRolloutHolds(o.obj, clusters.map((name) => ({ name, key: keyOfName.get(name) ?? name }))) : undefined;
        if (holds) placement.clusterSpec = holds;
        placements.push(placement);
        if (isWorkloadKind(o.kind)) workloads.push(workloadOf(o, clusters));
      } else if (names.length === 0) {
        placements.push({ kind: o.kind, obj: o.obj, clusters: [], condition: unscheduled('NoClusters', 'the Placement of the namespace has no SyncTarget') });
      } else {
        const why = refusal(names, candidates, resourceName(o.kind))!;
        placements.push({ kind: o.kind, obj: o.obj, clusters: [], condition: unscheduled(why.reason, why.message) });
      }
    }
  }

  const of = (resource: string) => live.filter((o) => o.kind.resource === resource).map((o) => o.obj);
  const ctx: FollowContext = { workloads, services: of('services'), serviceAccounts: of('serviceaccounts'), ingresses: of('ingresses'), namespaceClusters: names };
  for (const o of managed) {
    if (o.kind.mode !== 'Follow') continue;
    const wanted = followClusters(o.kind.resource, o.obj, ctx);
    const candidates = [...candidatesFor(o.kind, undefined, true), ...kept.filter((t) => !leaving.some((l) => l.name === t.name)).map((t) => ({ name: t.name, ...input.acceptance(t.name, o.kind.group, o.kind.resource), ready: t.ready }) as ClusterCandidate)];
    const accepting = new Set(acceptingClusters(candidates));
    const clusters = wanted.filter((c) => accepting.has(c));
    const placement: ObjectPlacement = { kind: o.kind, obj: o.obj, clusters, condition: { status: 'False', reason: 'NotUsed', message: '' } };
    if (clusters.length > 0) placement.condition = scheduled(clusters, wanted.filter((c) => !accepting.has(c)), o.kind);
    else {
      const why = refusal(wanted, candidates, resourceName(o.kind));
      placement.condition = why ? unscheduled(why.reason, why.message) : { status: 'False', reason: 'NotUsed', message: 'no workload placed in the namespace uses it' };
    }
    if (o.kind.resource === 'poddisruptionbudgets' && clusters.length > 0) {
      const matched = selectedBy((o.obj.spec as { selector?: never } | undefined)?.selector, ctx);
      const pods = podsPerCluster(matched);
      const shares = apportionBudget(budgetOf(o.obj), Object.fromEntries(clusters.map((c) => [c, pods[c] ?? 0])));
      placement.clusterSpec = Object.fromEntries(clusters.map((c) => [c, { ...shares[c] } as Record<string, unknown>]));
    }
    if (o.kind.resource === 'horizontalpodautoscalers') {
      const targets = hpaTargets(o.obj, ctx);
      const root = targets.find((w) => w.root !== undefined)?.root;
      if (root !== undefined) {
        placement.upstreamHpa = { root };
        placement.clusterSpec = {};
        for (const c of clusters) {
          const child = targets.find((w) => w.clusters.includes(c));
          if (child) placement.clusterSpec[c] = { scaleTargetRef: { name: child.name }, ...OBSERVE_ONLY };
        }
      }
    }
    placements.push(placement);
  }
  return { placements, workloads, kept };
}

/** Creation order (RFC 3339 timestamps compare as strings), then name. */
function compareAge(a: KubeObject, b: KubeObject): number {
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The cluster a One object was given before: its own state labels, else the syncer finalizers it carries. */
function currentCluster(obj: KubeObject, names: readonly string[], nameOfKey: (key: string) => string | undefined): string | undefined {
  for (const key of ownStateKeys(obj)) {
    const n = nameOfKey(key);
    if (n !== undefined && names.includes(n)) return n;
  }
  for (const f of [...(obj.metadata?.finalizers ?? [])].sort()) {
    if (!f.startsWith(SYNCER_FINALIZER_PREFIX)) continue;
    const n = nameOfKey(f.slice(SYNCER_FINALIZER_PREFIX.length));
    if (n !== undefined && names.includes(n)) return n;
  }
  return undefined;
}

/**
 * Where a One object ran before when that is no longer one of the namespace's clusters: its own state label (else a
 * syncer finalizer) naming a SyncTarget outside `names`, with that target's state. Undefined when it ran nowhere.
 */
function previousCluster(obj: KubeObject, names: readonly string[], input: PlaceNamespaceInput): { from: MoveInput['from']; target?: NamespaceTarget } | undefined {
  const finalizerKeys = (obj.metadata?.finalizers ?? []).filter((f) => f.startsWith(SYNCER_FINALIZER_PREFIX)).map((f) => f.slice(SYNCER_FINALIZER_PREFIX.length)).sort();
  for (const key of [...ownStateKeys(obj), ...finalizerKeys]) {
    const name = input.nameOfKey(key);
    if (name !== undefined && names.includes(name)) continue;
    if (!input.target) return undefined;
    const t = input.target(key);
    if (t) return { from: { name: t.name, state: t.ready ? 'Alive' : 'NotReady' }, target: t };
    return { from: { name: name ?? key, state: 'Deleted' } };
  }
  return undefined;
}

/** Whether `obj` carries a Moving condition that describes a standing state (cleared once that state is over). */
function standing(obj: KubeObject): boolean {
  const text = obj.metadata?.annotations?.[MOVING_ANNOTATION];
  if (!text) return false;
  try {
    return (STANDING_REASONS as readonly string[]).includes((JSON.parse(text) as { reason?: string }).reason ?? '');
  } catch {
    return true;
  }
}

function budgetOf(pdb: KubeObject): DisruptionBudget {
  const spec = (pdb.spec ?? {}) as DisruptionBudget;
  const out: DisruptionBudget = {};
  if (spec.minAvailable !== undefined) out.minAvailable = spec.minAvailable;
  else if (spec.maxUnavailable !== undefined) out.maxUnavailable = spec.maxUnavailable;
  return out;
}

function scheduled(clusters: readonly string[], refused: readonly string[] = [], kind?: KindPlacement): { status: 'True'; reason: string; message: string } {
  const also = refused.length > 0 && kind ? `; not on ${refused.join(', ')}, which do not accept ${kind.group ? `${kind.resource}.${kind.group}` : kind.resource}` : '';
  return { status: 'True', reason: 'Scheduled', message: `synced to ${clusters.join(', ')}${also}` };
}

function unscheduled(reason: UnschedulableReason | 'ClusterLost' | 'NodeNotInPlacement', message: string): { status: 'False'; reason: string; message: string } {
  return { status: 'False', reason, message };
}
