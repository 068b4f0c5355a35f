/**
 * Controllers that adopt pods: a ReplicaSet or ReplicationController created where bare Pods matching its selector
 * already run (and no controller owns them) adopts them on one cluster, so in a workspace it goes to the cluster those
 * pods were placed on — there the cluster's controller adopts their copies, and the syncer carries the ownership up
 * (syncer/resource-syncer.ts): the upstream pods are owned by the upstream controller, as on one cluster. Jobs select
 * their pods by a selector generated from their own uid (no orphan can match it but with manualSelector), and the
 * other kinds of the placement table make their own pods. Pure.
 */
import { fromLabelSelector, LabelSelectorParseError, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** The kinds whose controllers adopt matching orphan pods here, with how their selector reads. */
const ADOPTERS: Readonly<Record<string, (spec: Record<string, unknown>) => LabelSelectorSpec | undefined>> = {
  ReplicaSet: (spec) => spec.selector as LabelSelectorSpec | undefined,
  ReplicationController: (spec) => (spec.selector && typeof spec.selector === 'object' ? { matchLabels: spec.selector as Record<string, string> } : undefined),
};

/** Whether `kind` adopts orphan pods matching its selector (ReplicaSet, ReplicationController). */
export function adoptsPods(kind: string): boolean {
  return kind in ADOPTERS;
}

/** The clusters of `pods` (live bare Pods and where each was placed) that `adopter` of `kind` would adopt. */
export function orphanClusters(kind: string, adopter: KubeObject, pods: readonly { pod: KubeObject; cluster: string | undefined }[]): Set<string> {
  const out = new Set<string>();
  const selectorOf = ADOPTERS[kind];
  const spec = selectorOf?.((adopter.spec ?? {}) as Record<string, unknown>);
  if (!spec || (!spec.matchLabels && !spec.matchExpressions)) return out;
  let selector;
  try {
    selector = fromLabelSelector(spec);
  } catch (err) {
    if (err instanceof LabelSelectorParseError) return out;
    throw err;
  }
  for (const { pod, cluster } of pods) {
    if (cluster === undefined || pod.metadata?.deletionTimestamp) continue;
    if ((pod.metadata?.ownerReferences ?? []).some((r) => r.controller === true)) continue;
    if (selector.matches(pod.metadata?.labels ?? {})) out.add(cluster);
  }
  return out;
}
