/**
 * Built-in type descriptors for apps/v1 Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions: JSON names, protobuf field numbers (k8s.io/api
 * v1.32 types.go protobuf tags), merge/apply semantics from the Go struct tags and markers, and short descriptions
 * for kubectl explain. The pod template they embed is described in core-v1-workloads.ts.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BOOLEAN, CORE_V1, INT32, INT64, INT_OR_STRING, META_V1, OBJECT_META_FIELD, RAW_EXTENSION, STRING, TIME, TYPE_META_FIELDS, list, ref } from './field-types.js';

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
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), required: true, description: "Label query over pods that belong to this deployment; must match the template's labels and cannot change after creation." },
      { name: 'template', proto: 3, type: ref(CORE_V1, 'PodTemplateSpec'), required: true, description: "The pod to create; a change here starts a rollout. restartPolicy may only be Always." },
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
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), required: true, description: "Label query over the pods this replica set counts; must match the template's labels." },
      { name: 'template', proto: 3, type: ref(CORE_V1, 'PodTemplateSpec'), description: "The pod to create when too few exist." },
    ],
  },
  {
    name: APPS_V1 + '.ReplicaSetStatus',
    description: "The observed state of a ReplicaSet.",
    fields: [
      { name: 'replicas', proto: 1, type: INT32, emitZero: true, required: true, description: "Pods currently counted." },
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
      { name: 'type', proto: 1, type: STRING, emitZero: true, required: true, description: "Available, Progressing or ReplicaFailure." },
      { name: 'status', proto: 2, type: STRING, emitZero: true, required: true, description: "True, False or Unknown." },
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
      { name: 'type', proto: 1, type: STRING, emitZero: true, required: true, description: "Condition type, such as ReplicaFailure." },
      { name: 'status', proto: 2, type: STRING, emitZero: true, required: true, description: "True, False or Unknown." },
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
  {
    name: APPS_V1 + '.StatefulSet',
    description: "Runs pods with stable names, ordinals and storage; pods are created and replaced one identity at a time.",
    gvk: [{ group: 'apps', version: 'v1', kind: 'StatefulSet' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(APPS_V1, 'StatefulSetSpec'), description: "The pods, storage and update policy the stateful set should have." },
      { name: 'status', proto: 3, type: ref(APPS_V1, 'StatefulSetStatus'), description: "What the statefulset controller last observed; written by the server." },
    ],
  },
  {
    name: APPS_V1 + '.StatefulSetSpec',
    description: "The desired state of a StatefulSet.",
    fields: [
      { name: 'replicas', proto: 1, type: INT32, emitZero: true, description: "How many pods (ordinals) to run. Unset means 1." },
      { name: 'selector', proto: 2, type: ref(META_V1, 'LabelSelector'), required: true, description: "Label query over the pods this stateful set owns; must match the template's labels and cannot change after creation." },
      { name: 'template', proto: 3, type: ref(CORE_V1, 'PodTemplateSpec'), required: true, description: "The pod each ordinal runs; every pod gets a name of the form <set name>-<ordinal>." },
      { name: 'volumeClaimTemplates', proto: 4, type: list(ref(CORE_V1, 'PersistentVolumeClaim')), listType: 'atomic', description: "Claims created once per pod and mounted by name; a matching volume in the template takes precedence." },
      { name: 'serviceName', proto: 5, type: STRING, required: true, emitZero: true, description: "The headless service that gives each pod its DNS name (<pod>.<service>.<namespace>.svc)." },
      { name: 'podManagementPolicy', proto: 6, type: STRING, enum: ['OrderedReady', 'Parallel'], description: "OrderedReady (the default) creates and removes pods one at a time in ordinal order, waiting for readiness; Parallel acts on all at once." },
      { name: 'updateStrategy', proto: 7, type: ref(APPS_V1, 'StatefulSetUpdateStrategy'), description: "How pods are replaced when the template changes." },
      { name: 'revisionHistoryLimit', proto: 8, type: INT32, emitZero: true, description: "How many old ControllerRevisions to keep. Default 10." },
      { name: 'minReadySeconds', proto: 9, type: INT32, description: "Seconds a new pod must stay ready before it counts as available. Default 0." },
      { name: 'persistentVolumeClaimRetentionPolicy', proto: 10, type: ref(APPS_V1, 'StatefulSetPersistentVolumeClaimRetentionPolicy'), description: "Whether claims from volumeClaimTemplates are deleted with the set or on scale down. Default: kept in both cases." },
      { name: 'ordinals', proto: 11, type: ref(APPS_V1, 'StatefulSetOrdinals'), description: "Where ordinal numbering starts. Default: 0." },
    ],
  },
  {
    name: APPS_V1 + '.StatefulSetStatus',
    description: "The observed state of a StatefulSet.",
    fields: [
      { name: 'observedGeneration', proto: 1, type: INT64, description: "The metadata.generation the controller last acted on." },
      { name: 'replicas', proto: 2, type: INT32, required: true, emitZero: true, description: "Pods the controller created." },
      { name: 'readyReplicas', proto: 3, type: INT32, description: "Pods with a Ready condition." },
      { name: 'currentReplicas', proto: 4, type: INT32, description: "Pods created from the currentRevision." },
      { name: 'updatedReplicas', proto: 5, type: INT32, description: "Pods created from the updateRevision." },
      { name: 'currentRevision', proto: 6, type: STRING, description: "The ControllerRevision of pods with ordinals below the rollout boundary." },
      { name: 'updateRevision', proto: 7, type: STRING, description: "The ControllerRevision matching the current template." },
      { name: 'collisionCount', proto: 9, type: INT32, emitZero: true, description: "Bumped on revision-name hash collisions so the next ControllerRevision name differs." },
      { name: 'conditions', proto: 10, type: list(ref(APPS_V1, 'StatefulSetCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations of the set." },
      { name: 'availableReplicas', proto: 11, type: INT32, emitZero: true, description: "Pods ready for at least minReadySeconds." },
    ],
  },
  {
    name: APPS_V1 + '.StatefulSetCondition',
    description: "One observation about a StatefulSet.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "Condition type." },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: "True, False or Unknown." },
      { name: 'lastTransitionTime', proto: 3, type: TIME, description: "When status last changed." },
      { name: 'reason', proto: 4, type: STRING, description: "CamelCase reason for the last transition." },
      { name: 'message', proto: 5, type: STRING, description: "Human-readable details." },
    ],
  },
  {
    name: APPS_V1 + '.StatefulSetUpdateStrategy',
    description: "How the statefulset controller replaces pods after a template change.",
    fields: [
      { name: 'type', proto: 1, type: STRING, enum: ['RollingUpdate', 'OnDelete'], description: "RollingUpdate (the default) replaces pods in reverse ordinal order; OnDelete waits for pods to be deleted by hand." },
      { name: 'rollingUpdate', proto: 2, type: ref(APPS_V1, 'RollingUpdateStatefulSetStrategy'), description: "Parameters of a RollingUpdate." },
    ],
  },
  {
    name: APPS_V1 + '.RollingUpdateStatefulSetStrategy',
    description: "Bounds on a stateful set's rolling update.",
    fields: [
      { name: 'partition', proto: 1, type: INT32, emitZero: true, description: "Only pods with an ordinal at or above this number are updated; lower ones keep the old revision. Default 0." },
      { name: 'maxUnavailable', proto: 2, type: INT_OR_STRING, description: "How many pods may be unavailable during the update, as a number or a percentage (rounded up, at least 1). Default 1; needs the MaxUnavailableStatefulSet feature." },
    ],
  },
  {
    name: APPS_V1 + '.StatefulSetPersistentVolumeClaimRetentionPolicy',
    description: "What happens to claims created from volumeClaimTemplates.",
    fields: [
      { name: 'whenDeleted', proto: 1, type: STRING, description: "Retain (the default) or Delete the claims when the stateful set is deleted." },
      { name: 'whenScaled', proto: 2, type: STRING, description: "Retain (the default) or Delete the claims of pods removed by a scale down." },
    ],
  },
  {
    name: APPS_V1 + '.StatefulSetOrdinals',
    description: "How a stateful set numbers its pods.",
    fields: [
      { name: 'start', proto: 1, type: INT32, emitZero: true, description: "The first ordinal; pods are numbered start to start+replicas-1. Default 0." },
    ],
  },
  {
    name: APPS_V1 + '.DaemonSet',
    description: "Runs one copy of a pod on every node (or every node its template selects).",
    gvk: [{ group: 'apps', version: 'v1', kind: 'DaemonSet' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(APPS_V1, 'DaemonSetSpec'), description: "The pod to run on each node and how to update it." },
      { name: 'status', proto: 3, type: ref(APPS_V1, 'DaemonSetStatus'), description: "What the daemonset controller last observed; written by the server." },
    ],
  },
  {
    name: APPS_V1 + '.DaemonSetSpec',
    description: "The desired state of a DaemonSet.",
    fields: [
      { name: 'selector', proto: 1, type: ref(META_V1, 'LabelSelector'), required: true, description: "Label query over the pods this daemon set owns; must match the template's labels and cannot change after creation." },
      { name: 'template', proto: 2, type: ref(CORE_V1, 'PodTemplateSpec'), required: true, description: "The pod to run on each eligible node; restartPolicy may only be Always." },
      { name: 'updateStrategy', proto: 3, type: ref(APPS_V1, 'DaemonSetUpdateStrategy'), description: "How pods are replaced when the template changes." },
      { name: 'minReadySeconds', proto: 4, type: INT32, description: "Seconds a new pod must stay ready before it counts as available. Default 0." },
      { name: 'revisionHistoryLimit', proto: 6, type: INT32, emitZero: true, description: "How many old ControllerRevisions to keep. Default 10." },
    ],
  },
  {
    name: APPS_V1 + '.DaemonSetStatus',
    description: "The observed state of a DaemonSet.",
    fields: [
      { name: 'currentNumberScheduled', proto: 1, type: INT32, required: true, emitZero: true, description: "Nodes running at least one daemon pod that should run it." },
      { name: 'numberMisscheduled', proto: 2, type: INT32, required: true, emitZero: true, description: "Nodes running the daemon pod that should not." },
      { name: 'desiredNumberScheduled', proto: 3, type: INT32, required: true, emitZero: true, description: "Nodes that should run the daemon pod." },
      { name: 'numberReady', proto: 4, type: INT32, required: true, emitZero: true, description: "Nodes whose daemon pod is ready." },
      { name: 'observedGeneration', proto: 5, type: INT64, description: "The metadata.generation the controller last acted on." },
      { name: 'updatedNumberScheduled', proto: 6, type: INT32, description: "Nodes running the pod of the current template." },
      { name: 'numberAvailable', proto: 7, type: INT32, description: "Nodes whose daemon pod has been ready for at least minReadySeconds." },
      { name: 'numberUnavailable', proto: 8, type: INT32, description: "Nodes that should run an available daemon pod but do not." },
      { name: 'collisionCount', proto: 9, type: INT32, emitZero: true, description: "Bumped on revision-name hash collisions so the next ControllerRevision name differs." },
      { name: 'conditions', proto: 10, type: list(ref(APPS_V1, 'DaemonSetCondition')), patchStrategy: 'merge', patchMergeKey: 'type', listType: 'map', listMapKeys: ['type'], description: "Latest observations of the daemon set." },
    ],
  },
  {
    name: APPS_V1 + '.DaemonSetCondition',
    description: "One observation about a DaemonSet.",
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: "Condition type." },
      { name: 'status', proto: 2, type: STRING, required: true, emitZero: true, description: "True, False or Unknown." },
      { name: 'lastTransitionTime', proto: 3, type: TIME, description: "When status last changed." },
      { name: 'reason', proto: 4, type: STRING, description: "CamelCase reason for the last transition." },
      { name: 'message', proto: 5, type: STRING, description: "Human-readable details." },
    ],
  },
  {
    name: APPS_V1 + '.DaemonSetUpdateStrategy',
    description: "How the daemonset controller replaces pods after a template change.",
    fields: [
      { name: 'type', proto: 1, type: STRING, enum: ['RollingUpdate', 'OnDelete'], description: "RollingUpdate (the default) or OnDelete (replace a pod only once it was deleted by hand)." },
      { name: 'rollingUpdate', proto: 2, type: ref(APPS_V1, 'RollingUpdateDaemonSet'), description: "Parameters of a RollingUpdate." },
    ],
  },
  {
    name: APPS_V1 + '.RollingUpdateDaemonSet',
    description: "Bounds on a daemon set's rolling update.",
    fields: [
      { name: 'maxUnavailable', proto: 1, type: INT_OR_STRING, description: "How many nodes may lack an available daemon pod during the update, as a number or a percentage (rounded up). Default 1; may be 0 only when maxSurge is not." },
      { name: 'maxSurge', proto: 2, type: INT_OR_STRING, description: "How many nodes may run an old and a new pod at once during the update, as a number or a percentage (rounded up). Default 0." },
    ],
  },
  {
    name: APPS_V1 + '.ControllerRevision',
    description: "An immutable snapshot of a controller's template, kept so a StatefulSet or DaemonSet can roll back to it.",
    gvk: [{ group: 'apps', version: 'v1', kind: 'ControllerRevision' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'data', proto: 2, type: RAW_EXTENSION, description: "The serialized state of the revision (a patch of the owner's template)." },
      { name: 'revision', proto: 3, type: INT64, required: true, emitZero: true, description: "The revision number of this snapshot." },
    ],
  },
];
