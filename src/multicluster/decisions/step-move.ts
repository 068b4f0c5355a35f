/**
 * Make before break: one step of moving a split workload's replicas off clusters it is leaving (a placement change,
 * `kubectl atrium move`, a drain, a SyncTarget deleted, lost capacity or compatibility), bounded by the workload's own
 * rollout settings and its PodDisruptionBudgets, as kube's deployment controller bounds a rolling update:
 *
 * - at most `replicas + maxSurge` replicas exist over all clusters (kube: new + old ReplicaSets ≤ replicas +
 *   maxSurge);
 * - old replicas are removed only while at least `floor` = max(replicas − maxUnavailable, the PDBs' minimum) replicas
 *   stay ready (kube: scale old down by allPods − minAvailable − newUnavailable), counting ready replicas on the
 *   clusters that stay and, on the clusters being left, only the ready replicas they keep;
 * - a cluster that is gone (unreachable: heartbeat lost, not Ready) counts for nothing: its replicas are replaced at
 *   once, without waiting and without a surge limit on their account (its objects are not deleted on a guess; they
 *   are scaled to 0, which its syncer applies if it comes back).
 *
 * Deliberate differences from kube: the step works on replica counts per cluster, not on pods; the old cluster's
 * scale-down is left to its own deployment controller, which removes not-ready pods first (as kube's ReplicaSet
 * controller does), and the step keeps enough old replicas to cover the old cluster's not-ready ones too, so a
 * downstream controller that removed ready ones first would still not drop below the floor. Plain scaling (no cluster
 * being left) is not rate limited, as kube does not rate-limit a scale either. Pure: the splitter calls it on every
 * change of the children's reported ready counts, and it converges to `desired`.
 */
import { apportionWebster, type Party } from './webster.js';

export interface MoveStepInput {
  /** Replicas each cluster has been given so far (the children's spec.replicas). */
  current: Readonly<Record<string, number>>;
  /** The division to reach, over the clusters that stay (e.g. splitReplicas without those being left). */
  desired: Readonly<Record<string, number>>;
  /** Ready replicas each cluster reports now. */
  ready: Readonly<Record<string, number>>;
  /** Clusters being left. */
  leaving: readonly string[];
  /** Clusters that cannot be reached (gone): their replicas count for nothing. */
  unreachable?: readonly string[];
  /** Absolute maxSurge of the workload (see rolloutBudget). */
  maxSurge: number;
  /** Absolute maxUnavailable of the workload (see rolloutBudget). */
  maxUnavailable: number;
  /** The most replicas the PodDisruptionBudgets require available (absolute; 0 when none). */
  pdbMinAvailable?: number;
}

export interface MoveStep {
  /** Replicas to write per cluster this step (clusters being left included), keys in name order. */
  replicas: Record<string, number>;
  /** The ready replicas the step keeps at least (when the clusters report what they run). */
  floor: number;
  /** Clusters being left that hold nothing now and are reachable: their child may be deleted. */
  release: string[];
  /** True when every staying cluster holds its desired replicas and every cluster being left holds 0. */
  complete: boolean;
  /** Replicas still on clusters being left (reachable or not) after this step. */
  remaining: number;
}

/**
 * kube's ResolveFenceposts: maxSurge (default 25%) rounds up, maxUnavailable (default 25%) rounds down, percentages
 * of `replicas`; both 0 gives maxUnavailable 1. A Recreate strategy has no surge and everything unavailable in kube;
 * for a move that would mean an outage, so atrium moves a Recreate Deployment with maxSurge 0, maxUnavailable 1
 * (one at a time, never two versions at once more than one replica each). The PDBs' floor is applied by stepMove.
 */
export function rolloutBudget(strategy: unknown, replicas: number): { maxSurge: number; maxUnavailable: number } {
  const s = (strategy ?? {}) as { type?: string; rollingUpdate?: { maxSurge?: unknown; maxUnavailable?: unknown } };
  if (s.type === 'Recreate') return { maxSurge: 0, maxUnavailable: 1 };
  const surge = intOrPercent(s.rollingUpdate?.maxSurge ?? '25%', replicas, true);
  let unavailable = intOrPercent(s.rollingUpdate?.maxUnavailable ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { maxSurge: surge, maxUnavailable: unavailable };
}

/**
 * The minimum available a PodDisruptionBudget asks of `pods` replicas: minAvailable (integer, or percentage rounded
 * up, as kube), or pods − maxUnavailable (percentage rounded up, as kube's disruption controller). 0 without either.
 */
export function pdbMinAvailable(spec: unknown, pods: number): number {
  const s = (spec ?? {}) as { minAvailable?: unknown; maxUnavailable?: unknown };
  if (s.minAvailable !== undefined) return Math.min(pods, intOrPercent(s.minAvailable, pods, true));
  if (s.maxUnavailable !== undefined) return Math.max(0, pods - intOrPercent(s.maxUnavailable, pods, true));
  return 0;
}

function intOrPercent(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return Math.max(0, Math.floor(v));
  if (typeof v === 'string') {
    const m = /^([0-9]+)%$/.exec(v.trim());
    if (m) {
      const exact = (Number(m[1]) * total) / 100;
      return Math.max(0, roundUp ? Math.ceil(exact) : Math.floor(exact));
    }
    if (/^[0-9]+$/.test(v.trim())) return Number(v.trim());
  }
  return 0;
}

/** One step of a move (see the file comment). */
export function stepMove(input: MoveStepInput): MoveStep {
  const leavingSet = new Set(input.leaving);
  const unreachable = new Set(input.unreachable ?? []);
  const names = [...new Set([...Object.keys(input.current), ...Object.keys(input.desired)])].sort();
  const staying = names.filter((n) => !leavingSet.has(n));
  const left = names.filter((n) => leavingSet.has(n));
  const cur = (n: string) => Math.max(0, Math.floor(input.current[n] ?? 0));
  const want = (n: string) => (leavingSet.has(n) ? 0 : Math.max(0, Math.floor(input.desired[n] ?? 0)));
  const ready = (n: string) => (unreachable.has(n) ? 0 : Math.min(cur(n), Math.max(0, input.ready[n] ?? 0)));
  const total = staying.reduce((s, n) => s + want(n), 0);
  const floor = Math.min(total, Math.max(total - Math.max(0, input.maxUnavailable), input.pdbMinAvailable ?? 0));

  const next = new Map<string, number>();
  const reachableLeft = left.filter((n) => !unreachable.has(n));
  if (reachableLeft.length === 0) {
    // Nothing to make before breaking: a plain scale, or only lost clusters (replaced at once).
    for (const n of names) next.set(n, want(n));
    return finish(next, names, left, unreachable, floor);
  }
  for (const n of left) if (unreachable.has(n)) next.set(n, 0);
  // Staying clusters that should shrink do so at once (a rebalance, not a move).
  for (const n of staying) next.set(n, Math.min(cur(n), want(n)));
  const readyStaying = staying.reduce((s, n) => s + Math.min(ready(n), next.get(n)!), 0);
  // Old replicas to keep: what the staying clusters' ready replicas fall short of the floor, plus the old clusters'
  // own not-ready replicas (see the file comment); none once the staying clusters cover the floor.
  const held = reachableLeft.reduce((s, n) => s + cur(n), 0);
  const oldUnready = reachableLeft.reduce((s, n) => s + cur(n) - ready(n), 0);
  const short = Math.max(0, floor - readyStaying);
  const keep = short === 0 ? 0 : Math.min(held, short + oldUnready);
  const old: Party[] = reachableLeft.map((n) => ({ name: n, votes: Math.max(ready(n), 1e-9), seats: 0, cap: cur(n) }));
  apportionWebster(keep, old);
  for (const p of old) next.set(p.name, p.seats);
  // Growth on the staying clusters, within replicas + maxSurge over everything that still exists.
  const growers: Party[] = staying.filter((n) => want(n) > next.get(n)!).map((n) => ({ name: n, votes: want(n) - next.get(n)!, seats: 0, cap: want(n) - next.get(n)! }));
  const exists = staying.reduce((s, n) => s + next.get(n)!, 0) + keep;
  const allowance = Math.max(0, total + Math.max(0, input.maxSurge) - exists);
  apportionWebster(Math.min(allowance, growers.reduce((s, p) => s + p.cap, 0)), growers);
  for (const p of growers) next.set(p.name, next.get(p.name)! + p.seats);
  return finish(next, names, left, unreachable, floor);
}

function finish(next: Map<string, number>, names: readonly string[], left: readonly string[], unreachable: ReadonlySet<string>, floor: number): MoveStep {
  const replicas: Record<string, number> = {};
  for (const n of names) replicas[n] = next.get(n) ?? 0;
  const remaining = left.reduce((s, n) => s + replicas[n]!, 0);
  return {
    replicas,
    floor,
    release: left.filter((n) => replicas[n] === 0 && !unreachable.has(n)),
    complete: remaining === 0,
    remaining,
  };
}
