/**
 * Failover decisions: which SyncTargets have been unhealthy longer than the tolerance (and so must give up their
 * work). How a workload's replicas move off them (make before break, stepped by the workload's own rollout settings;
 * a lost cluster replaced at once) is decisions/step-move.ts.
 */
import { findCondition } from '../../apimachinery/conditions.js';
import { formatRFC3339 } from '../../apimachinery/object.js';
import type { SyncTargetLike } from './types.js';

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
