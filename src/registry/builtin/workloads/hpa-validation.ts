/**
 * Validation of HorizontalPodAutoscalers on their autoscaling/v2 shape (v1 objects are converted first, as upstream
 * validates the internal type), with the paths and texts of pkg/apis/autoscaling/validation (1.32; HPAScaleToZero
 * off): replica bounds, the scale target, metrics and scaling behavior.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { parseQuantity } from '../../../apimachinery/quantity.js';
import { isDNS1123Label, isValidPathSegmentName } from '../../../apimachinery/validation/names.js';
import { asObject, isSet, nonNegative } from './kinds-common.js';

function validateCrossVersionRef(ref: unknown, path: string): FieldError[] {
  const r = asObject(ref);
  const errs: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const v = typeof r[key] === 'string' ? (r[key] as string) : '';
    if (!v) errs.push(fe.required(`${path}.${key}`));
    else for (const msg of isValidPathSegmentName(v)) errs.push(fe.invalid(`${path}.${key}`, v, msg));
  }
  return errs;
}

function sign(q: unknown): number {
  try {
    const n = parseQuantity(q as string);
    return n > 0 ? 1 : n < 0 ? -1 : 0;
  } catch {
    return 0;
  }
}

function validateMetricTarget(target: unknown, path: string): FieldError[] {
  const t = asObject(target);
  const errs: FieldError[] = [];
  if (!t.type) errs.push(fe.required(`${path}.type`, 'must specify a metric target type'));
  if (t.type !== 'Utilization' && t.type !== 'Value' && t.type !== 'AverageValue') errs.push(fe.invalid(`${path}.type`, t.type ?? '', 'must be either Utilization, Value, or AverageValue'));
  if (isSet(t.value) && sign(t.value) !== 1) errs.push(fe.invalid(`${path}.value`, t.value, 'must be positive'));
  if (isSet(t.averageValue) && sign(t.averageValue) !== 1) errs.push(fe.invalid(`${path}.averageValue`, t.averageValue, 'must be positive'));
  if (typeof t.averageUtilization === 'number' && t.averageUtilization < 1) errs.push(fe.invalid(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  return errs;
}

function validateMetricIdentifier(id: unknown, path: string): FieldError[] {
  const name = typeof asObject(id).name === 'string' ? (asObject(id).name as string) : '';
  if (!name) return [fe.required(`${path}.name`, 'must specify a metric name')];
  return isValidPathSegmentName(name).map((msg) => fe.invalid(`${path}.name`, name, msg));
}

function validateSource(type: string, src: JsonObject, path: string): FieldError[] {
  const target = asObject(src.target);
  const errs: FieldError[] = [];
  switch (type) {
    case 'object':
      errs.push(...validateCrossVersionRef(src.describedObject, `${path}.describedObject`), ...validateMetricIdentifier(src.metric, `${path}.metric`), ...validateMetricTarget(src.target, `${path}.target`));
      if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(fe.required(`${path}.target.averageValue`, 'must set either a target value or averageValue'));
      break;
    case 'external':
      errs.push(...validateMetricIdentifier(src.metric, `${path}.metric`), ...validateMetricTarget(src.target, `${path}.target`));
      if (!isSet(target.value) && !isSet(target.averageValue)) errs.push(fe.required(`${path}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (isSet(target.value) && isSet(target.averageValue)) errs.push(fe.forbidden(`${path}.target.value`, 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'pods':
      errs.push(...validateMetricIdentifier(src.metric, `${path}.metric`), ...validateMetricTarget(src.target, `${path}.target`));
      if (!isSet(target.averageValue)) errs.push(fe.required(`${path}.target.averageValue`, 'must specify a positive target averageValue'));
      break;
    case 'containerResource':
    case 'resource':
      if (!src.name) errs.push(fe.required(`${path}.name`, 'must specify a resource name'));
      if (type === 'containerResource') {
        const container = typeof src.container === 'string' ? src.container : '';
        if (!container) errs.push(fe.required(`${path}.container`, 'must specify a container'));
        else for (const msg of isDNS1123Label(container)) errs.push(fe.invalid(`${path}.container`, container, msg));
      }
      errs.push(...validateMetricTarget(src.target, `${path}.target`));
      if (!isSet(target.averageUtilization) && !isSet(target.averageValue)) errs.push(fe.required(`${path}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
      if (isSet(target.averageUtilization) && isSet(target.averageValue)) errs.push(fe.forbidden(`${path}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
      break;
  }
  return errs;
}

const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceField: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

/** validateMetricSpec: a known type, exactly the matching source, and that source well-formed. */
function validateMetricSpec(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof spec.type === 'string' ? spec.type : '';
  if (!type) errs.push(fe.required(`${path}.type`, 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) errs.push(fe.notSupported(`${path}.type`, type, metricSourceTypes));
  const present: string[] = [];
  for (const key of ['object', 'external', 'pods', 'resource', 'containerResource']) {
    if (!isPlainObject(spec[key])) continue;
    present.push(key);
    if (present.length === 1) errs.push(...validateSource(key, spec[key] as JsonObject, `${path}.${key}`));
  }
  const expected = sourceField[type];
  if (expected === undefined) errs.push(fe.notSupported(`${path}.type`, type, metricSourceTypes));
  else if (!isPlainObject(spec[expected])) errs.push(fe.required(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (present.length !== 1) {
    for (const key of present.filter((k) => k !== expected).sort()) errs.push(fe.forbidden(`${path}.${key}`, 'must populate the given metric source only'));
  }
  return errs;
}

function validateScalingRules(rules: unknown, path: string): FieldError[] {
  if (!isPlainObject(rules)) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) errs.push(fe.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > 3600) errs.push(fe.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be less than or equal to 3600'));
  if (isSet(rules.selectPolicy) && !['Disabled', 'Max', 'Min'].includes(String(rules.selectPolicy))) {
    errs.push(fe.notSupported(`${path}.selectPolicy`, rules.selectPolicy, ['Disabled', 'Max', 'Min']));
  }
  const policies = Array.isArray(rules.policies) ? rules.policies : [];
  if (policies.length === 0) errs.push(fe.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((raw, i) => {
    const p = asObject(raw);
    const at = `${path}.policies[${i}]`;
    if (p.type !== 'Pods' && p.type !== 'Percent') errs.push(fe.notSupported(`${at}.type`, p.type ?? '', ['Percent', 'Pods']));
    const value = typeof p.value === 'number' ? p.value : 0;
    const period = typeof p.periodSeconds === 'number' ? p.periodSeconds : 0;
    if (value <= 0) errs.push(fe.invalid(`${at}.value`, value, 'must be greater than zero'));
    if (period <= 0) errs.push(fe.invalid(`${at}.periodSeconds`, period, 'must be greater than zero'));
    if (period > 1800) errs.push(fe.invalid(`${at}.periodSeconds`, period, 'must be less than or equal to 1800'));
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec with the given lower bound of minReplicas. */
function validateSpec(spec: JsonObject, minReplicasLowerBound: number): FieldError[] {
  const errs: FieldError[] = [];
  const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : undefined;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (min !== undefined && min < minReplicasLowerBound) errs.push(fe.invalid('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(fe.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(fe.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionRef(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  metrics.forEach((m, i) => errs.push(...validateMetricSpec(asObject(m), `spec.metrics[${i}]`)));
  if (min === 0 && !metrics.some((m) => asObject(m).type === 'Object' || asObject(m).type === 'External')) {
    errs.push(fe.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  if (isPlainObject(spec.behavior)) {
    errs.push(...validateScalingRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateScalingRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return errs;
}

/** ValidateHorizontalPodAutoscaler (metadata is validated by the store). */
export function validateHPA(obj: JsonObject): FieldError[] {
  return validateSpec(asObject(obj.spec), 1);
}

/** ValidateHorizontalPodAutoscalerUpdate: a stored minReplicas of 0 may stay 0. */
export function validateHPAUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  return validateSpec(asObject(obj.spec), asObject(old.spec).minReplicas === 0 ? 0 : 1);
}

/** ValidateHorizontalPodAutoscalerStatusUpdate. */
export function validateHPAStatus(obj: JsonObject): FieldError[] {
  const s = asObject(obj.status);
  return [...nonNegative(s.currentReplicas, 'status.currentReplicas'), ...nonNegative(s.desiredReplicas, 'status.desiredReplicas')];
}
