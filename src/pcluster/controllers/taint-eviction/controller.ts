/**
 * The taint eviction controller (kube-controller-manager's taint-eviction-controller, pkg/controller/tainteviction):
 * a node's NoExecute taints evict the pods bound to it that do not tolerate them, at once, and those that tolerate
 * them for tolerationSeconds when that time is up; removing the taints (or the pod's deletion) cancels an eviction
 * not yet carried out. Eviction is upstream's: the pod gets the DisruptionTarget condition (DeletionByTaintManager)
 * and is deleted with its own grace period, and Events say "Marking for deletion Pod ns/name" and "Cancelling deletion
 * of Pod ns/name" (reason TaintManagerEviction).
 *
 * The decisions are decisions.ts'; this file keeps the state upstream keeps in memory: each node's NoExecute taints
 * and the evictions waiting for their time (timers), or carried out (so a tolerated pod is not evicted twice).
 */
import { type KubeObject, isPlainObject, nowRFC3339 } from '../../../apimachinery/object.js';
import { StatusError } from '../../../apimachinery/status.js';
import { formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { logger } from '../../../logging/logger.js';
import { nodesGVR, podsGVR } from '../gvrs.js';
import { type Taint, podTolerations } from '../node-affinity.js';
import { type ScheduledEviction, noExecuteTaints, planEviction, sameTaints } from './decisions.js';

const BY_NODE = 'spec.nodeName';
/** The longest a Node.js timer waits (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How often an eviction is tried before it is given up (upstream's retries, 10 ms apart). */
const DELETE_ATTEMPTS = 5;

/** An eviction of one pod: waiting while it has a timer. */
type Eviction = ScheduledEviction & { timer?: NodeJS.Timeout };

const nodeNameOf = (pod: KubeObject): string => (isPlainObject(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '');
const tolerationsJson = (pod: KubeObject | undefined): string => JSON.stringify(pod ? podTolerations(pod) : []);

export const taintEvictionControllerInstaller: ControllerInstaller = {
  name: 'taint-eviction-controller',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const nodes = ctx.informers.informerFor<KubeObject>(nodesGVR);
    const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
    /** The key of the node a pod is bound to, as the node informer keys it ('' when unbound). */
    const nodeKeyOf = (p: KubeObject): string => {
      const node = nodeNameOf(p);
      return node ? formatObjectKey({ cluster: parseObjectKey(pods.store.keyOf(p)).cluster, namespace: '', name: node }) : '';
    };
    pods.addIndexer(BY_NODE, (p) => (nodeKeyOf(p) ? [nodeKeyOf(p)] : []));
    const recorder = new EventRecorder(client, 'taint-eviction-controller');

    /** Node key → its NoExecute taints, for the nodes that have any. */
    const tainted = new Map<string, Taint[]>();
    /**
     * Pod key → its eviction: waiting for its time (a timer), under way (no timer: one due at once runs straight away
     * and can no longer be cancelled, as upstream's nil worker), or 'done' once carried out.
     */
    const evictions = new Map<string, Eviction | 'done'>();
    let stopped = false;

    const podEvent = (podKey: string, message: string) => {
      const { cluster, namespace, name } = parseObjectKey(podKey);
      void recorder.record(cluster, { apiVersion: 'v1', kind: 'Pod', namespace, name }, 'Normal', 'TaintManagerEviction', `${message} ${namespace}/${name}`);
    };

    /** CancelWork: forgets the pod's eviction, with the event when one was still waiting (and stops it). */
    const cancel = (podKey: string) => {
      const entry = evictions.get(podKey);
      if (entry === undefined) return;
      evictions.delete(podKey);
      if (entry !== 'done' && entry.timer) {
        clearTimeout(entry.timer);
        podEvent(podKey, 'Cancelling deletion of Pod');
      }
    };

    /** The eviction still waiting for its time (GetWorkerUnsafe: none once under way or done). */
    const waiting = (podKey: string): Eviction | undefined => {
      const entry = evictions.get(podKey);
      return entry !== undefined && entry !== 'done' && entry.timer ? entry : undefined;
    };

    /** Arms the timer; a time beyond what one timer can wait (about 24.8 days) is reached in steps. */
    const arm = (podKey: string, entry: Eviction) => {
      entry.timer = setTimeout(() => {
        if (evictions.get(podKey) !== entry || stopped) return;
        if (Date.now() < entry.fireAt) return arm(podKey, entry);
        entry.timer = undefined;
        void evict(podKey, entry);
      }, Math.min(MAX_TIMER_MS, Math.max(0, entry.fireAt - Date.now())));
    };

    /** AddWork: nothing when the pod already has an eviction (waiting, under way or done); one due now runs at once. */
    const schedule = (podKey: string, eviction: ScheduledEviction) => {
      if (evictions.has(podKey) || stopped) return;
      const entry: Eviction = { ...eviction };
      evictions.set(podKey, entry);
      if (eviction.fireAt <= eviction.createdAt) void evict(podKey, entry);
      else arm(podKey, entry);
    };

    /** deletePodHandler: the event, then the DisruptionTarget condition and the delete, a few times on failure. */
    const evict = async (podKey: string, entry: Eviction) => {
      podEvent(podKey, 'Marking for deletion Pod');
      const { cluster, namespace, name } = parseObjectKey(podKey);
      let lastError: unknown;
      for (let attempt = 0; attempt < DELETE_ATTEMPTS && !stopped; attempt++) {
        try {
          await addConditionAndDeletePod(cluster, namespace, name);
          lastError = undefined;
          break;
        } catch (err) {
          lastError = err;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      // Done, or forgotten after a failure so a later change tries again; unless it was cancelled meanwhile (the pod
      // gone: a new pod of that name starts afresh) or the pod has a newer eviction by now.
      if (evictions.get(podKey) !== entry) return;
      if (lastError === undefined) evictions.set(podKey, 'done');
      else {
        evictions.delete(podKey);
        logger.warn('taint eviction: could not evict the pod', { pod: podKey, error: (lastError as Error).message });
      }
    };

    const addConditionAndDeletePod = async (cluster: string, namespace: string, name: string) => {
      const scope = { cluster: cluster || undefined, namespace };
      let pod: KubeObject;
      try {
        pod = await client.get(podsGVR, name, scope);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      const conditions = isPlainObject(pod.status) && Array.isArray(pod.status.conditions) ? pod.status.conditions.filter(isPlainObject) : [];
      const existing = conditions.find((c) => c.type === 'DisruptionTarget');
      const reason = 'DeletionByTaintManager';
      const message = 'Taint manager: deleting due to NoExecute taint';
      if (!(existing?.status === 'True' && existing.reason === reason && existing.message === message)) {
        // utilpod.PatchPodStatus: a strategic merge patch of status.conditions (merged by type) with the uid as precondition.
        const condition = { type: 'DisruptionTarget', status: 'True', reason, message, lastTransitionTime: existing?.status === 'True' ? existing.lastTransitionTime : nowRFC3339() };
        await client.patch(podsGVR, name, 'strategic', { metadata: { uid: pod.metadata?.uid }, status: { conditions: [condition] } }, { ...scope, subresource: 'status' });
      }
      try {
        await client.delete(podsGVR, name, scope);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    };

    /** processPodOnNode. */
    const processPodOnNode = (podKey: string, pod: KubeObject, taints: readonly Taint[], now: number) => {
      const plan = planEviction(taints, podTolerations(pod), waiting(podKey), now);
      if (plan.action === 'cancel') cancel(podKey);
      else if (plan.action === 'schedule') {
        if (plan.cancelFirst) cancel(podKey);
        schedule(podKey, plan.eviction);
      }
    };

    const reconcile = async (item: string): Promise<void> => {
      const kind = item.slice(0, 2);
      const key = item.slice(2);
      if (kind === 'p:') {
        const pod = pods.lister.get(key);
        if (!pod) return cancel(key);
        const nodeKey = nodeKeyOf(pod);
        if (!nodeKey) return;
        const taints = tainted.get(nodeKey);
        if (taints) processPodOnNode(key, pod, taints, Date.now());
        return;
      }
      const node = nodes.lister.get(key);
      const taints = node ? noExecuteTaints(node) : [];
      if (!node) {
        tainted.delete(key);
        return;
      }
      if (taints.length) tainted.set(key, taints);
      else tainted.delete(key);
      const now = Date.now();
      for (const pod of pods.lister.byIndex(BY_NODE, key)) {
        const podKey = pods.store.keyOf(pod);
        if (!taints.length) cancel(podKey);
        else processPodOnNode(podKey, pod, taints, now);
      }
    };

    const controller = new Controller<string>({ name: 'taint-eviction-controller', reconcile, rateLimiter: { baseDelayMs: 50, maxDelayMs: 5_000 } });
    nodes.addEventHandler({
      add: (n) => controller.enqueue(`n:${nodes.store.keyOf(n)}`),
      update: (o, n) => {
        if (!sameTaints(noExecuteTaints(o), noExecuteTaints(n))) controller.enqueue(`n:${nodes.store.keyOf(n)}`);
      },
      delete: (n) => controller.enqueue(`n:${nodes.store.keyOf(n)}`),
    });
    pods.addEventHandler({
      add: (p) => controller.enqueue(`p:${pods.store.keyOf(p)}`),
      update: (o, n) => {
        if (nodeNameOf(o) !== nodeNameOf(n) || tolerationsJson(o) !== tolerationsJson(n)) controller.enqueue(`p:${pods.store.keyOf(n)}`);
      },
      delete: (p) => controller.enqueue(`p:${pods.store.keyOf(p)}`),
    });
    return {
      name: 'taint-eviction-controller',
      start: () => controller.start(),
      stop: async () => {
        stopped = true;
        for (const entry of evictions.values()) if (entry !== 'done' && entry.timer) clearTimeout(entry.timer);
        evictions.clear();
        await controller.stop();
      },
    };
  },
};
