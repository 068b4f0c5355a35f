/**
 * Built-in type descriptors for policy/v1 PodDisruptionBudgets and Evictions: JSON names, protobuf field numbers (k8s.io/api v1.32
 * generated.proto), merge/apply semantics from the Go struct tags and markers, and short descriptions for kubectl
 * explain.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { INT32, INT64, INT_OR_STRING, META_V1, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

/** OpenAPI name prefix of the policy/v1 package. */
export const POLICY_V1 = 'io.k8s.api.policy.v1';

export const policyV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: POLICY_V1 + '.Eviction',
    description: "Evicts a pod, as a POST to its pods/eviction subresource: deleted only if its PodDisruptionBudget allows it.",
    gvk: [{ group: 'policy', version: 'v1', kind: 'Eviction' }],
    fields: [
      ...TYPE_META_FIELDS,
      { ...OBJECT_META_FIELD, description: "Names the pod being evicted." },
      { name: 'deleteOptions', proto: 2, type: ref(META_V1, 'DeleteOptions'), description: "Options of the pod's deletion (preconditions, dryRun, ...)." },
    ],
  },
  {
    name: POLICY_V1 + '.PodDisruptionBudget',
    description: "Limits how many pods of a set voluntary disruptions (evictions) may take down at once.",
    gvk: [{ group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(POLICY_V1, 'PodDisruptionBudgetSpec'), description: "Which pods the budget covers and how many must stay up." },
      { name: 'status', proto: 3, type: ref(POLICY_V1, 'PodDisruptionBudgetStatus'), description: "What the disruption controller last observed; written by the server." },
    ],
  },
  {
    name: POLICY_V1 + '.PodDisruptionBudgetSpec',
    description: "The desired state of a PodDisruptionBudget; set minAvailable or maxUnavailable, not both.",
    fields: [
      { name: 'minAvailable', proto: 1, type: INT_OR_STRING, description: "Pods that must stay available after an eviction, as a number or a percentage." },
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), patchStrategy: 'replace', description: "Label query over the covered pods. An empty selector covers every pod of the namespace; unset covers none." },
      { name: 'maxUnavailable', proto: 3, type: INT_OR_STRING, description: "Pods that may be unavailable after an eviction, as a number or a percentage." },
      { name: 'unhealthyPodEvictionPolicy', proto: 4, type: STRING, emitZero: true, enum: ['IfHealthyBudget', 'AlwaysAllow'], description: "When running but not ready pods may be evicted: IfHealthyBudget (only while the budget is met) or AlwaysAllow. Default IfHealthyBudget." },
    ],
  },
  {
    name: POLICY_V1 + '.PodDisruptionBudgetStatus',
    description: "The observed state of a PodDisruptionBudget.",
    fields: [
      { name: 'observedGeneration', proto: 1, type: INT64, description: "The metadata.generation the controller last acted on." },
      { name: 'disruptedPods', proto: 2, type: map(TIME), description: "Pods evicted but not yet gone, with when the eviction was admitted; the controller drops entries after a timeout." },
      { name: 'disruptionsAllowed', proto: 3, type: INT32, required: true, emitZero: true, description: "How many more pods may be disrupted now." },
      { name: 'currentHealthy', proto: 4, type: INT32, required: true, emitZero: true, description: "Covered pods that are healthy." },
      { name: 'desiredHealthy', proto: 5, type: INT32, required: true, emitZero: true, description: "The fewest healthy pods the budget allows." },
      { name: 'expectedPods', proto: 6, type: INT32, required: true, emitZero: true, description: "Pods the budget covers in total." },
      { name: 'conditions', proto: 7, type: list(ref(META_V1, 'Condition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations, such as DisruptionAllowed." },
    ],
  },
];
