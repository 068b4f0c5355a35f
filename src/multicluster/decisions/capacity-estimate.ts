/**
 * How many more replicas of a workload a SyncTarget can take, estimated from what the target reports: the sum of its
 * nodes' allocatable (SyncTarget status.allocatable, written by the syncer) minus what the other split workloads
 * assigned there request. This is deliberately simple and optimistic: it ignores pods that are not split workloads
 * and node fragmentation (a sum of allocatable can hold a pod no single node can), so replicas that still do not fit
 * are caught later by the unschedulable check (unschedulableShare), which moves them elsewhere.
 */
import { integerValue, milliValue } from '../../apimachinery/quantity.js';

/** What one pod requests: milli-cpu, memory bytes, and 1 pod slot. */
export interface PodRequests {
  cpuMilli: number;
  memory: number;
}

/** The summed resources.requests of a pod template's containers (limits stand in for missing requests, as upstream). */
export function podRequestsOf(template: unknown): PodRequests {
  const containers = ((template as { spec?: { containers?: unknown[] } } | undefined)?.spec?.containers ?? []) as {
    resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  }[];
  let cpuMilli = 0;
  let memory = 0;
  for (const c of containers) {
    const get = (name: string) => c.resources?.requests?.[name] ?? c.resources?.limits?.[name];
    cpuMilli += quantity(get('cpu'), milliValue);
    memory += quantity(get('memory'), integerValue);
  }
  return { cpuMilli, memory };
}

function quantity(v: string | number | undefined, parse: (q: string | number) => number): number {
  if (v === undefined) return 0;
  try {
    return parse(v);
  } catch {
    return 0;
  }
}

/** One workload already assigned to the target: its per-pod requests and replica count. */
export interface AssignedWorkload {
  requests: PodRequests;
  replicas: number;
}

/**
 * The replicas of a workload with per-pod `requests` that fit in `allocatable` (a SyncTarget's status.allocatable)
 * besides `others`. Undefined when the target reports no allocatable (unknown: unbounded). Each of pods, cpu and
 * memory limits the count when the target reports it (cpu and memory only when the pod requests them). Never negative.
 */
export function estimateAvailableReplicas(allocatable: Record<string, string> | undefined, requests: PodRequests, others: readonly AssignedWorkload[]): number | undefined {
  if (!allocatable || Object.keys(allocatable).length === 0) return undefined;
  let fit = Infinity;
  const limit = (total: number, used: number, per: number) => {
    if (per <= 0) return;
    fit = Math.min(fit, Math.floor(Math.max(0, total - used) / per));
  };
  const pods = quantity(allocatable.pods, integerValue);
  if (allocatable.pods !== undefined) limit(pods, others.reduce((s, o) => s + o.replicas, 0), 1);
  if (allocatable.cpu !== undefined) limit(quantity(allocatable.cpu, milliValue), others.reduce((s, o) => s + o.replicas * o.requests.cpuMilli, 0), requests.cpuMilli);
  if (allocatable.memory !== undefined) limit(quantity(allocatable.memory, integerValue), others.reduce((s, o) => s + o.replicas * o.requests.memory, 0), requests.memory);
  return fit === Infinity ? undefined : fit;
}
