/**
 * Conditions someone else set on an object's status upstream (a user's `kubectl patch --subresource=status`, another
 * controller) that the status coming up from its cluster must not wipe: a kind's own controller keeps the conditions
 * it does not manage and rewrites the rest, so upstream the cluster's status replaces everything but those.
 *
 * A condition type is the cluster's when the cluster's status carries it or when the kind's controllers manage it
 * (they remove it as well: a Deployment's ReplicaFailure once resolved); any other type on the upstream object is
 * foreign and kept, where it was. Kinds not listed (custom resources, whose operators' condition types are not known)
 * get the cluster's status as it is. Pure.
 */

/** The condition types each kind's own controllers (and kubelet) set and remove, kube 1.32. */
const MANAGED_CONDITION_TYPES: Readonly<Record<string, readonly string[]>> = {
  deployments: ['Available', 'Progressing', 'ReplicaFailure'],
  replicasets: ['ReplicaFailure'],
  replicationcontrollers: ['ReplicaFailure'],
  statefulsets: [],
  daemonsets: [],
  jobs: ['Complete', 'Failed', 'Suspended', 'FailureTarget', 'SuccessCriteriaMet'],
  cronjobs: [],
  pods: ['PodScheduled', 'PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'DisruptionTarget', 'PodResizePending', 'PodResizeInProgress'],
  persistentvolumeclaims: ['Resizing', 'FileSystemResizePending', 'ControllerResizeError', 'NodeResizeError', 'ModifyVolumeError', 'ModifyingVolume'],
  poddisruptionbudgets: ['DisruptionAllowed'],
  horizontalpodautoscalers: ['AbleToScale', 'ScalingActive', 'ScalingLimited'],
};

type Condition = { type?: unknown };
type Status = Record<string, unknown> & { conditions?: unknown };

/** The cluster's status `fromCluster` for `resource` with the foreign conditions of `upstream` (its current status) kept. */
export function withForeignConditions(resource: string, fromCluster: unknown, upstream: unknown): unknown {
  const managed = MANAGED_CONDITION_TYPES[resource];
  if (!managed || !upstream || typeof upstream !== 'object') return fromCluster;
  const upConditions = (upstream as Status).conditions;
  if (!Array.isArray(upConditions) || upConditions.length === 0) return fromCluster;
  const status = (fromCluster && typeof fromCluster === 'object' ? fromCluster : {}) as Status;
  const clusterConditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const clusterTypes = new Set(clusterConditions.map((c) => c.type));
  const foreign = (upConditions as Condition[]).filter((c) => !clusterTypes.has(c.type) && !managed.includes(c.type as string));
  if (foreign.length === 0) return fromCluster;
  return { ...status, conditions: [...clusterConditions, ...foreign] };
}
