/**
 * The replicaset controller: keeps spec.replicas active pods for every ReplicaSet, creating them from the template
 * (with a controller ownerReference) or deleting the least valuable ones, and reports replicas, fullyLabeledReplicas,
 * readyReplicas, availableReplicas and observedGeneration in status.
 *
 * The replication controller manager is the same controller for core/v1 ReplicationControllers, as upstream's is (it
 * wraps the ReplicaSet controller): one implementation, parameterised by the kind (`podReplicaKinds`), which differ
 * only in their resource, owner reference and selector (an RC's is a plain label map).
 */
import { deepCopy, goEqual, isPlainObject, jsonEqual, nowRFC3339, type JsonObject, type KubeObject } from '../../apimachinery/object.js';
import { LabelSelector, fromLabelSelector, selectorFromSet, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { StatusError } from '../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../client/store.js';
import { Controller, type ReconcileResult } from '../../controllers/runtime/controller.js';
import { EventRecorder } from '../../controllers/runtime/event-recorder.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../controllers/runtime/context.js';
import { Expectations } from './expectations.js';
import { podsGVR, replicaSetsGVR, replicationControllersGVR } from './gvrs.js';
import { claimObjects } from './claim-objects.js';
import { controllerOf, controllerRef } from './owner-references.js';
import { isPodActive, isPodAvailable, isPodReady, podCondition } from './pod-conditions.js';

/** A ReplicaSet or a ReplicationController (whose selector is a label map). */
interface ReplicaSet extends KubeObject {
  spec?: { replicas?: number; minReadySeconds?: number; selector?: LabelSelectorSpec | Record<string, string>; template?: JsonObject };
  status?: JsonObject;
}

/** What distinguishes the kinds one replica controller serves. */
export interface PodReplicaKind {
  /** The controller's name (replicaset, replicationcontroller). */
  controller: string;
  gvr: GroupVersionResource;
  apiVersion: string;
  kind: string;
  /** The pods the owner selects. */
  selector(owner: ReplicaSet): LabelSelector;
}

export const podReplicaKinds = {
  replicaSet: {
    controller: 'replicaset',
    gvr: replicaSetsGVR,
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    selector: (rs) => fromLabelSelector(rs.spec?.selector as LabelSelectorSpec | undefined),
  },
  // An RC's selector is a label map; an empty one selects nothing (the API defaults it from the template's labels).
  replicationController: {
    controller: 'replicationcontroller',
    gvr: replicationControllersGVR,
    apiVersion: 'v1',
    kind: 'ReplicationController',
    selector: (rc) => {
      const labels = isPlainObject(rc.spec?.selector) ? (rc.spec.selector as Record<string, string>) : {};
      return Object.keys(labels).length ? selectorFromSet(labels) : LabelSelector.nothing();
    },
  },
} satisfies Record<string, PodReplicaKind>;

/** At most this many pods are created or deleted per sync (upstream burstReplicas). */
const burstReplicas = 500;

/**
 * Orders pods for deletion, most deletable first (controller.ActivePods ranking, simplified): unassigned before
 * assigned, Pending before Running, not ready before ready, more recently ready or created before older ones.
 */
export function deletionOrder(a: KubeObject, b: KubeObject): number {
  const assigned = (p: KubeObject) => (isPlainObject(p.spec) && p.spec.nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phaseRank = (p: KubeObject) => ({ Pending: 0, Unknown: 1, Running: 2 })[String((p.status as JsonObject | undefined)?.phase)] ?? 0;
  if (phaseRank(a) !== phaseRank(b)) return phaseRank(a) - phaseRank(b);
  const ready = (p: KubeObject) => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const readySince = (p: KubeObject) => Date.parse(podCondition(p, 'Ready')?.lastTransitionTime ?? '') || 0;
  if (readySince(a) !== readySince(b)) return readySince(b) - readySince(a);
  return (Date.parse(b.metadata?.creationTimestamp ?? '') || 0) - (Date.parse(a.metadata?.creationTimestamp ?? '') || 0);
}

/** The pod a ReplicaSet (or, with `owner`, a ReplicationController) creates: template labels, annotations and spec, a generated name and the controller ref. */
export function podFromTemplate(rs: ReplicaSet, owner: Pick<PodReplicaKind, 'apiVersion' | 'kind'> = podReplicaKinds.replicaSet): KubeObject {
  const template = deepCopy(rs.spec?.template ?? {});
  const meta = isPlainObject(template.metadata) ? template.metadata : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata?.name}-`,
      namespace: rs.metadata?.namespace,
      labels: (meta.labels as Record<string, string> | undefined) ?? {},
      ...(meta.annotations ? { annotations: meta.annotations as Record<string, string> } : {}),
      ownerReferences: [controllerRef(rs, owner.apiVersion, owner.kind)],
    },
    spec: template.spec ?? {},
  };
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

/** The controller for one kind of pod replica owner. */
export function podReplicaControllerInstaller(k: PodReplicaKind): ControllerInstaller {
  return {
    name: k.controller,
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const rsInformer = ctx.informers.informerFor<ReplicaSet>(k.gvr);
      const podInformer = ctx.informers.informerFor<KubeObject>(podsGVR);
      const expectations = new Expectations();
      // SuccessfulCreate / SuccessfulDelete per pod, as kube's ReplicaSet and ReplicationController controllers record
      // them (`kubectl describe rs` and, mirrored up, the workspace's revision-history ReplicaSet show them).
      const recorder = new EventRecorder(client, `${k.controller}-controller`);
      const podEvent = (rs: ReplicaSet, reason: string, verb: string, pod: KubeObject | undefined) => {
        if (!pod?.metadata?.name) return;
        void recorder.record(clusterOf(rs), { apiVersion: k.apiVersion, kind: k.kind, namespace: rs.metadata?.namespace, name: rs.metadata?.name ?? '', uid: rs.metadata?.uid }, 'Normal', reason, `${verb} pod: ${pod.metadata.name}`);
      };

      const failureEvent = (rs: ReplicaSet, reason: string, message: string) => {
        void recorder.record(clusterOf(rs), { apiVersion: k.apiVersion, kind: k.kind, namespace: rs.metadata?.namespace, name: rs.metadata?.name ?? '', uid: rs.metadata?.uid }, 'Warning', reason, message);
      };

      const rsKeyOfPod = (pod: KubeObject): string | undefined => {
        const ref = controllerOf(pod);
        if (!ref || ref.kind !== k.kind || groupOf(String(ref.apiVersion ?? '')) !== groupOf(k.apiVersion)) return undefined;
        return formatObjectKey({ cluster: clusterOf(pod), namespace: pod.metadata?.namespace ?? '', name: String(ref.name) });
      };

      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const rs = rsInformer.lister.get(key);
        if (!rs) {
          expectations.forget(key);
          return;
        }
        const { namespace } = parseObjectKey(key);
        const selector = k.selector(rs);
        // claimPods: the namespace's active pods, adopting matching orphans and releasing its own that stopped matching.
        const candidates = podInformer.lister.list().filter((p) => p.metadata?.namespace === namespace && clusterOf(p) === clusterOf(rs) && isPodActive(p));
        const active = await claimObjects({ client, gvr: podsGVR, controllerGVR: k.gvr, apiVersion: k.apiVersion, kind: k.kind }, rs, selector, candidates);

        // manageReplicas' error goes into status as the ReplicaFailure condition (a pod the quota refuses, say) and is
        // then returned, so the set is retried with backoff.
        let manageError: unknown;
        const diff = active.length - (rs.spec?.replicas ?? 1);
        const manage = expectations.satisfied(key) && !rs.metadata?.deletionTimestamp;
        if (manage) {
          try {
            if (diff < 0) {
              const n = Math.min(-diff, burstReplicas);
              expectations.expect(key, n, 0);
              const results = await Promise.allSettled(Array.from({ length: n }, () => client.create(podsGVR, podFromTemplate(rs, k), { namespace })));
              for (const r of results) if (r.status === 'fulfilled') podEvent(rs, 'SuccessfulCreate', 'Created', r.value);
              const failed = results.filter((r) => r.status === 'rejected');
              if (failed.length) {
                expectations.lowerExpectations(key, failed.length, 0);
                const reason = (failed[0] as PromiseRejectedResult).reason;
                failureEvent(rs, 'FailedCreate', `Error creating: ${(reason as Error).message}`);
                throw reason;
              }
            } else if (diff > 0) {
              const victims = [...active].sort(deletionOrder).slice(0, Math.min(diff, burstReplicas));
              expectations.expect(key, 0, victims.length);
              const results = await Promise.allSettled(victims.map((p) => client.delete(podsGVR, p.metadata?.name ?? '', { namespace })));
              results.forEach((r, i) => r.status === 'fulfilled' && podEvent(rs, 'SuccessfulDelete', 'Deleted', victims[i]));
              const failed = results.filter((r) => r.status === 'rejected' && !(r.reason instanceof StatusError && r.reason.code === 404));
              expectations.lowerExpectations(key, 0, results.length - results.filter((r) => r.status === 'fulfilled').length);
              if (failed.length) {
                const reason = (failed[0] as PromiseRejectedResult).reason;
                failureEvent(rs, 'FailedDelete', `Error deleting: ${(reason as Error).message}`);
                throw reason;
              }
            }
          } catch (err) {
            manageError = err;
          }
        }
        const result = await updateStatus(rs, active, manageError === undefined ? undefined : { reason: diff < 0 ? 'FailedCreate' : 'FailedDelete', message: (manageError as Error).message });
        if (manageError !== undefined) throw manageError;
        return result;
      };

      /** Computes status from the cached pods and writes it when it changed; requeues to notice pods becoming available. */
      const updateStatus = async (rs: ReplicaSet, active: KubeObject[], failure?: { reason: string; message: string }): Promise<ReconcileResult | void> => {
        const now = Date.now();
        const minReady = rs.spec?.minReadySeconds ?? 0;
        const templateLabels = ((rs.spec?.template?.metadata as JsonObject | undefined)?.labels ?? {}) as Record<string, string>;
        const status: JsonObject = {
          ...(rs.status ?? {}),
          replicas: active.length,
          fullyLabeledReplicas: active.filter((p) => Object.entries(templateLabels).every(([k, v]) => p.metadata?.labels?.[k] === v)).length,
          readyReplicas: active.filter(isPodReady).length,
          availableReplicas: active.filter((p) => isPodAvailable(p, minReady, now)).length,
          observedGeneration: rs.metadata?.generation ?? 1,
        };
        // calculateStatus: a failure to create or delete pods is set as ReplicaFailure (once: a condition already there
        // keeps its first message), and removed by the first sync that manages the pods without one.
        const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as JsonObject[];
        const hasFailure = conditions.some((c) => c.type === 'ReplicaFailure');
        if (failure && !hasFailure) {
          status.conditions = [...conditions, { type: 'ReplicaFailure', status: 'True', lastTransitionTime: nowRFC3339(), reason: failure.reason, message: failure.message }];
        } else if (!failure && hasFailure) {
          const rest = conditions.filter((c) => c.type !== 'ReplicaFailure');
          if (rest.length) status.conditions = rest;
          else delete status.conditions;
        }
        if (!goEqual(status, rs.status ?? {})) {
          const next = deepCopy(rs);
          next.status = status;
          await client.updateStatus(k.gvr, next, { namespace: rs.metadata?.namespace });
        }
        const notYetAvailable = active.some((p) => isPodReady(p) && !isPodAvailable(p, minReady, now));
        return notYetAvailable ? { requeueAfterMs: 1000 } : undefined;
      };

      const controller = new Controller<string>({ name: k.controller, reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
      const enqueueRS = (rs: ReplicaSet) => controller.enqueue(formatObjectKey({ cluster: clusterOf(rs), namespace: rs.metadata?.namespace ?? '', name: rs.metadata?.name ?? '' }));
      rsInformer.addEventHandler({ add: enqueueRS, update: (_o, n) => enqueueRS(n), delete: enqueueRS });
      /** An orphan pod wakes every set of its namespace whose selector matches it (getPodReplicaSets): one may adopt it. */
      const enqueueMatching = (pod: KubeObject) => {
        for (const rs of rsInformer.lister.list()) {
          if (rs.metadata?.namespace !== pod.metadata?.namespace || clusterOf(rs) !== clusterOf(pod)) continue;
          if (k.selector(rs).matches(pod.metadata?.labels ?? {})) enqueueRS(rs);
        }
      };
      podInformer.addEventHandler({
        add(pod) {
          const key = rsKeyOfPod(pod);
          if (!key) {
            if (!controllerOf(pod)) enqueueMatching(pod);
            return;
          }
          expectations.observedAdd(key);
          controller.enqueue(key);
        },
        update(oldPod, pod) {
          const key = rsKeyOfPod(pod);
          if (key) controller.enqueue(key);
          const oldKey = rsKeyOfPod(oldPod);
          if (oldKey && oldKey !== key) controller.enqueue(oldKey);
          // An orphan (released, or relabelled) may now match another set.
          if (!controllerOf(pod) && !jsonEqual(oldPod.metadata?.labels ?? {}, pod.metadata?.labels ?? {})) enqueueMatching(pod);
          else if (!controllerOf(pod) && controllerOf(oldPod)) enqueueMatching(pod);
        },
        delete(pod) {
          const key = rsKeyOfPod(pod);
          if (!key) return;
          expectations.observedDelete(key);
          controller.enqueue(key);
        },
      });
      return {
        name: k.controller,
        start: () => controller.start(),
        stop: () => controller.stop(),
      };
    },
  };
}

export const replicaSetControllerInstaller = podReplicaControllerInstaller(podReplicaKinds.replicaSet);
export const replicationControllerInstaller = podReplicaControllerInstaller(podReplicaKinds.replicationController);
