/**
 * Status conditions: finding them, and setting one the way upstream does. Two setters, because upstream has two rules:
 *
 * - setStatusCondition: k8s.io/apimachinery meta.SetStatusCondition, which the Kubernetes types' own helpers follow
 *   too (apiextensions SetCRDCondition, the namespace deleter's updateConditions, podutil.UpdatePodCondition, kcp's
 *   APIResourceImport.SetCondition): lastTransitionTime moves only when the status changes; reason, message and
 *   observedGeneration are replaced in place; a new condition is appended.
 * - setKcpCondition: kcp's conditions.Set (third_party/conditions/util/conditions), for kcp's condition type
 *   (Workspace, SyncTarget, Placement): lastTransitionTime moves when the state changes - status, reason, severity or
 *   message - and the list is sorted with Ready first, then by type.
 *
 * Empty reason/message/severity are absent, as Go's omitempty writes them.
 */

/** The fields the setters read and write; condition types add their own (lastProbeTime, lastUpdateTime, ...). */
export interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
  severity?: string;
}

/** A condition to set: lastTransitionTime may be given (it is used when the time moves), else it is `now`. */
export type ConditionUpdate<C extends StatusCondition> = Omit<C, 'lastTransitionTime'> & { lastTransitionTime?: string };

/** meta.FindStatusCondition: the condition of `type`, if present. */
export function findCondition<C extends { type: string }>(conditions: readonly C[] | null | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** meta.IsStatusConditionTrue: whether the condition of `type` is present with status True. */
export function isConditionTrue(conditions: readonly { type: string; status: string }[] | null | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** Sets or deletes an optional text field, Go-omitempty style; returns whether it changed. */
function assignText(target: Record<string, unknown>, key: string, value: string | undefined): boolean {
  const before = (target[key] as string | undefined) ?? '';
  if (value) target[key] = value;
  else delete target[key];
  return before !== (value ?? '');
}

/** The condition as it is appended: the given fields without empty texts, and a lastTransitionTime. */
function newCondition<C extends StatusCondition>(cond: ConditionUpdate<C>, now: string): C {
  const c = { ...cond, lastTransitionTime: cond.lastTransitionTime || now } as C & Record<string, unknown>;
  for (const k of ['reason', 'message', 'severity'] as const) if (!c[k]) delete c[k];
  if (c.observedGeneration === undefined) delete c.observedGeneration;
  return c;
}

/**
 * meta.SetStatusCondition, in place: a new type is appended (lastTransitionTime = the given one or `now`); an existing
 * one gets the new status (lastTransitionTime moving only if the status changed, or if it had none, as
 * SetCRDCondition fills it), reason, message and observedGeneration. Other fields of the existing entry are kept.
 * Returns whether anything changed.
 */
export function setStatusCondition<C extends StatusCondition>(conditions: C[], cond: ConditionUpdate<C>, now: string): boolean {
  const existing = findCondition(conditions, cond.type);
  if (!existing) {
    conditions.push(newCondition(cond, now));
    return true;
  }
  let changed = false;
  if (existing.status !== cond.status || !existing.lastTransitionTime) {
    changed = true;
    existing.status = cond.status;
    existing.lastTransitionTime = cond.lastTransitionTime || now;
  }
  const target = existing as unknown as Record<string, unknown>;
  if (assignText(target, 'reason', cond.reason)) changed = true;
  if (assignText(target, 'message', cond.message)) changed = true;
  if (existing.observedGeneration !== cond.observedGeneration) {
    if (cond.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = cond.observedGeneration;
    changed = true;
  }
  return changed;
}

function sameKcpState(a: StatusCondition, b: StatusCondition): boolean {
  return a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.severity ?? '') === (b.severity ?? '') && (a.message ?? '') === (b.message ?? '');
}

/** kcp's order: Ready first, then by type. */
function kcpLess(a: StatusCondition, b: StatusCondition): number {
  if (a.type === b.type) return 0;
  if (a.type === 'Ready') return -1;
  if (b.type === 'Ready') return 1;
  return a.type < b.type ? -1 : 1;
}

/**
 * kcp's conditions.Set, returning a new list (the entries of `conditions` are not changed): an existing condition of
 * the type is replaced, with lastTransitionTime `now`, unless status, reason, severity and message are all the same
 * (then it stays as it is); a new one is appended with the given lastTransitionTime or `now`. The list comes back
 * sorted, Ready first, then by type.
 */
export function setKcpCondition<C extends StatusCondition>(conditions: readonly C[], cond: ConditionUpdate<C>, now: string): C[] {
  const out = [...conditions];
  const i = out.findIndex((c) => c.type === cond.type);
  if (i < 0) out.push(newCondition(cond, now));
  else if (!sameKcpState(out[i]!, cond as StatusCondition)) out[i] = newCondition({ ...cond, lastTransitionTime: now }, now);
  return out.sort(kcpLess);
}
