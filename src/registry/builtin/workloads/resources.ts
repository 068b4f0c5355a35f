/**
 * The workload resources a physical cluster serves on top of the standard set: apps/v1 Deployments and ReplicaSets
 * (with /status and /scale), core/v1 Pods (with /status), Services and Nodes (with /status); and, defined in their own
 * files beside this one, StatefulSets, DaemonSets, ControllerRevisions, Jobs, CronJobs, PodDisruptionBudgets,
 * HorizontalPodAutoscalers (v2 and v1 over one storage), the storage (the CSI kinds among them), discovery and
 * networking kinds, and PriorityClasses.
 * `atrium pcluster` serves the whole list; on the control plane, every workspace with compute serves it too, minus
 * Nodes and PersistentVolumes (workspaceWorkloadResources in src/multicluster/api/workload-resources.ts), and the
 * control plane runs no workload controllers for them.
 */
import { randomInt } from 'node:crypto';
import { type JsonObject, type KubeObject, isPlainObject, nowRFC3339 } from '../../../apimachinery/object.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { defaultDeployment, defaultPod, defaultReplicaSet, defaultService } from './defaults.js';
import { admitPodCreate } from './pod-admission-defaults.js';
import { mergeAffinityLabelKeys } from './pod-affinity-label-keys.js';
import { deploymentPrinter, nodePrinter, podPrinter, replicaSetPrinter, servicePrinter } from './printers.js';
import { podQOSClass } from './qos.js';
import { scaleSubresource } from './scale.js';
import {
  validateDeployment,
  validatePodCreate,
  validatePodEphemeralContainersUpdate,
  validatePodUpdate,
  validateReplicaSet,
  validateSelectorImmutable,
  validateService,
} from './validation.js';
import type { ResourceDefinition } from '../../rest.js';
import { defineBuiltin, statusKeepingMetadata } from '../define.js';
import { endpoints, podTemplates, replicationControllers } from './core-more-resources.js';
import { endpointSlices } from './discovery-resources.js';
import { ingressClasses, ingresses, networkPolicies } from './networking-resources.js';
import { persistentVolumeClaims, persistentVolumes, storageClasses } from './storage-resources.js';
import { runtimeClasses } from './runtime-classes.js';
import { csiDrivers, csiNodes, csiStorageCapacities, volumeAttachments } from './csi-resources.js';
import { priorityClasses } from './priority-classes.js';
import { controllerRevisions, daemonSets, statefulSets } from './apps-resources.js';
import { horizontalPodAutoscalersV1, horizontalPodAutoscalersV2 } from './autoscaling-resources.js';
import { cronJobs, jobs } from './batch-resources.js';
import { podDisruptionBudgets } from './policy-resources.js';
import { limitRanges } from './limit-ranges.js';
import { podWarnings, templateKindWarnings } from './pod-warnings.js';

/** A built-in definition with the printer render.ts uses for Table output. */

function withPrinter(def: ResourceDefinition, printer: TablePrinter): ResourceDefinition {
  return Object.assign(def, { tableConvertor: printer });
}

const scaleDescriptor = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], strategy: scaleSubresource };
/**
 * The kind's /status: its status strategy resets only the spec upstream, so the write's labels, annotations, finalizers
 * and owner references are kept, but for what `reset` names (statusKeepingMetadata).
 */
const statusDescriptor = (kind: string, reset: Parameters<typeof statusKeepingMetadata>[0] = []) => ({ name: 'status', kind, verbs: ['get', 'patch', 'update'], strategy: statusKeepingMetadata(reset) });

/** The main endpoint never writes status; a create starts from an empty one (strategy PrepareForCreate). */
function resetStatus(obj: KubeObject): void {
  obj.status = {};
}

/**
 * Convert_v1_Pod_To_core_Pod: a Pod's negative terminationGracePeriodSeconds is taken as 1 (a pod template's is kept,
 * and warned about).
 */
function negativeGracePeriodAsOne(obj: KubeObject): void {
  const spec = obj.spec;
  if (isPlainObject(spec) && typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) spec.terminationGracePeriodSeconds = 1;
}

function keepStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = old.status;
}

export const deployments = withPrinter(
  defineBuiltin({
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    definitionName: 'io.k8s.api.apps.v1.Deployment',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultDeployment,
    strategy: {
      metadataRevalidation: 'update',
      tracksGeneration: true,
      prepareForCreate(obj) {
        resetStatus(obj);
        defaultDeployment(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultDeployment(obj);
      },
      validate: validateDeployment,
      validateUpdate: (obj, old) => [...validateDeployment(obj), ...validateSelectorImmutable(obj, old)],
      warnings: templateKindWarnings(true),
    },
    subresources: [statusDescriptor('Deployment', ['labels']), scaleDescriptor],
  }),
  deploymentPrinter,
);

export const replicaSets = withPrinter(
  defineBuiltin({
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    definitionName: 'io.k8s.api.apps.v1.ReplicaSet',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultReplicaSet,
    strategy: {
      tracksGeneration: true,
      prepareForCreate(obj) {
        resetStatus(obj);
        defaultReplicaSet(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultReplicaSet(obj);
      },
      validate: validateReplicaSet,
      validateUpdate: (obj, old) => [...validateReplicaSet(obj), ...validateSelectorImmutable(obj, old)],
      warnings: templateKindWarnings(true),
    },
    subresources: [statusDescriptor('ReplicaSet'), scaleDescriptor],
  }),
  replicaSetPrinter,
);

function podFields(obj: KubeObject): Record<string, string> {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const status = isPlainObject(obj.status) ? obj.status : {};
  return {
    'spec.nodeName': String(spec.nodeName ?? ''),
    'spec.restartPolicy': String(spec.restartPolicy ?? ''),
    'spec.schedulerName': String(spec.schedulerName ?? ''),
    'spec.serviceAccountName': String(spec.serviceAccountName ?? ''),
    'spec.hostNetwork': String(spec.hostNetwork === true),
    'status.phase': String(status.phase ?? ''),
    'status.podIP': String(status.podIP ?? ''),
    'status.nominatedNodeName': String(status.nominatedNodeName ?? ''),
  };
}

/**
 * pods/ephemeralcontainers (`kubectl debug`): a write changes the pod's spec.ephemeralContainers and nothing else
 * (upstream's dropNonEphemeralContainerUpdates keeps the stored pod but for them), validated as
 * ValidatePodEphemeralContainersUpdate.
 */
const ephemeralContainersDescriptor = {
  name: 'ephemeralcontainers',
  kind: 'Pod',
  verbs: ['get', 'patch', 'update'],
  strategy: {
    apply(incoming: KubeObject, current: KubeObject): KubeObject {
      const spec = (isPlainObject(current.spec) ? current.spec : (current.spec = {})) as Record<string, unknown>;
      const wanted = isPlainObject(incoming.spec) ? incoming.spec.ephemeralContainers : undefined;
      if (wanted === undefined || wanted === null) delete spec.ephemeralContainers;
      else spec.ephemeralContainers = wanted;
      return current;
    },
    validate: (obj: KubeObject, old: KubeObject) => validatePodEphemeralContainersUpdate(obj as JsonObject, old as JsonObject),
    decodedAsParent: true,
    // Upstream's strategy starts from the stored pod, so the entry its field manager recorded is lost: no
    // `ephemeralcontainers` entry ever appears in managedFields.
    keepsManagedFields: true,
  },
};

/**
 * The Priority admission plugin's update rule: an update that drops spec.priority or spec.preemptionPolicy keeps the
 * stored ones (both are immutable, so only dropping them could differ). Here rather than in the plugin, which sees no
 * stored object for a PUT.
 */
function keepAdmittedPriority(obj: KubeObject, old: KubeObject): void {
  if (!isPlainObject(obj.spec) || !isPlainObject(old.spec)) return;
  for (const field of ['priority', 'preemptionPolicy']) {
    if ((obj.spec[field] === undefined || obj.spec[field] === null) && old.spec[field] !== undefined && old.spec[field] !== null) obj.spec[field] = old.spec[field];
  }
}

export const pods = withPrinter(
  defineBuiltin({
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    definitionName: 'io.k8s.api.core.v1.Pod',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultPod,
    strategy: {
      // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
      returnDeletedObject: true,
      prepareForCreate(obj) {
        defaultPod(obj);
        negativeGracePeriodAsOne(obj);
        admitPodCreate(obj);
        const status: Record<string, unknown> = { phase: 'Pending', qosClass: podQOSClass(obj.spec as Record<string, unknown>) };
        obj.status = status;
        // applySchedulingGatedCondition: a pod created with scheduling gates says why it is not scheduled.
        const gates = (obj.spec as Record<string, unknown> | undefined)?.schedulingGates;
        if (Array.isArray(gates) && gates.length > 0) {
          status.conditions = [
            { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: nowRFC3339(), reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' },
          ];
        }
        mergeAffinityLabelKeys(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultPod(obj);
        negativeGracePeriodAsOne(obj);
        keepAdmittedPriority(obj, old);
      },
      validate: validatePodCreate,
      validateUpdate: validatePodUpdate,
      warnings: podWarnings,
      selectableFields: podFields,
    },
    subresources: [ephemeralContainersDescriptor, statusDescriptor('Pod', ['ownerReferences'])],
  }),
  podPrinter,
);

/** A random address in the default service CIDR 10.96.0.0/12 (never .0 or the first address, kept for `kubernetes`). */
function allocateClusterIP(): string {
  const offset = randomInt(2, 2 ** 20 - 1);
  return `10.${96 + (offset >> 16)}.${(offset >> 8) & 255}.${offset & 255}`;
}

const needsNodePort = (spec: Record<string, unknown>) => spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const needsHealthCheckNodePort = (spec: Record<string, unknown>) => spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
const nodePortsOf = (spec: Record<string, unknown>) =>
  new Set(((Array.isArray(spec.ports) ? spec.ports : []) as Record<string, unknown>[]).map((p) => p.nodePort).filter((n) => typeof n === 'number' && n !== 0));

/**
 * dropTypeDependentFields (service strategy), for the allocated ports: an update switching to a type that needs no
 * node ports (or health check port) clears the ones the server allocated, unless the user changed them too (then
 * validation refuses them).
 */
function dropTypeDependentPorts(obj: KubeObject, old: KubeObject): void {
  const spec = obj.spec as Record<string, unknown>;
  const oldSpec = (isPlainObject(old.spec) ? old.spec : {}) as Record<string, unknown>;
  if (!isPlainObject(spec)) return;
  const oldPorts = nodePortsOf(oldSpec);
  if (needsNodePort(oldSpec) && !needsNodePort(spec) && [...nodePortsOf(spec)].every((n) => oldPorts.has(n))) {
    for (const p of (Array.isArray(spec.ports) ? spec.ports : []) as Record<string, unknown>[]) if (isPlainObject(p)) delete p.nodePort;
  }
  if (needsHealthCheckNodePort(oldSpec) && !needsHealthCheckNodePort(spec) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort) delete spec.healthCheckNodePort;
}

/** Cluster IP (unless headless or ExternalName), IP family fields, and node ports for NodePort/LoadBalancer services. */
function allocateServiceAddresses(obj: KubeObject, old?: KubeObject): void {
  const spec = obj.spec as Record<string, unknown>;
  const oldSpec = (isPlainObject(old?.spec) ? old.spec : {}) as Record<string, unknown>;
  if (spec.type === 'ExternalName') return;
  if (!spec.clusterIP && oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
  if (!spec.clusterIP) spec.clusterIP = allocateClusterIP();
  spec.clusterIPs = [spec.clusterIP];
  if (!Array.isArray(spec.ipFamilies)) spec.ipFamilies = ['IPv4'];
  if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = 'SingleStack';
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    const oldPorts = Array.isArray(oldSpec.ports) ? (oldSpec.ports as Record<string, unknown>[]) : [];
    for (const p of (spec.ports as Record<string, unknown>[] | undefined) ?? []) {
      if (p.nodePort) continue;
      const previous = oldPorts.find((o) => o.port === p.port && o.protocol === p.protocol);
      p.nodePort = previous?.nodePort ?? randomInt(30000, 32768);
    }
  }
}

export const services = withPrinter(
  defineBuiltin({
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    definitionName: 'io.k8s.api.core.v1.Service',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultService,
    strategy: {
      // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
      returnDeletedObject: true,
      // ValidateServiceName: a DNS-1035 label (it becomes a DNS name and environment variable prefixes).
      nameValidation: 'dns1035',
      // A PUT of a missing Service creates it (svcStrategy AllowCreateOnUpdate).
      allowCreateOnUpdate: true,
      prepareForCreate(obj) {
        defaultService(obj);
        allocateServiceAddresses(obj);
        obj.status = { loadBalancer: {} };
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultService(obj);
        dropTypeDependentPorts(obj, old);
        allocateServiceAddresses(obj, old);
      },
      validate: (obj) => validateService(obj),
      validateUpdate: (obj, old) => validateService(obj, old),
    },
    subresources: [statusDescriptor('Service')],
  }),
  servicePrinter,
);

export const nodes = withPrinter(
  defineBuiltin({
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    definitionName: 'io.k8s.api.core.v1.Node',
    strategy: {
      // A kubelet registers its Node with status filled in, so create keeps it; updates through the main endpoint do not.
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
      },
      selectableFields: (obj) => ({ 'spec.unschedulable': String((obj.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true) }),
    },
    subresources: [statusDescriptor('Node')],
  }),
  nodePrinter,
);

/** Every workload resource, in discovery order. */
export const workloadResources: ResourceDefinition[] = [
  pods,
  services,
  nodes,
  controllerRevisions,
  daemonSets,
  deployments,
  replicaSets,
  statefulSets,
  horizontalPodAutoscalersV2,
  horizontalPodAutoscalersV1,
  cronJobs,
  jobs,
  podDisruptionBudgets,
  persistentVolumeClaims,
  persistentVolumes,
  replicationControllers,
  endpoints,
  podTemplates,
  endpointSlices,
  ingresses,
  ingressClasses,
  networkPolicies,
  // storage.k8s.io/v1 in kube-apiserver's (alphabetical) discovery order.
  csiDrivers,
  csiNodes,
  csiStorageCapacities,
  storageClasses,
  volumeAttachments,
  priorityClasses,
  runtimeClasses,
  limitRanges,
];

