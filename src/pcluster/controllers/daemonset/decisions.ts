/**
 * The decisions of the DaemonSet controller (pkg/controller/daemon, 1.32), as pure functions:
 *
 * - nodeShouldRunDaemonPod: whether a daemon pod should run on a node (template nodeName, nodeSelector and required
 *   node affinity, taints against the template's tolerations plus the daemon defaults) and whether one already
 *   there may keep running (only untolerated NoExecute taints evict).
 * - podsShouldBeOnNode: per node, create a pod, or delete failed/succeeded/surplus/misplaced ones.
 * - rollingUpdate: which old pods to delete (maxUnavailable) or which nodes get a surge pod (maxSurge).
 * - daemonSetStatus: desired/current/misscheduled/ready/updated/available/unavailable counts.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { resolveIntOrPercent } from '../deployment/rollout-math.js';
import { podRevisionLabel } from '../controller-history.js';
import { findUntoleratedTaint, nodeTaints, podMatchesNodeAffinity, podTolerations, withDaemonPodTolerations } from '../node-affinity.js';
import { isPodAvailable, isPodReady } from '../pod-conditions.js';

/** The pod label carrying the DaemonSet's template generation (extensions.DaemonSetTemplateGenerationKey). */
export const templateGenerationLabel = 'pod-template-generation';

const specOf = (o: JsonObject): JsonObject => (isPlainObject(o.spec) ? o.spec : {});
const phaseOf = (p: KubeObject) => String((p.status as JsonObject | undefined)?.phase ?? '');

/** NewPod: the template's pod as it would run on `nodeName`, with the daemon tolerations. */
function probePod(template: JsonObject, nodeName: string): JsonObject {
  const spec: JsonObject = { ...specOf(template), nodeName };
  spec.tolerations = withDaemonPodTolerations(podTolerations({ spec }), spec.hostNetwork === true);
  return { metadata: template.metadata ?? {}, spec };
}

/** NodeShouldRunDaemonPod. */
export function nodeShouldRunDaemonPod(node: KubeObject, template: JsonObject): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const nodeName = node.metadata?.name ?? '';
  const wanted = specOf(template).nodeName;
  if (typeof wanted === 'string' && wanted !== '' && wanted !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  const pod = probePod(template, nodeName);
  if (!podMatchesNodeAffinity(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = nodeTaints(node);
  const tolerations = podTolerations(pod);
  if (findUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) {
    return { shouldRun: false, shouldContinueRunning: !findUntoleratedTaint(taints, tolerations, (t) => t.effect === 'NoExecute') };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** podByCreationTimestampAndPhase: scheduled pods first, then oldest first, then by name. */
export function byCreationAndPhase(a: KubeObject, b: KubeObject): number {
  const scheduled = (p: KubeObject) => (specOf(p).nodeName ? 0 : 1);
  if (scheduled(a) !== scheduled(b)) return scheduled(a) - scheduled(b);
  const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** util.IsPodUpdated: the pod carries the current hash, or the current template generation. */
export function isPodUpdated(pod: KubeObject, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  return (hash !== '' && labels[podRevisionLabel] === hash) || (generation !== undefined && labels[templateGenerationLabel] === String(generation));
}

export interface Surge {
  maxSurge: number;
  maxUnavailable: number;
}

/** updatedDesiredNodeCounts: maxSurge and maxUnavailable against the desired count (percentages round up); both 0 → 1 unavailable. */
export function surgeAndUnavailable(rollingUpdate: JsonObject | undefined, desired: number): Surge {
  const maxSurge = resolveIntOrPercent(rollingUpdate?.maxSurge ?? 0, desired, true);
  let maxUnavailable = resolveIntOrPercent(rollingUpdate?.maxUnavailable ?? 1, desired, true);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

export interface NodeDecision {
  create: boolean;
  delete: string[];
}

/** podsShouldBeOnNode for one node, given the daemon pods targeting it. */
export function podsShouldBeOnNode(
  node: KubeObject,
  template: JsonObject,
  pods: KubeObject[],
  opts: { surge: boolean; hash: string; minReadySeconds: number; now: number },
): NodeDecision {
  const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, template);
  const out: NodeDecision = { create: false, delete: [] };
  if (shouldRun && pods.length === 0) {
    out.create = true;
    return out;
  }
  if (shouldContinueRunning) {
    const running: KubeObject[] = [];
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp) continue;
      if (phaseOf(pod) === 'Failed' || phaseOf(pod) === 'Succeeded') out.delete.push(pod.metadata?.name ?? '');
      else running.push(pod);
    }
    if (running.length <= 1) return out;
    running.sort(byCreationAndPhase);
    if (!opts.surge) {
      for (const p of running.slice(1)) out.delete.push(p.metadata?.name ?? '');
      return out;
    }
    // With surge, two pods may share a node only while the new one is not yet available and the old one is ready.
    let oldestNew: KubeObject | undefined;
    let oldestOld: KubeObject | undefined;
    for (const pod of running) {
      const isNew = pod.metadata?.labels?.[podRevisionLabel] === opts.hash;
      if (isNew && !oldestNew) oldestNew = pod;
      else if (!isNew && !oldestOld) oldestOld = pod;
      else out.delete.push(pod.metadata?.name ?? '');
    }
    if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, opts.minReadySeconds, opts.now))) out.delete.push(oldestOld.metadata?.name ?? '');
    return out;
  }
  for (const pod of pods) if (!pod.metadata?.deletionTimestamp) out.delete.push(pod.metadata?.name ?? '');
  return out;
}

/** findUpdatedPodsOnNode: the node's new and old pod (not being deleted); ok=false when there are two of a kind. */
export function updatedPodsOnNode(pods: KubeObject[], hash: string, generation: number | undefined): { newPod?: KubeObject; oldPod?: KubeObject; ok: boolean } {
  let newPod: KubeObject | undefined;
  let oldPod: KubeObject | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

export interface RollingInput {
  /** Target node → daemon pods, for the nodes that have any. */
  podsByNode: Map<string, KubeObject[]>;
  /** Node name → whether a daemon pod should run there (nodeShouldRunDaemonPod). */
  shouldRun: (node: string) => boolean;
  desired: number;
  maxSurge: number;
  maxUnavailable: number;
  hash: string;
  generation: number | undefined;
  minReadySeconds: number;
  now: number;
}

/** rollingUpdate: old pods to delete, and (with surge) nodes to create a new pod on. Nodes are visited by name. */
export function rollingUpdate(input: RollingInput): { deletePods: string[]; createOnNodes: string[] } {
  const available = (p: KubeObject) => isPodAvailable(p, input.minReadySeconds, input.now);
  const nodes = [...input.podsByNode.keys()].sort();
  if (input.maxSurge === 0) {
    let numUnavailable = 0;
    const allowedReplacements: string[] = [];
    const candidates: string[] = [];
    for (const node of nodes) {
      const { newPod, oldPod, ok } = updatedPodsOnNode(input.podsByNode.get(node)!, input.hash, input.generation);
      if (!ok) {
        numUnavailable++;
        continue;
      }
      if ((!oldPod && !newPod) || (oldPod && newPod)) numUnavailable++;
      else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod) {
        if (!available(oldPod)) {
          // Unavailable anyway: replaced at once, and it uses the budget.
          allowedReplacements.push(oldPod.metadata?.name ?? '');
          numUnavailable++;
        }
        else if (numUnavailable < input.maxUnavailable) candidates.push(oldPod.metadata?.name ?? '');
      }
    }
    const remaining = Math.min(Math.max(0, input.maxUnavailable - numUnavailable), candidates.length);
    return { deletePods: [...allowedReplacements, ...candidates.slice(0, remaining)], createOnNodes: [] };
  }
  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const node of nodes) {
    const { newPod, oldPod, ok } = updatedPodsOnNode(input.podsByNode.get(node)!, input.hash, input.generation);
    if (!ok) {
      numSurge++;
      continue;
    }
    if (oldPod ? available(oldPod) : newPod ? available(newPod) : false) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!input.shouldRun(node)) oldPodsToDelete.push(oldPod.metadata?.name ?? '');
        else allowedNewNodes.push(node);
      } else if (!input.shouldRun(node)) shouldNotRunPodsToDelete.push(oldPod.metadata?.name ?? '');
      else if (numSurge < input.maxSurge) candidateNewNodes.push(node);
      continue;
    }
    if (!available(newPod)) {
      numSurge++;
      continue;
    }
    oldPodsToDelete.push(oldPod.metadata?.name ?? '');
  }
  const deletable = Math.min(Math.max(0, numAvailable - input.desired), shouldNotRunPodsToDelete.length);
  oldPodsToDelete.push(...shouldNotRunPodsToDelete.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(0, input.maxSurge - numSurge), candidateNewNodes.length);
  return { deletePods: oldPodsToDelete, createOnNodes: [...allowedNewNodes, ...candidateNewNodes.slice(0, remainingSurge)] };
}

export interface DaemonStatusInput {
  nodes: KubeObject[];
  template: JsonObject;
  podsByNode: Map<string, KubeObject[]>;
  hash: string;
  generation: number | undefined;
  minReadySeconds: number;
  now: number;
}

/** updateDaemonSetStatus's counts (observedGeneration and collisionCount are the caller's). */
export function daemonSetStatusCounts(input: DaemonStatusInput): Record<string, number> {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let updated = 0;
  let available = 0;
  for (const node of input.nodes) {
    const pods = [...(input.podsByNode.get(node.metadata?.name ?? '') ?? [])];
    const scheduled = pods.length > 0;
    if (nodeShouldRunDaemonPod(node, input.template).shouldRun) {
      desired++;
      if (!scheduled) continue;
      current++;
      const pod = pods.sort(byCreationAndPhase)[0]!;
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, input.minReadySeconds, input.now)) available++;
      }
      if (isPodUpdated(pod, input.hash, input.generation)) updated++;
    } else if (scheduled) misscheduled++;
  }
  return {
    desiredNumberScheduled: desired,
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    updatedNumberScheduled: updated,
    numberAvailable: available,
    numberUnavailable: desired - available,
  };
}
