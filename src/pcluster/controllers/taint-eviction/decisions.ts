/**
 * What the taint eviction controller (pkg/controller/tainteviction) decides for one pod on a node, as pure functions:
 * a node's NoExecute taints evict every pod that does not tolerate all of them at once; a pod that tolerates them all
 * goes after the shortest tolerationSeconds among the tolerations that matched, and stays for good when none of those
 * has one. Once scheduled, an eviction stands when the pod or node changes while the taints stay tolerated: neither a
 * longer nor a shorter toleration moves it (upstream's rule, below).
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { type Taint, type Toleration, toleratesTaint } from '../node-affinity.js';

/** The node's NoExecute taints (getNoExecuteTaints), as written in spec.taints. */
export function noExecuteTaints(node: KubeObject): Taint[] {
  const spec = isPlainObject(node.spec) ? node.spec : {};
  const taints = Array.isArray(spec.taints) ? spec.taints.filter(isPlainObject) : [];
  return taints
    .filter((t: JsonObject) => t.effect === 'NoExecute')
    .map((t: JsonObject) => ({ key: String(t.key ?? ''), ...(t.value !== undefined ? { value: String(t.value) } : {}), effect: 'NoExecute' }));
}

/** Two taint lists are the same NoExecute taints (the controller looks again only when they changed). */
export function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  return a.length === b.length && a.every((t, i) => t.key === b[i]!.key && (t.value ?? '') === (b[i]!.value ?? '') && t.effect === b[i]!.effect);
}

/**
 * How long the pod may stay on a node with `taints` (NoExecute): 'now' when one of them is not tolerated
 * (GetMatchingTolerations fails), 'forever' when the tolerations that matched carry no tolerationSeconds, else the
 * shortest of theirs in ms (getMinTolerationTime: a zero or negative one means now, 0 ms).
 */
export function tolerationTime(taints: readonly Taint[], tolerations: readonly Toleration[]): 'now' | 'forever' | number {
  if (!taints.length) return 'forever';
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((x) => toleratesTaint(x, taint));
    if (!t) return 'now';
    used.push(t);
  }
  let min: number | undefined;
  for (const t of used) {
    if (typeof t.tolerationSeconds !== 'number') continue;
    if (t.tolerationSeconds <= 0) return 0;
    if (min === undefined || t.tolerationSeconds < min) min = t.tolerationSeconds;
  }
  return min === undefined ? 'forever' : min * 1000;
}

/** An eviction waiting for its time: when it was scheduled and when it fires (ms since the epoch). */
export interface ScheduledEviction {
  createdAt: number;
  fireAt: number;
}

export type EvictionPlan =
  | { action: 'cancel' }
  | { action: 'keep' }
  /** cancelFirst: the pod's eviction, waiting or done, is cancelled before this one is scheduled. */
  | { action: 'schedule'; eviction: ScheduledEviction; cancelFirst: boolean };

/**
 * processPodOnNode: what becomes of the pod's eviction given the node's NoExecute taints, the pod's tolerations and
 * the eviction already scheduled for it and still waiting (if any), at `now`. An untolerated taint replaces any scheduled eviction with
 * one due now. Otherwise a scheduled eviction keeps its start, and stays as it is when that start plus the new time
 * comes before now plus the new time — always, unless it was scheduled this very millisecond; then it is replaced by
 * one counted from the same start.
 */
export function planEviction(taints: readonly Taint[], tolerations: readonly Toleration[], scheduled: ScheduledEviction | undefined, now: number): EvictionPlan {
  if (!taints.length) return { action: 'cancel' };
  const time = tolerationTime(taints, tolerations);
  // Upstream cancels whatever the pod had, an eviction already carried out too, and evicts again.
  if (time === 'now') return { action: 'schedule', eviction: { createdAt: now, fireAt: now }, cancelFirst: true };
  if (time === 'forever') return { action: 'cancel' };
  if (scheduled) {
    if (scheduled.createdAt + time < now + time) return { action: 'keep' };
    return { action: 'schedule', eviction: { createdAt: scheduled.createdAt, fireAt: scheduled.createdAt + time }, cancelFirst: true };
  }
  return { action: 'schedule', eviction: { createdAt: now, fireAt: now + time }, cancelFirst: false };
}
