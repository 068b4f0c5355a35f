/**
 * scheduling.k8s.io/v1 PriorityClass validation as kube-apiserver 1.32 words it (pkg/apis/scheduling/validation):
 * names starting `system-` are reserved for the two system classes with their exact values, user classes go up to
 * 1000000000, and an update may not change value or preemptionPolicy. An update is checked for immutability only, as
 * upstream's ValidatePriorityClassUpdate does not validate the class again.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import type { JsonObject } from '../../../apimachinery/object.js';
import { validateImmutableField } from '../../../apimachinery/validation/object-meta.js';

/** Names with this prefix belong to the system classes. */
export const SYSTEM_PRIORITY_CLASS_PREFIX = 'system-';

/** The highest value a user's class may have; higher ones are reserved for the system classes. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;

/** What every server serving PriorityClasses creates at start, in upstream's order (node-critical first). */
export const SYSTEM_PRIORITY_CLASSES: readonly { name: string; value: number; description: string }[] = [
  { name: 'system-node-critical', value: 2 * HIGHEST_USER_DEFINABLE_PRIORITY + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2 * HIGHEST_USER_DEFINABLE_PRIORITY, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

export const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

export function isSystemPriorityClassName(name: string): boolean {
  return SYSTEM_PRIORITY_CLASSES.some((c) => c.name === name);
}

/** IsKnownSystemPriorityClass: undefined when the name, value and globalDefault are a system class's, else why not. */
function systemClassMismatch(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  // No system class is a global default.
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

/** ValidatePreemptionPolicy (core validation), shared with pods: required when given empty, one of two values. */
export function validatePreemptionPolicy(value: unknown, path: string): FieldError[] {
  if (value === '') return [fe.required(path)];
  return PREEMPTION_POLICIES.includes(String(value)) ? [] : [fe.notSupported(path, value, PREEMPTION_POLICIES)];
}

export function validatePriorityClass(obj: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = String((obj.metadata as JsonObject | undefined)?.name ?? '');
  const value = typeof obj.value === 'number' ? obj.value : 0;
  if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const why = systemClassMismatch(name, value, obj.globalDefault === true);
    if (why) errs.push(fe.forbidden(FieldPath.root('metadata').child('name').toString(), `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${why}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fe.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (obj.preemptionPolicy !== undefined && obj.preemptionPolicy !== null) errs.push(...validatePreemptionPolicy(obj.preemptionPolicy, 'preemptionPolicy'));
  return errs;
}

export function validatePriorityClassUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if ((obj.value ?? 0) !== (old.value ?? 0)) errs.push(fe.forbidden('value', 'may not be changed in an update.'));
  const policy = (v: unknown) => (typeof v === 'string' ? v : null);
  errs.push(...validateImmutableField(policy(obj.preemptionPolicy), policy(old.preemptionPolicy), FieldPath.root('preemptionPolicy')));
  return errs;
}
