/**
 * Built-in type descriptors for autoscaling/v1: JSON names, protobuf field numbers (k8s.io generated.proto, v1.32),
 * merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { AUTOSCALING_V1, INT32, INT64, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, ref } from './field-types.js';

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
  {
    name: AUTOSCALING_V1 + '.HorizontalPodAutoscaler',
    description: "Scales a workload between a minimum and a maximum replica count to keep its average CPU use near a target.",
    gvk: [{ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTOSCALING_V1, 'HorizontalPodAutoscalerSpec'), description: "The target to scale and the bounds and CPU target." },
      { name: 'status', proto: 3, type: ref(AUTOSCALING_V1, 'HorizontalPodAutoscalerStatus'), description: "What the autoscaler last observed; written by the server." },
    ],
  },
  {
    name: AUTOSCALING_V1 + '.HorizontalPodAutoscalerSpec',
    description: "The desired behaviour of a HorizontalPodAutoscaler.",
    fields: [
      { name: 'scaleTargetRef', proto: 1, type: ref(AUTOSCALING_V1, 'CrossVersionObjectReference'), required: true, description: "The scalable object (one with a /scale subresource) whose replica count is set." },
      { name: 'minReplicas', proto: 2, type: INT32, emitZero: true, description: "Fewest replicas to scale down to. Default 1." },
      { name: 'maxReplicas', proto: 3, type: INT32, required: true, emitZero: true, description: "Most replicas to scale up to; at least minReplicas." },
      { name: 'targetCPUUtilizationPercentage', proto: 4, type: INT32, emitZero: true, description: "Average CPU use across pods, as a percentage of what they request, to aim for. Default: 80." },
    ],
  },
  {
    name: AUTOSCALING_V1 + '.HorizontalPodAutoscalerStatus',
    description: "The observed state of a HorizontalPodAutoscaler.",
    fields: [
      { name: 'observedGeneration', proto: 1, type: INT64, emitZero: true, description: "The metadata.generation the autoscaler last acted on." },
      { name: 'lastScaleTime', proto: 2, type: TIME, description: "When the replica count was last changed." },
      { name: 'currentReplicas', proto: 3, type: INT32, required: true, emitZero: true, description: "Replicas the target has now." },
      { name: 'desiredReplicas', proto: 4, type: INT32, required: true, emitZero: true, description: "Replicas the autoscaler last asked for." },
      { name: 'currentCPUUtilizationPercentage', proto: 5, type: INT32, emitZero: true, description: "Average CPU use across pods now, as a percentage of what they request." },
    ],
  },
  {
    name: AUTOSCALING_V1 + '.CrossVersionObjectReference',
    description: "Identifies an object of any group and version by kind and name, in the referrer's namespace.",
    mapType: 'atomic',
    fields: [
      { name: 'kind', proto: 1, type: STRING, required: true, emitZero: true, description: "Kind of the object, such as Deployment." },
      { name: 'name', proto: 2, type: STRING, required: true, emitZero: true, description: "Name of the object." },
      { name: 'apiVersion', proto: 3, type: STRING, description: "Group and version of the object, such as apps/v1." },
    ],
  },
];
