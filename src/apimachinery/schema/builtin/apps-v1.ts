/**
 * Built-in type descriptors for apps/v1 Deployments and ReplicaSets: JSON names, protobuf field numbers (k8s.io/api
 * v1.32 types.go protobuf tags), merge/apply semantics from the Go struct tags and markers, and short descriptions
 * for kubectl explain. The pod template they embed is described in core-v1-workloads.ts.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, CORE_V1, INT32, INT64, INT_OR_STRING, META_V1, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, ref } from './field-types.js';

/** OpenAPI name prefix of the apps/v1 package. */
export const APPS_V1 = 'io.k8s.api.apps.v1';

export const appsV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: APPS_V1 + '.Deployment',
    description: "Declares a replicated, stateless workload; the deployment controller rolls its pod template out through ReplicaSets.",
    gvk: [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(APPS_V1, 'DeploymentSpec'), description: "What the deployment should run and how to roll out changes." },
      { name: 'status', proto: 3, type: ref(APPS_V1, 'DeploymentStatus'), description: "What the deployment controller last observed; written by the server." },
    ],
  },
  {
    name: APPS_V1 + '.ReplicaSet',
    description: "Keeps a fixed number of identical pods running.",
    gvk: [{ group: 'apps', version: 'v1', kind: 'ReplicaSet' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(APPS_V1, 'ReplicaSetSpec'), description: "What the replica set should run." },
      { name: 'status', proto: 3, type: ref(APPS_V1, 'ReplicaSetStatus'), description: "What the replicaset controller last observed; written by the server." },
    ],
  },
  {
    name: APPS_V1 + '.DeploymentSpec',
    description: "The desired state of a Deployment.",
    fields: [
      { name: 'replicas', proto: 1, type: INT32, emitZero: true, description: "How many pods to run. Unset means 1." },
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), description: "Label query over pods that belong to this deployment; must match the template's labels and cannot change after creation." },
      { name: 'template', proto: 3, type: ref(CORE_V1, 'PodTemplateSpec'), description: "The pod to create; a change here starts a rollout. restartPolicy may only be Always." },
      { name: 'strategy', proto: 4, type: ref(APPS_V1, 'DeploymentStrategy'), patchStrategy: 'retainKeys', description: "How old pods are replaced by new ones." },
      { name: 'minReadySeconds', proto: 5, type: INT32, description: "Seconds a new pod must stay ready before it counts as available. Default 0." },
      { name: 'revisionHistoryLimit', proto: 6, type: INT32, emitZero: true, description: "How many old, scaled-down ReplicaSets to keep for rollback. Default 10." },
      { name: 'paused', proto: 7, type: BOOLEAN, description: "When true the controller does not roll out template changes." },
      { name: 'progressDeadlineSeconds', proto: 9, type: INT32, emitZero: true, description: "Seconds the rollout may go without progress before the Progressing condition turns False with reason ProgressDeadlineExceeded. Default 600." },
    ],
  },
  {
    name: APPS_V1 + '.DeploymentStatus',
    description: "The observed state of a Deployment.",
    fields: [
      { name: 'observedGeneration', proto: 1, type: INT64, description: "The metadata.generation the controller last acted on." },
      { name: 'replicas', proto: 2, type: INT32, description: "Pods owned by the deployment's ReplicaSets." },
      { name: 'updatedReplicas', proto: 3, type: INT32, description: "Pods whose template matches the current spec." },
      { name: 'readyReplicas', proto: 7, type: INT32, description: "Pods with a Ready condition." },
      { name: 'availableReplicas', proto: 4, type: INT32, description: "Pods ready for at least minReadySeconds." },
      { name: 'unavailableReplicas', proto: 5, type: INT32, description: "Pods still needed for the deployment to be fully available." },
      { name: 'conditions', proto: 6, type: list(ref(APPS_V1, 'DeploymentCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations: Available, Progressing, ReplicaFailure." },
      { name: 'collisionCount', proto: 8, type: INT32, emitZero: true, description: "Bumped on pod-template-hash collisions so the next ReplicaSet name differs." },
    ],
  },
  {
    name: APPS_V1 + '.ReplicaSetSpec',
    description: "The desired state of a ReplicaSet.",
    fields: [
      { name: 'replicas', proto: 1, type: INT32, emitZero: true, description: "How many pods to run. Unset means 1." },
      { name: 'minReadySeconds', proto: 4, type: INT32, description: "Seconds a new pod must stay ready before it counts as available." },
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), description: "Label query over the pods this replica set counts; must match the template's labels." },
      { name: 'template', proto: 3, type: ref(CORE_V1, 'PodTemplateSpec'), description: "The pod to create when too few exist." },
    ],
  },
  {
    name: APPS_V1 + '.ReplicaSetStatus',
    description: "The observed state of a ReplicaSet.",
    fields: [
      { name: 'replicas', proto: 1, type: INT32, emitZero: true, description: "Pods currently counted." },
      { name: 'fullyLabeledReplicas', proto: 2, type: INT32, description: "Pods whose labels match the template's labels." },
      { name: 'readyReplicas', proto: 4, type: INT32, description: "Pods with a Ready condition." },
      { name: 'availableReplicas', proto: 5, type: INT32, description: "Pods ready for at least minReadySeconds." },
      { name: 'observedGeneration', proto: 3, type: INT64, description: "The metadata.generation the controller last acted on." },
      { name: 'conditions', proto: 6, type: list(ref(APPS_V1, 'ReplicaSetCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations, such as ReplicaFailure." },
    ],
  },
  {
    name: APPS_V1 + '.DeploymentStrategy',
    description: "How a Deployment replaces its pods.",
    fields: [
      { name: 'type', proto: 1, type: STRING, description: "Recreate (stop all old pods first) or RollingUpdate (the default)." },
      { name: 'rollingUpdate', proto: 2, type: ref(APPS_V1, 'RollingUpdateDeployment'), description: "Parameters of a RollingUpdate; only set when type is RollingUpdate." },
    ],
  },
  {
    name: APPS_V1 + '.DeploymentCondition',
    description: "One observation about a Deployment.",
    fields: [
      { name: 'type', proto: 1, type: STRING, emitZero: true, description: "Available, Progressing or ReplicaFailure." },
      { name: 'status', proto: 2, type: STRING, emitZero: true, description: "True, False or Unknown." },
      { name: 'lastUpdateTime', proto: 6, type: TIME, description: "When the condition was last refreshed." },
      { name: 'lastTransitionTime', proto: 7, type: TIME, description: "When status last changed." },
      { name: 'reason', proto: 4, type: STRING, description: "CamelCase reason for the last transition." },
      { name: 'message', proto: 5, type: STRING, description: "Human-readable details." },
    ],
  },
  {
    name: APPS_V1 + '.ReplicaSetCondition',
    description: "One observation about a ReplicaSet.",
    fields: [
      { name: 'type', proto: 1, type: STRING, emitZero: true, description: "Condition type, such as ReplicaFailure." },
      { name: 'status', proto: 2, type: STRING, emitZero: true, description: "True, False or Unknown." },
      { name: 'lastTransitionTime', proto: 3, type: TIME, description: "When status last changed." },
      { name: 'reason', proto: 4, type: STRING, description: "CamelCase reason for the last transition." },
      { name: 'message', proto: 5, type: STRING, description: "Human-readable details." },
    ],
  },
  {
    name: APPS_V1 + '.RollingUpdateDeployment',
    description: "Bounds on a rolling update.",
    fields: [
      { name: 'maxUnavailable', proto: 1, type: INT_OR_STRING, emitZero: true, description: "How many desired pods may be unavailable during the update, as a number or a percentage (rounded down). Default 25%." },
      { name: 'maxSurge', proto: 2, type: INT_OR_STRING, emitZero: true, description: "How many pods may exist above the desired count during the update, as a number or a percentage (rounded up). Default 25%." },
    ],
  },
];
