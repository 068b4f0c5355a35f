/**
 * policy/v1 PodDisruptionBudgets (with /status), as kube-apiserver 1.32 serves them: no defaults, validation of
 * pkg/apis/policy/validation (minAvailable and maxUnavailable exclusive, int-or-percent values, the selector, the
 * unhealthy pod eviction policy), status and generation handling, the `pdb` short name and printer columns.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import type { JsonObject } from '../../../apimachinery/object.js';
import type { ResourceDefinition } from '../../rest.js';
import { defineBuiltin } from '../define.js';
import { podDisruptionBudgetPrinter } from './kind-printers.js';
import {
  asObject,
  fillStatusZeros,
  goIntOrString,
  goLabelSelector,
  isSet,
  keepStatus,
  nonNegative,
  notMoreThan100Percent,
  statusSubresource,
  validateLabelSelector,
  validatePositiveIntOrPercent,
  withPrinter,
} from './kinds-common.js';

/** Go's %#v of the spec, printed when both bounds are set; upstream prints its pointers as addresses, we print what they hold. */
function goSpec(spec: JsonObject): string {
  const ios = (v: unknown) => (isSet(v) ? `&${goIntOrString(v)}` : '(*intstr.IntOrString)(nil)');
  const policy = isSet(spec.unhealthyPodEvictionPolicy) ? `&${JSON.stringify(String(spec.unhealthyPodEvictionPolicy))}` : '(*policy.UnhealthyPodEvictionPolicyType)(nil)';
  return `policy.PodDisruptionBudgetSpec{MinAvailable:${ios(spec.minAvailable)}, Selector:${goLabelSelector(spec.selector)}, MaxUnavailable:${ios(spec.maxUnavailable)}, UnhealthyPodEvictionPolicy:${policy}}`;
}

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const errs: FieldError[] = [];
  if (isSet(spec.minAvailable) && isSet(spec.maxUnavailable)) {
    errs.push({ ...fe.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'), renderedValue: goSpec(spec) });
  }
  for (const f of ['minAvailable', 'maxUnavailable']) {
    if (!isSet(spec[f])) continue;
    errs.push(...validatePositiveIntOrPercent(spec[f], `spec.${f}`), ...notMoreThan100Percent(spec[f], `spec.${f}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  if (isSet(spec.unhealthyPodEvictionPolicy) && !['AlwaysAllow', 'IfHealthyBudget'].includes(String(spec.unhealthyPodEvictionPolicy))) {
    errs.push(fe.notSupported('spec.unhealthyPodEvictionPolicy', spec.unhealthyPodEvictionPolicy, ['AlwaysAllow', 'IfHealthyBudget']));
  }
  return errs;
}

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1): conditions well-formed, counters non-negative. */
function validateStatus(obj: JsonObject): FieldError[] {
  const s = asObject(obj.status);
  const errs: FieldError[] = [];
  const conditions = Array.isArray(s.conditions) ? s.conditions : [];
  conditions.forEach((raw, i) => {
    const c = asObject(raw);
    if (!c.type) errs.push(fe.required(`status.conditions[${i}].type`));
    if (!['True', 'False', 'Unknown'].includes(String(c.status))) errs.push(fe.notSupported(`status.conditions[${i}].status`, c.status ?? '', ['False', 'True', 'Unknown']));
  });
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) errs.push(...nonNegative(s[f], `status.${f}`));
  return errs;
}

/** The PodDisruptionBudgetStatus fields Go writes even when zero. */
const statusZeros = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };

export const podDisruptionBudgets: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    definitionName: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    strategy: {
      metadataRevalidation: 'none',
      // ValidatePodDisruptionBudget checks only the spec: the name is held to rest.BeforeCreate's path-segment rules.
      nameValidation: 'path',
      tracksGeneration: true,
      prepareForCreate(obj) {
        obj.status = {};
        fillStatusZeros(obj, statusZeros);
      },
      prepareForUpdate: keepStatus,
      validate: validatePodDisruptionBudget,
      validateUpdate: (obj) => validatePodDisruptionBudget(obj),
    },
    subresources: [statusSubresource('PodDisruptionBudget', statusZeros, (obj) => validateStatus(obj))],
  }),
  podDisruptionBudgetPrinter,
);
