/**
 * The disruption controller's budget arithmetic (pkg/controller/disruption), as pure functions: how many pods a
 * PodDisruptionBudget expects and wants healthy — an integer minAvailable against the matching pods; a percentage,
 * or any maxUnavailable, against the scale of the controllers that own them (percentages round up) — how many are
 * healthy (Ready and not being deleted), and the status with the DisruptionAllowed condition.
 */
import { type JsonObject, type KubeObject, formatRFC3339, isPlainObject } from '../../../apimachinery/object.js';
import { resolveIntOrPercent } from '../deployment/rollout-math.js';
import { controllerOf } from '../owner-references.js';
import { isPodReady } from '../pod-conditions.js';

export interface PodDisruptionBudget extends KubeObject {
  spec?: JsonObject & { minAvailable?: number | string; maxUnavailable?: number | string; selector?: JsonObject };
  status?: JsonObject & { conditions?: JsonObject[] };
}

/** The desired scale of the controller a pod reference names (its uid and scale), or undefined when unknown. */
export type ScaleFinder = (ref: JsonObject, namespace: string) => { uid: string; scale: number } | undefined;

/** getExpectedPodCount: expected pods, desired healthy pods and the pods no controller owns. Throws when a pod's controller is unknown. */
export function expectedPodCount(pdb: PodDisruptionBudget, pods: KubeObject[], findScale: ScaleFinder): { expected: number; desiredHealthy: number; unmanaged: string[] } {
  const spec = pdb.spec ?? {};
  const unmanaged: string[] = [];
  const expectedScale = (): number => {
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        unmanaged.push(pod.metadata?.name ?? '');
        continue;
      }
      if (scales.has(String(ref.uid))) continue;
      const found = findScale(ref, pod.metadata?.namespace ?? '');
      if (!found) throw new Error(`found no controllers for pod "${pod.metadata?.name}"`);
      scales.set(found.uid, found.scale);
    }
    return [...scales.values()].reduce((a, b) => a + b, 0);
  };
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expected = expectedScale();
    const maxUnavailable = resolveIntOrPercent(spec.maxUnavailable, expected, true);
    return { expected, desiredHealthy: Math.max(0, expected - maxUnavailable), unmanaged };
  }
  if (typeof spec.minAvailable === 'number') return { expected: pods.length, desiredHealthy: spec.minAvailable, unmanaged };
  if (typeof spec.minAvailable === 'string') {
    const expected = expectedScale();
    return { expected, desiredHealthy: resolveIntOrPercent(spec.minAvailable, expected, true), unmanaged };
  }
  return { expected: 0, desiredHealthy: 0, unmanaged };
}

/** How long an evicted pod may take to go before the budget counts it again (upstream's DeletionTimeout). */
export const DISRUPTION_DELETION_TIMEOUT_MS = 2 * 60_000;

/**
 * buildDisruptedPodMap: of the pods the eviction API recorded in status.disruptedPods, those still there, not yet
 * being deleted and within DISRUPTION_DELETION_TIMEOUT_MS of their eviction — they count as disrupted; entries for
 * pods gone, being deleted or overdue are dropped. `recheckAtMs`: when the earliest of them falls due.
 */
export function disruptedPodsOf(pdb: PodDisruptionBudget, pods: KubeObject[], now: number): { disrupted: Record<string, string>; recheckAtMs?: number } {
  const recorded = isPlainObject(pdb.status?.disruptedPods) ? (pdb.status!.disruptedPods as Record<string, unknown>) : {};
  const disrupted: Record<string, string> = {};
  let recheckAtMs: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const at = recorded[name];
    if (pod.metadata?.deletionTimestamp || typeof at !== 'string') continue;
    const due = Date.parse(at) + DISRUPTION_DELETION_TIMEOUT_MS;
    if (due < now) continue;
    disrupted[name] = at;
    if (recheckAtMs === undefined || due < recheckAtMs) recheckAtMs = due;
  }
  return recheckAtMs === undefined ? { disrupted } : { disrupted, recheckAtMs };
}

/** countHealthyPods: Ready, not being deleted and not disrupted by an eviction in progress. */
export function countHealthy(pods: KubeObject[], disrupted: Record<string, string> = {}): number {
  return pods.filter((p) => !p.metadata?.deletionTimestamp && !Object.hasOwn(disrupted, p.metadata?.name ?? '') && isPodReady(p)).length;
}

/** meta.SetStatusCondition for a metav1.Condition (message is always written, empty or not). */
function setCondition(conditions: JsonObject[], next: { type: string; status: string; reason: string; message: string; observedGeneration: number }, now: string): JsonObject[] {
  const out = conditions.map((c) => ({ ...c }));
  const existing = out.find((c) => c.type === next.type);
  if (!existing) return [...out, { ...next, lastTransitionTime: now }];
  if (existing.status !== next.status) existing.lastTransitionTime = now;
  Object.assign(existing, next);
  return out;
}

/**
 * updatePdbStatus + UpdateDisruptionAllowedCondition (no disruptions allowed while nothing is expected); disruptedPods
 * as buildDisruptedPodMap left them (omitted when empty), or as recorded when the caller did not build them.
 */
export function pdbStatus(pdb: PodDisruptionBudget, counts: { currentHealthy: number; desiredHealthy: number; expected: number; disrupted?: Record<string, string> }, now: number): JsonObject {
  let allowed = counts.currentHealthy - counts.desiredHealthy;
  if (counts.expected <= 0 || allowed <= 0) allowed = 0;
  const generation = pdb.metadata?.generation ?? 1;
  const conditions = setCondition(
    (pdb.status?.conditions ?? []).filter(isPlainObject),
    allowed > 0
      ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: generation }
      : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: generation },
    formatRFC3339(now),
  );
  const status: JsonObject = {
    observedGeneration: generation,
    disruptionsAllowed: allowed,
    currentHealthy: counts.currentHealthy,
    desiredHealthy: counts.desiredHealthy,
    expectedPods: counts.expected,
    conditions,
  };
  if (counts.disrupted !== undefined) {
    if (Object.keys(counts.disrupted).length > 0) status.disruptedPods = counts.disrupted;
  } else if (pdb.status?.disruptedPods) status.disruptedPods = pdb.status.disruptedPods;
  return status;
}

/** failSafe: no disruptions allowed, condition SyncFailed with the error. */
export function failSafeStatus(pdb: PodDisruptionBudget, message: string, now: number): JsonObject {
  const observed = (pdb.status?.observedGeneration as number | undefined) ?? 0;
  return {
    ...(pdb.status ?? {}),
    disruptionsAllowed: 0,
    conditions: setCondition((pdb.status?.conditions ?? []).filter(isPlainObject), { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message, observedGeneration: observed }, formatRFC3339(now)),
  };
}
