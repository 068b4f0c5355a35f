/**
 * Built-in type descriptors for meta.k8s.io/v1 (apimachinery): JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, INT32, INT64, JSON_VALUE, META_V1, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const metaV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: META_V1 + '.ObjectMeta',
    description: 'Metadata every persisted resource carries: identity, labels and annotations, ownership, and server-maintained bookkeeping.',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: 'Unique name of the object within its namespace (or cluster for cluster-scoped kinds); cannot be changed after creation.' },
      { name: 'generateName', proto: 2, type: STRING, description: 'Prefix the server uses to generate a unique name when name is empty; a random suffix is appended.' },
      { name: 'namespace', proto: 3, type: STRING, description: 'Namespace the object lives in; empty for cluster-scoped objects.' },
      { name: 'selfLink', proto: 4, type: STRING, description: 'Deprecated and no longer set: formerly the URL of this object.' },
      { name: 'uid', proto: 5, type: STRING, description: 'Identifier the server assigns at creation that is unique across time; read-only.' },
      { name: 'resourceVersion', proto: 6, type: STRING, description: 'Opaque version string for optimistic concurrency and watch resumption; clients must treat it as opaque and pass it back unchanged.' },
      { name: 'generation', proto: 7, type: INT64, description: 'Sequence number of the desired state, bumped by the server when the spec changes; read-only.' },
      { name: 'creationTimestamp', proto: 8, type: TIME, description: 'Server time at which the object was created, in RFC3339 UTC; read-only.' },
      { name: 'deletionTimestamp', proto: 9, type: TIME, description: 'Time after which the object will be removed, set when deletion is requested while finalizers remain; read-only.' },
      { name: 'deletionGracePeriodSeconds', proto: 10, type: INT64, emitZero: true, description: 'Seconds the object is allowed to wind down before it is removed; set together with deletionTimestamp; read-only.' },
      { name: 'labels', proto: 11, type: map(STRING), description: 'String key/value pairs used to organise objects and to select them with label selectors.' },
      { name: 'annotations', proto: 12, type: map(STRING), description: 'Arbitrary string key/value pairs for tools and extensions; not used for selection.' },
      { name: 'ownerReferences', proto: 13, type: list(ref(META_V1, 'OwnerReference')), patchStrategy: 'merge', patchMergeKey: 'uid', listType: 'map', listMapKeys: ['uid'], description: 'Objects this object depends on; when every owner is gone the garbage collector removes it.' },
      { name: 'finalizers', proto: 14, type: list(STRING), patchStrategy: 'merge', listType: 'set', description: 'Names of pending clean-up steps; the object is only removed once this list is empty.' },
      { name: 'managedFields', proto: 17, type: list(ref(META_V1, 'ManagedFieldsEntry')), listType: 'atomic', description: 'Which manager (workflow) owns which fields, maintained by server-side apply; normally left alone by users.' },
    ],
  },
  {
    name: META_V1 + '.OwnerReference',
    description: 'Identifies an owning object in the same namespace (or a cluster-scoped owner).',
    mapType: 'atomic',
    fields: [
      { name: 'apiVersion', proto: 5, type: STRING, required: true, emitZero: true, description: 'API version of the owner.' },
      { name: 'kind', proto: 1, type: STRING, required: true, emitZero: true, description: 'Kind of the owner.' },
      { name: 'name', proto: 3, type: STRING, required: true, emitZero: true, description: 'Name of the owner.' },
      { name: 'uid', proto: 4, type: STRING, required: true, emitZero: true, description: 'UID of the owner.' },
      { name: 'controller', proto: 6, type: BOOLEAN, emitZero: true, description: 'True when this owner is the managing controller; at most one owner may be the controller.' },
      { name: 'blockOwnerDeletion', proto: 7, type: BOOLEAN, emitZero: true, description: 'When true and the owner is deleted in foreground mode, the owner is kept until this dependent is gone.' },
    ],
  },
  {
    name: META_V1 + '.ManagedFieldsEntry',
    description: 'One manager\'s ownership record of a set of fields at one API version.',
    fields: [
      { name: 'manager', proto: 1, type: STRING, description: 'Name of the workflow (field manager) that owns the fields.' },
      { name: 'operation', proto: 2, type: STRING, description: 'How the fields were last changed: "Apply" or "Update".' },
      { name: 'apiVersion', proto: 3, type: STRING, description: 'API version the field set is expressed in.' },
      { name: 'time', proto: 4, type: TIME, description: 'When the entry last changed.' },
      { name: 'fieldsType', proto: 6, type: STRING, description: 'Encoding of the field set; "FieldsV1" is the only one defined.' },
      { name: 'fieldsV1', proto: 7, type: JSON_VALUE, description: 'The owned fields as a JSON trie of "f:", "k:", "v:" and "i:" keys.' },
      { name: 'subresource', proto: 8, type: STRING, description: 'Subresource through which the fields were written, empty for the main resource.' },
    ],
  },
  {
    name: META_V1 + '.ListMeta',
    description: 'Metadata carried by list responses and Status objects.',
    fields: [
      { name: 'selfLink', proto: 1, type: STRING, description: 'Deprecated and no longer set: formerly the URL of this list.' },
      { name: 'resourceVersion', proto: 2, type: STRING, description: 'Version of the collection at the time it was read; use it to start a watch.' },
      { name: 'continue', proto: 3, type: STRING, description: 'Opaque token for fetching the next page of a paginated list; empty when no more items remain.' },
      { name: 'remainingItemCount', proto: 4, type: INT64, emitZero: true, description: 'Estimated number of items not yet returned when a list is paginated.' },
    ],
  },
  {
    name: META_V1 + '.LabelSelector',
    description: 'A query over labels; requirements are ANDed, and an empty selector matches everything.',
    mapType: 'atomic',
    fields: [
      { name: 'matchLabels', proto: 1, type: map(STRING), description: 'Exact key/value pairs that must all be present.' },
      { name: 'matchExpressions', proto: 2, type: list(ref(META_V1, 'LabelSelectorRequirement')), listType: 'atomic', description: 'Set-based requirements that must all hold.' },
    ],
  },
  {
    name: META_V1 + '.LabelSelectorRequirement',
    description: 'One set-based requirement on a label key.',
    fields: [
      { name: 'key', proto: 1, type: STRING, required: true, emitZero: true, description: 'Label key the requirement applies to.' },
      { name: 'operator', proto: 2, type: STRING, required: true, emitZero: true, description: 'Relationship between key and values: In, NotIn, Exists or DoesNotExist.' },
      { name: 'values', proto: 3, type: list(STRING), listType: 'atomic', description: 'Values to compare with; required for In and NotIn, empty for Exists and DoesNotExist.' },
    ],
  },
  {
    name: META_V1 + '.DeleteOptions',
    description: 'Options a client may pass when deleting an object.',
    gvk: [{ group: '', version: 'v1', kind: 'DeleteOptions' }, { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' }, { group: 'events.k8s.io', version: 'v1', kind: 'DeleteOptions' }, { group: 'coordination.k8s.io', version: 'v1', kind: 'DeleteOptions' }, { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'DeleteOptions' }, { group: 'authorization.k8s.io', version: 'v1', kind: 'DeleteOptions' }, { group: 'authentication.k8s.io', version: 'v1', kind: 'DeleteOptions' }, { group: 'autoscaling', version: 'v1', kind: 'DeleteOptions' }, { group: 'apiextensions.k8s.io', version: 'v1', kind: 'DeleteOptions' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'gracePeriodSeconds', proto: 1, type: INT64, emitZero: true, description: 'Seconds to wait before the object is removed; zero means remove at once, absent means the kind\'s default.' },
      { name: 'preconditions', proto: 2, type: ref(META_V1, 'Preconditions'), description: 'Conditions that must hold or the delete fails with a Conflict.' },
      { name: 'orphanDependents', proto: 3, type: BOOLEAN, emitZero: true, description: 'Deprecated: whether dependents are orphaned; use propagationPolicy instead.' },
      { name: 'propagationPolicy', proto: 4, type: STRING, emitZero: true, description: 'How dependents are garbage collected: Orphan, Background or Foreground.' },
      { name: 'dryRun', proto: 5, type: list(STRING), listType: 'atomic', description: 'When set to ["All"], the request is validated but nothing is persisted.' },
      { name: 'ignoreStoreReadErrorWithClusterBreakingPotential', proto: 6, type: BOOLEAN, emitZero: true, description: 'Allows deleting an object whose stored data cannot be read; dangerous and needs extra permission.' },
    ],
  },
  {
    name: META_V1 + '.Preconditions',
    description: 'Expectations checked before an operation is carried out.',
    fields: [
      { name: 'uid', proto: 1, type: STRING, emitZero: true, description: 'The object must have this UID.' },
      { name: 'resourceVersion', proto: 2, type: STRING, emitZero: true, description: 'The object must be at this resourceVersion.' },
    ],
  },
  {
    name: META_V1 + '.Condition',
    description: 'One aspect of an object\'s current state, in the shared condition shape.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Condition type in CamelCase or domain/Name form.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown.' },
      { name: 'observedGeneration', proto: 3, type: INT64, description: 'metadata.generation the condition was computed from.' },
      { name: 'lastTransitionTime', proto: 4, type: TIME, required: true, description: 'When status last changed.' },
      { name: 'reason', proto: 5, type: STRING, required: true, emitZero: true, description: 'Machine-readable CamelCase reason for the last transition.' },
      { name: 'message', proto: 6, type: STRING, required: true, emitZero: true, description: 'Human-readable details about the transition.' },
    ],
  },
  {
    name: META_V1 + '.Status',
    description: 'Result of an operation that does not return an object, usually an error.',
    gvk: [{ group: '', version: 'v1', kind: 'Status' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'metadata', proto: 1, type: ref(META_V1, 'ListMeta'), description: 'List metadata; usually empty.' },
      { name: 'status', proto: 2, type: STRING, description: 'Either "Success" or "Failure".' },
      { name: 'message', proto: 3, type: STRING, description: 'Human-readable description of the result.' },
      { name: 'reason', proto: 4, type: STRING, description: 'Machine-readable CamelCase reason, such as NotFound or AlreadyExists.' },
      { name: 'details', proto: 5, type: ref(META_V1, 'StatusDetails'), description: 'Extra data about the reason; its content depends on reason.' },
      { name: 'code', proto: 6, type: INT32, description: 'HTTP status code of the response.' },
    ],
  },
  {
    name: META_V1 + '.StatusDetails',
    description: 'Additional information attached to a Status.',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: 'Name of the resource involved.' },
      { name: 'group', proto: 2, type: STRING, description: 'API group of the resource involved.' },
      { name: 'kind', proto: 3, type: STRING, description: 'Kind of the resource involved.' },
      { name: 'uid', proto: 6, type: STRING, description: 'UID of the resource involved.' },
      { name: 'causes', proto: 4, type: list(ref(META_V1, 'StatusCause')), listType: 'atomic', description: 'Individual problems, for example one per invalid field.' },
      { name: 'retryAfterSeconds', proto: 5, type: INT32, description: 'Seconds a client should wait before retrying.' },
    ],
  },
  {
    name: META_V1 + '.StatusCause',
    description: 'One reason an operation failed.',
    fields: [
      { name: 'reason', proto: 1, type: STRING, description: 'Machine-readable cause, such as FieldValueInvalid.' },
      { name: 'message', proto: 2, type: STRING, description: 'Human-readable explanation of the cause.' },
      { name: 'field', proto: 3, type: STRING, description: 'Path of the field at fault, such as spec.containers[0].name.' },
    ],
  },
  {
    name: META_V1 + '.APIResource',
    description: 'Discovery description of one resource in a group version.',
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Plural resource name, or resource/subresource.' },
      { name: 'singularName', proto: 6, type: STRING, required: true, emitZero: true, description: 'Singular resource name.' },
      { name: 'namespaced', proto: 2, type: BOOLEAN, required: true, emitZero: true, description: 'Whether the resource lives in namespaces.' },
      { name: 'group', proto: 8, type: STRING, description: 'Preferred group of the resource, when it differs from the list\'s.' },
      { name: 'version', proto: 9, type: STRING, description: 'Preferred version of the resource, when it differs from the list\'s.' },
      { name: 'kind', proto: 3, type: STRING, required: true, emitZero: true, description: 'Kind of the resource.' },
      { name: 'verbs', proto: 4, type: list(STRING), required: true, protoWrappedList: true, emitZero: true, description: 'Operations the resource supports, such as get, list, watch, create.' },
      { name: 'shortNames', proto: 5, type: list(STRING), listType: 'atomic', description: 'Abbreviations accepted by kubectl.' },
      { name: 'categories', proto: 7, type: list(STRING), listType: 'atomic', description: 'Group aliases the resource belongs to, such as "all".' },
      { name: 'storageVersionHash', proto: 10, type: STRING, description: 'Hash of the storage version, for detecting storage migrations.' },
    ],
  },
  {
    name: META_V1 + '.APIResourceList',
    description: 'Discovery list of the resources served in one group version.',
    gvk: [{ group: '', version: 'v1', kind: 'APIResourceList' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'groupVersion', proto: 1, type: STRING, required: true, emitZero: true, description: 'The group version the resources belong to.' },
      { name: 'resources', proto: 2, type: list(ref(META_V1, 'APIResource')), required: true, listType: 'atomic', emitZero: true, description: 'The resources served.' },
    ],
  },
  {
    name: META_V1 + '.APIGroup',
    description: 'Discovery description of one API group.',
    gvk: [{ group: '', version: 'v1', kind: 'APIGroup' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: 'Name of the group.' },
      { name: 'versions', proto: 2, type: list(ref(META_V1, 'GroupVersionForDiscovery')), required: true, listType: 'atomic', emitZero: true, description: 'Versions served for the group.' },
      { name: 'preferredVersion', proto: 3, type: ref(META_V1, 'GroupVersionForDiscovery'), description: 'Version clients should use.' },
      { name: 'serverAddressByClientCIDRs', proto: 4, type: list(ref(META_V1, 'ServerAddressByClientCIDR')), listType: 'atomic', description: 'Server addresses to use for given client networks.' },
    ],
  },
  {
    name: META_V1 + '.GroupVersionForDiscovery',
    description: 'A group version as listed in discovery.',
    fields: [
      { name: 'groupVersion', proto: 1, type: STRING, required: true, emitZero: true, description: 'The "group/version" string.' },
      { name: 'version', proto: 2, type: STRING, required: true, emitZero: true, description: 'The version alone.' },
    ],
  },
  {
    name: META_V1 + '.ServerAddressByClientCIDR',
    description: 'The server address to use for clients in a network.',
    fields: [
      { name: 'clientCIDR', proto: 1, type: STRING, required: true, emitZero: true, description: 'Network the rule applies to.' },
      { name: 'serverAddress', proto: 2, type: STRING, required: true, emitZero: true, description: 'Host and port clients in that network should use.' },
    ],
  },
  {
    name: META_V1 + '.APIGroupList',
    description: 'Discovery list of API groups.',
    gvk: [{ group: '', version: 'v1', kind: 'APIGroupList' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'groups', proto: 1, type: list(ref(META_V1, 'APIGroup')), required: true, listType: 'atomic', emitZero: true, description: 'The groups served.' },
    ],
  },
  {
    name: META_V1 + '.APIVersions',
    description: 'Discovery list of the versions of the legacy core API.',
    gvk: [{ group: '', version: 'v1', kind: 'APIVersions' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'versions', proto: 1, type: list(STRING), required: true, listType: 'atomic', emitZero: true, description: 'Versions served at /api.' },
      { name: 'serverAddressByClientCIDRs', proto: 2, type: list(ref(META_V1, 'ServerAddressByClientCIDR')), required: true, listType: 'atomic', emitZero: true, description: 'Server addresses to use for given client networks.' },
    ],
  },
  {
    name: META_V1 + '.FieldSelectorRequirement',
    description: 'One requirement on a field value.',
    fields: [
      { name: 'key', proto: 1, type: STRING, required: true, emitZero: true, description: 'Field path the requirement applies to.' },
      { name: 'operator', proto: 2, type: STRING, required: true, emitZero: true, description: 'Relationship between key and values: In, NotIn, Exists or DoesNotExist.' },
      { name: 'values', proto: 3, type: list(STRING), listType: 'atomic', description: 'Values to compare with.' },
    ],
  },
];
