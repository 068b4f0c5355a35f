/**
 * The scheduler: binds every pending pod whose schedulerName is default-scheduler to a node it fits on (Ready, not
 * cordoned, matching its nodeSelector and required node affinity, no untolerated taint: node-affinity.ts) with room
 * for its cpu/memory/pod-count requests, preferring the least allocated node. A pod that fits nowhere keeps
 * PodScheduled=False with reason Unschedulable and the upstream "0/N nodes are available: ..." message, and is
 * retried when pods or nodes change (and periodically).
 *
 * Binding sets spec.nodeName through an update of the pod (this server allows that one change to an unbound pod)
 * and then PodScheduled=True through /status.
 */
import { isConditionTrue } from '../../apimachinery/conditions.js';
import { type JsonObject, type KubeObject, deepCopy, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller, type ReconcileResult } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../controllers/runtime/context.js';
import { nodesGVR, podsGVR } from './gvrs.js';
import { nodeFilterReason } from './node-affinity.js';
import { isPodActive, podConditions, setPodCondition } from './pod-conditions.js';
import { type Resources, addResources, insufficientResources, leastAllocatedScore, nodeAllocatable, podRequests, unschedulableMessage } from './scheduling-fit.js';

const schedulerName = 'default-scheduler';
const retryUnschedulableMs = 5_000;

function nodeIsReady(node: KubeObject): boolean {
  return isPlainObject(node.status) && Array.isArray(node.status.conditions) && isConditionTrue(node.status.conditions as { type: string; status: string }[], 'Ready');
}

function nodeNameOf(pod: KubeObject): string {
  return isPlainObject(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '';
}

function wantsScheduling(pod: KubeObject): boolean {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return !nodeNameOf(pod) && (spec.schedulerName ?? schedulerName) === schedulerName && isPodActive(pod);
}

export const schedulerInstaller: ControllerInstaller = {
  name: 'scheduler',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const podInformer = ctx.informers.informerFor<KubeObject>(podsGVR);
    const nodeInformer = ctx.informers.informerFor<KubeObject>(nodesGVR);
    // Pods bound by us that the informer has not shown bound yet (the scheduler cache's "assumed" pods).
    const assumed = new Map<string, { node: string; requests: Resources; scoring: Resources }>();

    /** Requests of the pods on each node (bound or assumed); `nonZero` as podRequests. */
    const usageByNode = (nonZero: boolean): Map<string, Resources> => {
      const usage = new Map<string, Resources>();
      const add = (node: string, r: Resources) => usage.set(node, addResources(usage.get(node) ?? { cpu: 0, memory: 0, pods: 0 }, r));
      for (const pod of podInformer.lister.list()) {
        const key = formatObjectKey({ cluster: clusterOf(pod), namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' });
        const node = nodeNameOf(pod);
        if (node) assumed.delete(key);
        if (node && isPodActive(pod)) add(node, podRequests(pod, nonZero));
      }
      for (const a of assumed.values()) add(a.node, nonZero ? a.scoring : a.requests);
      return usage;
    };

    const setScheduledCondition = async (pod: KubeObject, cond: { status: string; reason?: string; message?: string }): Promise<void> => {
      const { conditions, changed } = setPodCondition(podConditions(pod), { type: 'PodScheduled', ...cond });
      if (!changed) return;
      const next = deepCopy(pod);
      next.status = { ...((next.status as JsonObject | undefined) ?? {}), conditions };
      await client.updateStatus(podsGVR, next, { namespace: pod.metadata?.namespace });
    };

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const pod = podInformer.lister.get(key);
      if (!pod || !wantsScheduling(pod) || assumed.has(key)) return;
      const { namespace, name } = parseObjectKey(key);
      const request = podRequests(pod);
      const scoringRequest = podRequests(pod, true);
      const usage = usageByNode(false);
      const scoringUsage = usageByNode(true);
      const nodes = nodeInformer.lister.list().sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      const reasonsByNode: string[][] = [];
      let best: { node: string; score: number } | undefined;
      for (const node of nodes) {
        const nodeName = node.metadata?.name ?? '';
        const filtered = nodeFilterReason(pod, node);
        if (filtered) {
          reasonsByNode.push([filtered]);
          continue;
        }
        const used = usage.get(nodeName) ?? { cpu: 0, memory: 0, pods: 0 };
        const allocatable = nodeAllocatable(node);
        const problems = insufficientResources(request, used, allocatable);
        if (problems.length) {
          reasonsByNode.push(problems);
          continue;
        }
        const score = leastAllocatedScore(scoringRequest, scoringUsage.get(nodeName) ?? { cpu: 0, memory: 0, pods: 0 }, allocatable);
        if (!best || score > best.score) best = { node: nodeName, score };
      }
      if (!best) {
        await setScheduledCondition(pod, { status: 'False', reason: 'Unschedulable', message: unschedulableMessage(nodes.length, reasonsByNode) });
        return { requeueAfterMs: retryUnschedulableMs };
      }
      assumed.set(key, { node: best.node, requests: request, scoring: scoringRequest });
      let bound: KubeObject;
      try {
        bound = await client.patch<KubeObject>(podsGVR, name, 'merge', { metadata: { resourceVersion: pod.metadata?.resourceVersion }, spec: { nodeName: best.node } }, { namespace });
      } catch (err) {
        assumed.delete(key);
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      await setScheduledCondition(bound, { status: 'True' });
    };

    const controller = new Controller<string>({ name: 'scheduler', reconcile, workers: 1, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    const keyOfPod = (pod: KubeObject) => formatObjectKey({ cluster: clusterOf(pod), namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' });
    const enqueuePending = () => {
      for (const pod of podInformer.lister.list()) if (wantsScheduling(pod)) controller.enqueue(keyOfPod(pod));
    };
    podInformer.addEventHandler({
      add: (pod) => wantsScheduling(pod) && controller.enqueue(keyOfPod(pod)),
      update: (_o, pod) => wantsScheduling(pod) && controller.enqueue(keyOfPod(pod)),
      // A pod going away frees room: every pending pod gets another chance.
      delete: (pod) => {
        assumed.delete(keyOfPod(pod));
        enqueuePending();
      },
    });
    // Readiness, cordoning, taints and labels decide where pods fit: any change gives pending pods another chance.
    const placementChanged = (o: KubeObject, n: KubeObject) => nodeIsReady(o) !== nodeIsReady(n) || !jsonEqual(o.spec, n.spec) || !jsonEqual(o.metadata?.labels, n.metadata?.labels);
    nodeInformer.addEventHandler({ add: enqueuePending, update: (o, n) => placementChanged(o, n) && enqueuePending() });
    return { name: 'scheduler', start: () => controller.start(), stop: () => controller.stop() };
  },
};
