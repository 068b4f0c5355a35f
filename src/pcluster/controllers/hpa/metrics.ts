/**
 * The simulated cluster's pod metrics (what metrics-server would report): a deterministic usage per container of
 * every Running pod, a percentage of its request — for a container without a request, of the scheduler's defaults
 * (100m CPU, 200Mi memory). The percentages are knobs on the pod (put them on a pod template):
 *
 * - `sim.atrium.io/cpu-utilization: "150"` — CPU usage as a percentage of the request (default 10);
 * - `sim.atrium.io/memory-utilization: "80"` — memory likewise (default 30).
 *
 * Values are in milli-units as the HPA's metrics client reads them (Quantity.MilliValue): millicores for cpu,
 * thousandths of a byte for memory.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { integerValue, milliValue } from '../../../apimachinery/quantity.js';

export const cpuUtilizationAnnotation = 'sim.atrium.io/cpu-utilization';
export const memoryUtilizationAnnotation = 'sim.atrium.io/memory-utilization';
export const defaultUtilization: Record<string, number> = { cpu: 10, memory: 30 };
const unrequestedDefaults: Record<string, number> = { cpu: 100, memory: 200 * 1024 * 1024 * 1000 };

const containersOf = (pod: KubeObject): JsonObject[] => {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [];
};

/** A container's request for `resource` in milli-units, or undefined when it requests none. */
export function containerRequest(container: JsonObject, resource: string): number | undefined {
  const resources = isPlainObject(container.resources) ? container.resources : {};
  const requests = isPlainObject(resources.requests) ? resources.requests : {};
  const v = requests[resource];
  if (v === undefined || v === null) return undefined;
  return resource === 'cpu' ? milliValue(v as string) : integerValue(v as string) * 1000;
}

/** The utilization percentage the pod's annotation asks for, or the default. */
export function utilizationOf(pod: KubeObject, resource: string): number {
  const key = resource === 'cpu' ? cpuUtilizationAnnotation : resource === 'memory' ? memoryUtilizationAnnotation : undefined;
  const v = key ? pod.metadata?.annotations?.[key] : undefined;
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : (defaultUtilization[resource] ?? 0);
}

/**
 * The pod's usage of `resource` in milli-units (summed over its containers, or of one container), or undefined when
 * there is no metric: the pod is not Running, or the container does not exist.
 */
export function podUsage(pod: KubeObject, resource: string, container?: string): number | undefined {
  if ((pod.status as JsonObject | undefined)?.phase !== 'Running') return undefined;
  const containers = containersOf(pod).filter((c) => container === undefined || c.name === container);
  if (containers.length === 0) return undefined;
  const pct = utilizationOf(pod, resource);
  let total = 0;
  for (const c of containers) total += Math.round(((containerRequest(c, resource) ?? unrequestedDefaults[resource] ?? 0) * pct) / 100);
  return total;
}

/**
 * calculatePodRequests: the pod's request for `resource` in milli-units (of one container, when given); throws
 * upstream's "missing request for <resource>" when a container requests none.
 */
export function podRequest(pod: KubeObject, resource: string, container?: string): number {
  let total = 0;
  for (const c of containersOf(pod)) {
    if (container !== undefined && c.name !== container) continue;
    const r = containerRequest(c, resource);
    if (r === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name}`);
    total += r;
  }
  return total;
}

/** A Quantity from milli-units, in its canonical DecimalSI form (`150m`, `2`, `52428800`, `1M`). */
export function formatMilliQuantity(milli: number): string {
  const m = Math.round(milli);
  if (m % 1000 !== 0) return `${m}m`;
  let v = m / 1000;
  if (v === 0) return '0';
  const suffixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let i = 0;
  while (i < suffixes.length - 1 && v % 1000 === 0) {
    v /= 1000;
    i++;
  }
  return `${v}${suffixes[i]}`;
}
