/**
 * Folds the statuses a workload reports from each of its clusters into the one status the user's object shows, so
 * `kubectl rollout status` and `kubectl wait --for=condition=Available` tell the truth about the whole fleet:
 * counters are summed (Divided) or taken at the weakest cluster (Duplicated), conditions are consolidated
 * pessimistically, and observedGeneration only reaches the object's generation once every cluster has observed it.
 */
import { findCondition } from '../../apimachinery/conditions.js';
import type { Condition, DeploymentStatus, ReplicaMode } from './types.js';

/** What one cluster reports about its copy of the workload. */
export interface ClusterWorkloadStatus {
  /** The SyncTarget name. */
  target: string;
  /** The upstream metadata.generation whose spec was last written to this cluster; undefined before the first write. */
  syncedGeneration?: number;
  /** The downstream object's metadata.generation. */
  generation?: number;
  /** The downstream object's status; undefined when none has been reported yet. */
  status?: DeploymentStatus;
}

export interface AggregateStatusInput {
  /** The user's object's metadata.generation. */
  generation: number;
  /** The user's object's spec.replicas (only used when no cluster is assigned). */
  replicas?: number;
  /** The observedGeneration the user's object shows now. */
  previousObservedGeneration?: number;
  /** Divided (default) sums counters; Duplicated takes each cluster's copy as the whole workload. */
  mode?: ReplicaMode;
  /** One entry per assigned cluster, including clusters that are unreachable or being evacuated. */
  clusters: readonly ClusterWorkloadStatus[];
}

/** Condition types whose True means healthy, and the one whose True means a failure. */
const POSITIVE = ['Available', 'Progressing'] as const;
const NEGATIVE = 'ReplicaFailure';

/**
 * Aggregates per-cluster Deployment statuses (any kind with the same replica counters works).
 *
 * Counters (replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas): Divided sums them;
 * Duplicated takes the minimum of the first four and the maximum of unavailableReplicas. A cluster with no status
 * counts as all zeros.
 *
 * observedGeneration: the object's generation when every cluster has (a) been written that generation's spec and
 * (b) reported status.observedGeneration ≥ its downstream generation. Otherwise the previous value, lowered to at most
 * generation − 1 so a cluster that has not caught up keeps rollout status waiting. With no cluster it is the
 * generation only when no replica is wanted.
 *
 * Conditions, in the order Available, Progressing, ReplicaFailure:
 * - Available and Progressing are True only when True on every cluster, False when False on any, else Unknown (a
 *   cluster that reports nothing counts as Unknown). A False or Unknown carries the reason of the first such cluster
 *   by name and its message prefixed with `SyncTarget "<name>": `. A True Progressing keeps a still-progressing reason
 *   (anything but NewReplicaSetAvailable) if some cluster has one. lastTransitionTime and lastUpdateTime are the
 *   latest among the clusters that decided the status.
 * - ReplicaFailure appears (True) when any cluster has it True, and is omitted otherwise.
 * With no cluster: Available=False, reason NoSyncTargets, unless no replica is wanted; nothing else.
 */
export function aggregateDeploymentStatus(input: AggregateStatusInput): DeploymentStatus {
  const clusters = [...input.clusters].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
  const out: DeploymentStatus = {};
  const observed = observedGeneration(input, clusters);
  if (observed !== undefined) out.observedGeneration = observed;
  Object.assign(out, counters(clusters, input.mode ?? 'Divided'));
  out.conditions = clusters.length === 0 ? unassignedConditions(input) : consolidatedConditions(clusters);
  return out;
}

function observedGeneration(input: AggregateStatusInput, clusters: readonly ClusterWorkloadStatus[]): number | undefined {
  const caughtUp =
    clusters.length === 0
      ? (input.replicas ?? 1) === 0
      : clusters.every(
          (c) =>
            c.syncedGeneration === input.generation &&
            c.generation !== undefined &&
            c.status?.observedGeneration !== undefined &&
            c.status.observedGeneration >= c.generation,
        );
  if (caughtUp) return input.generation;
  if (input.previousObservedGeneration === undefined) return undefined;
  return Math.min(input.previousObservedGeneration, input.generation - 1);
}

type Counters = Required<Pick<DeploymentStatus, 'replicas' | 'updatedReplicas' | 'readyReplicas' | 'availableReplicas' | 'unavailableReplicas'>>;

function counters(clusters: readonly ClusterWorkloadStatus[], mode: ReplicaMode): Counters {
  const read = (c: ClusterWorkloadStatus, field: keyof Counters) => c.status?.[field] ?? 0;
  const combine = (field: keyof Counters, pick: (values: number[]) => number) =>
    clusters.length === 0 ? 0 : pick(clusters.map((c) => read(c, field)));
  const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
  const min = (v: number[]) => Math.min(...v);
  const max = (v: number[]) => Math.max(...v);
  const most = mode === 'Divided' ? sum : min;
  return {
    replicas: combine('replicas', most),
    updatedReplicas: combine('updatedReplicas', most),
    readyReplicas: combine('readyReplicas', most),
    availableReplicas: combine('availableReplicas', most),
    unavailableReplicas: combine('unavailableReplicas', mode === 'Divided' ? sum : max),
  };
}

function consolidatedConditions(clusters: readonly ClusterWorkloadStatus[]): Condition[] {
  const out: Condition[] = POSITIVE.map((type) => consolidatePositive(type, clusters));
  const failing = clusters.filter((c) => conditionOf(c, NEGATIVE)?.status === 'True');
  if (failing.length > 0) out.push(fromCluster(NEGATIVE, 'True', failing, failing[0]!));
  return out;
}

function consolidatePositive(type: string, clusters: readonly ClusterWorkloadStatus[]): Condition {
  const statusOf = (c: ClusterWorkloadStatus) => conditionOf(c, type)?.status ?? 'Unknown';
  const falses = clusters.filter((c) => statusOf(c) === 'False');
  if (falses.length > 0) return fromCluster(type, 'False', falses, falses[0]!);
  const unknowns = clusters.filter((c) => statusOf(c) === 'Unknown');
  if (unknowns.length > 0) return fromCluster(type, 'Unknown', unknowns, unknowns[0]!);
  const representative =
    type === 'Progressing' ? (clusters.find((c) => conditionOf(c, type)?.reason !== 'NewReplicaSetAvailable') ?? clusters[0]!) : clusters[0]!;
  return fromCluster(type, 'True', clusters, representative, false);
}

/** A condition of `status` decided by `deciders`, worded after `representative`. */
function fromCluster(
  type: string,
  status: Condition['status'],
  deciders: readonly ClusterWorkloadStatus[],
  representative: ClusterWorkloadStatus,
  prefix = true,
): Condition {
  const own = conditionOf(representative, type);
  const reason = own?.reason ?? (own ? undefined : 'StatusUnknown');
  const text = own ? own.message : 'no status reported';
  const message = prefix ? `SyncTarget "${representative.target}": ${text ?? ''}`.trimEnd() : text;
  const c: Condition = { type, status };
  const lastUpdateTime = latest(deciders.map((d) => conditionOf(d, type)?.lastUpdateTime));
  const lastTransitionTime = latest(deciders.map((d) => conditionOf(d, type)?.lastTransitionTime));
  if (lastUpdateTime) c.lastUpdateTime = lastUpdateTime;
  if (lastTransitionTime) c.lastTransitionTime = lastTransitionTime;
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

function unassignedConditions(input: AggregateStatusInput): Condition[] {
  if ((input.replicas ?? 1) === 0) return [];
  return [{ type: 'Available', status: 'False', reason: 'NoSyncTargets', message: 'The workload is not assigned to any SyncTarget' }];
}

function conditionOf(c: ClusterWorkloadStatus, type: string): Condition | undefined {
  return findCondition(c.status?.conditions, type);
}

/** The latest of some RFC 3339 timestamps (they compare correctly as strings only when formatted alike, so parse). */
function latest(times: readonly (string | undefined)[]): string | undefined {
  let best: string | undefined;
  let bestMs = -Infinity;
  for (const t of times) {
    const ms = t ? Date.parse(t) : NaN;
    if (!Number.isNaN(ms) && ms > bestMs) {
      best = t;
      bestMs = ms;
    }
  }
  return best;
}
