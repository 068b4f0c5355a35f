/**
 * Built-in type descriptors for storage.k8s.io/v1 StorageClasses: JSON names, protobuf field numbers (k8s.io/api
 * v1.32 generated.proto), merge/apply semantics from the Go struct tags and markers. A StorageClass is not
 * spec/status shaped: its fields sit at the top. The core/v1 topology selector it uses is in core-v1-storage.ts.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, CORE_V1, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

/** OpenAPI name prefix of the storage.k8s.io/v1 package. */
export const STORAGE_V1 = 'io.k8s.api.storage.v1';

export const storageV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: STORAGE_V1 + '.StorageClass',
    description: 'A class of storage that volumes are dynamically provisioned from; the is-default-class annotation marks the default.',
    gvk: [{ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'provisioner', proto: 2, type: STRING, required: true, emitZero: true, description: 'The volume plugin or CSI driver that provisions volumes of this class. Cannot change after creation.' },
      { name: 'parameters', proto: 3, type: map(STRING), description: 'Provisioner-specific settings, at most 512 of them. Cannot change after creation.' },
      { name: 'reclaimPolicy', proto: 4, type: STRING, emitZero: true, description: 'Reclaim policy of the volumes provisioned: Delete (the default) or Retain.' },
      { name: 'mountOptions', proto: 5, type: list(STRING), listType: 'atomic', description: 'Mount options of the volumes provisioned, not validated by the server.' },
      { name: 'allowVolumeExpansion', proto: 6, type: BOOLEAN, emitZero: true, description: 'Whether claims of this class may grow.' },
      { name: 'volumeBindingMode', proto: 7, type: STRING, emitZero: true, description: 'Immediate (the default) binds and provisions at once; WaitForFirstConsumer waits for a pod using the claim.' },
      { name: 'allowedTopologies', proto: 8, type: list(ref(CORE_V1, 'TopologySelectorTerm')), listType: 'atomic', description: 'Topology domains volumes may be provisioned in; anywhere when empty.' },
    ],
  },
];
