/**
 * ValidateResourceQuota, ValidateResourceQuotaUpdate and ValidateResourceQuotaStatusUpdate (pkg/apis/core/validation):
 * resource names, quantities, scopes and scope selectors, with upstream's messages.
 *
 * Where we differ: upstream prints some rejected quantities with Go's %#v of the resource.Quantity struct
 * (`resource.Quantity{i:resource.int64Amount{...}, ...}`); we print the quantity's text instead.
 */
import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { canonicalQuantity, parseExactQuantity, quantityMilliValue, quantityFormatError } from '../../apimachinery/exact-quantity.js';
import { isIntegerResourceName, isStandardQuotaResourceName, isStandardResourceName } from '../../apimachinery/quota/resource-names.js';
import { isQualifiedName } from '../../apimachinery/validation/names.js';

const standardScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const podComputeNames = ['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory'];

/** validateResourceName: a qualified name, and a standard one when it has no '/'. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fe.invalid(path, name, m));
  if (errs.length) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) return [fe.invalid(path, name, 'must be a standard resource type or fully qualified')];
  return [];
}

export function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errs.push(fe.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

/** ValidateResourceQuantityValue: not negative; whole for integer resources. Unparsable text is the decoder's 400. */
export function validateQuantityValue(name: string, value: unknown, path: string): FieldError[] {
  let q;
  try {
    q = parseExactQuantity(value);
  } catch {
    return [fe.invalid(path, value, quotaFormatMessage)];
  }
  const errs: FieldError[] = [];
  if (q.nanos < 0n) errs.push(fe.invalid(path, canonicalQuantity(value), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && quantityMilliValue(q) % 1000n !== 0n) errs.push(fe.invalid(path, canonicalQuantity(value), 'must be an integer'));
  return errs;
}

const quotaFormatMessage = quantityFormatError;

function validateResourceMap(map: unknown, path: string): FieldError[] {
  if (!isPlainObject(map)) return [];
  const errs: FieldError[] = [];
  for (const k of Object.keys(map).sort()) {
    errs.push(...validateQuotaResourceName(k, `${path}[${k}]`), ...validateQuantityValue(k, map[k], `${path}[${k}]`));
  }
  return errs;
}

/** How Go's %#v prints a []core.ResourceQuotaScope, the value upstream reports for spec.scopes. */
function goScopes(scopes: unknown): FieldError['renderedValue'] {
  const list = Array.isArray(scopes) ? scopes.map((s) => JSON.stringify(String(s))) : [];
  return Array.isArray(scopes) ? `[]core.ResourceQuotaScope{${list.join(', ')}}` : '[]core.ResourceQuotaScope(nil)';
}

/** An invalid spec.scopes, printed as upstream prints the slice. */
function invalidScopes(path: string, scopes: unknown, detail: string): FieldError {
  return { ...fe.invalid(path, scopes, detail), renderedValue: goScopes(scopes) };
}

function validForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || podComputeNames.includes(resource);
    case 'BestEffort':
      return resource === 'pods';
    default:
      return true;
  }
}

function conflicting(scopes: Set<string>): boolean {
  return (scopes.has('BestEffort') && scopes.has('NotBestEffort')) || (scopes.has('Terminating') && scopes.has('NotTerminating'));
}

function validateScopes(spec: Record<string, unknown>, hard: string[]): FieldError[] {
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.map(String) : [];
  if (scopes.length === 0) return [];
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!standardScopes.includes(scope)) errs.push(invalidScopes('spec.scopes', scopes, 'unsupported scope'));
    for (const k of hard) if (isStandardQuotaResourceName(k) && !validForResource(scope, k)) errs.push(invalidScopes('spec.scopes', scopes, 'unsupported scope applied to resource'));
  }
  if (conflicting(new Set(scopes))) errs.push(invalidScopes('spec.scopes', scopes, 'conflicting scopes'));
  return errs;
}

function validateScopeSelector(spec: Record<string, unknown>, hard: string[]): FieldError[] {
  if (!isPlainObject(spec.scopeSelector)) return [];
  const path = 'spec.scopeSelector.matchExpressions';
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const exprs = Array.isArray(spec.scopeSelector.matchExpressions) ? spec.scopeSelector.matchExpressions.filter(isPlainObject) : [];
  for (const req of exprs) {
    const scope = String(req.scopeName ?? '');
    const operator = String(req.operator ?? '');
    const values = Array.isArray(req.values) ? req.values : [];
    if (!standardScopes.includes(scope)) errs.push(fe.invalid(`${path}.scopeName`, scope, 'unsupported scope'));
    for (const k of hard) if (isStandardQuotaResourceName(k) && !validForResource(scope, k)) errs.push(fe.invalid(path, spec.scopeSelector, 'unsupported scope applied to resource'));
    if (['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'].includes(scope) && operator !== 'Exists') {
      errs.push(fe.invalid(`${path}.operator`, operator, 'must be \'Exists\' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity'));
    }
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fe.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length !== 0) errs.push(fe.invalid(`${path}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        break;
      default:
        errs.push(fe.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
    }
    seen.add(scope);
  }
  if (conflicting(seen)) errs.push(invalidScopes(path, spec.scopes, 'conflicting scopes'));
  return errs;
}

function validateSpec(obj: KubeObject): FieldError[] {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const hard = isPlainObject(spec.hard) ? Object.keys(spec.hard).sort() : [];
  return [...validateResourceMap(spec.hard, 'spec.hard'), ...validateScopes(spec, hard), ...validateScopeSelector(spec, hard)];
}

function validateStatus(obj: KubeObject): FieldError[] {
  const status = isPlainObject(obj.status) ? obj.status : {};
  return [...validateResourceMap(status.hard, 'status.hard'), ...validateResourceMap(status.used, 'status.used')];
}

export function validateResourceQuota(obj: KubeObject): FieldError[] {
  return [...validateSpec(obj), ...validateStatus(obj)];
}

export function validateResourceQuotaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateSpec(obj);
  const scopes = (o: KubeObject) => new Set(isPlainObject(o.spec) && Array.isArray(o.spec.scopes) ? o.spec.scopes.map(String) : []);
  const now = scopes(obj);
  const before = scopes(old);
  if (now.size !== before.size || [...now].some((s) => !before.has(s))) {
    errs.push(invalidScopes('spec.scopes', isPlainObject(obj.spec) ? obj.spec.scopes : undefined, 'field is immutable'));
  }
  return errs;
}

export function validateResourceQuotaStatusUpdate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!obj.metadata?.resourceVersion) errs.push(fe.required('resourceVersion'));
  return [...errs, ...validateStatus(obj)];
}

/** Rewrites every parsable quantity of a ResourceList in its canonical text, as decoding and encoding a Quantity does. */
export function canonicalizeResourceMap(map: unknown): void {
  if (!isPlainObject(map)) return;
  for (const [k, v] of Object.entries(map)) {
    try {
      map[k] = canonicalQuantity(v);
    } catch {
      // validation reports it
    }
  }
}

