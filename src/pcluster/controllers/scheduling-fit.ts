/**
 * Resource fit, as the scheduler's NodeResourcesFit filter and LeastAllocated score see it: a pod's effective
 * requests (the larger of the sum over containers and the largest init container) against a node's allocatable
 * minus what the pods already on it request. Only cpu, memory and the pod count are accounted.
 */
import { type JsonObject, isPlainObject } from '../../apimachinery/object.js';
import { integerValue, milliValue } from '../../apimachinery/quantity.js';

export interface Resources {
  /** Millicores. */
  cpu: number;
  /** Bytes. */
  memory: number;
  pods: number;
}

function containerRequests(c: JsonObject): { cpu: number; memory: number } {
  const res = isPlainObject(c.resources) ? c.resources : {};
  const requests = isPlainObject(res.requests) ? res.requests : {};
  return {
    cpu: requests.cpu !== undefined ? milliValue(requests.cpu as string) : 0,
    memory: requests.memory !== undefined ? integerValue(requests.memory as string) : 0,
  };
}

/** What the scoring plugins assume for a container that requests nothing (schedutil.DefaultMilliCPURequest/MemoryRequest). */
const nonZeroDefaults = { cpu: 100, memory: 200 * 1024 * 1024 };

/**
 * The pod's effective requests: max(sum of containers, largest init container), plus spec.overhead. With `nonZero`,
 * containers that request no cpu or memory count the scoring defaults (100m, 200Mi), so that request-less pods still
 * spread across nodes.
 */
export function podRequests(pod: JsonObject, nonZero = false): Resources {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [];
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : [];
  let cpu = 0;
  let memory = 0;
  for (const c of containers) {
    const r = containerRequests(c);
    cpu += nonZero && r.cpu === 0 ? nonZeroDefaults.cpu : r.cpu;
    memory += nonZero && r.memory === 0 ? nonZeroDefaults.memory : r.memory;
  }
  for (const c of inits) {
    const r = containerRequests(c);
    cpu = Math.max(cpu, r.cpu);
    memory = Math.max(memory, r.memory);
  }
  const overhead = isPlainObject(spec.overhead) ? spec.overhead : {};
  if (overhead.cpu !== undefined) cpu += milliValue(overhead.cpu as string);
  if (overhead.memory !== undefined) memory += integerValue(overhead.memory as string);
  return { cpu, memory, pods: 1 };
}

/** status.allocatable of a node (capacity when allocatable is absent). */
export function nodeAllocatable(node: JsonObject): Resources {
  const status = isPlainObject(node.status) ? node.status : {};
  const alloc = isPlainObject(status.allocatable) ? status.allocatable : isPlainObject(status.capacity) ? status.capacity : {};
  return {
    cpu: alloc.cpu !== undefined ? milliValue(alloc.cpu as string) : 0,
    memory: alloc.memory !== undefined ? integerValue(alloc.memory as string) : 0,
    pods: alloc.pods !== undefined ? integerValue(alloc.pods as string) : 0,
  };
}

export function addResources(a: Resources, b: Resources): Resources {
  return { cpu: a.cpu + b.cpu, memory: a.memory + b.memory, pods: a.pods + b.pods };
}

/** Why the pod does not fit (upstream reason texts: "Insufficient cpu", "Insufficient memory", "Too many pods"). */
export function insufficientResources(request: Resources, used: Resources, allocatable: Resources): string[] {
  const out: string[] = [];
  if (used.pods + 1 > allocatable.pods) out.push('Too many pods');
  if (request.cpu > 0 && used.cpu + request.cpu > allocatable.cpu) out.push('Insufficient cpu');
  if (request.memory > 0 && used.memory + request.memory > allocatable.memory) out.push('Insufficient memory');
  return out;
}

/** LeastAllocated score in [0, 100]: the mean free fraction of cpu and memory after placing the pod. */
export function leastAllocatedScore(request: Resources, used: Resources, allocatable: Resources): number {
  const free = (req: number, u: number, cap: number) => (cap <= 0 ? 0 : Math.max(0, (cap - u - req) / cap));
  return ((free(request.cpu, used.cpu, allocatable.cpu) + free(request.memory, used.memory, allocatable.memory)) / 2) * 100;
}

/**
 * The FitError message (`0/3 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.`): reasons counted
 * over nodes, sorted by text.
 */
export function unschedulableMessage(nodeCount: number, reasonsByNode: string[][]): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  for (const reasons of reasonsByNode) for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts.entries()].map(([r, n]) => `${n} ${r}`).sort();
  return parts.length ? `0/${nodeCount} nodes are available: ${parts.join(', ')}.` : `0/${nodeCount} nodes are available.`;
}

/**
 * The FitError message when a PreFilter plugin rejected the pod for every node (`0/3 nodes are available: pod has
 * unbound immediate PersistentVolumeClaims.`).
 */
export function preFilterUnschedulableMessage(nodeCount: number, message: string): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  return `0/${nodeCount} nodes are available: ${message}.`;
}

/** A host port a pod's container (or init container) asks for (hostIP defaults to 0.0.0.0, protocol to TCP). */
export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** The host ports of a pod's containers and init containers. */
export function hostPortsOf(pod: JsonObject): HostPort[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const out: HostPort[] = [];
  for (const key of ['initContainers', 'containers']) {
    for (const c of Array.isArray(spec[key]) ? (spec[key] as unknown[]).filter(isPlainObject) : []) {
      for (const p of Array.isArray(c.ports) ? c.ports.filter(isPlainObject) : []) {
        const port = Number(p.hostPort ?? 0);
        if (port > 0) out.push({ ip: typeof p.hostIP === 'string' && p.hostIP ? p.hostIP : '0.0.0.0', protocol: typeof p.protocol === 'string' && p.protocol ? p.protocol : 'TCP', port });
      }
    }
  }
  return out;
}

/** The NodePorts filter's reason when a pod's host ports clash with those already used on a node. */
export const nodePortsReason = "node(s) didn't have free ports for the requested pod ports";

/**
 * Whether any of `wanted` clashes with `used` (HostPortInfo.CheckConflict): the same protocol and port, on the same
 * address or where either side listens on every address (0.0.0.0).
 */
export function hostPortsConflict(wanted: readonly HostPort[], used: readonly HostPort[]): boolean {
  return wanted.some((w) => used.some((u) => u.protocol === w.protocol && u.port === w.port && (u.ip === w.ip || u.ip === '0.0.0.0' || w.ip === '0.0.0.0')));
}
