/**
 * Built-in type descriptors for core/v1 storage: PersistentVolumeClaim and PersistentVolume with their specs and
 * statuses. JSON names, protobuf field numbers (k8s.io/api v1.32 generated.proto), merge/apply semantics from the Go
 * struct tags and markers. PersistentVolumeClaimSpec itself lives in core-v1-workloads.ts, where pod volumes and
 * ephemeral volume templates first needed it.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, OBJECT_META_FIELD, QUANTITY, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const coreV1StorageTypes: readonly BuiltinTypeSpec[] = [
  {
    name: CORE_V1 + '.PersistentVolumeClaim',
    description: "A user's request for storage; it binds to one PersistentVolume that satisfies it.",
    gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeClaim' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'PersistentVolumeClaimSpec'), description: 'The storage the claim asks for: size, access modes, class and an optional data source.' },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'PersistentVolumeClaimStatus'), description: 'What the volume controllers last observed about the claim; written by the server.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeClaimStatus',
    description: 'The observed state of a PersistentVolumeClaim.',
    fields: [
      { name: 'phase', proto: 1, type: STRING, description: 'Pending, Bound or Lost.' },
      { name: 'accessModes', proto: 2, type: list(STRING), listType: 'atomic', description: 'Access modes of the bound volume.' },
      { name: 'capacity', proto: 3, type: map(QUANTITY), description: 'Resources of the bound volume, such as its storage size.' },
      { name: 'conditions', proto: 4, type: list(ref(CORE_V1, 'PersistentVolumeClaimCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: 'Latest observations, such as an ongoing resize.' },
      { name: 'allocatedResources', proto: 5, type: map(QUANTITY), description: 'Resources the system has allotted to the claim, which may exceed what it requested during a resize.' },
      { name: 'allocatedResourceStatuses', proto: 7, type: map(STRING), mapType: 'granular', description: 'Per resource, the state of a pending resize (for example ControllerResizeInProgress).' },
      { name: 'currentVolumeAttributesClassName', proto: 8, type: STRING, emitZero: true, description: 'The VolumeAttributesClass the volume currently uses.' },
      { name: 'modifyVolumeStatus', proto: 9, type: ref(CORE_V1, 'ModifyVolumeStatus'), description: 'Progress of a change to another VolumeAttributesClass; absent when none is under way.' },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeClaimCondition',
    description: 'One observation about a PersistentVolumeClaim.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'Condition type, such as Resizing or FileSystemResizePending.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown.' },
      { name: 'lastProbeTime', proto: 3, type: TIME, description: 'When the condition was last checked.' },
      { name: 'lastTransitionTime', proto: 4, type: TIME, description: 'When status last changed.' },
      { name: 'reason', proto: 5, type: STRING, description: 'CamelCase reason for the last transition.' },
      { name: 'message', proto: 6, type: STRING, description: 'Human-readable details.' },
    ],
  },
  {
    name: CORE_V1 + '.ModifyVolumeStatus',
    description: 'Progress of changing a claim to another VolumeAttributesClass.',
    fields: [
      { name: 'targetVolumeAttributesClassName', proto: 1, type: STRING, description: 'The class being changed to.' },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: 'Pending, InProgress or Infeasible.' },
    ],
  },
];
