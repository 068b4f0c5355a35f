/** Reading and updating pod conditions (podutil.IsPodReady / UpdatePodCondition). */
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
  return podConditions(pod).find((c) => c.type === type);
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
 * Sets one condition in `conditions`, keeping lastTransitionTime when the status did not change. Returns the new list
 * and whether anything changed.
 */
export function setPodCondition(conditions: PodCondition[], next: { type: string; status: string; reason?: string; message?: string }): { conditions: PodCondition[]; changed: boolean } {
  const existing = conditions.find((c) => c.type === next.type);
  const transition = existing && existing.status === next.status ? existing.lastTransitionTime : nowRFC3339();
  const merged: PodCondition = { ...next, lastProbeTime: null, lastTransitionTime: transition };
  if (existing && existing.status === merged.status && existing.reason === merged.reason && existing.message === merged.message) {
    return { conditions, changed: false };
  }
  const out = existing ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
  return { conditions: out, changed: true };
}

/** Terminal pods (Succeeded/Failed) and pods being deleted no longer count towards a ReplicaSet. */
export function isPodActive(pod: JsonObject): boolean {
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
  return phase !== 'Succeeded' && phase !== 'Failed' && !meta.deletionTimestamp;
}
