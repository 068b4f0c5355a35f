/**
 * Built-in type descriptors for apiextensions.k8s.io/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { APIEXTENSIONS_V1, BOOLEAN, BYTES, DOUBLE, INT32, INT64, JSON_VALUE, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const apiextensionsV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceDefinition',
    description: 'Defines a custom resource type that the server then serves.',
    gvk: [{ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(APIEXTENSIONS_V1, 'CustomResourceDefinitionSpec'), required: true, description: 'How the custom resource is named, scoped, versioned and validated.' },
      { name: 'status', proto: 3, type: ref(APIEXTENSIONS_V1, 'CustomResourceDefinitionStatus'), description: 'Observed state of the definition.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceDefinitionSpec',
    description: 'Desired shape of a custom resource type.',
    fields: [
      { name: 'group', proto: 1, type: STRING, required: true, emitZero: true, description: 'API group of the resource; the definition must be named <plural>.<group>.' },
      { name: 'names', proto: 3, type: ref(APIEXTENSIONS_V1, 'CustomResourceDefinitionNames'), required: true, description: 'Names the resource is served under.' },
      { name: 'scope', proto: 4, type: STRING, required: true, emitZero: true, description: 'Cluster or Namespaced.' },
      { name: 'versions', proto: 7, type: list(ref(APIEXTENSIONS_V1, 'CustomResourceDefinitionVersion')), required: true, listType: 'atomic', emitZero: true, description: 'Versions served; exactly one must be the storage version.' },
      { name: 'conversion', proto: 9, type: ref(APIEXTENSIONS_V1, 'CustomResourceConversion'), description: 'How objects are converted between versions.' },
      { name: 'preserveUnknownFields', proto: 10, type: BOOLEAN, description: 'Deprecated: keep unknown fields everywhere; must be false in v1.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceDefinitionNames',
    description: 'Names a custom resource is served under.',
    fields: [
      { name: 'plural', proto: 1, type: STRING, required: true, emitZero: true, description: 'Plural resource name used in URLs, lowercase.' },
      { name: 'singular', proto: 2, type: STRING, description: 'Singular name, lowercase; defaults to the lowercased kind.' },
      { name: 'shortNames', proto: 3, type: list(STRING), listType: 'atomic', description: 'Short aliases accepted by kubectl.' },
      { name: 'kind', proto: 4, type: STRING, required: true, emitZero: true, description: 'CamelCase kind of the objects.' },
      { name: 'listKind', proto: 5, type: STRING, description: 'Kind of lists; defaults to <kind>List.' },
      { name: 'categories', proto: 6, type: list(STRING), listType: 'atomic', description: 'Group aliases the resource belongs to, such as "all".' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceDefinitionVersion',
    description: 'One served version of a custom resource.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Version name, such as v1 or v1beta1.' },
      { name: 'served', proto: 2, type: BOOLEAN, required: true, emitZero: true, description: 'Whether the version is served over REST.' },
      { name: 'storage', proto: 3, type: BOOLEAN, required: true, emitZero: true, description: 'Whether objects are persisted in this version; exactly one version must be.' },
      { name: 'deprecated', proto: 7, type: BOOLEAN, description: 'Whether clients get a deprecation warning.' },
      { name: 'deprecationWarning', proto: 8, type: STRING, emitZero: true, description: 'Overrides the default deprecation warning.' },
      { name: 'schema', proto: 4, type: ref(APIEXTENSIONS_V1, 'CustomResourceValidation'), description: 'Validation schema of this version.' },
      { name: 'subresources', proto: 5, type: ref(APIEXTENSIONS_V1, 'CustomResourceSubresources'), description: 'Subresources this version serves.' },
      { name: 'additionalPrinterColumns', proto: 6, type: list(ref(APIEXTENSIONS_V1, 'CustomResourceColumnDefinition')), listType: 'atomic', description: 'Extra columns shown by kubectl get.' },
      { name: 'selectableFields', proto: 9, type: list(ref(APIEXTENSIONS_V1, 'SelectableField')), listType: 'atomic', description: 'Fields usable in field selectors.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceValidation',
    description: 'Validation schema of a custom resource version.',
    fields: [
      { name: 'openAPIV3Schema', proto: 1, type: ref(APIEXTENSIONS_V1, 'JSONSchemaProps'), description: 'Structural OpenAPI v3 schema for validation and pruning.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.JSONSchemaProps',
    description: 'A JSON-Schema (OpenAPI v3) node with Kubernetes extensions.',
    fields: [
      { name: 'id', proto: 1, type: STRING, description: 'Schema identifier.' },
      { name: '$schema', proto: 2, type: STRING, description: 'JSON-Schema dialect URI.' },
      { name: '$ref', proto: 3, type: STRING, emitZero: true, description: 'Reference to another schema; not allowed in CRDs.' },
      { name: 'description', proto: 4, type: STRING, description: 'Human-readable description, shown by kubectl explain.' },
      { name: 'type', proto: 5, type: STRING, description: 'JSON type: object, array, string, integer, number or boolean.' },
      { name: 'format', proto: 6, type: STRING, description: 'Format hint for the value, such as int32, date-time or byte.' },
      { name: 'title', proto: 7, type: STRING, description: 'Short title.' },
      { name: 'default', proto: 8, type: JSON_VALUE, description: 'Value used when the field is absent.' },
      { name: 'maximum', proto: 9, type: DOUBLE, emitZero: true, description: 'Largest allowed number.' },
      { name: 'exclusiveMaximum', proto: 10, type: BOOLEAN, description: 'Whether maximum itself is excluded.' },
      { name: 'minimum', proto: 11, type: DOUBLE, emitZero: true, description: 'Smallest allowed number.' },
      { name: 'exclusiveMinimum', proto: 12, type: BOOLEAN, description: 'Whether minimum itself is excluded.' },
      { name: 'maxLength', proto: 13, type: INT64, emitZero: true, description: 'Longest allowed string length.' },
      { name: 'minLength', proto: 14, type: INT64, emitZero: true, description: 'Shortest allowed string length.' },
      { name: 'pattern', proto: 15, type: STRING, description: 'Regular expression strings must match.' },
      { name: 'maxItems', proto: 16, type: INT64, emitZero: true, description: 'Most items allowed in an array.' },
      { name: 'minItems', proto: 17, type: INT64, emitZero: true, description: 'Fewest items allowed in an array.' },
      { name: 'uniqueItems', proto: 18, type: BOOLEAN, description: 'Whether array items must be unique.' },
      { name: 'multipleOf', proto: 19, type: DOUBLE, emitZero: true, description: 'Numbers must be a multiple of this.' },
      { name: 'enum', proto: 20, type: list(JSON_VALUE), listType: 'atomic', description: 'The only allowed values.' },
      { name: 'maxProperties', proto: 21, type: INT64, emitZero: true, description: 'Most properties allowed in an object.' },
      { name: 'minProperties', proto: 22, type: INT64, emitZero: true, description: 'Fewest properties allowed in an object.' },
      { name: 'required', proto: 23, type: list(STRING), listType: 'atomic', description: 'Properties that must be present.' },
      { name: 'items', proto: 24, type: ref(APIEXTENSIONS_V1, 'JSONSchemaPropsOrArray'), description: 'Schema of array items: one schema, or one per position.' },
      { name: 'allOf', proto: 25, type: list(ref(APIEXTENSIONS_V1, 'JSONSchemaProps')), listType: 'atomic', description: 'Schemas that must all match.' },
      { name: 'oneOf', proto: 26, type: list(ref(APIEXTENSIONS_V1, 'JSONSchemaProps')), listType: 'atomic', description: 'Schemas of which exactly one must match.' },
      { name: 'anyOf', proto: 27, type: list(ref(APIEXTENSIONS_V1, 'JSONSchemaProps')), listType: 'atomic', description: 'Schemas of which at least one must match.' },
      { name: 'not', proto: 28, type: ref(APIEXTENSIONS_V1, 'JSONSchemaProps'), description: 'Schema that must not match.' },
      { name: 'properties', proto: 29, type: map(ref(APIEXTENSIONS_V1, 'JSONSchemaProps')), description: 'Schemas of named object properties.' },
      { name: 'additionalProperties', proto: 30, type: ref(APIEXTENSIONS_V1, 'JSONSchemaPropsOrBool'), description: 'Schema of properties not listed, or whether they are allowed at all.' },
      { name: 'patternProperties', proto: 31, type: map(ref(APIEXTENSIONS_V1, 'JSONSchemaProps')), description: 'Schemas of properties whose names match a regular expression.' },
      { name: 'dependencies', proto: 32, type: map(ref(APIEXTENSIONS_V1, 'JSONSchemaPropsOrStringArray')), description: 'Schemas or property lists required when a property is present.' },
      { name: 'additionalItems', proto: 33, type: ref(APIEXTENSIONS_V1, 'JSONSchemaPropsOrBool'), description: 'Schema of array items beyond the positional ones, or whether they are allowed.' },
      { name: 'definitions', proto: 34, type: map(ref(APIEXTENSIONS_V1, 'JSONSchemaProps')), description: 'Named reusable schemas.' },
      { name: 'externalDocs', proto: 35, type: ref(APIEXTENSIONS_V1, 'ExternalDocumentation'), description: 'Link to further documentation.' },
      { name: 'example', proto: 36, type: JSON_VALUE, description: 'An example value.' },
      { name: 'nullable', proto: 37, type: BOOLEAN, description: 'Whether null is accepted and kept.' },
      { name: 'x-kubernetes-preserve-unknown-fields', proto: 38, type: BOOLEAN, emitZero: true, description: 'Keep fields the schema does not describe instead of pruning them.' },
      { name: 'x-kubernetes-embedded-resource', proto: 39, type: BOOLEAN, description: 'The value is a complete Kubernetes object with apiVersion, kind and metadata.' },
      { name: 'x-kubernetes-int-or-string', proto: 40, type: BOOLEAN, description: 'The value may be an integer or a string.' },
      { name: 'x-kubernetes-list-map-keys', proto: 41, type: list(STRING), listType: 'atomic', description: 'For list-type map: the item fields that identify an item.' },
      { name: 'x-kubernetes-list-type', proto: 42, type: STRING, emitZero: true, description: 'How a list merges in server-side apply: atomic, set or map.' },
      { name: 'x-kubernetes-map-type', proto: 43, type: STRING, emitZero: true, description: 'How an object merges in server-side apply: granular or atomic.' },
      { name: 'x-kubernetes-validations', proto: 44, type: list(ref(APIEXTENSIONS_V1, 'ValidationRule')), patchStrategy: 'merge', patchMergeKey: 'rule', listType: 'map', listMapKeys: ['rule'], description: 'CEL rules the value must satisfy.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.ExternalDocumentation',
    description: 'A link to further documentation.',
    fields: [
      { name: 'description', proto: 1, type: STRING, description: 'What the link is about.' },
      { name: 'url', proto: 2, type: STRING, description: 'The link.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.ValidationRule',
    description: 'A CEL validation rule for a schema node.',
    fields: [
      { name: 'rule', proto: 1, type: STRING, required: true, emitZero: true, description: 'CEL expression that must be true; self is the value, oldSelf the previous value.' },
      { name: 'message', proto: 2, type: STRING, description: 'Message shown when the rule fails.' },
      { name: 'messageExpression', proto: 3, type: STRING, description: 'CEL expression producing the failure message.' },
      { name: 'reason', proto: 4, type: STRING, enum: ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'], emitZero: true, description: 'Reason reported when the rule fails.' },
      { name: 'fieldPath', proto: 5, type: STRING, description: 'Field the failure is reported against, relative to this node.' },
      { name: 'optionalOldSelf', proto: 6, type: BOOLEAN, emitZero: true, description: 'Evaluate the rule on creation too, with oldSelf as an optional value.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceSubresources',
    description: 'Subresources a custom resource version serves.',
    fields: [
      { name: 'status', proto: 1, type: ref(APIEXTENSIONS_V1, 'CustomResourceSubresourceStatus'), description: 'Serve /status and make the main endpoint ignore status changes.' },
      { name: 'scale', proto: 2, type: ref(APIEXTENSIONS_V1, 'CustomResourceSubresourceScale'), description: 'Serve /scale for autoscalers and kubectl scale.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceSubresourceStatus',
    description: 'Enables the status subresource; it has no settings.',
    fields: [],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceSubresourceScale',
    description: 'Where the scale subresource finds its values.',
    fields: [
      { name: 'specReplicasPath', proto: 1, type: STRING, required: true, emitZero: true, description: 'JSON path of the desired replica count, under .spec.' },
      { name: 'statusReplicasPath', proto: 2, type: STRING, required: true, emitZero: true, description: 'JSON path of the observed replica count, under .status.' },
      { name: 'labelSelectorPath', proto: 3, type: STRING, emitZero: true, description: 'JSON path of the selector string, under .status or .spec.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceColumnDefinition',
    description: 'An extra column for kubectl get.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Column header.' },
      { name: 'type', proto: 2, type: STRING, required: true, emitZero: true, description: 'OpenAPI type of the column values.' },
      { name: 'format', proto: 3, type: STRING, description: 'OpenAPI format of the column values.' },
      { name: 'description', proto: 4, type: STRING, description: 'Human-readable description of the column.' },
      { name: 'priority', proto: 5, type: INT32, description: 'Importance; columns above 0 show only in wide output.' },
      { name: 'jsonPath', proto: 6, type: STRING, required: true, emitZero: true, description: 'Simple JSON path evaluated against each object.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.SelectableField',
    description: 'A field that can be used in field selectors.',
    fields: [
      { name: 'jsonPath', proto: 1, type: STRING, required: true, emitZero: true, description: 'Simple JSON path of the field.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceConversion',
    description: 'How objects are converted between versions.',
    fields: [
      { name: 'strategy', proto: 1, type: STRING, required: true, emitZero: true, description: 'None (only apiVersion changes) or Webhook.' },
      { name: 'webhook', proto: 2, type: ref(APIEXTENSIONS_V1, 'WebhookConversion'), description: 'Webhook settings; required when strategy is Webhook.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.WebhookConversion',
    description: 'Conversion webhook settings.',
    fields: [
      { name: 'clientConfig', proto: 2, type: ref(APIEXTENSIONS_V1, 'WebhookClientConfig'), description: 'How to call the webhook.' },
      { name: 'conversionReviewVersions', proto: 3, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'ConversionReview versions the webhook accepts, in order of preference.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.WebhookClientConfig',
    description: 'How to reach a webhook: a URL or an in-cluster service.',
    fields: [
      { name: 'url', proto: 3, type: STRING, emitZero: true, description: 'HTTPS URL of the webhook.' },
      { name: 'service', proto: 1, type: ref(APIEXTENSIONS_V1, 'ServiceReference'), description: 'In-cluster service of the webhook.' },
      { name: 'caBundle', proto: 2, type: BYTES, description: 'PEM CA bundle for verifying the webhook\'s certificate.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.ServiceReference',
    description: 'A reference to a service.',
    fields: [
      { name: 'namespace', proto: 1, type: STRING, required: true, emitZero: true, description: 'Namespace of the service.' },
      { name: 'name', proto: 2, type: STRING, required: true, emitZero: true, description: 'Name of the service.' },
      { name: 'path', proto: 3, type: STRING, emitZero: true, description: 'URL path requests are sent to.' },
      { name: 'port', proto: 4, type: INT32, emitZero: true, description: 'Port of the service; defaults to 443.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceDefinitionStatus',
    description: 'Observed state of a custom resource definition.',
    fields: [
      { name: 'conditions', proto: 1, type: list(ref(APIEXTENSIONS_V1, 'CustomResourceDefinitionCondition')), listType: 'map', listMapKeys: ['type'], emitZero: true, description: 'Latest observations, such as Established and NamesAccepted.' },
      { name: 'acceptedNames', proto: 2, type: ref(APIEXTENSIONS_V1, 'CustomResourceDefinitionNames'), description: 'Names actually being served.' },
      { name: 'storedVersions', proto: 3, type: list(STRING), listType: 'atomic', emitZero: true, description: 'Versions objects have ever been stored in.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.CustomResourceDefinitionCondition',
    description: 'One observation about a custom resource definition.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Condition type, such as Established.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown.' },
      { name: 'lastTransitionTime', proto: 3, type: TIME, description: 'When status last changed.' },
      { name: 'reason', proto: 4, type: STRING, description: 'CamelCase reason for the last transition.' },
      { name: 'message', proto: 5, type: STRING, description: 'Human-readable details.' },
    ],
  },
  {
    name: APIEXTENSIONS_V1 + '.JSONSchemaPropsOrArray',
    description: 'Either one schema (all items) or an array of schemas (one per position).',
    // Union-shaped JSON, no properties; src/apimachinery/protobuf/json-schema-unions.ts decodes its wrapper message.
    fields: [],
  },
  {
    name: APIEXTENSIONS_V1 + '.JSONSchemaPropsOrBool',
    description: 'Either a boolean (allow or forbid) or a schema the values must match.',
    // Union-shaped JSON, no properties; src/apimachinery/protobuf/json-schema-unions.ts decodes its wrapper message.
    fields: [],
  },
  {
    name: APIEXTENSIONS_V1 + '.JSONSchemaPropsOrStringArray',
    description: 'Either a schema or a list of property names.',
    // Union-shaped JSON, no properties; src/apimachinery/protobuf/json-schema-unions.ts decodes its wrapper message.
    fields: [],
  },
];
