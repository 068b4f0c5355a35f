/**
 * Which SyncTargets a split namespace deals with, wherever they live. The scheduler labels a namespace with SyncTarget
 * keys (`state.workload.kcp.io/<key>`) of its Placement's location workspace, which may be another workspace than
 * the namespace's own; keys are globally unique (they hash the target's logical cluster and name), so they are
 * resolved against the SyncTargets of all workspaces. Children only name their target (`workload.kcp.io/cluster:
 * <name>`), so a child whose target is no longer assigned is resolved through the syncer finalizer it carries (which
 * names the key), else by name in the workspace the namespace's targets come from, else in the root's own workspace.
 * Pure: the caller supplies the key lookup.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { syncTargetKey, stateLabel } from '../api/keys.js';
import { CLUSTER_LABEL, SYNCER_FINALIZER_PREFIX, type SyncTarget } from '../api/types.js';
import { parseConsumerClusters } from '../scheduling/consumer-clusters.js';
import { SPLIT_FROM_LABEL } from '../scheduling/types.js';
import { isReady } from '../decisions/select-targets.js';
import type { SyncTargetLike } from '../decisions/types.js';

/** A SyncTarget found by key, with the logical cluster it lives in. */
export interface ResolvedTarget {
  cluster: string;
  key: string;
  target: SyncTarget & SyncTargetLike;
}

/** Finds a SyncTarget (of any workspace) by key. */
export type TargetLookup = (key: string) => ResolvedTarget | undefined;

/**
 * The targets of a namespace: `assigned` lists the names of the targets its assignment keys resolve to (in key
 * order; keys naming no known SyncTarget are dropped; of two targets sharing a name, which one Placement can never
 * choose, the first key wins), and `byName` resolves those and every target one of `children` is labelled with.
 * A child's target that resolves nowhere is absent from `byName` (it is gone).
 */
export function namespaceTargets(
  assignedKeys: readonly string[],
  children: readonly KubeObject[],
  rootCluster: string,
  lookup: TargetLookup,
): { assigned: string[]; byName: Map<string, ResolvedTarget> } {
  const byName = new Map<string, ResolvedTarget>();
  const assigned: string[] = [];
  for (const key of assignedKeys) {
    const r = lookup(key);
    const name = r?.target.metadata?.name;
    if (!r || !name || byName.has(name)) continue;
    byName.set(name, r);
    assigned.push(name);
  }
  const homes = [...new Set([...byName.values()].map((r) => r.cluster)), rootCluster];
  for (const kid of children) {
    const name = kid.metadata?.labels?.[CLUSTER_LABEL];
    if (!name || byName.has(name)) continue;
    const found = viaFinalizer(kid, name, lookup) ?? homes.map((c) => lookup(syncTargetKey(c, name))).find((r) => r !== undefined);
    if (found) byName.set(name, found);
  }
  return { assigned, byName };
}

function viaFinalizer(kid: KubeObject, name: string, lookup: TargetLookup): ResolvedTarget | undefined {
  for (const f of kid.metadata?.finalizers ?? []) {
    if (!f.startsWith(SYNCER_FINALIZER_PREFIX)) continue;
    const r = lookup(f.slice(SYNCER_FINALIZER_PREFIX.length));
    if (r?.target.metadata?.name === name) return r;
  }
  return undefined;
}

/**
 * The syncer finalizers of a child nobody will release: those whose SyncTarget is gone or not Ready (its syncer
 * cannot run, so it would hold the finalizer forever). Finalizers of Ready targets and all others are kept.
 */
export function unreleasableSyncerFinalizers(finalizers: readonly string[], lookup: TargetLookup): string[] {
  return finalizers.filter((f) => {
    if (!f.startsWith(SYNCER_FINALIZER_PREFIX)) return false;
    const r = lookup(f.slice(SYNCER_FINALIZER_PREFIX.length));
    return !r || !isReady(r.target);
  });
}

/** The workspaces whose split children may run on `r`: its own and the consumers its annotation lists. */
export function workspacesUsing(r: ResolvedTarget): string[] {
  return [...new Set([r.cluster, ...parseConsumerClusters(r.target)])];
}

/**
 * The split children among `children` (all of workspace `ws`) that run on target `r`: labelled with its name, split
 * from a root, not terminating, and — unless `ws` is the target's own workspace, where names are unique — in a
 * namespace carrying the target's state label (whatever its value), since a same-named target of another workspace
 * may be what the label means there. `namespaceOf(ws, name)` reads a namespace.
 */
export function childrenOnTarget(r: ResolvedTarget, ws: string, children: readonly KubeObject[], namespaceOf: (cluster: string, name: string) => KubeObject | undefined): KubeObject[] {
  const name = r.target.metadata?.name;
  const label = stateLabel(r.key);
  return children.filter((c) => {
    const labels = c.metadata?.labels ?? {};
    if (labels[CLUSTER_LABEL] !== name || labels[SPLIT_FROM_LABEL] === undefined || c.metadata?.deletionTimestamp) return false;
    return ws === r.cluster || namespaceOf(ws, c.metadata?.namespace ?? '')?.metadata?.labels?.[label] !== undefined;
  });
}
