/**
 * Built-in type descriptors for core/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, BYTES, CORE_V1, INT32, META_V1, MICRO_TIME, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const coreV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: CORE_V1 + '.Namespace',
    description: 'A scope for names; most objects live in exactly one namespace.',
    gvk: [{ group: '', version: 'v1', kind: 'Namespace' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'NamespaceSpec'), description: 'Desired behaviour of the namespace.' },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'NamespaceStatus'), description: 'Observed state of the namespace, set by the server.' },
    ],
  },
  {
    name: CORE_V1 + '.NamespaceSpec',
    description: 'Desired behaviour of a namespace.',
    fields: [
      { name: 'finalizers', proto: 1, type: list(STRING), listType: 'atomic', description: 'Clean-up steps that must finish before the namespace is removed.' },
    ],
  },
  {
    name: CORE_V1 + '.NamespaceStatus',
    description: 'Observed state of a namespace.',
    fields: [
      { name: 'phase', proto: 1, type: STRING, enum: ['Active', 'Terminating'], description: 'Lifecycle phase: Active or Terminating.' },
      { name: 'conditions', proto: 2, type: list(ref(CORE_V1, 'NamespaceCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: 'Latest observations about the namespace.' },
    ],
  },
  {
    name: CORE_V1 + '.NamespaceCondition',
    description: 'One observation about a namespace.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Condition type.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown.' },
      { name: 'lastTransitionTime', proto: 4, type: TIME, description: 'When status last changed.' },
      { name: 'reason', proto: 5, type: STRING, description: 'CamelCase reason for the last transition.' },
      { name: 'message', proto: 6, type: STRING, description: 'Human-readable details.' },
    ],
  },
  {
    name: CORE_V1 + '.ConfigMap',
    description: 'Non-secret configuration data as key/value pairs.',
    gvk: [{ group: '', version: 'v1', kind: 'ConfigMap' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'immutable', proto: 4, type: BOOLEAN, emitZero: true, description: 'When true, data and binaryData can no longer be changed; only deletion is possible.' },
      { name: 'data', proto: 2, type: map(STRING), description: 'UTF-8 configuration values by key.' },
      { name: 'binaryData', proto: 3, type: map(BYTES), description: 'Binary configuration values by key, base64-encoded in JSON.' },
    ],
  },
  {
    name: CORE_V1 + '.Secret',
    description: 'Sensitive data such as passwords or tokens, as key/value pairs.',
    gvk: [{ group: '', version: 'v1', kind: 'Secret' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'immutable', proto: 5, type: BOOLEAN, emitZero: true, description: 'When true, the data can no longer be changed; only deletion is possible.' },
      { name: 'data', proto: 2, type: map(BYTES), description: 'Secret values by key, base64-encoded in JSON.' },
      { name: 'stringData', proto: 4, type: map(STRING), description: 'Write-only plain-text values merged into data on write.' },
      { name: 'type', proto: 3, type: STRING, description: 'Hint for how the data is used, such as Opaque or kubernetes.io/tls.' },
    ],
  },
  {
    name: CORE_V1 + '.ServiceAccount',
    description: 'An identity for processes and workloads.',
    gvk: [{ group: '', version: 'v1', kind: 'ServiceAccount' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'secrets', proto: 2, type: list(ref(CORE_V1, 'ObjectReference')), patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'], description: 'Secrets this service account may use.' },
      { name: 'imagePullSecrets', proto: 3, type: list(ref(CORE_V1, 'LocalObjectReference')), listType: 'atomic', description: 'Secrets used to pull container images.' },
      { name: 'automountServiceAccountToken', proto: 4, type: BOOLEAN, emitZero: true, description: 'Whether workloads get an API token mounted automatically.' },
    ],
  },
  {
    name: CORE_V1 + '.ObjectReference',
    description: 'A pointer to another object, with optional detail about a part of it.',
    mapType: 'atomic',
    fields: [
      { name: 'kind', proto: 1, type: STRING, description: 'Kind of the referent.' },
      { name: 'namespace', proto: 2, type: STRING, description: 'Namespace of the referent.' },
      { name: 'name', proto: 3, type: STRING, description: 'Name of the referent.' },
      { name: 'uid', proto: 4, type: STRING, description: 'UID of the referent.' },
      { name: 'apiVersion', proto: 5, type: STRING, description: 'API version of the referent.' },
      { name: 'resourceVersion', proto: 6, type: STRING, description: 'Version of the referent the reference was taken from.' },
      { name: 'fieldPath', proto: 7, type: STRING, description: 'Part of the referent this reference points into, such as spec.containers{name}.' },
    ],
  },
  {
    name: CORE_V1 + '.LocalObjectReference',
    description: 'A reference by name to an object in the same namespace.',
    mapType: 'atomic',
    fields: [
      { name: 'name', proto: 1, type: STRING, description: 'Name of the referent.' },
    ],
  },
  {
    name: CORE_V1 + '.Event',
    description: 'A report of something that happened to an object (core/v1 form).',
    gvk: [{ group: '', version: 'v1', kind: 'Event' }],
    fields: [
      ...TYPE_META_FIELDS,
      { name: 'metadata', proto: 1, type: ref(META_V1, 'ObjectMeta'), required: true, description: 'Standard object metadata: name, namespace, labels, annotations and the server-managed bookkeeping fields.' },
      { name: 'involvedObject', proto: 2, type: ref(CORE_V1, 'ObjectReference'), required: true, description: 'The object the event is about.' },
      { name: 'reason', proto: 3, type: STRING, description: 'Short machine-readable CamelCase reason.' },
      { name: 'message', proto: 4, type: STRING, description: 'Human-readable description.' },
      { name: 'source', proto: 5, type: ref(CORE_V1, 'EventSource'), description: 'Component that reported the event.' },
      { name: 'firstTimestamp', proto: 6, type: TIME, description: 'When the event was first seen.' },
      { name: 'lastTimestamp', proto: 7, type: TIME, description: 'When the event was most recently seen.' },
      { name: 'count', proto: 8, type: INT32, description: 'How many times the event has occurred.' },
      { name: 'type', proto: 9, type: STRING, description: 'Event type: Normal or Warning.' },
      { name: 'eventTime', proto: 10, type: MICRO_TIME, description: 'When the event was first observed, with microsecond precision.' },
      { name: 'series', proto: 11, type: ref(CORE_V1, 'EventSeries'), description: 'Data about an ongoing series of this event.' },
      { name: 'action', proto: 12, type: STRING, description: 'What was done, or failed, about the object.' },
      { name: 'related', proto: 13, type: ref(CORE_V1, 'ObjectReference'), description: 'A second object involved, if any.' },
      { name: 'reportingComponent', proto: 14, type: STRING, emitZero: true, description: 'Controller that emitted the event, such as example.com/my-controller.' },
      { name: 'reportingInstance', proto: 15, type: STRING, emitZero: true, description: 'Instance of the controller that emitted the event.' },
    ],
  },
  {
    name: CORE_V1 + '.EventSource',
    description: 'Where an event came from.',
    fields: [
      { name: 'component', proto: 1, type: STRING, description: 'Reporting component.' },
      { name: 'host', proto: 2, type: STRING, description: 'Node the event was reported on.' },
    ],
  },
  {
    name: CORE_V1 + '.EventSeries',
    description: 'An event that keeps recurring.',
    fields: [
      { name: 'count', proto: 1, type: INT32, description: 'Occurrences since the last heartbeat.' },
      { name: 'lastObservedTime', proto: 2, type: MICRO_TIME, description: 'When the last occurrence was seen.' },
    ],
  },
];
