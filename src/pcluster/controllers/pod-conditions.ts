/** Reading and updating pod conditions (podutil.IsPodReady / UpdatePodCondition). */
import { findCondition, setStatusCondition } from '../../apimachinery/conditions.js';
import { type JsonObject, isPlainObject, nowRFC3339 } from '../../apimachinery/object.js';

export interface PodCondition extends JsonObject {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export function podConditions(pod: JsonObject): PodCondition[] {
  const status = isPlainObject(pod.status) ? pod.status : {};
  return Array.isArray(status.conditions) ? (status.conditions as PodCondition[]) : [];
}

export function podCondition(pod: JsonObject, type: string): PodCondition | undefined {
  return findCondition(podConditions(pod), type);
}

/** Whether the pod's Ready condition is True. */
export function isPodReady(pod: JsonObject): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/**
 * Whether the pod has been ready for at least minReadySeconds at `now` (podutil.IsPodAvailable); with 0 a ready pod is
 * available at once.
 */
export function isPodAvailable(pod: JsonObject, minReadySeconds: number, now: number): boolean {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

/**
 * Sets one condition (podutil.UpdatePodCondition: lastTransitionTime kept while the status holds, see
 * setStatusCondition). Returns the new list (`conditions` itself when nothing changed; its entries are never
 * modified) and whether anything changed.
 */
export function setPodCondition(conditions: PodCondition[], next: { type: string; status: string; reason?: string; message?: string }): { conditions: PodCondition[]; changed: boolean } {
  const out = conditions.map((c) => ({ ...c }));
  const changed = setStatusCondition<PodCondition>(out, { ...next, lastProbeTime: null }, nowRFC3339());
  return changed ? { conditions: out, changed } : { conditions, changed };
}

/** Terminal pods (Succeeded/Failed) and pods being deleted no longer count towards a ReplicaSet. */
export function isPodActive(pod: JsonObject): boolean {
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
  return phase !== 'Succeeded' && phase !== 'Failed' && !meta.deletionTimestamp;
}
