/**
 * podutil.UpdatePodCondition, for the writes the API server makes to a pod itself (pods/eviction's DisruptionTarget,
 * pods/binding's PodScheduled): the condition of its type is replaced, its lastTransitionTime kept only when the
 * status did not change, lastProbeTime unset (null).
 */
import { nowRFC3339 } from '../../../apimachinery/object.js';

type PodCondition = Record<string, unknown>;

/** `conditions` with `next` (type, status, and reason/message when it has them) set as UpdatePodCondition sets it. */
export function updatePodCondition(conditions: PodCondition[] | undefined, next: { type: string; status: string; reason?: string; message?: string }): PodCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const existing = i >= 0 ? list[i]! : undefined;
  const condition: PodCondition = {
    type: next.type,
    status: next.status,
    lastProbeTime: null,
    lastTransitionTime: existing?.status === next.status ? existing.lastTransitionTime : nowRFC3339(),
    ...(next.reason !== undefined ? { reason: next.reason } : {}),
    ...(next.message !== undefined ? { message: next.message } : {}),
  };
  if (i >= 0) list[i] = condition;
  else list.push(condition);
  return list;
}
