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
  /** The replicas the cluster was given (the child's spec.replicas), for messages. */
  replicas?: number;
  /**
   * False when the cluster does not report now (its SyncTarget is not Ready: heartbeat lost): what it last reported
   * is not counted (no ready, available or updated replicas; its replicas count as unavailable) and its conditions
   * are False with reason ClusterUnreachable.
   */
  reachable?: boolean;
}

/** A move in progress (make before break), shown as the Moving condition. */
export interface MoveProgress {
  /** Clusters being left. */
  from: readonly string[];
  /** Clusters moved to (the workload's assigned clusters). */
  to: readonly string[];
  /** Replicas still on the clusters being left. */
  remaining: number;
  /** Ready replicas kept at least during the move. */
  floor: number;
  /** The Moving condition the object shows now (its lastTransitionTime is kept). */
  previous?: Condition;
  /** Clusters being left that are unreachable. */
  lost?: readonly string[];
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
  /**
   * The replicas that must be available for the workload to be Available (kube: replicas − maxUnavailable). When
   * given, Available is decided on the sums, as kube decides it on the Deployment's pods: True when the clusters
   * together have that many available, else False naming the clusters short of their share. Without it, Available is
   * True only when True on every cluster.
   */
  minAvailable?: number;
  /** A move in progress: adds the Moving condition (True). Without it there is no Moving condition. */
  move?: MoveProgress;
  /** Now, for the Moving condition's lastTransitionTime (RFC 3339). */
  now?: string;
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
  const clusters = [...input.clusters].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0)).map(asReported);
  const out: DeploymentStatus = {};
  const observed = observedGeneration(input, clusters);
  if (observed !== undefined) out.observedGeneration = observed;
  Object.assign(out, counters(clusters, input.mode ?? 'Divided'));
  out.conditions = clusters.length === 0 ? unassignedConditions(input) : consolidatedConditions(clusters);
  if (clusters.length > 0 && input.minAvailable !== undefined) {
    const available = availability(clusters, out.availableReplicas ?? 0, input.minAvailable);
    out.conditions = out.conditions.map((c) => (c.type === 'Available' ? available : c));
  }
  if (input.move) out.conditions.push(movingCondition(input.move, out.readyReplicas ?? 0, input.now));
  return out;
}

/** What counts of a cluster: as reported, or, for an unreachable one, nothing ready and conditions ClusterUnreachable. */
function asReported(c: ClusterWorkloadStatus): ClusterWorkloadStatus {
  if (c.reachable !== false) return c;
  const held = c.replicas ?? c.status?.replicas ?? 0;
  const message = `the cluster does not report (heartbeat lost or not Ready); its ${held} replicas are not counted`;
  const conditions: Condition[] = POSITIVE.map((type) => ({ type, status: 'False', reason: 'ClusterUnreachable', message }));
  return { ...c, status: { ...(c.status ?? {}), replicas: held, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0, unavailableReplicas: held, conditions } };
}

/** Available decided on the sums (see AggregateStatusInput.minAvailable). */
function availability(clusters: readonly ClusterWorkloadStatus[], available: number, minAvailable: number): Condition {
  const when = latest(clusters.map((c) => conditionOf(c, 'Available')?.lastTransitionTime));
  const base: Condition = { type: 'Available', status: 'True' };
  if (available >= minAvailable) {
    Object.assign(base, { reason: 'MinimumReplicasAvailable', message: `Deployment has minimum availability: ${available} available, ${minAvailable} required` });
  } else {
    const short = clusters.filter((c) => conditionOf(c, 'Available')?.status !== 'True' || (c.replicas !== undefined && (c.status?.availableReplicas ?? 0) < c.replicas));
    const named = (short.length > 0 ? short : clusters)
      .map((c) => `SyncTarget "${c.target}": ${c.status?.availableReplicas ?? 0}${c.replicas !== undefined ? `/${c.replicas}` : ''} available${conditionOf(c, 'Available')?.reason === 'ClusterUnreachable' ? ' (unreachable)' : ''}`)
      .join('; ');
    const first = short[0] ?? clusters[0]!;
    const reason = conditionOf(first, 'Available')?.reason === 'ClusterUnreachable' ? 'ClusterUnreachable' : 'MinimumReplicasUnavailable';
    Object.assign(base, { status: 'False', reason, message: `Deployment does not have minimum availability: ${available} available, ${minAvailable} required; ${named}` });
  }
  if (when) base.lastTransitionTime = when;
  return base;
}

/** The Moving condition of a move in progress. */
function movingCondition(move: MoveProgress, ready: number, now: string | undefined): Condition {
  const list = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ') || 'nowhere';
  const lost = move.lost ?? [];
  const reason = lost.length > 0 ? 'FailingOver' : 'MakeBeforeBreak';
  const message =
    lost.length > 0
      ? `moving off ${list(move.from)} to ${list(move.to)}: ${list(lost)} unreachable, its replicas are replaced without waiting and are not counted; ${ready} ready`
      : move.remaining > 0
        ? `moving off ${list(move.from)} to ${list(move.to)}: ${move.remaining} replicas left to move, ${ready} ready (at least ${move.floor} kept ready)`
        : `moved to ${list(move.to)}: removing the copies on ${list(move.from)}`;
  const c: Condition = { type: 'Moving', status: 'True', reason, message };
  const since = move.previous?.status === 'True' ? move.previous.lastTransitionTime : now;
  if (since) c.lastTransitionTime = since;
  return c;
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
