/**
 * core/v1 PersistentVolumeClaim, as a StatefulSet's volumeClaimTemplates embed it: the claim and its status types
 * (the spec, PersistentVolumeClaimSpec, is in core-v1-workloads.ts). JSON names, protobuf field numbers (k8s.io/api
 * v1.32 generated.proto), merge/apply semantics from the Go struct tags and markers.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { CORE_V1, OBJECT_META_FIELD, QUANTITY, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

export const coreV1PvcTypes: readonly BuiltinTypeSpec[] = [
  {
    name: CORE_V1 + '.PersistentVolumeClaim',
    description: "A request for storage, bound to a PersistentVolume that satisfies it.",
    gvk: [{ group: '', version: 'v1', kind: 'PersistentVolumeClaim' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CORE_V1, 'PersistentVolumeClaimSpec'), description: "The storage asked for." },
      { name: 'status', proto: 3, type: ref(CORE_V1, 'PersistentVolumeClaimStatus'), description: "What the volume controllers last observed; written by the server." },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeClaimStatus',
    description: "The observed state of a PersistentVolumeClaim.",
    fields: [
      { name: 'phase', proto: 1, type: STRING, enum: ['Pending', 'Bound', 'Lost'], description: "Pending, Bound or Lost." },
      { name: 'accessModes', proto: 2, type: list(STRING), listType: 'atomic', enum: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'], description: "The access modes of the bound volume." },
      { name: 'capacity', proto: 3, type: map(QUANTITY), description: "The size of the bound volume." },
      { name: 'conditions', proto: 4, type: list(ref(CORE_V1, 'PersistentVolumeClaimCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations, such as Resizing." },
      { name: 'allocatedResources', proto: 5, type: map(QUANTITY), description: "Resources allocated to the claim, which may exceed what it asked for during a resize." },
      { name: 'allocatedResourceStatuses', proto: 7, type: map(STRING), mapType: 'granular', description: "Resize progress of each resource." },
      { name: 'currentVolumeAttributesClassName', proto: 8, type: STRING, emitZero: true, description: "The VolumeAttributesClass the volume currently uses." },
      { name: 'modifyVolumeStatus', proto: 9, type: ref(CORE_V1, 'ModifyVolumeStatus'), description: "Progress of a change of VolumeAttributesClass." },
    ],
  },
  {
    name: CORE_V1 + '.PersistentVolumeClaimCondition',
    description: "One observation about a PersistentVolumeClaim.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "Condition type, such as Resizing or FileSystemResizePending." },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: "True, False or Unknown." },
      { name: 'lastProbeTime', proto: 3, type: TIME, description: "When the condition was last checked." },
      { name: 'lastTransitionTime', proto: 4, type: TIME, description: "When status last changed." },
      { name: 'reason', proto: 5, type: STRING, description: "CamelCase reason for the last transition." },
      { name: 'message', proto: 6, type: STRING, description: "Human-readable details." },
    ],
  },
  {
    name: CORE_V1 + '.ModifyVolumeStatus',
    description: "Progress of a ControllerModifyVolume operation.",
    fields: [
      { name: 'targetVolumeAttributesClassName', proto: 1, type: STRING, description: "The VolumeAttributesClass being applied." },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, enum: ['Pending', 'InProgress', 'Infeasible'], description: "Pending, InProgress or Infeasible." },
    ],
  },
];
