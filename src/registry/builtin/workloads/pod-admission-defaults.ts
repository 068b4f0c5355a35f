/**
 * What kube-apiserver's default admission plugins set on every Pod it creates, which users see in `kubectl get pod
 * -o yaml` and schedulers and evictions act on:
 *   - Priority: wherever PriorityClasses are served (simulated clusters, workspaces with compute) the Priority
 *     admission plugin (src/apiserver/admission/priority.ts) has already resolved the pod's class before this runs,
 *     so the fields are set and nothing changes here. Elsewhere (an embedding program serving pods without
 *     PriorityClasses) this is the fallback: a pod without priorityClassName gets priority 0 and preemptionPolicy
 *     PreemptLowerPriority, one naming a system class gets its value, and one naming another class keeps what it says
 *     (there is no class to check it against).
 *   - DefaultTolerationSeconds: a pod that does not tolerate the not-ready and unreachable NoExecute taints gets
 *     tolerations of them for 300 s, so a node that fails evicts its pods after five minutes.
 * Create only, as the plugins admit only pod creation.
 */
import { isPlainObject, type JsonObject } from '../../../apimachinery/object.js';
import { SYSTEM_PRIORITY_CLASSES as SYSTEM_CLASSES } from './priority-class-validation.js';

/** The system PriorityClasses' values (scheduling.k8s.io, created by kube-apiserver at start). */
const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = Object.fromEntries(SYSTEM_CLASSES.map((c) => [c.name, c.value]));

const DEFAULT_TOLERATION_SECONDS = 300;
const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

function admitPriority(spec: JsonObject): void {
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  const priority = className ? SYSTEM_PRIORITY_CLASSES[className] : 0;
  if (priority === undefined) return;
  if (spec.priority === undefined || spec.priority === null) spec.priority = priority;
  if (spec.preemptionPolicy === undefined || spec.preemptionPolicy === null) spec.preemptionPolicy = 'PreemptLowerPriority';
}

function tolerates(tolerations: unknown[], taint: string): boolean {
  return tolerations.some((t) => isPlainObject(t) && (!t.key || t.key === taint) && (!t.effect || t.effect === 'NoExecute'));
}

function admitDefaultTolerationSeconds(spec: JsonObject): void {
  const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  const added = [NOT_READY_TAINT, UNREACHABLE_TAINT]
    .filter((taint) => !tolerates(tolerations, taint))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_TOLERATION_SECONDS }));
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}

/** Runs both plugins' mutations on a pod being created. */
export function admitPodCreate(pod: JsonObject): void {
  if (!isPlainObject(pod.spec)) return;
  admitPriority(pod.spec);
  admitDefaultTolerationSeconds(pod.spec);
}
