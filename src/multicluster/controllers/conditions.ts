/** Conditions on multi-cluster objects (SyncTarget, APIResourceImport), set as apimachinery's SetStatusCondition does. */
import type { Condition } from '../api/types.js';

/**
 * Sets `cond` in `status.conditions`: lastTransitionTime moves only when the status changes; reason and message are
 * always replaced. Conditions keep their order; new ones are appended.
 */
export function setCondition(status: { conditions?: Condition[] }, cond: Omit<Condition, 'lastTransitionTime'>, now: string): void {
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) {
    conditions.push({ ...cond, lastTransitionTime: now });
    return;
  }
  if (existing.status !== cond.status) existing.lastTransitionTime = now;
  existing.status = cond.status;
  if (cond.reason === undefined) delete existing.reason;
  else existing.reason = cond.reason;
  if (cond.message === undefined) delete existing.message;
  else existing.message = cond.message;
}

/** The condition of `type`, if present. */
export function findCondition(status: { conditions?: Condition[] } | undefined, type: string): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}
