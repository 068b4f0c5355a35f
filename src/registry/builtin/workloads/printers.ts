/**
 * Table columns and cells for the workload kinds, as kubectl shows them from a real cluster (kube-apiserver's
 * internalversion printers, 1.32): deployments NAME READY UP-TO-DATE AVAILABLE AGE, replicasets NAME DESIRED CURRENT
 * READY AGE, pods NAME READY STATUS RESTARTS AGE, services, nodes; priority-1 columns appear with `-o wide`.
 */
import { formatLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { translateTimestampSince } from '../../../apimachinery/table/duration.js';
import { column } from '../../../apimachinery/table/table.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';

export function obj(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}
export function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
/** labels.FormatLabels: sorted `k=v` pairs, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const pairs = Object.entries(obj(labels))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${str(v)}`);
  return pairs.length ? pairs.join(',') : '<none>';
}

export const nameOf = (o: JsonObject): string => str(obj(o.metadata).name);
export const ageOf = (o: JsonObject, now: number | Date): string => translateTimestampSince(str(obj(o.metadata).creationTimestamp), now);

export const nameColumn = column('Name', 'string', 'Name of the object, unique within its namespace.', { format: 'name' });
export const ageColumn = column('Age', 'string', 'Time since the object was created.');
export const containersColumn = column('Containers', 'string', 'Names of the containers in the pod template.', { priority: 1 });
export const imagesColumn = column('Images', 'string', 'Images of the containers in the pod template.', { priority: 1 });
export const selectorColumn = column('Selector', 'string', 'Label selector of the pods this object manages.', { priority: 1 });

/** Container names and images of a pod template, comma-joined (layoutContainerCells). */
export function templateContainerCells(template: unknown): [string, string] {
  const containers = list(obj(obj(template).spec).containers);
  return [containers.map((c) => str(c.name)).join(','), containers.map((c) => str(c.image)).join(',')];
}

export const deploymentPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Ready pods out of the desired number.'),
    // Typed string upstream (deploymentColumnDefinitions), though the cells are numbers.
    column('Up-to-date', 'string', 'Pods running the current pod template.'),
    column('Available', 'string', 'Pods available for at least minReadySeconds.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = templateContainerCells(spec.template);
    return [
      nameOf(o),
      `${int(status.readyReplicas)}/${int(spec.replicas)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      ageOf(o, now),
      names,
      images,
      formatLabelSelector(spec.selector as LabelSelectorSpec | undefined),
    ];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'Desired number of pods.'),
    column('Current', 'integer', 'Pods currently owned.'),
    column('Ready', 'integer', 'Pods that are ready.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const [names, images] = templateContainerCells(spec.template);
    return [nameOf(o), int(spec.replicas), int(status.replicas), int(status.readyReplicas), ageOf(o, now), names, images, formatLabelSelector(spec.selector as LabelSelectorSpec | undefined)];
  },
};

/** A sidecar: an init container with restartPolicy Always (IsRestartableInitContainer), which keeps running. */
const isRestartable = (c: JsonObject | undefined): boolean => c?.restartPolicy === 'Always';

const finishedAt = (cs: JsonObject): string => str(obj(obj(cs.lastState).terminated).finishedAt);

/** The later of two RFC 3339 times ('' when neither is set). */
const later = (a: string, b: string): string => (!a ? b : !b ? a : Date.parse(b) > Date.parse(a) ? b : a);

/**
 * The READY, STATUS and RESTARTS cells of a pod as printPod computes them: the phase, replaced by the pod's reason,
 * then, while init containers have not all succeeded, `Init:<i>/<n>` or the failing one's state; then by the most
 * telling container state (waiting reason, terminated reason or signal), "Running" while a ready pod still has
 * running containers, and "Terminating" once deletion started on a pod that has not finished. Sidecars (restartable
 * init containers) count among the containers READY counts, and their restarts among RESTARTS once the pod is
 * initialized; RESTARTS names how long ago the last restart was when the kubelet recorded its time.
 */
export function podSummary(pod: JsonObject, now: number | Date = Date.now()): { ready: number; total: number; reason: string; restarts: string } {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  let reason = str(status.reason) || str(status.phase);
  const conditions = list(status.conditions);
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';
  const initSpecs = new Map(list(spec.initContainers).map((c) => [str(c.name), c]));
  const total = list(spec.containers).length + [...initSpecs.values()].filter(isRestartable).length;
  let ready = 0;
  let restarts = 0;
  let lastRestart = '';
  let sidecarRestarts = 0;
  let lastSidecarRestart = '';
  let initializing = false;
  const initStatuses = list(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    const sidecar = isRestartable(initSpecs.get(str(cs.name)));
    restarts += int(cs.restartCount);
    lastRestart = later(lastRestart, finishedAt(cs));
    if (sidecar) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, finishedAt(cs));
    }
    const state = obj(cs.state);
    const term = obj(state.terminated);
    const waiting = str(obj(state.waiting).reason);
    if (isPlainObject(state.terminated) && int(term.exitCode) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (isPlainObject(state.terminated)) reason = str(term.reason) ? `Init:${str(term.reason)}` : int(term.signal) ? `Init:Signal:${int(term.signal)}` : `Init:ExitCode:${int(term.exitCode)}`;
    else if (waiting && waiting !== 'PodInitializing') reason = `Init:${waiting}`;
    else reason = `Init:${i}/${initSpecs.size}`;
    initializing = true;
    break;
  }
  if (!initializing || conditions.some((c) => c.type === 'Initialized' && c.status === 'True')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      restarts += int(cs.restartCount);
      lastRestart = later(lastRestart, finishedAt(cs));
      const state = obj(cs.state);
      const waiting = obj(state.waiting);
      const term = obj(state.terminated);
      if (str(waiting.reason)) reason = str(waiting.reason);
      else if (str(term.reason)) reason = str(term.reason);
      else if (isPlainObject(state.terminated)) reason = int(term.signal) ? `Signal:${int(term.signal)}` : `ExitCode:${int(term.exitCode)}`;
      else if (cs.ready === true && isPlainObject(state.running)) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
  }
  const deleting = Boolean(obj(pod.metadata).deletionTimestamp);
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting && status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';
  const restartCell = restarts !== 0 && lastRestart ? `${restarts} (${translateTimestampSince(lastRestart, now)} ago)` : String(restarts);
  return { ready, total, reason, restarts: restartCell };
}

/** The STATUS cell of a pod (printPod): podSummary's reason. */
export function podStatusReason(pod: JsonObject): string {
  return podSummary(pod).reason;
}

export const podPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Ready containers out of all containers.'),
    column('Status', 'string', 'Aggregate status of the containers in the pod.'),
    column('Restarts', 'string', 'Container restarts, and how long ago the last one was.'),
    ageColumn,
    column('IP', 'string', 'IP address of the pod.', { priority: 1 }),
    column('Node', 'string', 'Node the pod is bound to.', { priority: 1 }),
    column('Nominated Node', 'string', 'Node the pod may run on once preemption completes.', { priority: 1 }),
    column('Readiness Gates', 'string', 'Readiness gates that are met, out of all.', { priority: 1 }),
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const status = obj(o.status);
    const { ready, total, reason, restarts } = podSummary(o, now);
    const gates = list(spec.readinessGates);
    const conditions = list(status.conditions);
    const gatesCell = gates.length
      ? `${gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length}/${gates.length}`
      : '<none>';
    return [
      nameOf(o),
      `${ready}/${total}`,
      reason,
      restarts,
      ageOf(o, now),
      str(status.podIP) || '<none>',
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      gatesCell,
    ];
  },
};

function servicePorts(spec: JsonObject): string {
  const ports = list(spec.ports);
  if (ports.length === 0) return '<none>';
  return ports.map((p) => (int(p.nodePort) ? `${int(p.port)}:${int(p.nodePort)}/${str(p.protocol)}` : `${int(p.port)}/${str(p.protocol)}`)).join(',');
}

function serviceExternalIP(o: JsonObject): string {
  const spec = obj(o.spec);
  const externalIPs = Array.isArray(spec.externalIPs) ? (spec.externalIPs as string[]) : [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = list(obj(obj(obj(o.status).loadBalancer)).ingress).map((i) => str(i.ip) || str(i.hostname));
      const all = [...ingress, ...externalIPs];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

export const servicePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Type', 'string', 'How the service is exposed.'),
    column('Cluster-IP', 'string', 'Virtual IP of the service.'),
    column('External-IP', 'string', 'Addresses reachable from outside the cluster.'),
    column('Port(s)', 'string', 'Ports the service exposes.'),
    ageColumn,
    column('Selector', 'string', 'Labels of the pods the service routes to.', { priority: 1 }),
  ],
  row(o, now) {
    const spec = obj(o.spec);
    const selector = Object.entries(obj(spec.selector))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${str(v)}`)
      .join(',');
    return [nameOf(o), str(spec.type), str(spec.clusterIP) || '<none>', serviceExternalIP(o), servicePorts(spec), ageOf(o, now), selector || '<none>'];
  },
};

/** Roles from node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted. */
function nodeRoles(o: JsonObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(obj(obj(o.metadata).labels))) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && str(v)) roles.add(str(v));
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeStatus(o: JsonObject): string {
  const ready = list(obj(o.status).conditions).find((c) => c.type === 'Ready');
  const parts = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown'];
  if (obj(o.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeAddress(o: JsonObject, type: string): string {
  return str(list(obj(o.status).addresses).find((a) => a.type === type)?.address) || '<none>';
}

export const nodePrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Whether the node is ready for pods.'),
    column('Roles', 'string', 'Roles of the node.'),
    ageColumn,
    column('Version', 'string', 'Kubelet version reported by the node.'),
    column('Internal-IP', 'string', 'Internal address of the node.', { priority: 1 }),
    column('External-IP', 'string', 'External address of the node.', { priority: 1 }),
    column('OS-Image', 'string', 'Operating system image of the node.', { priority: 1 }),
    column('Kernel-Version', 'string', 'Kernel version of the node.', { priority: 1 }),
    column('Container-Runtime', 'string', 'Container runtime and version of the node.', { priority: 1 }),
  ],
  row(o, now) {
    const info = obj(obj(o.status).nodeInfo);
    return [
      nameOf(o),
      nodeStatus(o),
      nodeRoles(o),
      ageOf(o, now),
      str(info.kubeletVersion),
      nodeAddress(o, 'InternalIP'),
      nodeAddress(o, 'ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};
