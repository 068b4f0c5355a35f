/**
 * Built-in type descriptors for autoscaling/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { AUTOSCALING_V1, INT32, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS, ref } from './field-types.js';

export const autoscalingV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: AUTOSCALING_V1 + '.Scale',
    description: 'The scale subresource of a scalable object.',
    gvk: [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTOSCALING_V1, 'ScaleSpec'), description: 'Desired replica count.' },
      { name: 'status', proto: 3, type: ref(AUTOSCALING_V1, 'ScaleStatus'), description: 'Observed replica count.' },
    ],
  },
  {
    name: AUTOSCALING_V1 + '.ScaleSpec',
    description: 'Desired scale.',
    fields: [
      { name: 'replicas', proto: 1, type: INT32, description: 'Desired number of instances.' },
    ],
  },
  {
    name: AUTOSCALING_V1 + '.ScaleStatus',
    description: 'Observed scale.',
    fields: [
      { name: 'replicas', proto: 1, type: INT32, required: true, emitZero: true, description: 'Current number of instances.' },
      { name: 'selector', proto: 2, type: STRING, description: 'Label selector, in query-parameter form, matching the instances.' },
    ],
  },
];
