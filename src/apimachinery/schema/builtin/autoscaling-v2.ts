/**
 * Built-in type descriptors for autoscaling/v2 HorizontalPodAutoscalers (the storage version of both HPA APIs): JSON
 * names, protobuf field numbers (k8s.io/api v1.32 generated.proto), merge/apply semantics from the Go struct tags and
 * markers, and short descriptions for kubectl explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { INT32, INT64, META_V1, OBJECT_META_FIELD, QUANTITY, STRING, TIME, TYPE_META_FIELDS, list, ref } from './field-types.js';

/** OpenAPI name prefix of the autoscaling/v2 package. */
export const AUTOSCALING_V2 = 'io.k8s.api.autoscaling.v2';

export const autoscalingV2Types: readonly BuiltinTypeSpec[] = [
  {
    name: AUTOSCALING_V2 + '.HorizontalPodAutoscaler',
    description: "Scales a workload between a minimum and a maximum replica count to keep metrics (CPU, memory, custom or external) near their targets.",
    gvk: [{ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(AUTOSCALING_V2, 'HorizontalPodAutoscalerSpec'), description: "The target to scale, the bounds, the metrics and the scaling behaviour." },
      { name: 'status', proto: 3, type: ref(AUTOSCALING_V2, 'HorizontalPodAutoscalerStatus'), description: "What the autoscaler last observed; written by the server." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.HorizontalPodAutoscalerSpec',
    description: "The desired behaviour of a HorizontalPodAutoscaler.",
    fields: [
      { name: 'scaleTargetRef', proto: 1, type: ref(AUTOSCALING_V2, 'CrossVersionObjectReference'), required: true, description: "The scalable object (one with a /scale subresource) whose replica count is set." },
      { name: 'minReplicas', proto: 2, type: INT32, emitZero: true, description: "Fewest replicas to scale down to. Default 1; 0 only with the HPAScaleToZero feature and an object or external metric." },
      { name: 'maxReplicas', proto: 3, type: INT32, required: true, emitZero: true, description: "Most replicas to scale up to; at least minReplicas." },
      { name: 'metrics', proto: 4, type: list(ref(AUTOSCALING_V2, 'MetricSpec')), listType: 'atomic', description: "Metrics whose targets decide the replica count; the largest count any metric asks for wins. Default: 80% average CPU utilization." },
      { name: 'behavior', proto: 5, type: ref(AUTOSCALING_V2, 'HorizontalPodAutoscalerBehavior'), description: "How fast to scale up and down. Default: the standard rules (see HPAScalingRules)." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.HorizontalPodAutoscalerStatus',
    description: "The observed state of a HorizontalPodAutoscaler.",
    fields: [
      { name: 'observedGeneration', proto: 1, type: INT64, emitZero: true, description: "The metadata.generation the autoscaler last acted on." },
      { name: 'lastScaleTime', proto: 2, type: TIME, description: "When the replica count was last changed." },
      { name: 'currentReplicas', proto: 3, type: INT32, description: "Replicas the target has now." },
      { name: 'desiredReplicas', proto: 4, type: INT32, required: true, emitZero: true, description: "Replicas the autoscaler last asked for." },
      { name: 'currentMetrics', proto: 5, type: list(ref(AUTOSCALING_V2, 'MetricStatus')), listType: 'atomic', emitZero: true, description: "The last reading of each metric." },
      { name: 'conditions', proto: 6, type: list(ref(AUTOSCALING_V2, 'HorizontalPodAutoscalerCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations: AbleToScale, ScalingActive, ScalingLimited." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.HorizontalPodAutoscalerCondition',
    description: "One observation about a HorizontalPodAutoscaler.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "AbleToScale, ScalingActive or ScalingLimited." },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: "True, False or Unknown." },
      { name: 'lastTransitionTime', proto: 3, type: TIME, description: "When status last changed." },
      { name: 'reason', proto: 4, type: STRING, description: "CamelCase reason for the last transition." },
      { name: 'message', proto: 5, type: STRING, description: "Human-readable details." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.CrossVersionObjectReference',
    description: "Identifies an object of any group and version by kind and name, in the referrer's namespace.",
    fields: [
      { name: 'kind', proto: 1, type: STRING, required: true, emitZero: true, description: "Kind of the object, such as Deployment." },
      { name: 'name', proto: 2, type: STRING, required: true, emitZero: true, description: "Name of the object." },
      { name: 'apiVersion', proto: 3, type: STRING, description: "Group and version of the object, such as apps/v1." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.MetricSpec',
    description: "One metric to scale on; exactly the source its type names is set.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "ContainerResource, External, Object, Pods or Resource." },
      { name: 'object', proto: 2, type: ref(AUTOSCALING_V2, 'ObjectMetricSource'), description: "A metric describing a single object, such as requests per second of an Ingress." },
      { name: 'pods', proto: 3, type: ref(AUTOSCALING_V2, 'PodsMetricSource'), description: "A metric averaged over the target's pods, such as transactions per second." },
      { name: 'resource', proto: 4, type: ref(AUTOSCALING_V2, 'ResourceMetricSource'), description: "A resource (cpu, memory) known to the scheduler, as reported for the target's pods." },
      { name: 'containerResource', proto: 7, type: ref(AUTOSCALING_V2, 'ContainerResourceMetricSource'), description: "A resource of one container in each of the target's pods." },
      { name: 'external', proto: 5, type: ref(AUTOSCALING_V2, 'ExternalMetricSource'), description: "A metric from outside the cluster, such as a cloud queue's length." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ObjectMetricSource',
    description: "A metric of one Kubernetes object.",
    fields: [
      { name: 'describedObject', proto: 1, type: ref(AUTOSCALING_V2, 'CrossVersionObjectReference'), required: true, description: "The object the metric describes." },
      { name: 'target', proto: 2, type: ref(AUTOSCALING_V2, 'MetricTarget'), required: true, description: "The value to aim for." },
      { name: 'metric', proto: 3, type: ref(AUTOSCALING_V2, 'MetricIdentifier'), required: true, description: "Which metric." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.PodsMetricSource',
    description: "A metric averaged over the target's pods; only AverageValue targets apply.",
    fields: [
      { name: 'metric', proto: 1, type: ref(AUTOSCALING_V2, 'MetricIdentifier'), required: true, description: "Which metric." },
      { name: 'target', proto: 2, type: ref(AUTOSCALING_V2, 'MetricTarget'), required: true, description: "The value to aim for." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ResourceMetricSource',
    description: "A resource metric of the target's pods, such as cpu.",
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: "The resource, such as cpu or memory." },
      { name: 'target', proto: 2, type: ref(AUTOSCALING_V2, 'MetricTarget'), required: true, description: "The value to aim for." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ContainerResourceMetricSource',
    description: "A resource metric of one container in each of the target's pods.",
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: "The resource, such as cpu or memory." },
      { name: 'target', proto: 2, type: ref(AUTOSCALING_V2, 'MetricTarget'), required: true, description: "The value to aim for." },
      { name: 'container', proto: 3, type: STRING, required: true, emitZero: true, description: "Name of the container in the target's pods." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ExternalMetricSource',
    description: "A metric not tied to any Kubernetes object.",
    fields: [
      { name: 'metric', proto: 1, type: ref(AUTOSCALING_V2, 'MetricIdentifier'), required: true, description: "Which metric." },
      { name: 'target', proto: 2, type: ref(AUTOSCALING_V2, 'MetricTarget'), required: true, description: "The value to aim for." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.MetricIdentifier',
    description: "Names a metric, optionally narrowed by labels.",
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: "Name of the metric." },
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), description: "Labels narrowing the metric; unset uses just the name." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.MetricTarget',
    description: "The value a metric should have.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "Utilization, Value or AverageValue." },
      { name: 'value', proto: 2, type: QUANTITY, description: "The value to aim for (type Value)." },
      { name: 'averageValue', proto: 3, type: QUANTITY, description: "The per-pod average to aim for (type AverageValue)." },
      { name: 'averageUtilization', proto: 4, type: INT32, emitZero: true, description: "The per-pod average as a percentage of the pods' requests (type Utilization; resource metrics only)." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.HorizontalPodAutoscalerBehavior',
    description: "Scaling rules for each direction.",
    fields: [
      { name: 'scaleUp', proto: 1, type: ref(AUTOSCALING_V2, 'HPAScalingRules'), description: "Rules for scaling up. Default: no stabilization, and per 15 seconds the larger of doubling or adding 4 pods." },
      { name: 'scaleDown', proto: 2, type: ref(AUTOSCALING_V2, 'HPAScalingRules'), description: "Rules for scaling down. Default: a 300-second stabilization window and removing up to all pods per 15 seconds." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.HPAScalingRules',
    description: "How fast one scaling direction may go.",
    fields: [
      { name: 'stabilizationWindowSeconds', proto: 3, type: INT32, emitZero: true, description: "Seconds of past recommendations considered, so the count does not flap; between 0 and 3600." },
      { name: 'selectPolicy', proto: 1, type: STRING, emitZero: true, description: "Which policy wins: Max (the default), Min, or Disabled (never scale in this direction)." },
      { name: 'policies', proto: 2, type: list(ref(AUTOSCALING_V2, 'HPAScalingPolicy')), listType: 'atomic', description: "Limits on the change per period; selectPolicy picks among them." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.HPAScalingPolicy',
    description: "A limit on how much the replica count may change in a period.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "Pods (an absolute number) or Percent (of the current count)." },
      { name: 'value', proto: 2, type: INT32, required: true, emitZero: true, description: "The amount of change allowed; greater than 0." },
      { name: 'periodSeconds', proto: 3, type: INT32, required: true, emitZero: true, description: "How long the limit applies for; between 1 and 1800." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.MetricStatus',
    description: "The last reading of one metric; the source its type names is set.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "ContainerResource, External, Object, Pods or Resource." },
      { name: 'object', proto: 2, type: ref(AUTOSCALING_V2, 'ObjectMetricStatus'), description: "Reading of an object metric." },
      { name: 'pods', proto: 3, type: ref(AUTOSCALING_V2, 'PodsMetricStatus'), description: "Reading of a pods metric." },
      { name: 'resource', proto: 4, type: ref(AUTOSCALING_V2, 'ResourceMetricStatus'), description: "Reading of a resource metric." },
      { name: 'containerResource', proto: 7, type: ref(AUTOSCALING_V2, 'ContainerResourceMetricStatus'), description: "Reading of a container resource metric." },
      { name: 'external', proto: 5, type: ref(AUTOSCALING_V2, 'ExternalMetricStatus'), description: "Reading of an external metric." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ObjectMetricStatus',
    description: "The reading of an object metric.",
    fields: [
      { name: 'metric', proto: 1, type: ref(AUTOSCALING_V2, 'MetricIdentifier'), required: true, description: "Which metric." },
      { name: 'current', proto: 2, type: ref(AUTOSCALING_V2, 'MetricValueStatus'), required: true, description: "The value read." },
      { name: 'describedObject', proto: 3, type: ref(AUTOSCALING_V2, 'CrossVersionObjectReference'), required: true, description: "The object the metric describes." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.PodsMetricStatus',
    description: "The reading of a pods metric.",
    fields: [
      { name: 'metric', proto: 1, type: ref(AUTOSCALING_V2, 'MetricIdentifier'), required: true, description: "Which metric." },
      { name: 'current', proto: 2, type: ref(AUTOSCALING_V2, 'MetricValueStatus'), required: true, description: "The value read." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ResourceMetricStatus',
    description: "The reading of a resource metric.",
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: "The resource, such as cpu." },
      { name: 'current', proto: 2, type: ref(AUTOSCALING_V2, 'MetricValueStatus'), required: true, description: "The value read." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ContainerResourceMetricStatus',
    description: "The reading of a container resource metric.",
    fields: [
      { name: 'name', proto: 1, type: STRING, required: true, emitZero: true, description: "The resource, such as cpu." },
      { name: 'current', proto: 2, type: ref(AUTOSCALING_V2, 'MetricValueStatus'), required: true, description: "The value read." },
      { name: 'container', proto: 3, type: STRING, required: true, emitZero: true, description: "Name of the container." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.ExternalMetricStatus',
    description: "The reading of an external metric.",
    fields: [
      { name: 'metric', proto: 1, type: ref(AUTOSCALING_V2, 'MetricIdentifier'), required: true, description: "Which metric." },
      { name: 'current', proto: 2, type: ref(AUTOSCALING_V2, 'MetricValueStatus'), required: true, description: "The value read." },
    ],
  },
  {
    name: AUTOSCALING_V2 + '.MetricValueStatus',
    description: "A metric reading, in the form of its target.",
    fields: [
      { name: 'value', proto: 1, type: QUANTITY, description: "The value." },
      { name: 'averageValue', proto: 2, type: QUANTITY, description: "The per-pod average." },
      { name: 'averageUtilization', proto: 3, type: INT32, emitZero: true, description: "The per-pod average as a percentage of the pods' requests." },
    ],
  },
];
