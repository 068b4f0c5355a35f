/** The pod QoS class (v1 qos.GetPodQOS), stored in status.qosClass when a pod is created. */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { parseQuantity } from '../../../apimachinery/quantity.js';

const computeResources = ['cpu', 'memory'];

/**
 * BestEffort when no container requests or limits cpu or memory; Guaranteed when every container limits both and
 * its requests (if given) equal the limits; Burstable otherwise.
 */
export function podQOSClass(spec: JsonObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isPlainObject);
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const res = isPlainObject(c.resources) ? c.resources : {};
    const requests = isPlainObject(res.requests) ? res.requests : {};
    const limits = isPlainObject(res.limits) ? res.limits : {};
    for (const r of computeResources) {
      const req = requests[r];
      const lim = limits[r];
      if (req !== undefined || lim !== undefined) any = true;
      if (lim === undefined) guaranteed = false;
      else if (req !== undefined && parseQuantity(req as string) !== parseQuantity(lim as string)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
