/**
 * rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding, with kube's validation
 * (kubernetes pkg/apis/rbac/validation). Escalation prevention needs the requesting user and lives in
 * src/auth/authz/escalation.ts as an admission plugin.
 */
import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import type { ResourceDefinition } from '../rest.js';
import { defineBuiltin } from './define.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function nonEmptyList(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0;
}

/** ValidatePolicyRule: verbs always; resource rules need groups and resources; URLs only in cluster roles, never mixed. */
function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const rules = obj.rules;
  if (rules === undefined || rules === null) return errs;
  if (!Array.isArray(rules)) return [fe.invalid('rules', rules, 'must be a list')];
  rules.forEach((rule: unknown, i) => {
    const path = `rules[${i}]`;
    if (!isPlainObject(rule)) {
      errs.push(fe.invalid(path, rule, 'must be an object'));
      return;
    }
    if (!nonEmptyList(rule.verbs)) errs.push(fe.required(`${path}.verbs`, 'verbs must contain at least one value'));
    if (nonEmptyList(rule.nonResourceURLs)) {
      if (namespaced) errs.push(fe.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
      if (nonEmptyList(rule.apiGroups) || nonEmptyList(rule.resources) || nonEmptyList(rule.resourceNames)) {
        errs.push(fe.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (!nonEmptyList(rule.apiGroups)) errs.push(fe.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
    if (!nonEmptyList(rule.resources)) errs.push(fe.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

function validateRoleRef(obj: KubeObject, allowedKinds: string[]): FieldError[] {
  // RoleRef is a value struct: a missing one decodes as empty, and SetDefaults sets its apiGroup.
  const ref = isPlainObject(obj.roleRef) ? obj.roleRef : { apiGroup: RBAC_GROUP };
  const errs: FieldError[] = [];
  if (ref.apiGroup !== RBAC_GROUP) errs.push(fe.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  if (!allowedKinds.includes(String(ref.kind ?? ''))) errs.push(fe.notSupported('roleRef.kind', ref.kind ?? '', allowedKinds));
  if (!ref.name) errs.push(fe.required('roleRef.name', ''));
  return errs;
}

function validateSubjects(obj: KubeObject, clusterScoped: boolean): FieldError[] {
  const subjects = obj.subjects;
  if (subjects === undefined || subjects === null) return [];
  if (!Array.isArray(subjects)) return [fe.invalid('subjects', subjects, 'must be a list')];
  const errs: FieldError[] = [];
  subjects.forEach((s: unknown, i) => {
    const path = `subjects[${i}]`;
    if (!isPlainObject(s)) {
      errs.push(fe.invalid(path, s, 'must be an object'));
      return;
    }
    if (!s.name) errs.push(fe.required(`${path}.name`, ''));
    switch (s.kind) {
      case 'ServiceAccount':
        if (s.apiGroup) errs.push(fe.notSupported(`${path}.apiGroup`, s.apiGroup, ['']));
        if (clusterScoped && !s.namespace) errs.push(fe.required(`${path}.namespace`, ''));
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== RBAC_GROUP) errs.push(fe.notSupported(`${path}.apiGroup`, s.apiGroup ?? '', [RBAC_GROUP]));
        break;
      default:
        errs.push(fe.notSupported(`${path}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}

/**
 * rbac/v1 defaulting of bindings (SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding, SetDefaults_Subject): an
 * empty roleRef.apiGroup is rbac.authorization.k8s.io, and so is an empty apiGroup of a User or Group subject (a
 * ServiceAccount's stays empty). Applied before validation, as decoding does upstream. An empty subject apiGroup is
 * left out, as upstream serializes it (`apiGroup,omitempty`): were it written as `"apiGroup": ""`, the subjects
 * (an atomic list) would differ from a manifest that leaves it out, and every second `kubectl apply` of a binding to
 * a ServiceAccount would report "configured" instead of "unchanged".
 */
function defaultBinding(obj: KubeObject): void {
  const ref = obj.roleRef;
  if (isPlainObject(ref) && !ref.apiGroup) ref.apiGroup = RBAC_GROUP;
  if (!Array.isArray(obj.subjects)) return;
  for (const s of obj.subjects as unknown[]) {
    if (!isPlainObject(s)) continue;
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
    if (s.apiGroup === '') delete s.apiGroup;
  }
}

function roleRefImmutable(obj: KubeObject, old: KubeObject): FieldError[] {
  if (jsonEqual(obj.roleRef, old.roleRef)) return [];
  // Upstream validates the internal type and prints it with Go's %#v.
  const ref = isPlainObject(obj.roleRef) ? obj.roleRef : {};
  const q = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');
  const renderedValue = `rbac.RoleRef{APIGroup:${q(ref.apiGroup)}, Kind:${q(ref.kind)}, Name:${q(ref.name)}}`;
  return [{ ...fe.invalid('roleRef', obj.roleRef, 'cannot change roleRef'), renderedValue }];
}

/**
 * RBAC's update strategies validate the new object, then call Validate*Update, which validates it again: each error
 * of the object itself is listed twice among the causes (the message names it once).
 */
function twice(errs: FieldError[]): FieldError[] {
  return [...errs, ...errs];
}

const roles = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'roles',
  kind: 'Role',
  namespaced: true,
  definitionName: 'io.k8s.api.rbac.v1.Role',
  strategy: { nameValidation: 'path', allowCreateOnUpdate: true, validate: (o) => validateRules(o, true), validateUpdate: (o) => twice(validateRules(o, true)) },
});

function validateAggregation(obj: KubeObject): FieldError[] {
  const agg = obj.aggregationRule;
  if (agg === undefined || agg === null) return [];
  if (!isPlainObject(agg)) return [fe.invalid('aggregationRule', agg, 'must be an object')];
  if (agg.clusterRoleSelectors !== undefined && !Array.isArray(agg.clusterRoleSelectors)) {
    return [fe.invalid('aggregationRule.clusterRoleSelectors', agg.clusterRoleSelectors, 'must be a list')];
  }
  return [];
}

const clusterroles = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
  definitionName: 'io.k8s.api.rbac.v1.ClusterRole',
  strategy: {
    // As upstream's RBAC strategies: a PUT of a missing object creates it.
    allowCreateOnUpdate: true,
    nameValidation: 'path',
    validate: (o) => [...validateRules(o, false), ...validateAggregation(o)],
    validateUpdate: (o) => twice([...validateRules(o, false), ...validateAggregation(o)]),
  },
});

const rolebindings = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
  definitionName: 'io.k8s.api.rbac.v1.RoleBinding',
  strategy: {
    // As upstream's RBAC strategies: a PUT of a missing object creates it.
    allowCreateOnUpdate: true,
    nameValidation: 'path',
    prepareForCreate: defaultBinding,
    prepareForUpdate: (o) => defaultBinding(o),
    validate: (o) => [...validateRoleRef(o, ['Role', 'ClusterRole']), ...validateSubjects(o, false)],
    validateUpdate: (o, old) => [...twice([...validateRoleRef(o, ['Role', 'ClusterRole']), ...validateSubjects(o, false)]), ...roleRefImmutable(o, old)],
  },
});

const clusterrolebindings = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  namespaced: false,
  definitionName: 'io.k8s.api.rbac.v1.ClusterRoleBinding',
  strategy: {
    // As upstream's RBAC strategies: a PUT of a missing object creates it.
    allowCreateOnUpdate: true,
    nameValidation: 'path',
    prepareForCreate: defaultBinding,
    prepareForUpdate: (o) => defaultBinding(o),
    validate: (o) => [...validateRoleRef(o, ['ClusterRole']), ...validateSubjects(o, true)],
    validateUpdate: (o, old) => [...twice([...validateRoleRef(o, ['ClusterRole']), ...validateSubjects(o, true)]), ...roleRefImmutable(o, old)],
  },
});

export const rbacResources: ResourceDefinition[] = [clusterrolebindings, clusterroles, rolebindings, roles];
