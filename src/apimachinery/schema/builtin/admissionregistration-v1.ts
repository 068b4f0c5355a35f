/**
 * Built-in type descriptors for admissionregistration.k8s.io/v1 webhook configurations: JSON names, protobuf field
 * numbers (k8s.io generated.proto, v1.32), merge/apply semantics from the Go struct tags and markers, and short
 * descriptions for kubectl explain; ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding likewise.
 */
import { type BuiltinTypeSpec, embedded } from './builtin-type.js';
import { ADMISSIONREGISTRATION_V1 as AR, BYTES, INT32, INT64, META_V1, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, ref } from './field-types.js';

const webhookFields = (kind: 'Validating' | 'Mutating') => [
  { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'The fully qualified name of the webhook, e.g. imagepolicy.kubernetes.io.' },
  { name: 'clientConfig', proto: 2, type: ref(AR, 'WebhookClientConfig'), required: true, description: 'How to reach the webhook: a URL or a service.' },
  { name: 'rules', proto: 3, type: list(ref(AR, 'RuleWithOperations')), listType: 'atomic' as const, description: 'The operations on resources the webhook cares about.' },
  { name: 'failurePolicy', proto: 4, type: STRING, emitZero: true, enum: ['Fail', 'Ignore'], description: 'What to do when the webhook cannot be called or answers badly: Ignore or Fail (default).' },
  { name: 'matchPolicy', proto: 9, type: STRING, emitZero: true, enum: ['Equivalent', 'Exact'], description: 'How rules match requests: Exact, or Equivalent (default) to also match other versions of the same resources.' },
  { name: 'namespaceSelector', proto: 5, type: ref(META_V1, 'LabelSelector'), description: 'Which namespaces\' objects the webhook sees, by the namespace\'s labels.' },
  { name: 'objectSelector', proto: kind === 'Validating' ? 10 : 11, type: ref(META_V1, 'LabelSelector'), description: 'Which objects the webhook sees, by their labels (old or new).' },
  { name: 'sideEffects', proto: 6, type: STRING, emitZero: true, required: true, enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'], description: 'Whether calling the webhook has side effects: None or NoneOnDryRun in v1. Dry-run requests only go to webhooks without side effects.' },
  { name: 'timeoutSeconds', proto: 7, type: INT32, emitZero: true, description: 'How long to wait for the webhook, 1 to 30 seconds (default 10).' },
  { name: 'admissionReviewVersions', proto: 8, type: list(STRING), required: true, listType: 'atomic' as const, emitZero: true, description: 'AdmissionReview versions the webhook accepts, in order of preference.' },
  ...(kind === 'Mutating'
    ? [{ name: 'reinvocationPolicy', proto: 10, type: STRING, emitZero: true, enum: ['IfNeeded', 'Never'], description: 'Never (default), or IfNeeded to be called again when a later mutation changed the object.' }]
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
      { name: 'scope', proto: 4, type: STRING, emitZero: true, enum: ['*', 'Cluster', 'Namespaced'], description: 'Cluster, Namespaced, or * (default) for both.' },
    ],
  },
  {
    name: AR + '.WebhookClientConfig',
    description: 'How to reach a webhook over TLS.',
    fields: [
      { name: 'url', proto: 3, type: STRING, emitZero: true, description: 'https://host[:port][/path] of the webhook.' },
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
      { name: 'path', proto: 3, type: STRING, emitZero: true, description: 'URL path requests are sent to.' },
      { name: 'port', proto: 4, type: INT32, emitZero: true, description: 'Port of the service (default 443).' },
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
  {
    name: AR + '.ValidatingAdmissionPolicy',
    description: 'CEL validations applied to requests, with the resources they apply to; bound to requests by ValidatingAdmissionPolicyBindings.',
    gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AR, 'ValidatingAdmissionPolicySpec'), description: 'The validations, their parameters and the resources they apply to.' },
      { name: 'status', proto: 3, type: ref(AR, 'ValidatingAdmissionPolicyStatus'), description: 'Type-checking results of the policy.' },
    ],
  },
  {
    name: AR + '.ValidatingAdmissionPolicySpec',
    description: 'What a ValidatingAdmissionPolicy validates and how.',
    fields: [
      { name: 'paramKind', proto: 1, type: ref(AR, 'ParamKind'), description: 'The kind of the parameter resource bindings name; unset for a policy without parameters.' },
      { name: 'matchConstraints', proto: 2, type: ref(AR, 'MatchResources'), description: 'The resources the policy may apply to. Required.' },
      { name: 'validations', proto: 3, type: list(ref(AR, 'Validation')), listType: 'atomic', description: 'CEL validations; all must hold.' },
      { name: 'failurePolicy', proto: 4, type: STRING, emitZero: true, enum: ['Fail', 'Ignore'], description: 'What to do when the policy cannot be evaluated: Fail (default) or Ignore.' },
      { name: 'auditAnnotations', proto: 5, type: list(ref(AR, 'AuditAnnotation')), listType: 'atomic', description: 'CEL expressions producing audit annotations.' },
      { name: 'matchConditions', proto: 6, type: list(ref(AR, 'MatchCondition')), patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'], description: 'CEL conditions a request must meet to be validated.' },
      { name: 'variables', proto: 7, type: list(ref(AR, 'Variable')), patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'], description: 'Named CEL expressions the other expressions use as variables.<name>.' },
    ],
  },
  {
    name: AR + '.ValidatingAdmissionPolicyStatus',
    description: 'The observed state of a ValidatingAdmissionPolicy.',
    fields: [
      { name: 'observedGeneration', proto: 1, type: INT64, description: 'The generation the status describes.' },
      { name: 'typeChecking', proto: 2, type: ref(AR, 'TypeChecking'), description: 'Results of type-checking the expressions.' },
      { name: 'conditions', proto: 3, type: list(ref(META_V1, 'Condition')), listType: 'map', listMapKeys: ['type'], description: 'Latest observations.' },
    ],
  },
  {
    name: AR + '.TypeChecking',
    description: 'Results of type-checking a policy\'s expressions.',
    fields: [{ name: 'expressionWarnings', proto: 1, type: list(ref(AR, 'ExpressionWarning')), listType: 'atomic', description: 'Type-checking warnings, one per expression.' }],
  },
  {
    name: AR + '.ExpressionWarning',
    description: 'A type-checking warning for one expression.',
    fields: [
      { name: 'fieldRef', proto: 2, type: STRING, required: true, emitZero: true, description: 'The path to the expression\'s field, e.g. spec.validations[0].expression.' },
      { name: 'warning', proto: 3, type: STRING, required: true, emitZero: true, description: 'The type-checking problems, per checked type.' },
    ],
  },
  {
    name: AR + '.ParamKind',
    description: 'The group version and kind of a parameter resource.',
    fields: [
      { name: 'apiVersion', proto: 1, type: STRING, description: 'group/version of the parameter resource, e.g. v1 or example.com/v1.' },
      { name: 'kind', proto: 2, type: STRING, description: 'Kind of the parameter resource, e.g. ConfigMap.' },
    ],
  },
  {
    name: AR + '.MatchResources',
    description: 'Which requests a policy or binding applies to.',
    fields: [
      { name: 'namespaceSelector', proto: 1, type: ref(META_V1, 'LabelSelector'), description: 'Which namespaces\' objects match, by the namespace\'s labels.' },
      { name: 'objectSelector', proto: 2, type: ref(META_V1, 'LabelSelector'), description: 'Which objects match, by their labels (old or new).' },
      { name: 'resourceRules', proto: 3, type: list(ref(AR, 'NamedRuleWithOperations')), listType: 'atomic', description: 'The operations on resources that match.' },
      { name: 'excludeResourceRules', proto: 4, type: list(ref(AR, 'NamedRuleWithOperations')), listType: 'atomic', description: 'The operations on resources that never match.' },
      { name: 'matchPolicy', proto: 7, type: STRING, emitZero: true, enum: ['Equivalent', 'Exact'], description: 'Exact, or Equivalent (default) to also match other versions of the same resources.' },
    ],
  },
  {
    name: AR + '.NamedRuleWithOperations',
    description: 'Operations on resources, optionally restricted to names.',
    fields: [
      { name: 'resourceNames', proto: 1, type: list(STRING), listType: 'atomic', description: 'Names the rule applies to; empty for all.' },
      embedded(2, AR + '.RuleWithOperations'),
    ],
  },
  {
    name: AR + '.ParamRef',
    description: 'The parameter resource(s) a binding evaluates its policy with.',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: 'Name of the parameter resource; exclusive with selector.' },
      { name: 'namespace', proto: 2, type: STRING, description: 'Namespace of namespaced parameters; default: the request\'s namespace.' },
      { name: 'selector', proto: 3, type: ref(META_V1, 'LabelSelector'), description: 'Selects the parameter resources by label; exclusive with name.' },
      { name: 'parameterNotFoundAction', proto: 4, type: STRING, emitZero: true, enum: ['Allow', 'Deny'], description: 'What to do when no parameter is found: Allow or Deny. Required.' },
    ],
  },
  {
    name: AR + '.Validation',
    description: 'One CEL validation.',
    fields: [
      { name: 'expression', proto: 1, type: STRING, required: true, emitZero: true, description: 'CEL expression over object, oldObject, request, params, namespaceObject, variables and authorizer that must be true.' },
      { name: 'message', proto: 2, type: STRING, description: 'Message when the validation fails.' },
      { name: 'reason', proto: 3, type: STRING, emitZero: true, description: 'Reason of the refusal: Unauthorized, Forbidden, Invalid (default) or RequestEntityTooLarge.' },
      { name: 'messageExpression', proto: 4, type: STRING, description: 'CEL expression giving the message when the validation fails.' },
    ],
  },
  {
    name: AR + '.Variable',
    description: 'A named CEL expression.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'The variable\'s name, used as variables.<name>.' },
      { name: 'expression', proto: 2, type: STRING, required: true, emitZero: true, description: 'CEL expression giving its value.' },
    ],
  },
  {
    name: AR + '.AuditAnnotation',
    description: 'An audit annotation a policy adds.',
    fields: [
      { name: 'key', proto: 1, type: STRING, required: true, emitZero: true, description: 'The annotation key, recorded as <policy name>/<key>.' },
      { name: 'valueExpression', proto: 2, type: STRING, required: true, emitZero: true, description: 'CEL expression giving the value (a string, or null to omit it).' },
    ],
  },
  {
    name: AR + '.ValidatingAdmissionPolicyBinding',
    description: 'Binds a ValidatingAdmissionPolicy to requests, with parameters and validation actions.',
    gvk: [{ group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AR, 'ValidatingAdmissionPolicyBindingSpec'), description: 'The policy, its parameters and the requests it applies to.' },
    ],
  },
  {
    name: AR + '.ValidatingAdmissionPolicyBindingSpec',
    description: 'What a ValidatingAdmissionPolicyBinding binds.',
    fields: [
      { name: 'policyName', proto: 1, type: STRING, description: 'The ValidatingAdmissionPolicy bound. Required.' },
      { name: 'paramRef', proto: 2, type: ref(AR, 'ParamRef'), description: 'The parameter resource(s) the policy is evaluated with.' },
      { name: 'matchResources', proto: 3, type: ref(AR, 'MatchResources'), description: 'Narrows the requests the policy applies to.' },
      { name: 'validationActions', proto: 4, type: list(STRING), listType: 'set', description: 'Deny, Warn and/or Audit: what a failed validation does. Required.' },
    ],
  },
];
