/**
 * Defaulting and validation of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding as kube-apiserver 1.32
 * does them (pkg/apis/admissionregistration/v1 defaults.go, pkg/apis/admissionregistration/validation), with
 * upstream's messages. Expressions are compiled in the policy CEL environment (./cel.ts); a compile error is an
 * Invalid field error carrying cel-go's text. Status writes validate the type-checking warnings only.
 *
 * Deliberate difference: stored expressions are compiled in the same environment as new ones (upstream keeps a
 * StoredExpressions environment for library functions added later; ours has one library version).
 */
import * as fe from '../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject } from '../apimachinery/object.js';
import { validateLabelSelector } from '../apimachinery/validation/label-selector.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName } from '../apimachinery/validation/names.js';
import { validateRuleWithOperations } from '../admissionwebhooks/validation.js';
import { compileExpression, type ReturnKind } from './cel.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (isPlainObject(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** SetDefaults_MatchResources, in place. */
function defaultMatchResources(m: unknown): void {
  if (!isPlainObject(m)) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const key of ['resourceRules', 'excludeResourceRules']) for (const r of list(m[key])) if (isPlainObject(r)) r.scope ??= '*';
}

/** SetDefaults_ValidatingAdmissionPolicySpec and the MatchResources/Rule defaults, in place. */
export function defaultPolicy(o: KubeObject): void {
  const spec = o.spec;
  if (!isPlainObject(spec)) return;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

/** The binding's MatchResources defaults, in place. */
export function defaultBinding(o: KubeObject): void {
  const spec = o.spec;
  if (isPlainObject(spec)) defaultMatchResources(spec.matchResources);
}

function validateMatchResources(m: Json, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined || m.matchPolicy === null) errs.push(fe.required(at.child('matchPolicy').toString()));
  else if (!['Equivalent', 'Exact'].includes(str(m.matchPolicy))) errs.push(fe.notSupported(at.child('matchPolicy').toString(), m.matchPolicy, ['Equivalent', 'Exact']));
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (m[key] === undefined || m[key] === null) errs.push(fe.required(at.child(key).toString()));
    else errs.push(...validateLabelSelector(m[key], at.child(key)));
  }
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    list(m[key]).forEach((raw, i) => {
      const rule = obj(raw);
      const rat = at.child(key).index(i);
      const seen = new Set<string>();
      list(rule.resourceNames).forEach((n, j) => {
        const name = String(n);
        for (const msg of isValidPathSegmentName(name)) errs.push(fe.invalid(rat.child('resourceNames').index(j).toString(), name, msg));
        if (seen.has(name)) errs.push(fe.duplicate(rat.child('resourceNames').index(j).toString(), name));
        else seen.add(name);
      });
      errs.push(...validateRuleWithOperations(rule, rat));
    });
  }
  return errs;
}

function validateParamKind(pk: Json, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  if (!apiVersion) errs.push(fe.required(at.child('apiVersion').toString()));
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) errs.push(fe.invalid(at.child('apiVersion').toString(), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = apiVersion === '/' ? ['', ''] : slashes === 0 ? ['', apiVersion] : (apiVersion.split('/') as [string, string]);
      if (group) {
        const e = isDNS1123Subdomain(group);
        if (e.length) errs.push(fe.invalid(at.child('apiVersion').toString(), group, e.join(',')));
      }
      if (!version) errs.push(fe.invalid(at.child('apiVersion').toString(), apiVersion, 'version must be specified'));
      else {
        const e = isDNS1035Label(version);
        if (e.length) errs.push(fe.invalid(at.child('apiVersion').toString(), version, e.join(',')));
      }
    }
  }
  const kind = str(pk.kind);
  if (!kind) errs.push(fe.required(at.child('kind').toString()));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length) errs.push(fe.invalid(at.child('kind').toString(), kind, 'may have mixed case, but should otherwise match: ' + e.join(',')));
  }
  return errs;
}

const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const reasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];

/** ValidateValidatingAdmissionPolicy (and its update, which applies the same rules), beyond ObjectMeta. */
export function validatePolicy(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const at = FieldPath.root('spec');
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(fe.required(at.child('failurePolicy').toString()));
  else if (!['Fail', 'Ignore'].includes(str(spec.failurePolicy))) errs.push(fe.notSupported(at.child('failurePolicy').toString(), spec.failurePolicy, ['Fail', 'Ignore']));
  const hasParams = isPlainObject(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind(spec.paramKind as Json, at.child('paramKind')));
  if (!isPlainObject(spec.matchConstraints)) errs.push(fe.required(at.child('matchConstraints').toString()));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, at.child('matchConstraints')));
    if (list(spec.matchConstraints.resourceRules).length === 0) errs.push(fe.required(at.child('matchConstraints').child('resourceRules').toString()));
  }
  const check = (expression: string, path: FieldPath, returns: ReturnKind, variables: readonly string[], params = hasParams): void => {
    const c = compileExpression(expression, { hasParams: params, variables, returns });
    if (c.error !== undefined) errs.push(fe.invalid(path.toString(), expression, c.error));
  };
  // Match conditions see params when the policy has a paramKind, and no variables.
  const conditions = list(spec.matchConditions);
  if (conditions.length > 64) errs.push(fe.tooMany(at.child('matchConditions').toString(), conditions.length, 64));
  const conditionNames = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = obj(raw);
    const cat = at.child('matchConditions').index(i);
    const expression = str(c.expression).trim();
    if (!expression) errs.push(fe.required(cat.child('expression').toString()));
    else check(expression, cat.child('expression'), 'bool', []);
    const name = str(c.name);
    if (!name) errs.push(fe.required(cat.child('name').toString()));
    else {
      for (const msg of isQualifiedName(name)) errs.push(fe.invalid(cat.child('name').toString(), name, msg));
      if (conditionNames.has(name)) errs.push(fe.duplicate(cat.child('name').toString(), name));
      else conditionNames.add(name);
    }
  });
  const variables: string[] = [];
  list(spec.variables).forEach((raw, i) => {
    const v = obj(raw);
    const vat = at.child('variables').index(i);
    const name = str(v.name);
    if (name.trim() === '') errs.push(fe.required(vat.child('name').toString(), 'name is not specified'));
    else if (!celIdentifier.test(name) || celReserved.has(name)) errs.push(fe.invalid(vat.child('name').toString(), name, 'name is not a valid CEL identifier'));
    const expression = str(v.expression);
    if (expression.trim() === '') errs.push(fe.required(vat.child('expression').toString(), 'expression is not specified'));
    else check(expression, vat.child('expression'), 'any', [...variables]);
    if (name) variables.push(name);
  });
  const validations = list(spec.validations);
  const annotations = list(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(fe.required(at.child('validations').toString(), 'validations or auditAnnotations must contain at least one item'));
    errs.push(fe.required(at.child('auditAnnotations').toString(), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((raw, i) => {
    const v = obj(raw);
    const vat = at.child('validations').index(i);
    const expression = str(v.expression);
    if (expression.trim() === '') errs.push(fe.required(vat.child('expression').toString(), 'expression is not specified'));
    else check(expression, vat.child('expression'), 'bool', variables);
    const messageExpression = str(v.messageExpression);
    if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push(fe.invalid(vat.child('messageExpression').toString(), messageExpression, 'must be non-empty if specified'));
    else if (messageExpression.trim() !== '') check(messageExpression, vat.child('messageExpression'), 'string', variables);
    const message = str(v.message);
    if (message.length > 0 && message.trim() === '') errs.push(fe.invalid(vat.child('message').toString(), message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(message.trim())) errs.push(fe.invalid(vat.child('message').toString(), message, 'message must not contain line breaks'));
    if (v.reason !== undefined && v.reason !== null && !reasons.includes(str(v.reason))) errs.push(fe.notSupported(vat.child('reason').toString(), v.reason, reasons));
  });
  if (annotations.length > 20) errs.push(fe.invalid(at.child('auditAnnotations').toString(), annotations, 'must not have more than 20 auditAnnotations'));
  const keys = new Set<string>();
  const policyName = o.metadata?.name ?? '';
  annotations.forEach((raw, i) => {
    const a = obj(raw);
    const aat = at.child('auditAnnotations').index(i);
    const key = str(a.key);
    if (policyName) for (const msg of isQualifiedName(`${policyName}/${key}`)) errs.push(fe.invalid(aat.child('key').toString(), `${policyName}/${key}`, msg));
    else errs.push(fe.invalid(aat.child('key').toString(), key, 'requires metadata.name be non-empty'));
    const value = str(a.valueExpression).trim();
    if (value === '') errs.push(fe.required(aat.child('valueExpression').toString(), 'valueExpression is not specified'));
    else if (value.length > 5 * 1024) errs.push(fe.required(aat.child('valueExpression').toString(), `must not exceed ${5 * 1024} bytes in length`));
    else {
      const c = compileExpression(value, { hasParams, variables, returns: 'stringOrNull' });
      if (c.error !== undefined) errs.push(fe.invalid(aat.child('valueExpression').toString(), str(a.valueExpression), c.error));
    }
    if (keys.has(key)) errs.push(fe.duplicate(aat.child('key').toString(), key));
    keys.add(key);
  });
  return errs;
}

/** ValidateValidatingAdmissionPolicyStatusUpdate: the type-checking warnings (conditions are left to their schema). */
export function validatePolicyStatus(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const tc = obj(obj(o.status).typeChecking);
  list(tc.expressionWarnings).forEach((raw, i) => {
    const w = obj(raw);
    const at = FieldPath.root('status').child('typeChecking').child('expressionWarnings').index(i);
    if (!str(w.warning)) errs.push(fe.required(at.child('warning').toString()));
    if (!str(w.fieldRef).trim()) errs.push(fe.required(at.child('fieldRef').toString()));
  });
  return errs;
}

const validationActions = ['Audit', 'Deny', 'Warn'];

/** ValidateValidatingAdmissionPolicyBinding, beyond ObjectMeta. */
export function validateBinding(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const at = FieldPath.root('spec');
  const policyName = str(spec.policyName);
  if (!policyName) errs.push(fe.required(at.child('policyName').toString()));
  else for (const msg of isDNS1123Subdomain(policyName)) errs.push(fe.invalid(at.child('policyName').toString(), policyName, msg));
  if (isPlainObject(spec.paramRef)) {
    const pr = spec.paramRef;
    const pat = at.child('paramRef');
    const name = str(pr.name);
    const hasSelector = pr.selector !== undefined && pr.selector !== null;
    if (name) {
      for (const msg of isValidPathSegmentName(name)) errs.push(fe.invalid(pat.child('name').toString(), name, msg));
      if (hasSelector) errs.push(fe.forbidden(pat.child('name').toString(), 'name and selector are mutually exclusive'));
    }
    if (hasSelector) {
      errs.push(...validateLabelSelector(pr.selector, pat.child('selector')));
      if (name) errs.push(fe.forbidden(pat.child('selector').toString(), 'name and selector are mutually exclusive'));
    }
    if (!name && !hasSelector) errs.push(fe.required(pat.toString(), 'one of name or selector must be specified'));
    const action = str(pr.parameterNotFoundAction);
    if (!action) errs.push(fe.required(pat.child('parameterNotFoundAction').toString()));
    else if (action !== 'Deny' && action !== 'Allow') errs.push(fe.notSupported(pat.child('parameterNotFoundAction').toString(), action, ['Deny', 'Allow']));
  }
  if (isPlainObject(spec.matchResources)) errs.push(...validateMatchResources(spec.matchResources, at.child('matchResources')));
  const vat = at.child('validationActions');
  const actions = list(spec.validationActions).map(String);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!validationActions.includes(a)) errs.push(fe.notSupported(vat.index(i).toString(), a, validationActions));
    if (seen.has(a)) errs.push(fe.duplicate(vat.index(i).toString(), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push({
      ...fe.invalid(vat.toString(), actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'),
      // Go's %#v of the internal type, as upstream prints it.
      renderedValue: `[]admissionregistration.ValidationAction{${actions.map((x) => JSON.stringify(x)).join(', ')}}`,
    });
  }
  if (seen.size === 0) errs.push(fe.required(vat.toString(), 'at least one validation action is required'));
  return errs;
}
