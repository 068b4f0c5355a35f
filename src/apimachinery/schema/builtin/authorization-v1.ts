/**
 * Built-in type descriptors for authorization.k8s.io/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { AUTHORIZATION_V1, BOOLEAN, META_V1, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const authorizationV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: AUTHORIZATION_V1 + '.SelfSubjectAccessReview',
    description: 'Asks whether the caller may perform an action.',
    gvk: [{ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTHORIZATION_V1, 'SelfSubjectAccessReviewSpec'), required: true, description: 'The action to check.' },
      { name: 'status', proto: 3, type: ref(AUTHORIZATION_V1, 'SubjectAccessReviewStatus'), description: 'The answer, filled in by the server.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SelfSubjectAccessReviewSpec',
    description: 'The action a self access review checks; set exactly one attribute block.',
    fields: [
      { name: 'resourceAttributes', proto: 1, type: ref(AUTHORIZATION_V1, 'ResourceAttributes'), description: 'A resource request to check.' },
      { name: 'nonResourceAttributes', proto: 2, type: ref(AUTHORIZATION_V1, 'NonResourceAttributes'), description: 'A non-resource request to check.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.ResourceAttributes',
    description: 'Attributes of a resource request for authorization.',
    fields: [
      { name: 'namespace', proto: 1, type: STRING, description: 'Namespace of the request; empty means all namespaces for namespaced resources.' },
      { name: 'verb', proto: 2, type: STRING, description: 'API verb such as get, list or create, or "*".' },
      { name: 'group', proto: 3, type: STRING, description: 'API group of the resource, or "*".' },
      { name: 'version', proto: 4, type: STRING, description: 'API version of the resource, or "*".' },
      { name: 'resource', proto: 5, type: STRING, description: 'Resource name, or "*".' },
      { name: 'subresource', proto: 6, type: STRING, description: 'Subresource name, or empty.' },
      { name: 'name', proto: 7, type: STRING, description: 'Object name, or empty for any.' },
      { name: 'fieldSelector', proto: 8, type: ref(AUTHORIZATION_V1, 'FieldSelectorAttributes'), description: 'Field selector limiting the request.' },
      { name: 'labelSelector', proto: 9, type: ref(AUTHORIZATION_V1, 'LabelSelectorAttributes'), description: 'Label selector limiting the request.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.FieldSelectorAttributes',
    description: 'A field selector attached to a reviewed request.',
    fields: [
      { name: 'rawSelector', proto: 1, type: STRING, description: 'Selector in query-parameter form.' },
      { name: 'requirements', proto: 2, type: list(ref(META_V1, 'FieldSelectorRequirement')), listType: 'atomic', description: 'Selector in parsed form.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.LabelSelectorAttributes',
    description: 'A label selector attached to a reviewed request.',
    fields: [
      { name: 'rawSelector', proto: 1, type: STRING, description: 'Selector in query-parameter form.' },
      { name: 'requirements', proto: 2, type: list(ref(META_V1, 'LabelSelectorRequirement')), listType: 'atomic', description: 'Selector in parsed form.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.NonResourceAttributes',
    description: 'Attributes of a non-resource request for authorization.',
    fields: [
      { name: 'path', proto: 1, type: STRING, description: 'URL path of the request.' },
      { name: 'verb', proto: 2, type: STRING, description: 'HTTP-style verb of the request, such as get.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SubjectAccessReviewStatus',
    description: 'The outcome of an access review.',
    fields: [
      { name: 'allowed', proto: 1, type: BOOLEAN, required: true, emitZero: true, description: 'Whether the action is allowed.' },
      { name: 'denied', proto: 4, type: BOOLEAN, description: 'Whether the action is explicitly denied, which stops other authorizers.' },
      { name: 'reason', proto: 2, type: STRING, description: 'Why the decision was made.' },
      { name: 'evaluationError', proto: 3, type: STRING, description: 'Problems met while deciding; the decision may still be valid.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SubjectAccessReview',
    description: 'Asks whether a given user may perform an action.',
    gvk: [{ group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTHORIZATION_V1, 'SubjectAccessReviewSpec'), required: true, description: 'The user and action to check.' },
      { name: 'status', proto: 3, type: ref(AUTHORIZATION_V1, 'SubjectAccessReviewStatus'), description: 'The answer, filled in by the server.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SubjectAccessReviewSpec',
    description: 'The user and action an access review checks; set exactly one attribute block.',
    fields: [
      { name: 'resourceAttributes', proto: 1, type: ref(AUTHORIZATION_V1, 'ResourceAttributes'), description: 'A resource request to check.' },
      { name: 'nonResourceAttributes', proto: 2, type: ref(AUTHORIZATION_V1, 'NonResourceAttributes'), description: 'A non-resource request to check.' },
      { name: 'user', proto: 3, type: STRING, description: 'Name of the user to check.' },
      { name: 'groups', proto: 4, type: list(STRING), listType: 'atomic', description: 'Groups of the user to check.' },
      { name: 'extra', proto: 5, type: map(list(STRING)), description: 'Extra authenticator-provided attributes of the user.' },
      { name: 'uid', proto: 6, type: STRING, description: 'UID of the user to check.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.LocalSubjectAccessReview',
    description: 'Asks whether a given user may perform an action in one namespace.',
    gvk: [{ group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTHORIZATION_V1, 'SubjectAccessReviewSpec'), required: true, description: 'The user and action to check; the namespace must match the object\'s.' },
      { name: 'status', proto: 3, type: ref(AUTHORIZATION_V1, 'SubjectAccessReviewStatus'), description: 'The answer, filled in by the server.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SelfSubjectRulesReview',
    description: 'Lists the actions the caller may perform in a namespace.',
    gvk: [{ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTHORIZATION_V1, 'SelfSubjectRulesReviewSpec'), required: true, description: 'The namespace to list rules for.' },
      { name: 'status', proto: 3, type: ref(AUTHORIZATION_V1, 'SubjectRulesReviewStatus'), description: 'The rules, filled in by the server.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SelfSubjectRulesReviewSpec',
    description: 'What a rules review lists.',
    fields: [
      { name: 'namespace', proto: 1, type: STRING, description: 'Namespace to list rules for.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.SubjectRulesReviewStatus',
    description: 'The rules a subject has; may be incomplete.',
    fields: [
      { name: 'resourceRules', proto: 1, type: list(ref(AUTHORIZATION_V1, 'ResourceRule')), required: true, listType: 'atomic', emitZero: true, description: 'Allowed actions on resources.' },
      { name: 'nonResourceRules', proto: 2, type: list(ref(AUTHORIZATION_V1, 'NonResourceRule')), required: true, listType: 'atomic', emitZero: true, description: 'Allowed actions on non-resource URLs.' },
      { name: 'incomplete', proto: 3, type: BOOLEAN, required: true, emitZero: true, description: 'True when some authorizer could not list its rules.' },
      { name: 'evaluationError', proto: 4, type: STRING, description: 'Problems met while listing rules.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.ResourceRule',
    description: 'Actions allowed on a set of resources.',
    fields: [
      { name: 'verbs', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Allowed verbs, or "*".' },
      { name: 'apiGroups', proto: 2, type: list(STRING), listType: 'atomic', description: 'API groups, or "*".' },
      { name: 'resources', proto: 3, type: list(STRING), listType: 'atomic', description: 'Resources, or "*".' },
      { name: 'resourceNames', proto: 4, type: list(STRING), listType: 'atomic', description: 'Object names, or empty for all.' },
    ],
  },
  {
    name: AUTHORIZATION_V1 + '.NonResourceRule',
    description: 'Actions allowed on non-resource URLs.',
    fields: [
      { name: 'verbs', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Allowed verbs, or "*".' },
      { name: 'nonResourceURLs', proto: 2, type: list(STRING), listType: 'atomic', description: 'URL paths; a trailing "*" matches a prefix.' },
    ],
  },
];
