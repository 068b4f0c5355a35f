/**
 * The rules kube-apiserver 1.32's ValidatePodUpdate applies to the pod spec fields a Pod update may change, before
 * comparing the rest: activeDeadlineSeconds may only be set or lowered, tolerations may be added but existing ones
 * may only have their tolerationSeconds changed, and scheduling gates may only be removed. (kube-apiserver's
 * DefaultTolerationSeconds admission re-adds its not-ready/unreachable tolerations on update; atrium adds none.)
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import type { JsonObject } from '../../../apimachinery/object.js';
import { isSet, list, num, obj, str } from './pod-validation-helpers.js';
import { validateTolerations } from './pod-level-validation.js';

const INT32_MAX = 2147483647;

/** A toleration as upstream compares it, tolerationSeconds left out. */
const tolerationKey = (t: unknown): string => JSON.stringify([str(obj(t).key), str(obj(t).operator), str(obj(t).value), str(obj(t).effect)]);

/** validateOnlyAddedTolerations: every old toleration is still there (up to tolerationSeconds), then the new list. */
function onlyAddedTolerations(next: unknown, old: unknown, path: string): FieldError[] {
  const kept = new Set(list(next).map(tolerationKey));
  if (list(old).some((t) => !kept.has(tolerationKey(t)))) return [fe.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  return validateTolerations(next, path);
}

/** validateOnlyDeletedSchedulingGates: a gate the old Pod did not have is forbidden. */
function onlyDeletedSchedulingGates(next: unknown, old: unknown, path: string): FieldError[] {
  const had = new Set(list(old).map((g) => str(obj(g).name)));
  const errs: FieldError[] = [];
  list(next).forEach((g, i) => {
    const name = str(obj(g).name);
    if (!had.has(name)) errs.push(fe.forbidden(`${path}[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
  });
  return errs;
}

/**
 * The errors of those rules for a Pod spec update, and whether upstream stops there (a bad activeDeadlineSeconds
 * change ends ValidatePodUpdate before the tolerations, the gates and the rest of the spec are looked at).
 */
export function validatePodSpecUpdateRules(next: JsonObject, old: JsonObject): { errors: FieldError[]; stop: boolean } {
  const path = 'spec.activeDeadlineSeconds';
  if (isSet(next.activeDeadlineSeconds)) {
    const v = num(next.activeDeadlineSeconds);
    if (v < 0 || v > INT32_MAX) return { errors: [fe.invalid(path, v, `must be between 0 and ${INT32_MAX}, inclusive`)], stop: true };
    if (isSet(old.activeDeadlineSeconds) && num(old.activeDeadlineSeconds) < v) return { errors: [fe.invalid(path, v, 'must be less than or equal to previous value')], stop: true };
  }
  const errors: FieldError[] = [];
  if (!isSet(next.activeDeadlineSeconds) && isSet(old.activeDeadlineSeconds)) errors.push(fe.invalid(path, null, 'must not update from a positive integer to nil value'));
  errors.push(...onlyAddedTolerations(next.tolerations, old.tolerations, 'spec.tolerations'));
  errors.push(...onlyDeletedSchedulingGates(next.schedulingGates, old.schedulingGates, 'spec.schedulingGates'));
  return { errors, stop: false };
}
