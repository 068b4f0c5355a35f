/**
 * Where a workload that runs whole on one cluster goes (StatefulSets, Jobs, CronJobs, bare Pods, ReplicaSets,
 * ReplicationControllers), and which clusters of a namespace can take a kind at all. Pure: the controller supplies
 * each cluster's acceptance of the resource and its room; the result is written on the object and kept (sticky).
 */
import { createHash } from 'node:crypto';

/** Whether a cluster serves a resource: negotiation's verdict in SyncTarget status.syncedResources. */
export type Acceptance = 'Accepted' | 'Incompatible' | 'Pending';

export interface ClusterCandidate {
  /** The SyncTarget name. */
  name: string;
  /**
   * Accepted: its syncer syncs the resource. Incompatible: negotiation refused the cluster's schema, or the
   * SyncTarget does not sync the resource (spec.resources). Pending: not reported yet.
   */
  acceptance: Acceptance;
  /** Why it is Incompatible (the field path negotiation reported, or that it does not sync the resource). */
  message?: string;
  /** How many pods of this workload still fit there; undefined when the cluster reports no allocatable. */
  room?: number;
  /** False while the SyncTarget is not Ready: it keeps what it has but gets nothing new (default true). */
  ready?: boolean;
}

/** Why no cluster could be chosen. */
export type UnschedulableReason = 'NoClusters' | 'Incompatible' | 'NoRoom' | 'Pending';

export type ClusterChoice = { cluster: string; kept: boolean } | { reason: UnschedulableReason; message: string };

export interface ChooseClusterInput {
  /** The clusters of the namespace (the Placement's choice), with their verdicts. */
  candidates: readonly ClusterCandidate[];
  /** The cluster chosen before, if any: kept while it is a candidate that does not refuse the resource. */
  current?: string;
  /** The pods the workload runs (spec.replicas, a Job's parallelism, 1). */
  pods: number;
  /** What the resource is, for messages (`statefulsets.apps`). */
  resource: string;
  /** Stable per object (its uid): spreads objects over clusters with equal room without depending on order. */
  tieBreak: string;
}

/**
 * Chooses one cluster.
 *
 * Sticky: the current cluster is kept while it is still one of the namespace's clusters and does not refuse the
 * resource — also when it is full or not Ready (a StatefulSet's data does not move because a cluster is busy;
 * failover takes the cluster off the namespace, and only then does the workload move).
 *
 * Otherwise, among the Ready clusters that accept the resource and have room for all its pods (room unknown counts as
 * unbounded): the most room first, then the lowest hash of `tieBreak` and the cluster name (rendezvous hashing:
 * stable, and objects spread over equal clusters), then the name.
 *
 * Nothing chosen: `NoClusters` when the namespace has no cluster, `Pending` while no cluster accepts the resource but
 * some have not reported it yet, `Incompatible` when every cluster refuses it, `NoRoom` when the accepting ones are
 * full.
 */
export function chooseCluster(input: ChooseClusterInput): ClusterChoice {
  const { candidates, current, pods, resource } = input;
  if (current !== undefined) {
    const c = candidates.find((x) => x.name === current);
    if (c && c.acceptance !== 'Incompatible') return { cluster: current, kept: true };
  }
  if (candidates.length === 0) return { reason: 'NoClusters', message: 'the Placement of the namespace has no SyncTarget' };
  const accepted = candidates.filter((c) => c.acceptance === 'Accepted');
  if (accepted.length === 0) {
    if (candidates.some((c) => c.acceptance === 'Pending')) return { reason: 'Pending', message: `no SyncTarget has reported ${resource} yet` };
    return { reason: 'Incompatible', message: `no SyncTarget of the namespace accepts ${resource}: ${refusals(candidates)}` };
  }
  const accepting = accepted.filter((c) => c.ready !== false);
  if (accepting.length === 0) return { reason: 'Pending', message: `no SyncTarget that accepts ${resource} is Ready` };
  const fitting = accepting.filter((c) => c.room === undefined || c.room >= pods);
  if (fitting.length === 0) {
    return { reason: 'NoRoom', message: `no SyncTarget has room for ${pods} pod${pods === 1 ? '' : 's'}: ${accepting.map((c) => `${c.name} fits ${c.room}`).join(', ')}` };
  }
  const score = (c: ClusterCandidate) => createHash('sha256').update(`${input.tieBreak}/${c.name}`).digest('hex');
  const ranked = [...fitting].sort((a, b) => {
    const ra = a.room ?? Infinity;
    const rb = b.room ?? Infinity;
    if (ra !== rb) return rb - ra;
    const sa = score(a);
    const sb = score(b);
    if (sa !== sb) return sa < sb ? -1 : 1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  return { cluster: ranked[0]!.name, kept: false };
}

/** The clusters among `candidates` that accept the resource (an Every kind runs on all of them), sorted. */
export function acceptingClusters(candidates: readonly ClusterCandidate[]): string[] {
  return candidates
    .filter((c) => c.acceptance === 'Accepted')
    .map((c) => c.name)
    .sort();
}

/**
 * Why an object that should go to `wanted` clusters goes to none: every one of them refuses the resource
 * (Incompatible) or has not reported it (Pending). Undefined when some accepts, or when nothing is wanted.
 */
export function refusal(wanted: readonly string[], candidates: readonly ClusterCandidate[], resource: string): { reason: UnschedulableReason; message: string } | undefined {
  if (wanted.length === 0) return undefined;
  const relevant = candidates.filter((c) => wanted.includes(c.name));
  if (relevant.some((c) => c.acceptance === 'Accepted')) return undefined;
  if (relevant.some((c) => c.acceptance === 'Pending') || relevant.length < wanted.length) return { reason: 'Pending', message: `no SyncTarget has reported ${resource} yet` };
  return { reason: 'Incompatible', message: `no SyncTarget it should go to accepts ${resource}: ${refusals(relevant)}` };
}

function refusals(candidates: readonly ClusterCandidate[]): string {
  return [...candidates]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((c) => `${c.name}: ${c.acceptance === 'Incompatible' ? (c.message ?? 'Incompatible') : 'not reported'}`)
    .join('; ');
}
