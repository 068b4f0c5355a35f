/**
 * Built-in type descriptors for admissionregistration.k8s.io/v1 webhook configurations: JSON names, protobuf field
 * numbers (k8s.io generated.proto, v1.32), merge/apply semantics from the Go struct tags and markers, and short
 * descriptions for kubectl explain. (ValidatingAdmissionPolicy and its bindings are not served yet.)
 */
import { type BuiltinTypeSpec, embedded } from './builtin-type.js';
import { ADMISSIONREGISTRATION_V1 as AR, BYTES, INT32, META_V1, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, ref } from './field-types.js';

const webhookFields = (kind: 'Validating' | 'Mutating') => [
  { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'The fully qualified name of the webhook, e.g. imagepolicy.kubernetes.io.' },
  { name: 'clientConfig', proto: 2, type: ref(AR, 'WebhookClientConfig'), required: true, description: 'How to reach the webhook: a URL or a service.' },
  { name: 'rules', proto: 3, type: list(ref(AR, 'RuleWithOperations')), listType: 'atomic' as const, description: 'The operations on resources the webhook cares about.' },
  { name: 'failurePolicy', proto: 4, type: STRING, enum: ['Fail', 'Ignore'], description: 'What to do when the webhook cannot be called or answers badly: Ignore or Fail (default).' },
  { name: 'matchPolicy', proto: 9, type: STRING, enum: ['Equivalent', 'Exact'], description: 'How rules match requests: Exact, or Equivalent (default) to also match other versions of the same resources.' },
  { name: 'namespaceSelector', proto: 5, type: ref(META_V1, 'LabelSelector'), description: 'Which namespaces\' objects the webhook sees, by the namespace\'s labels.' },
  { name: 'objectSelector', proto: kind === 'Validating' ? 10 : 11, type: ref(META_V1, 'LabelSelector'), description: 'Which objects the webhook sees, by their labels (old or new).' },
  { name: 'sideEffects', proto: 6, type: STRING, required: true, enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'], description: 'Whether calling the webhook has side effects: None or NoneOnDryRun in v1. Dry-run requests only go to webhooks without side effects.' },
  { name: 'timeoutSeconds', proto: 7, type: INT32, description: 'How long to wait for the webhook, 1 to 30 seconds (default 10).' },
  { name: 'admissionReviewVersions', proto: 8, type: list(STRING), required: true, listType: 'atomic' as const, description: 'AdmissionReview versions the webhook accepts, in order of preference.' },
  ...(kind === 'Mutating'
    ? [{ name: 'reinvocationPolicy', proto: 10, type: STRING, enum: ['IfNeeded', 'Never'], description: 'Never (default), or IfNeeded to be called again when a later mutation changed the object.' }]
    : []),
  {
    name: 'matchConditions',
    proto: kind === 'Validating' ? 11 : 12,
    type: list(ref(AR, 'MatchCondition')),
    patchStrategy: 'merge',
    patchMergeKey: 'name',
    listType: 'map' as const,
    listMapKeys: ['name'],
    description: 'CEL conditions that must all hold for the webhook to be called.',
  },
];

export const admissionregistrationV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: AR + '.ValidatingWebhookConfiguration',
    description: 'Admission webhooks that may accept or reject objects without changing them.',
    gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'webhooks', proto: 2, type: list(ref(AR, 'ValidatingWebhook')), patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'], description: 'The webhooks and the resources and operations they affect.' },
    ],
  },
  {
    name: AR + '.MutatingWebhookConfiguration',
    description: 'Admission webhooks that may accept, reject or change objects.',
    gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'webhooks', proto: 2, type: list(ref(AR, 'MutatingWebhook')), patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'], description: 'The webhooks and the resources and operations they affect.' },
    ],
  },
  { name: AR + '.ValidatingWebhook', description: 'One validating admission webhook and what it applies to.', fields: webhookFields('Validating') },
  { name: AR + '.MutatingWebhook', description: 'One mutating admission webhook and what it applies to.', fields: webhookFields('Mutating') },
  {
    name: AR + '.RuleWithOperations',
    description: 'Operations and the resources they apply to.',
    fields: [
      { name: 'operations', proto: 1, type: list(STRING), listType: 'atomic', description: 'CREATE, UPDATE, DELETE, CONNECT, or * for all.' },
      embedded(2, AR + '.Rule'),
    ],
  },
  {
    name: AR + '.Rule',
    description: 'API groups, versions and resources a rule applies to.',
    fields: [
      { name: 'apiGroups', proto: 1, type: list(STRING), listType: 'atomic', description: 'API groups; "" is the core group and "*" all groups.' },
      { name: 'apiVersions', proto: 2, type: list(STRING), listType: 'atomic', description: 'API versions, or "*" for all.' },
      { name: 'resources', proto: 3, type: list(STRING), listType: 'atomic', description: 'Resources ("pods"), subresources ("pods/status"), "*", "*/scale" or "*/*".' },
      { name: 'scope', proto: 4, type: STRING, enum: ['*', 'Cluster', 'Namespaced'], description: 'Cluster, Namespaced, or * (default) for both.' },
    ],
  },
  {
    name: AR + '.WebhookClientConfig',
    description: 'How to reach a webhook over TLS.',
    fields: [
      { name: 'url', proto: 3, type: STRING, description: 'https://host[:port][/path] of the webhook.' },
      { name: 'service', proto: 1, type: ref(AR, 'ServiceReference'), description: 'A Service in the workspace that reaches the webhook.' },
      { name: 'caBundle', proto: 2, type: BYTES, description: 'PEM CA bundle that signed the webhook\'s serving certificate (base64 in JSON).' },
    ],
  },
  {
    name: AR + '.ServiceReference',
    description: 'A Service that reaches a webhook.',
    fields: [
      { name: 'namespace', proto: 1, type: STRING, required: true, emitZero: true, description: 'Namespace of the service.' },
      { name: 'name', proto: 2, type: STRING, required: true, emitZero: true, description: 'Name of the service.' },
      { name: 'path', proto: 3, type: STRING, description: 'URL path requests are sent to.' },
      { name: 'port', proto: 4, type: INT32, description: 'Port of the service (default 443).' },
    ],
  },
  {
    name: AR + '.MatchCondition',
    description: 'A CEL condition a request must meet for the webhook to be called.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Identifies the condition in errors and logs.' },
      { name: 'expression', proto: 2, type: STRING, required: true, emitZero: true, description: 'CEL expression over object, oldObject, request and authorizer that evaluates to a bool.' },
    ],
  },
];
