/**
 * Built-in type descriptor for scheduling.k8s.io/v1 PriorityClasses: JSON names, protobuf field numbers (k8s.io/api
 * v1.32 generated.proto), zero-value rules from the Go struct tags. Like a StorageClass, a PriorityClass is not
 * spec/status shaped: its fields sit at the top.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, INT32, OBJECT_META_FIELD, STRING, TYPE_META_FIELDS } from './field-types.js';

/** OpenAPI name prefix of the scheduling.k8s.io/v1 package. */
export const SCHEDULING_V1 = 'io.k8s.api.scheduling.v1';

export const schedulingV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: SCHEDULING_V1 + '.PriorityClass',
    description: 'A name for a pod priority: pods naming the class get its value, which orders scheduling and preemption.',
    gvk: [{ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'value', proto: 2, type: INT32, required: true, emitZero: true, description: 'The priority pods of this class get; user classes go up to 1000000000, higher values are the system classes\'.' },
      { name: 'globalDefault', proto: 3, type: BOOLEAN, description: 'Whether pods naming no class get this one; at most one class should be the default (the lowest value wins otherwise).' },
      { name: 'description', proto: 4, type: STRING, description: 'Free text saying when to use this class.' },
      { name: 'preemptionPolicy', proto: 5, type: STRING, emitZero: true, description: 'Whether pods of this class may preempt lower-priority pods: PreemptLowerPriority (the default) or Never. Cannot change after creation.' },
    ],
  },
];
