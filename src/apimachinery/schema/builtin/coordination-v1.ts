/**
 * Built-in type descriptors for coordination.k8s.io/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { COORDINATION_V1, INT32, MICRO_TIME, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, ref } from './field-types.js';

export const coordinationV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: COORDINATION_V1 + '.Lease',
    description: 'A lease used for leader election and heartbeats.',
    gvk: [{ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(COORDINATION_V1, 'LeaseSpec'), description: 'Current holder and timing of the lease.' },
    ],
  },
  {
    name: COORDINATION_V1 + '.LeaseSpec',
    description: 'Holder and timing of a lease.',
    fields: [
      { name: 'holderIdentity', proto: 1, type: STRING, emitZero: true, description: 'Identity of the current holder.' },
      { name: 'leaseDurationSeconds', proto: 2, type: INT32, emitZero: true, description: 'Seconds others must wait after the last renewal before taking the lease.' },
      { name: 'acquireTime', proto: 3, type: MICRO_TIME, description: 'When the current holder acquired the lease.' },
      { name: 'renewTime', proto: 4, type: MICRO_TIME, description: 'When the holder last renewed the lease.' },
      { name: 'leaseTransitions', proto: 5, type: INT32, emitZero: true, description: 'How many times the lease changed hands.' },
      { name: 'strategy', proto: 6, type: STRING, emitZero: true, description: 'Strategy for choosing the next holder in coordinated elections.' },
      { name: 'preferredHolder', proto: 7, type: STRING, emitZero: true, description: 'Holder that should take over next in coordinated elections.' },
    ],
  },
];
