/**
 * core/v1 LimitRanges (pkg/registry/core/limitrange) with ValidateLimitRange. Served where Pods are: every workspace
 * with compute and the simulated clusters (it is part of workloadResources); the LimitRanger admission plugin acts on
 * the pods and claims created there.
 *
 * Where we differ: upstream prints the min/max/default quantities in some messages' values with Go's %#v of the
 * resource.Quantity struct; we print the quantity's text.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { type ExactQuantity, compareQuantity, formatQuantity, parseExactQuantity, quantityMilliValue, quantityOf, quantityValue } from '../../../apimachinery/exact-quantity.js';
import { isExtendedResourceName, isNativeResource, isOvercommitAllowed, isStandardContainerResourceName } from '../../../apimachinery/quota/resource-names.js';
import { isQualifiedName } from '../../../apimachinery/validation/names.js';
import { defineBuiltin } from '../define.js';
import { canonicalizeResourceMap, validateResourceName } from '../resource-quota-validation.js';

const limitTypes = ['Pod', 'Container', 'PersistentVolumeClaim'];
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

function validateTypeName(type: string, path: string): FieldError[] {
  const errs = isQualifiedName(type).map((m) => fe.invalid(path, type, m));
  if (errs.length) return errs;
  if (!type.includes('/') && !limitTypes.includes(type)) return [fe.invalid(path, type, 'must be a standard limit type or fully qualified')];
  return [];
}

function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!isStandardContainerResourceName(name)) errs.push(fe.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(fe.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

function validateLimitResourceName(type: string, name: string, path: string): FieldError[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, path) : validateResourceName(name, path);
}

function quantities(map: unknown): Map<string, ExactQuantity> {
  const out = new Map<string, ExactQuantity>();
  if (!isPlainObject(map)) return out;
  for (const [k, v] of Object.entries(map)) {
    try {
      out.set(k, parseExactQuantity(v));
    } catch {
      // the decoder refuses text that is not a quantity
    }
  }
  return out;
}

/** Go's %f. */
const goFloat = (n: number) => (Number.isFinite(n) ? n.toFixed(6) : n > 0 ? '+Inf' : 'NaN');

function validateItem(item: Record<string, unknown>, i: number, seenTypes: Set<string>): FieldError[] {
  const path = `spec.limits[${i}]`;
  const type = String(item.type ?? '');
  const errs = validateTypeName(type, `${path}.type`);
  if (seenTypes.has(type)) errs.push(fe.duplicate(`${path}.type`, type));
  seenTypes.add(type);
  const keys = new Set<string>();
  const named = (field: string) => {
    const m = quantities(item[field]);
    for (const k of m.keys()) {
      errs.push(...validateLimitResourceName(type, k, `${path}.${field}[${k}]`));
      keys.add(k);
    }
    return m;
  };
  const max = named('max');
  const min = named('min');
  let defaults = new Map<string, ExactQuantity>();
  let defaultRequests = new Map<string, ExactQuantity>();
  if (type === 'Pod') {
    if (isPlainObject(item.default) && Object.keys(item.default).length > 0) errs.push(fe.forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
    if (isPlainObject(item.defaultRequest) && Object.keys(item.defaultRequest).length > 0) errs.push(fe.forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
  } else {
    defaults = named('default');
    defaultRequests = named('defaultRequest');
  }
  if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
    errs.push(fe.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  const ratios = named('maxLimitRequestRatio');
  const s = formatQuantity;
  for (const k of keys) {
    const mn = min.get(k);
    const mx = max.get(k);
    const def = defaults.get(k);
    const defReq = defaultRequests.get(k);
    const ratio = ratios.get(k);
    if (mn && mx && compareQuantity(mn, mx) > 0) errs.push(fe.invalid(`${path}.min[${k}]`, s(mn), `min value ${s(mn)} is greater than max value ${s(mx)}`));
    if (defReq && mn && compareQuantity(mn, defReq) > 0) errs.push(fe.invalid(`${path}.defaultRequest[${k}]`, s(defReq), `min value ${s(mn)} is greater than default request value ${s(defReq)}`));
    if (defReq && mx && compareQuantity(defReq, mx) > 0) errs.push(fe.invalid(`${path}.defaultRequest[${k}]`, s(defReq), `default request value ${s(defReq)} is greater than max value ${s(mx)}`));
    if (defReq && def && compareQuantity(defReq, def) > 0) errs.push(fe.invalid(`${path}.defaultRequest[${k}]`, s(defReq), `default request value ${s(defReq)} is greater than default limit value ${s(def)}`));
    if (def && mn && compareQuantity(mn, def) > 0) errs.push(fe.invalid(`${path}.default[${k}]`, s(mn), `min value ${s(mn)} is greater than default value ${s(def)}`));
    if (def && mx && compareQuantity(def, mx) > 0) errs.push(fe.invalid(`${path}.default[${k}]`, s(mx), `default value ${s(def)} is greater than max value ${s(mx)}`));
    if (ratio && compareQuantity(ratio, quantityOf(1)) < 0) errs.push(fe.invalid(`${path}.maxLimitRequestRatio[${k}]`, s(ratio), `ratio ${s(ratio)} is less than 1`));
    if (ratio && mn && mx) {
      let ratioValue = Number(quantityValue(ratio));
      let minValue = Number(quantityValue(mn));
      let maxValue = Number(quantityValue(mx));
      if (quantityValue(ratio) < MAX_MILLI_VALUE && quantityValue(mn) < MAX_MILLI_VALUE && quantityValue(mx) < MAX_MILLI_VALUE) {
        ratioValue = Number(quantityMilliValue(ratio)) / 1000;
        minValue = Number(quantityMilliValue(mn));
        maxValue = Number(quantityMilliValue(mx));
      }
      const limit = maxValue / minValue;
      if (ratioValue > limit) errs.push(fe.invalid(`${path}.maxLimitRequestRatio[${k}]`, s(ratio), `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
    }
    if (!isOvercommitAllowed(k) && def && defReq && compareQuantity(def, defReq) !== 0) {
      errs.push(fe.invalid(`${path}.defaultRequest[${k}]`, s(defReq), `default value ${s(def)} must equal to defaultRequest value ${s(defReq)} in ${k}`));
    }
  }
  return errs;
}

export function validateLimitRange(obj: KubeObject): FieldError[] {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const limits = Array.isArray(spec.limits) ? spec.limits : [];
  const seen = new Set<string>();
  return limits.flatMap((item, i) => (isPlainObject(item) ? validateItem(item, i, seen) : []));
}

/** SetDefaults_LimitRangeItem: a Container item's default limit falls back to max, its default request to the default, then to min. */
function defaultLimitRange(obj: KubeObject): void {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  for (const item of Array.isArray(spec.limits) ? spec.limits.filter(isPlainObject) : []) {
    if (item.type !== 'Container') continue;
    const defaults = (item.default = isPlainObject(item.default) ? item.default : {});
    const requests = (item.defaultRequest = isPlainObject(item.defaultRequest) ? item.defaultRequest : {});
    for (const [k, v] of Object.entries(isPlainObject(item.max) ? item.max : {})) if (!(k in defaults)) defaults[k] = v;
    for (const [k, v] of Object.entries(defaults)) if (!(k in requests)) requests[k] = v;
    for (const [k, v] of Object.entries(isPlainObject(item.min) ? item.min : {})) if (!(k in requests)) requests[k] = v;
  }
}

function canonicalize(obj: KubeObject): void {
  defaultLimitRange(obj);
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  for (const item of Array.isArray(spec.limits) ? spec.limits.filter(isPlainObject) : []) {
    for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) canonicalizeResourceMap(item[f]);
  }
}

export const limitRanges = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'limitranges',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  definitionName: 'io.k8s.api.core.v1.LimitRange',
  strategy: {
    // A PUT of a missing LimitRange creates it (limitrangeStrategy AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    prepareForCreate: canonicalize,
    prepareForUpdate: (obj) => canonicalize(obj),
    validate: validateLimitRange,
    validateUpdate: (obj) => validateLimitRange(obj),
  },
});
