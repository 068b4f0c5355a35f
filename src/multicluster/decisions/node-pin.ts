/**
 * Pods pinned to a node by its name, as users pin them on one cluster: `spec.nodeName`, the node selector
 * `kubernetes.io/hostname`, or required node affinity on `kubernetes.io/hostname` or on the node's `metadata.name`
 * (matchFields). In a workspace a node is named `<cluster>--<node>` (api/node-names.ts: what `kubectl get nodes` and
 * a pod's NODE column show there), so such a name says which cluster too:
 *
 * - placement: a workload whose pods are pinned to nodes of one of its namespace's clusters goes to that cluster (a
 *   One kind, chosen when first placed; a DaemonSet there only; a split Deployment wholly there, as the
 *   `scheduling.atrium.io/cluster` pin does); names of no cluster of the namespace leave it unplaced, with the reason;
 * - the copy on that cluster names the node by the cluster's own name (`<node>`), so the cluster's scheduler (or, for
 *   a pod given a nodeName, its kubelet) honours the pin exactly; names of other clusters are left as they are and
 *   match no node there.
 *
 * Names that are no workspace node name (a bare `node-1`) pin nothing here and reach the cluster unchanged in selectors
 * and affinity (a bare Pod's nodeName of that kind is dropped from its copy, syncer/transform.ts). Pure.
 */
import { parseWorkspaceNodeName } from '../api/node-names.js';

export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The `In` values of a term's requirements on the node's name (hostname label or metadata.name field), or undefined. */
function termNodeNames(term: Json | undefined): string[] | undefined {
  if (!term) return undefined;
  const names: string[][] = [];
  for (const e of list(term.matchExpressions)) {
    const x = obj(e);
    if (x?.key === HOSTNAME_LABEL && x.operator === 'In') names.push(list(x.values).filter((v): v is string => typeof v === 'string'));
  }
  for (const e of list(term.matchFields)) {
    const x = obj(e);
    if (x?.key === 'metadata.name' && x.operator === 'In') names.push(list(x.values).filter((v): v is string => typeof v === 'string'));
  }
  if (names.length === 0) return undefined;
  // Requirements of one term are ANDed: the names every one of them allows.
  return names.reduce((a, b) => a.filter((n) => b.includes(n)));
}

/**
 * The node names a pod spec confines its pods to: spec.nodeName, else the hostname node selector, else the required
 * node affinity when every one of its terms names nodes (terms are ORed: the union). Undefined: not pinned by name.
 */
export function pinnedNodeNames(spec: Json | undefined): string[] | undefined {
  if (!spec) return undefined;
  if (typeof spec.nodeName === 'string' && spec.nodeName) return [spec.nodeName];
  const selected = obj(spec.nodeSelector)?.[HOSTNAME_LABEL];
  if (typeof selected === 'string' && selected) return [selected];
  const terms = list(obj(obj(obj(spec.affinity)?.nodeAffinity)?.requiredDuringSchedulingIgnoredDuringExecution)?.nodeSelectorTerms).map(obj);
  if (terms.length === 0) return undefined;
  const perTerm = terms.map(termNodeNames);
  if (perTerm.some((t) => t === undefined)) return undefined;
  return [...new Set(perTerm.flat() as string[])];
}

export type NodePin =
  /** Every pinned name is a node of `cluster`. */
  | { cluster: string; nodes: string[] }
  /** Pinned by workspace node names, but not to nodes of exactly one of the clusters given. */
  | { refused: string };

/**
 * Where a pod spec's node pin sends its pods among `clusters` (SyncTarget names), or undefined when it pins nothing
 * here (no pin, or names that are no workspace node name: the cluster sees them as they are).
 */
export function nodePinOf(spec: Json | undefined, clusters: readonly string[], knownClusters: readonly string[] = clusters): NodePin | undefined {
  const names = pinnedNodeNames(spec);
  if (!names || names.length === 0) return undefined;
  const parsed = names.map((n) => parseWorkspaceNodeName(knownClusters, n));
  if (parsed.every((p) => p === undefined)) return undefined;
  const owners = [...new Set(parsed.map((p) => p?.cluster))];
  const quoted = names.map((n) => `"${n}"`).join(', ');
  if (owners.length !== 1 || owners[0] === undefined) return { refused: `its pods are pinned to nodes ${quoted}, which are not all of one cluster` };
  const cluster = owners[0];
  if (!clusters.includes(cluster)) return { refused: `its pods are pinned to ${names.length === 1 ? 'node' : 'nodes'} ${quoted} of cluster "${cluster}", which is not among its namespace's clusters (${clusters.map((c) => `"${c}"`).join(', ') || 'none'})` };
  return { cluster, nodes: parsed.map((p) => p!.node) };
}

/**
 * `spec` (a pod spec, changed in place) with this cluster's workspace node names turned into the cluster's own:
 * nodeName, the hostname node selector, and every node affinity requirement on the hostname label or metadata.name
 * (required and preferred). Names of other clusters stay.
 */
export function toClusterNodeNames(spec: Json, cluster: string): void {
  const local = (n: unknown) => (typeof n === 'string' ? (parseWorkspaceNodeName([cluster], n)?.node ?? n) : n);
  if (typeof spec.nodeName === 'string') spec.nodeName = local(spec.nodeName);
  const selector = obj(spec.nodeSelector);
  if (selector && typeof selector[HOSTNAME_LABEL] === 'string') selector[HOSTNAME_LABEL] = local(selector[HOSTNAME_LABEL]);
  const nodeAffinity = obj(obj(spec.affinity)?.nodeAffinity);
  if (!nodeAffinity) return;
  const terms = [
    ...list(obj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)?.nodeSelectorTerms).map(obj),
    ...list(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution).map((p) => obj(obj(p)?.preference)),
  ];
  for (const term of terms) {
    for (const [field, key] of [['matchExpressions', HOSTNAME_LABEL], ['matchFields', 'metadata.name']] as const) {
      for (const e of list(term?.[field])) {
        const x = obj(e);
        if (x?.key === key && Array.isArray(x.values)) x.values = x.values.map(local);
      }
    }
  }
}
