/**
 * Failover decisions: which SyncTargets have been unhealthy longer than the tolerance (and so must give up their
 * work). How a workload's replicas move off them (make before break, stepped by the workload's own rollout settings;
 * a lost cluster replaced at once) is decisions/step-move.ts.
 */
import { findCondition } from '../../apimachinery/conditions.js';
import { formatRFC3339 } from '../../apimachinery/object.js';
import type { SyncTargetLike } from './types.js';

/**
 * The last instant a time stamped in whole seconds (RFC 3339 without fractions, as conditions and heartbeats are) may
 * stand for: the event happened somewhere within that second, so a duration timed from it is surely spent only when
 * timed from the second's end. A time with fractions is itself.
 */
export function secondStampEnd(ms: number): number {
  return ms % 1000 === 0 ? ms + 999 : ms;
}

/** The reason the SyncTarget controller gives Ready (from HeartbeatHealthy) when no heartbeat came within its threshold. */
export const HEARTBEAT_STALE_REASON = 'ErrorHeartbeat';

export interface FailoverPolicy {
  /** How long a target may stay unhealthy and keep its work. */
  tolerationSeconds: number;
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
  /**
   * Set on an unhealthy target whose evacuation is held because no target of the set is healthy (`NoHealthyTarget`):
   * its work would have nowhere to go.
   */
  held?: 'NoHealthyTarget';
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
 * Classifies targets by health history. A target is unhealthy when its Ready condition is not True, since that
 * condition's lastTransitionTime (reason HeartbeatStale when the SyncTarget controller turned it False for a missing
 * heartbeat); it is evacuated once unhealthy for tolerationSeconds. A target unhealthy with no time on record (no
 * transition time, no heartbeat) has never proven healthy and is evacuated at once.
 *
 * Only the Ready condition counts, as kcp's scheduler reads it, not status.lastSyncerHeartbeatTime against this
 * clock: the SyncTarget controller turns Ready False when *it* sees the heartbeat late, so the tolerance starts when
 * the lateness was observed (as the node lifecycle controller times a node from when it observed its last probe, not
 * from the node's own timestamp). Timed from the heartbeat itself, a control plane that could not run for a few
 * seconds woke up to find every target's tolerance already spent, and evacuated before the next heartbeat landed. A target whose spec.evictAfter has passed is evacuated regardless of health (drain). Cordoning
 * (spec.unschedulable) moves nothing: it only keeps new work away.
 *
 * While no target of the set is healthy, health-based evacuations are held (verdict Tolerating, `held`), as
 * kube-controller-manager's node lifecycle controller stops evicting in a zone whose nodes are all NotReady: the work
 * would have nowhere to go, and every target going quiet at once more often means that the observer itself stalled
 * (a control plane that could not run for a few seconds sees every heartbeat as late) than that every cluster failed.
 * Evacuating then removed every placement of every workload, and they came back on whichever target reported first.
 * Drains are explicit requests and still apply.
 */
export function decideEvacuations(targets: readonly SyncTargetLike[], policy: FailoverPolicy, now: Date): EvacuationDecision {
  const nowMs = now.getTime();
  const tolerance = Math.max(0, policy.tolerationSeconds) * 1000;
  const verdicts: HealthVerdict[] = [];
  /** When each Tolerating target's tolerance is spent (ms). */
  const waitingUntil: number[] = [];
  for (const target of [...targets].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    const name = target.metadata.name;
    const evictAfter = target.spec?.evictAfter ? Date.parse(target.spec.evictAfter) : NaN;
    if (!Number.isNaN(evictAfter) && evictAfter <= nowMs) {
      verdicts.push({ name, state: 'Evacuate', reason: 'Draining' });
      continue;
    }
    const since = unhealthySince(target);
    if (!since) {
      verdicts.push({ name, state: 'Healthy' });
      continue;
    }
    // Read as the start of its second, a 1 s tolerance was anything from 0 to 1 s (secondStampEnd).
    const at = tolerance > 0 ? secondStampEnd(since.ms) + tolerance : since.ms;
    const verdict: HealthVerdict = { name, state: at <= nowMs ? 'Evacuate' : 'Tolerating', reason: since.reason };
    if (Number.isFinite(since.ms)) verdict.unhealthySince = formatRFC3339(since.ms);
    if (verdict.state === 'Tolerating') {
      verdict.evacuateAt = formatRFC3339(at);
      waitingUntil.push(at);
    }
    verdicts.push(verdict);
  }
  if (verdicts.length > 0 && !verdicts.some((v) => v.state === 'Healthy')) {
    for (const v of verdicts) {
      if (v.state !== 'Evacuate' || v.reason === 'Draining') continue;
      v.state = 'Tolerating';
      v.held = 'NoHealthyTarget';
    }
  }
  const decision: EvacuationDecision = { verdicts, evacuate: verdicts.filter((v) => v.state === 'Evacuate').map((v) => v.name) };
  // Rounded up to the second (RFC 3339 has no fractions here): a caller looking again then finds the tolerance spent.
  if (waitingUntil.length > 0) decision.nextCheckAt = formatRFC3339(Math.ceil(Math.min(...waitingUntil) / 1000) * 1000);
  return decision;
}

function unhealthySince(target: SyncTargetLike): { ms: number; reason: 'NotReady' | 'HeartbeatStale' } | undefined {
  const ready = findCondition(target.status?.conditions, 'Ready');
  if (ready?.status === 'True') return undefined;
  const reason = ready?.reason === HEARTBEAT_STALE_REASON ? 'HeartbeatStale' : 'NotReady';
  const t = ready?.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  if (!Number.isNaN(t)) return { ms: t, reason };
  const beat = target.status?.lastSyncerHeartbeatTime ? Date.parse(target.status.lastSyncerHeartbeatTime) : NaN;
  return { ms: Number.isNaN(beat) ? -Infinity : beat, reason };
}
