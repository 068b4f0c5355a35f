/** Whether a pod is BestEffort (qos.GetPodQOS): no container, init containers included, requests or limits cpu or memory. */
import { type JsonObject, isPlainObject } from '../object.js';

export function podQOSIsBestEffort(spec: JsonObject): boolean {
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isPlainObject);
  for (const c of containers) {
    const res = isPlainObject(c.resources) ? c.resources : {};
    for (const part of [res.requests, res.limits]) {
      if (!isPlainObject(part)) continue;
      if (part.cpu !== undefined || part.memory !== undefined) return false;
    }
  }
  return true;
}
