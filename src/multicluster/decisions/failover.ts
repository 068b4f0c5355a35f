/**
 * Failover decisions: which SyncTargets have been unhealthy longer than the tolerance (and so must give up their
 * work), and how to move a workload's replicas off them gracefully: replacements first, the old replicas only once
 * enough replacements are ready, a bounded number in flight at a time, and nothing ever deleted on a cluster merely
 * because it is unreachable.
 */
import { findCondition } from '../../apimachinery/conditions.js';
import { formatRFC3339 } from '../../apimachinery/object.js';
import type { SyncTargetLike } from './types.js';
import { apportionWebster, type Party } from './webster.js';

export interface FailoverPolicy {
  /** How long a target may stay unhealthy and keep its work. */
  tolerationSeconds: number;
  /** A heartbeat older than this makes the target unhealthy (kcp's --sync-target-heartbeat-threshold, 1m). */
  heartbeatThresholdSeconds?: number;
}

/**
 * `Healthy`: keeps its work. `Tolerating`: unhealthy but within the tolerance, keeps its work. `Evacuate`: its work
 * moves. Reasons: `NotReady` (Ready condition not True), `HeartbeatStale` (no heartbeat within the threshold),
 * `Draining` (spec.evictAfter passed: an explicit request, no tolerance applies).
 */
export interface HealthVerdict {
  name: string;
  state: 'Healthy' | 'Tolerating' | 'Evacuate';
  reason?: 'NotReady' | 'HeartbeatStale' | 'Draining';
  /** When the target became unhealthy (RFC 3339), if it is. */
  unhealthySince?: string;
  /** When a Tolerating target will be evacuated (RFC 3339). */
  evacuateAt?: string;
}

export interface EvacuationDecision {
  /** One verdict per target, sorted by name. */
  verdicts: HealthVerdict[];
  /** The names of the targets whose work must move, sorted. */
  evacuate: string[];
  /** The earliest evacuateAt among Tolerating targets: when the caller should look again. */
  nextCheckAt?: string;
}

/**
 * Classifies targets by health history. A target is unhealthy when its Ready condition is not True (since that
 * condition's lastTransitionTime) or when status.lastSyncerHeartbeatTime is older than the heartbeat threshold (since
 * the heartbeat plus the threshold); the earlier start counts. It is evacuated once unhealthy for tolerationSeconds.
 * A target unhealthy with no time on record (no transition time, no heartbeat) has never proven healthy and is
 * evacuated at once. A target whose spec.evictAfter has passed is evacuated regardless of health (drain). Cordoning
 * (spec.unschedulable) moves nothing: it only keeps new work away.
 */
export function decideEvacuations(targets: readonly SyncTargetLike[], policy: FailoverPolicy, now: Date): EvacuationDecision {
  const nowMs = now.getTime();
  const threshold = (policy.heartbeatThresholdSeconds ?? 60) * 1000;
  const tolerance = Math.max(0, policy.tolerationSeconds) * 1000;
  const verdicts: HealthVerdict[] = [];
  for (const target of [...targets].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    const name = target.metadata.name;
    const evictAfter = target.spec?.evictAfter ? Date.parse(target.spec.evictAfter) : NaN;
    if (!Number.isNaN(evictAfter) && evictAfter <= nowMs) {
      verdicts.push({ name, state: 'Evacuate', reason: 'Draining' });
      continue;
    }
    const since = unhealthySince(target, nowMs, threshold);
    if (!since) {
      verdicts.push({ name, state: 'Healthy' });
      continue;
    }
    const at = since.ms + tolerance;
    const verdict: HealthVerdict = { name, state: at <= nowMs ? 'Evacuate' : 'Tolerating', reason: since.reason };
    if (Number.isFinite(since.ms)) verdict.unhealthySince = formatRFC3339(since.ms);
    if (verdict.state === 'Tolerating') verdict.evacuateAt = formatRFC3339(at);
    verdicts.push(verdict);
  }
  const waiting = verdicts.filter((v) => v.evacuateAt).map((v) => v.evacuateAt!);
  const decision: EvacuationDecision = { verdicts, evacuate: verdicts.filter((v) => v.state === 'Evacuate').map((v) => v.name) };
  if (waiting.length > 0) decision.nextCheckAt = waiting.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
  return decision;
}

function unhealthySince(target: SyncTargetLike, nowMs: number, threshold: number): { ms: number; reason: 'NotReady' | 'HeartbeatStale' } | undefined {
  const candidates: { ms: number; reason: 'NotReady' | 'HeartbeatStale' }[] = [];
  const ready = findCondition(target.status?.conditions, 'Ready');
  const beat = target.status?.lastSyncerHeartbeatTime ? Date.parse(target.status.lastSyncerHeartbeatTime) : NaN;
  if (ready?.status !== 'True') {
    const t = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
    candidates.push({ ms: Number.isNaN(t) ? (Number.isNaN(beat) ? -Infinity : beat) : t, reason: 'NotReady' });
  }
  if (!Number.isNaN(beat) && beat + threshold < nowMs) candidates.push({ ms: beat + threshold, reason: 'HeartbeatStale' });
  if (candidates.length === 0) return undefined;
  return candidates.reduce((a, b) => (b.ms < a.ms ? b : a));
}

export interface MovePlanInput {
  /** Replicas each cluster has been given so far (what is written downstream now). */
  current: Readonly<Record<string, number>>;
  /** The division to reach, over surviving clusters only (e.g. splitReplicas without the evacuated targets). */
  desired: Readonly<Record<string, number>>;
  /** Ready replicas each cluster reports. */
  ready: Readonly<Record<string, number>>;
  /** Targets being emptied. */
  evacuating: readonly string[];
  /** Targets that cannot be reached now; they are never released, only scaled down once reachable. */
  unreachable?: readonly string[];
  /** At most this many replacement replicas may be requested and not yet ready at any time (≥ 1). */
  maxInFlight: number;
}

export interface MovePlan {
  /** Replicas to write per cluster this step (evacuated clusters included), keys in name order. */
  replicas: Record<string, number>;
  /** Replacement replicas requested by this step on top of `current`. */
  added: number;
  /** Replicas taken off evacuated clusters by this step. */
  removed: number;
  /** Evacuated targets left with nothing and reachable: the caller may now remove the workload from them. */
  release: string[];
  /** True when `replicas` equals `desired` and every evacuated cluster is at 0. */
  complete: boolean;
}

/**
 * One step of a graceful move. Without evacuating targets it returns `desired` as is (plain scaling is not rate
 * limited). Otherwise:
 * - surviving clusters that should shrink do so at once;
 * - surviving clusters that should grow get more replicas only while fewer than `maxInFlight` of their replicas are
 *   not ready; the allowance is divided by Webster in proportion to what each still needs;
 * - evacuated clusters keep as many replicas as the survivors' ready replicas fall short of the desired total (old
 *   replicas are kept until new ones are ready), shrinking in proportion to what each holds;
 * - an evacuated target is released only when it holds 0 replicas and is reachable: unreachable clusters keep their
 *   objects (scaled to 0 later), they are never deleted on a guess.
 * Call it again whenever ready counts change; it converges to `desired`.
 */
export function planMoves(input: MovePlanInput): MovePlan {
  const evacuating = new Set(input.evacuating);
  const unreachable = new Set(input.unreachable ?? []);
  const names = [...new Set([...Object.keys(input.current), ...Object.keys(input.desired)])].sort();
  const survivors = names.filter((n) => !evacuating.has(n));
  const evacuated = names.filter((n) => evacuating.has(n));
  const cur = (n: string) => Math.max(0, input.current[n] ?? 0);
  const want = (n: string) => (evacuating.has(n) ? 0 : Math.max(0, input.desired[n] ?? 0));
  const ready = (n: string) => Math.max(0, input.ready[n] ?? 0);

  const next = new Map<string, number>();
  if (evacuated.length === 0) {
    for (const n of names) next.set(n, want(n));
    return finish(next, names, input, evacuated, unreachable, 0);
  }
  for (const n of survivors) next.set(n, Math.min(cur(n), want(n)));
  const inFlight = survivors.reduce((sum, n) => sum + Math.max(0, next.get(n)! - ready(n)), 0);
  const growers: Party[] = survivors.filter((n) => want(n) > cur(n)).map((n) => ({ name: n, votes: want(n) - cur(n), seats: 0, cap: want(n) - cur(n) }));
  const allowance = Math.max(0, Math.max(1, Math.floor(input.maxInFlight)) - inFlight);
  apportionWebster(Math.min(allowance, growers.reduce((s, p) => s + p.cap, 0)), growers);
  for (const p of growers) next.set(p.name, cur(p.name) + p.seats);

  const desiredTotal = survivors.reduce((s, n) => s + want(n), 0);
  const servingOnSurvivors = survivors.reduce((s, n) => s + Math.min(ready(n), next.get(n)!), 0);
  const held = evacuated.reduce((s, n) => s + cur(n), 0);
  const keep = Math.max(0, Math.min(held, desiredTotal - servingOnSurvivors));
  const old: Party[] = evacuated.map((n) => ({ name: n, votes: cur(n), seats: 0, cap: cur(n) }));
  apportionWebster(keep, old);
  for (const p of old) next.set(p.name, p.seats);
  return finish(next, names, input, evacuated, unreachable, held - keep);
}

function finish(
  next: Map<string, number>,
  names: readonly string[],
  input: MovePlanInput,
  evacuated: readonly string[],
  unreachable: ReadonlySet<string>,
  removed: number,
): MovePlan {
  const replicas: Record<string, number> = {};
  let added = 0;
  for (const n of names) {
    replicas[n] = next.get(n)!;
    if (!evacuated.includes(n)) added += Math.max(0, replicas[n]! - Math.max(0, input.current[n] ?? 0));
  }
  const complete = names.every((n) => replicas[n] === (evacuated.includes(n) ? 0 : Math.max(0, input.desired[n] ?? 0)));
  const release = evacuated.filter((n) => replicas[n] === 0 && !unreachable.has(n));
  return { replicas, added, removed, release, complete };
}
