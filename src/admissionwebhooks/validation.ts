/**
 * Defaulting and validation of ValidatingWebhookConfiguration and MutatingWebhookConfiguration as kube-apiserver 1.32
 * does them (pkg/apis/admissionregistration/v1 defaults.go, pkg/apis/admissionregistration/validation), with
 * upstream's messages. Create and update use the same rules: an update may keep values stored before a rule was
 * tightened only where upstream allows it (label values in selectors, admissionReviewVersions, side effects), which
 * never happens here since every stored object passed these checks.
 */
import * as fe from '../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject } from '../apimachinery/object.js';
import { validateLabelSelector } from '../apimachinery/validation/label-selector.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../apimachinery/validation/names.js';
import { validateWebhookService, validateWebhookURL } from '../apiserver/webhook/validation.js';
import { compileMatchCondition } from './match-conditions.js';

type Json = Record<string, unknown>;
export type WebhookKind = 'Validating' | 'Mutating';

/** SetDefaults_{Validating,Mutating}Webhook, SetDefaults_Rule and SetDefaults_ServiceReference, in place. */
export function defaultWebhookConfiguration(obj: KubeObject, kind: WebhookKind): void {
  if (!Array.isArray(obj.webhooks)) return;
  for (const hook of obj.webhooks as unknown[]) {
    if (!isPlainObject(hook)) continue;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (kind === 'Mutating') hook.reinvocationPolicy ??= 'Never';
    if (Array.isArray(hook.rules)) for (const rule of hook.rules) if (isPlainObject(rule)) rule.scope ??= '*';
    const cc = hook.clientConfig;
    if (isPlainObject(cc) && isPlainObject(cc.service)) cc.service.port ??= 443;
  }
}

const acceptedReviewVersions = ['v1', 'v1beta1'];
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/** ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration, beyond ObjectMeta. */
export function validateWebhookConfiguration(obj: KubeObject, kind: WebhookKind): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const hooks = Array.isArray(obj.webhooks) ? (obj.webhooks as unknown[]) : [];
  hooks.forEach((raw, i) => {
    const hook = isPlainObject(raw) ? raw : {};
    const at = FieldPath.root('webhooks').index(i);
    errs.push(...validateWebhook(hook, kind, at));
    errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions, at.child('admissionReviewVersions')));
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name) {
      if (names.has(name)) errs.push(fe.duplicate(at.child('name').toString(), name));
      else names.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: Json, kind: WebhookKind, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...fullyQualifiedName(at.child('name'), typeof hook.name === 'string' ? hook.name : ''));
  const rules = Array.isArray(hook.rules) ? hook.rules : [];
  rules.forEach((r, i) => errs.push(...validateRuleWithOperations(isPlainObject(r) ? r : {}, at.child('rules').index(i))));
  if (hook.failurePolicy !== undefined && hook.failurePolicy !== 'Fail' && hook.failurePolicy !== 'Ignore') {
    errs.push(fe.notSupported(at.child('failurePolicy').toString(), hook.failurePolicy, ['Fail', 'Ignore']));
  }
  if (hook.matchPolicy !== undefined && hook.matchPolicy !== 'Equivalent' && hook.matchPolicy !== 'Exact') {
    errs.push(fe.notSupported(at.child('matchPolicy').toString(), hook.matchPolicy, ['Equivalent', 'Exact']));
  }
  const allowedSideEffects = ['None', 'NoneOnDryRun'];
  if (hook.sideEffects === undefined || hook.sideEffects === null) {
    errs.push(fe.required(at.child('sideEffects').toString(), `must specify one of ${allowedSideEffects.join(', ')}`));
  } else if (!allowedSideEffects.includes(String(hook.sideEffects))) {
    errs.push(fe.notSupported(at.child('sideEffects').toString(), hook.sideEffects, allowedSideEffects));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    errs.push(fe.invalid(at.child('timeoutSeconds').toString(), timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  if (hook.namespaceSelector !== undefined) errs.push(...validateLabelSelector(hook.namespaceSelector, at.child('namespaceSelector')));
  if (hook.objectSelector !== undefined) errs.push(...validateLabelSelector(hook.objectSelector, at.child('objectSelector')));
  if (kind === 'Mutating' && hook.reinvocationPolicy !== undefined && hook.reinvocationPolicy !== 'Never' && hook.reinvocationPolicy !== 'IfNeeded') {
    errs.push(fe.notSupported(at.child('reinvocationPolicy').toString(), hook.reinvocationPolicy, ['IfNeeded', 'Never']));
  }
  const cc = isPlainObject(hook.clientConfig) ? hook.clientConfig : {};
  const ccAt = at.child('clientConfig');
  const hasURL = typeof cc.url === 'string';
  const hasService = isPlainObject(cc.service);
  if (hasURL === hasService) errs.push(fe.required(ccAt.toString(), 'exactly one of url or service is required'));
  else if (hasURL) errs.push(...validateWebhookURL(ccAt.child('url'), cc.url as string));
  else {
    const svc = cc.service as Json;
    errs.push(...validateWebhookService(ccAt.child('service'), svc));
  }
  errs.push(...validateMatchConditions(hook.matchConditions, at.child('matchConditions')));
  return errs;
}

function fullyQualifiedName(at: FieldPath, name: string): FieldError[] {
  if (!name) return [fe.required(at.toString())];
  const sub = isDNS1123Subdomain(name);
  if (sub.length) return [fe.invalid(at.toString(), name, sub.join(','))];
  if (name.split('.').length < 3) return [fe.invalid(at.toString(), name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

export function validateRuleWithOperations(rule: Json, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = strings(rule.operations);
  if (ops.length === 0) errs.push(fe.required(at.child('operations').toString()));
  if (ops.length > 1 && ops.includes('*')) errs.push(fe.invalid(at.child('operations').toString(), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'].includes(op)) {
      errs.push(fe.notSupported(at.child('operations').index(i).toString(), op, ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE']));
    }
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(fe.required(at.child('apiGroups').toString()));
  if (groups.length > 1 && groups.includes('*')) errs.push(fe.invalid(at.child('apiGroups').toString(), groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errs.push(fe.required(at.child('apiVersions').toString()));
  if (versions.length > 1 && versions.includes('*')) errs.push(fe.invalid(at.child('apiVersions').toString(), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fe.required(at.child('apiVersions').index(i).toString()));
  });
  errs.push(...validateResources(strings(rule.resources), at.child('resources')));
  if (rule.scope !== undefined && !['*', 'Cluster', 'Namespaced'].includes(String(rule.scope))) {
    errs.push(fe.notSupported(at.child('scope').toString(), rule.scope, ['*', 'Cluster', 'Namespaced']));
  }
  return errs;
}

function validateResources(resources: string[], at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fe.required(at.toString()));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fe.required(at.index(i).toString()));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(fe.invalid(at.index(i).toString(), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (wildcardRes.has(sub)) errs.push(fe.invalid(at.index(i).toString(), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fe.invalid(at.toString(), resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(fe.invalid(at.toString(), resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateAdmissionReviewVersions(raw: unknown, at: FieldPath): FieldError[] {
  const versions = strings(raw);
  if (versions.length < 1) return [fe.required(at.toString(), `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fe.invalid(at.index(i).toString(), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fe.invalid(at.index(i).toString(), v, msg));
    if (acceptedReviewVersions.includes(v)) accepted = true;
  });
  if (!accepted) errs.push(fe.invalid(at.toString(), versions, `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

function validateMatchConditions(raw: unknown, at: FieldPath): FieldError[] {
  const conditions = Array.isArray(raw) ? raw : [];
  const errs: FieldError[] = [];
  if (conditions.length > 64) errs.push(fe.tooMany(at.toString(), conditions.length, 64));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const cond = isPlainObject(c) ? c : {};
    const expression = typeof cond.expression === 'string' ? cond.expression.trim() : '';
    if (!expression) errs.push(fe.required(at.index(i).child('expression').toString()));
    else {
      const problem = compileMatchCondition(expression).error;
      if (problem) errs.push(fe.invalid(at.index(i).child('expression').toString(), expression, problem));
    }
    const name = typeof cond.name === 'string' ? cond.name : '';
    if (!name) errs.push(fe.required(at.index(i).child('name').toString()));
    else for (const msg of isQualifiedName(name)) errs.push(fe.invalid(at.index(i).child('name').toString(), name, msg));
    if (name) {
      if (names.has(name)) errs.push(fe.duplicate(at.index(i).child('name').toString(), name));
      else names.add(name);
    }
  });
  return errs;
}
