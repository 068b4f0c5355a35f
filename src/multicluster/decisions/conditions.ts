/** Small helpers over status condition lists, shared by the decision functions. */
import type { Condition } from './types.js';

/** The condition of `type` in `conditions`, or undefined. */
export function findCondition(conditions: readonly Condition[] | null | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Returns `next` with lastTransitionTime carried over from the same-typed condition in `previous` when the status did
 * not change (a transition time records a status change, not a re-evaluation), or set to `now` when it did.
 */
export function withTransitionTime(next: Condition, previous: readonly Condition[] | null | undefined, now: Date): Condition {
  const before = findCondition(previous, next.type);
  const lastTransitionTime = before && before.status === next.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(now);
  return { ...next, lastTransitionTime };
}

/** metav1.Time's wire form: RFC 3339 in UTC with whole seconds. */
export function rfc3339(t: Date): string {
  return new Date(Math.floor(t.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
