/**
 * The scheduler: binds every pending pod whose schedulerName is default-scheduler to a node it fits on (Ready, not
 * cordoned, matching its nodeSelector and required node affinity, no untolerated taint: node-affinity.ts) with room
 * for its cpu/memory/pod-count requests, preferring the least allocated node. A pod that fits nowhere keeps
 * PodScheduled=False with reason Unschedulable and the upstream "0/N nodes are available: ..." message, and is
 * retried when pods or nodes change (and periodically).
 *
 * Volumes (the VolumeBinding plugin): a pod whose claim is missing or being deleted, or has an unbound claim that binds
 * Immediately, stays Pending with upstream's message (`pod has unbound immediate PersistentVolumeClaims`); bound
 * volumes' node affinity filters nodes. Unbound WaitForFirstConsumer claims get the chosen node in
 * `volume.kubernetes.io/selected-node`, and the pod is bound only once the storage controller has provisioned and
 * bound them (PreBind); if it gives a claim back (provisioning failed), the pod gets PodScheduled=False with
 * reason SchedulerError and is tried again later.
 *
 * Binding goes through pods/binding, as upstream's: spec.nodeName and PodScheduled=True in one write.
 */
import { isConditionTrue } from '../../apimachinery/conditions.js';
import { type JsonObject, type KubeObject, deepCopy, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller, type ReconcileResult } from '../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../controllers/runtime/context.js';
import { EventRecorder } from '../../controllers/runtime/event-recorder.js';
import { nodesGVR, persistentVolumeClaimsGVR, persistentVolumesGVR, podsGVR, storageClassesGVR } from './gvrs.js';
import { nodeFilterReason } from './node-affinity.js';
import { isPodActive, podConditions, setPodCondition } from './pod-conditions.js';
import { type HostPort, type Resources, addResources, hostPortsConflict, hostPortsOf, insufficientResources, leastAllocatedScore, nodeAllocatable, nodePortsReason, podRequests, preFilterUnschedulableMessage, unschedulableMessage } from './scheduling-fit.js';
import { podVolumes, selectedNodeAnnotation, volumeNodeConflicts } from './storage/binding.js';

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
  // A pod with scheduling gates waits until its gates are all removed (its update then queues it).
  const gated = Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0;
  return !nodeNameOf(pod) && !gated && (spec.schedulerName ?? schedulerName) === schedulerName && isPodActive(pod);
}

export const schedulerInstaller: ControllerInstaller = {
  name: 'scheduler',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const podInformer = ctx.informers.informerFor<KubeObject>(podsGVR);
    const nodeInformer = ctx.informers.informerFor<KubeObject>(nodesGVR);
    const claimInformer = ctx.informers.informerFor<KubeObject>(persistentVolumeClaimsGVR);
    const volumeInformer = ctx.informers.informerFor<KubeObject>(persistentVolumesGVR);
    const classInformer = ctx.informers.informerFor<KubeObject>(storageClassesGVR);
    // Pods whose WaitForFirstConsumer claims we handed to the provisioner for a node (PreBind waiting on them).
    const waitingForVolumes = new Map<string, string>();
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

    const events = new EventRecorder(client, schedulerName, { aggregate: true });
    /** Records an Event about a pod without waiting for it (scheduling does not wait on bookkeeping). */
    const podEvent = (pod: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string) =>
      void events.record(clusterOf(pod), { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, type, reason, message);

    const setScheduledCondition = async (pod: KubeObject, cond: { status: string; reason?: string; message?: string }): Promise<void> => {
      // Every failed attempt is an Event (FailedScheduling), as upstream's scheduler records them.
      if (cond.status === 'False') podEvent(pod, 'Warning', 'FailedScheduling', cond.message ?? '');
      const { conditions, changed } = setPodCondition(podConditions(pod), { type: 'PodScheduled', ...cond });
      if (!changed) return;
      const next = deepCopy(pod);
      next.status = { ...((next.status as JsonObject | undefined) ?? {}), conditions };
      await client.updateStatus(podsGVR, next, { namespace: pod.metadata?.namespace });
    };

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const pod = podInformer.lister.get(key);
      if (!pod || !wantsScheduling(pod) || assumed.has(key)) return;
      const { cluster, namespace, name } = parseObjectKey(key);
      const clusterKey = (ns: string, n: string) => formatObjectKey({ cluster, namespace: ns, name: n });
      const volumes = podVolumes(pod, {
        claim: (n) => claimInformer.lister.get(clusterKey(namespace, n)),
        volume: (n) => volumeInformer.lister.get(clusterKey('', n)),
        storageClass: (n) => classInformer.lister.get(clusterKey('', n)),
      });
      if (volumes.kind === 'unresolvable') {
        waitingForVolumes.delete(key);
        await setScheduledCondition(pod, { status: 'False', reason: 'Unschedulable', message: preFilterUnschedulableMessage(nodeInformer.lister.list().length, volumes.message) });
        return { requeueAfterMs: retryUnschedulableMs };
      }
      const request = podRequests(pod);
      const scoringRequest = podRequests(pod, true);
      const usage = usageByNode(false);
      const scoringUsage = usageByNode(true);
      const nodes = nodeInformer.lister.list().sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      const reasonsByNode: string[][] = [];
      // NodePorts: the host ports the node's active pods hold (only when this pod asks for any).
      const wantedPorts = hostPortsOf(pod);
      const portsByNode = new Map<string, HostPort[]>();
      if (wantedPorts.length) {
        for (const p of podInformer.lister.list()) {
          const node = nodeNameOf(p);
          if (node && clusterOf(p) === cluster && isPodActive(p)) portsByNode.set(node, [...(portsByNode.get(node) ?? []), ...hostPortsOf(p)]);
        }
      }
      let best: { node: string; score: number } | undefined;
      for (const node of nodes) {
        const nodeName = node.metadata?.name ?? '';
        const filtered = nodeFilterReason(pod, node);
        if (filtered) {
          reasonsByNode.push([filtered]);
          continue;
        }
        if (wantedPorts.length && hostPortsConflict(wantedPorts, portsByNode.get(nodeName) ?? [])) {
          reasonsByNode.push([nodePortsReason]);
          continue;
        }
        const used = usage.get(nodeName) ?? { cpu: 0, memory: 0, pods: 0 };
        const allocatable = nodeAllocatable(node);
        const problems = insufficientResources(request, used, allocatable);
        if (problems.length) {
          reasonsByNode.push(problems);
          continue;
        }
        const conflicts = volumeNodeConflicts(volumes.volumes, nodeName, node.metadata?.labels ?? {});
        if (conflicts.length) {
          reasonsByNode.push(conflicts);
          continue;
        }
        const score = leastAllocatedScore(scoringRequest, scoringUsage.get(nodeName) ?? { cpu: 0, memory: 0, pods: 0 }, allocatable);
        if (!best || score > best.score) best = { node: nodeName, score };
      }
      if (!best) {
        await setScheduledCondition(pod, { status: 'False', reason: 'Unschedulable', message: unschedulableMessage(nodes.length, reasonsByNode) });
        return { requeueAfterMs: retryUnschedulableMs };
      }
      if (volumes.delayed.length) {
        const unannotated = volumes.delayed.filter((c) => !c.metadata?.annotations?.[selectedNodeAnnotation]);
        if (unannotated.length && waitingForVolumes.has(key)) {
          // The provisioner gave a claim back: provisioning failed. Try again later, maybe elsewhere.
          waitingForVolumes.delete(key);
          const message = `running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "${unannotated[0]!.metadata?.name}"`;
          await setScheduledCondition(pod, { status: 'False', reason: 'SchedulerError', message });
          return { requeueAfterMs: retryUnschedulableMs };
        }
        for (const claim of unannotated) {
          const patch = { metadata: { annotations: { [selectedNodeAnnotation]: best.node } } };
          await client.patch(persistentVolumeClaimsGVR, claim.metadata?.name ?? '', 'merge', patch, { namespace });
        }
        // Bound once the claims are (a claim update enqueues the pod again).
        waitingForVolumes.set(key, best.node);
        return;
      }
      waitingForVolumes.delete(key);
      assumed.set(key, { node: best.node, requests: request, scoring: scoringRequest });
      try {
        // pods/binding, as upstream's scheduler binds: the node and PodScheduled=True in one write (a PATCH of the
        // node and then the condition were two, and the kubelet's first status write raced the second).
        await client.createSubresource(podsGVR, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid: pod.metadata?.uid }, target: { kind: 'Node', name: best.node } } as KubeObject, { namespace });
      } catch (err) {
        assumed.delete(key);
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
        throw err;
      }
      podEvent(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${best.node}`);
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
        waitingForVolumes.delete(keyOfPod(pod));
        enqueuePending();
      },
    });
    // Claims binding (or given back by the provisioner), volumes and classes appearing: pending pods may move on.
    claimInformer.addEventHandler({ add: enqueuePending, update: enqueuePending, delete: enqueuePending });
    volumeInformer.addEventHandler({ add: enqueuePending });
    classInformer.addEventHandler({ add: enqueuePending });
    // Readiness, cordoning, taints and labels decide where pods fit: any change gives pending pods another chance.
    const placementChanged = (o: KubeObject, n: KubeObject) => nodeIsReady(o) !== nodeIsReady(n) || !jsonEqual(o.spec, n.spec) || !jsonEqual(o.metadata?.labels, n.metadata?.labels);
    nodeInformer.addEventHandler({ add: enqueuePending, update: (o, n) => placementChanged(o, n) && enqueuePending() });
    return { name: 'scheduler', start: () => controller.start(), stop: () => controller.stop() };
  },
};
