/**
 * The consumer-clusters annotation on SyncTargets (CONSUMER_CLUSTERS_ANNOTATION): which other logical clusters have
 * namespaces carrying the target's state label, so the target's syncer knows which workspaces besides its own to sync.
 * The scheduler keeps it in step with the namespaces' labels; these are its pure parts (index values, the desired
 * value, the patch), so they are table-tested without a server.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { syncTargetKey } from '../api/keys.js';
import { CONSUMER_CLUSTERS_ANNOTATION, STATE_LABEL_PREFIX } from '../api/types.js';

/** Name of the namespace informer index by state-label key (`state.workload.kcp.io/<key>`, whatever its value). */
export const NAMESPACES_BY_STATE_KEY_INDEX = 'scheduling.atrium.io/state-keys';

/** Name of the SyncTarget informer index by SyncTarget key (syncTargetKey of its cluster and name). */
export const SYNC_TARGETS_BY_KEY_INDEX = 'scheduling.atrium.io/synctarget-key';

/**
 * The SyncTarget keys of every state label a namespace carries, whatever the label's value (a namespace whose state
 * is not `Sync` any more, e.g. one being drained, still has content for that target's syncer to handle). Sorted,
 * without duplicates (label keys are unique anyway).
 */
export function stateKeysOf(ns: KubeObject): string[] {
  const out: string[] = [];
  for (const k of Object.keys(ns.metadata?.labels ?? {})) if (k.startsWith(STATE_LABEL_PREFIX) && k.length > STATE_LABEL_PREFIX.length) out.push(k.slice(STATE_LABEL_PREFIX.length));
  return out.sort();
}

/**
 * The index function for SyncTargets by key: `clusterOf` gives the object's logical cluster (the wildcard informer's
 * annotation). Keys are globally unique, so a lookup by key finds at most one SyncTarget across all workspaces.
 */
export function syncTargetKeyIndexer(clusterOf: (o: KubeObject) => string): (st: KubeObject) => string[] {
  return (st) => (st.metadata?.name ? [syncTargetKey(clusterOf(st), st.metadata.name)] : []);
}

/**
 * The desired value of the annotation: the logical clusters of `namespaces` (those carrying the target's state
 * label), other than `own` (the target's cluster), as logical cluster names, sorted and without duplicates. Empty
 * when no other cluster has such a namespace.
 */
export function consumerClusters(own: string, namespaces: readonly KubeObject[], clusterOf: (o: KubeObject) => string): string[] {
  const set = new Set<string>();
  for (const ns of namespaces) {
    const c = clusterOf(ns);
    if (c !== own) set.add(c);
  }
  return [...set].sort();
}

/**
 * The merge patch (on metadata only) that makes `target`'s annotation say `clusters`, or undefined when it already
 * does. An empty list removes the annotation (null in a merge patch); a present value is compared textually with
 * the canonical JSON form, so an annotation someone wrote in another spelling is rewritten.
 */
export function consumerClustersPatch(target: KubeObject, clusters: readonly string[]): { metadata: { annotations: Record<string, string | null> } } | undefined {
  const current = target.metadata?.annotations?.[CONSUMER_CLUSTERS_ANNOTATION];
  if (clusters.length === 0) return current === undefined ? undefined : { metadata: { annotations: { [CONSUMER_CLUSTERS_ANNOTATION]: null } } };
  const value = JSON.stringify(clusters);
  return current === value ? undefined : { metadata: { annotations: { [CONSUMER_CLUSTERS_ANNOTATION]: value } } };
}

/**
 * Parses the annotation as written by the scheduler: a JSON array of strings. Missing or malformed → []. Used by
 * readers (the splitter looks at which workspaces share a target).
 */
export function parseConsumerClusters(target: KubeObject): string[] {
  const text = target.metadata?.annotations?.[CONSUMER_CLUSTERS_ANNOTATION];
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
