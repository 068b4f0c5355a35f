/**
 * The StatefulSet controller: pods `<set>-<ordinal>` with stable identity (hostname, subdomain, the pod-name and
 * pod-index labels), their claims `<template>-<set>-<ordinal>` created before them with owner references per
 * persistentVolumeClaimRetentionPolicy, OrderedReady or Parallel pod management, ControllerRevisions for the template
 * history, RollingUpdate by partition (highest ordinal first, one at a time) or OnDelete, and status so that
 * `kubectl rollout status sts/<name>` works. Decisions are in decisions.ts and controller-history.ts.
 */
import { deepCopy, goEqual, jsonEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import {
  type ControllerRevision,
  controllerRevisionHashLabel,
  deleteRevisions,
  hashOf,
  podRevisionLabel,
  revisionsToPrune,
  syncHistory,
  templateOfRevision,
  templatePatch,
} from '../controller-history.js';
import { podsGVR } from '../gvrs.js';
import { controllerOf, controllerRef, isControlledBy } from '../owner-references.js';
import { isPodAvailable, isPodReady } from '../pod-conditions.js';
import { controllerRevisionsGVR, pvcGVR, statefulSetsGVR } from '../workload-gvrs.js';
import {
  type SetPod,
  claimOwnerReferences,
  claimsForOrdinal,
  newStatefulSetPod,
  ordinalOf,
  planStatefulSet,
  revisionForNewPod,
  statefulSetStatus,
} from './decisions.js';

interface StatefulSet extends KubeObject {
  spec?: {
    replicas?: number;
    selector?: LabelSelectorSpec;
    template?: JsonObject;
    serviceName?: string;
    podManagementPolicy?: string;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    ordinals?: { start?: number };
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
    volumeClaimTemplates?: JsonObject[];
  };
  status?: JsonObject & { currentRevision?: string; collisionCount?: number };
}

const notFoundOrConflict = (err: unknown) => err instanceof StatusError && (err.code === 404 || err.code === 409);

export const statefulSetControllerInstaller: ControllerInstaller = {
  name: 'statefulset',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const sets = ctx.informers.informerFor<StatefulSet>(statefulSetsGVR);
    const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
    const revisions = ctx.informers.informerFor<ControllerRevision>(controllerRevisionsGVR);
    const claims = ctx.informers.informerFor<KubeObject>(pvcGVR);
    const recorder = new EventRecorder(client, 'statefulset-controller');

    const event = (set: StatefulSet, type: 'Normal' | 'Warning', reason: string, message: string) =>
      void recorder.record(clusterOf(set), { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: set.metadata?.namespace, name: set.metadata?.name ?? '', uid: set.metadata?.uid }, type, reason, message);

    /**
     * Creates the ordinal's missing claims (createPersistentVolumeClaims). False when a claim is still being deleted:
     * the pod must wait for it to go, or it would bind the old claim.
     */
    const ensureClaims = async (set: StatefulSet, ordinal: number, podName: string): Promise<boolean> => {
      const namespace = set.metadata?.namespace;
      const policy = set.spec?.persistentVolumeClaimRetentionPolicy ?? {};
      for (const { claim } of claimsForOrdinal(set, ordinal)) {
        const name = claim.metadata?.name ?? '';
        const existing = claims.lister.get(formatObjectKey({ cluster: clusterOf(set), namespace: namespace ?? '', name }));
        if (existing) {
          if (existing.metadata?.deletionTimestamp) return false;
          continue;
        }
        const refs = claimOwnerReferences([], { name: set.metadata?.name ?? '', uid: set.metadata?.uid ?? '' }, { name: podName, uid: '' }, policy, false);
        if (refs.length) claim.metadata!.ownerReferences = refs;
        try {
          await client.create(pvcGVR, claim, { namespace });
          event(set, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata?.name} success`);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 409)) {
            event(set, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${podName} in StatefulSet ${set.metadata?.name} failed error: ${(err as Error).message}`);
            throw err;
          }
        }
      }
      return true;
    };

    /** UpdatePodClaimForRetentionPolicy: the pod's claims get the owner references the policy asks for. */
    const fixClaimOwners = async (set: StatefulSet, pod: KubeObject, scaledDown: boolean): Promise<void> => {
      const namespace = set.metadata?.namespace ?? '';
      const ordinal = ordinalOf(set.metadata?.name ?? '', pod.metadata?.name ?? '');
      for (const { claim } of claimsForOrdinal(set, ordinal)) {
        const existing = claims.lister.get(formatObjectKey({ cluster: clusterOf(set), namespace, name: claim.metadata?.name ?? '' }));
        if (!existing || existing.metadata?.deletionTimestamp) continue;
        const refs = existing.metadata?.ownerReferences ?? [];
        const want = claimOwnerReferences(
          refs,
          { name: set.metadata?.name ?? '', uid: set.metadata?.uid ?? '' },
          { name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
          set.spec?.persistentVolumeClaimRetentionPolicy ?? {},
          scaledDown,
        );
        if (jsonEqual(refs, want)) continue;
        try {
          await client.patch(pvcGVR, existing.metadata?.name ?? '', 'merge', { metadata: { resourceVersion: existing.metadata?.resourceVersion, ownerReferences: want } }, { namespace });
        } catch (err) {
          if (!notFoundOrConflict(err)) throw err;
        }
      }
    };

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const set = sets.lister.get(key);
      if (!set || set.metadata?.deletionTimestamp) return;
      const { namespace } = parseObjectKey(key);
      const setName = set.metadata?.name ?? '';
      const uid = set.metadata?.uid;
      const selector = fromLabelSelector(set.spec?.selector);
      const owned = pods.lister.list().filter((p) => p.metadata?.namespace === namespace && isControlledBy(p, uid) && selector.matches(p.metadata?.labels ?? {}));
      const ownedRevisions = revisions.lister.list().filter((r) => r.metadata?.namespace === namespace && isControlledBy(r, uid));

      const data = templatePatch(set);
      const history = await syncHistory(client, { obj: set, kind: 'StatefulSet', data, hash: (c) => hashOf(data, c), hashLabel: controllerRevisionHashLabel, collisionCount: set.status?.collisionCount ?? 0 }, ownedRevisions);
      const update = history.update;
      const updateName = update.metadata?.name ?? '';
      const current = history.revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
      const currentName = current.metadata?.name ?? '';

      const replicas = set.spec?.replicas ?? 1;
      const startOrdinal = set.spec?.ordinals?.start ?? 0;
      const strategy = set.spec?.updateStrategy?.type === 'OnDelete' ? 'OnDelete' : 'RollingUpdate';
      const partition = strategy === 'RollingUpdate' ? (set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0) : 0;
      const minReady = set.spec?.minReadySeconds ?? 0;
      const now = Date.now();
      const setPods: SetPod[] = owned.map((p) => ({
        name: p.metadata?.name ?? '',
        ordinal: ordinalOf(setName, p.metadata?.name ?? ''),
        revision: p.metadata?.labels?.[podRevisionLabel] ?? '',
        phase: String((p.status as JsonObject | undefined)?.phase ?? ''),
        runningAndReady: (p.status as JsonObject | undefined)?.phase === 'Running' && isPodReady(p),
        available: (p.status as JsonObject | undefined)?.phase === 'Running' && isPodAvailable(p, minReady, now),
        terminating: Boolean(p.metadata?.deletionTimestamp),
      }));
      const plan = planStatefulSet({
        replicas,
        startOrdinal,
        monotonic: set.spec?.podManagementPolicy !== 'Parallel',
        strategy,
        partition,
        updateRevision: updateName,
        pods: setPods,
      });

      const ref = controllerRef(set, 'apps/v1', 'StatefulSet');
      const byName = new Map(owned.map((p) => [p.metadata?.name ?? '', p]));
      let blocked = false;
      for (const action of plan.actions) {
        if (action.kind === 'create') {
          const name = `${setName}-${action.ordinal}`;
          const revision = revisionForNewPod(action.ordinal, { strategy, partition, startOrdinal }, currentName, updateName);
          const template = revision === currentName && current !== update ? templateOfRevision(current) : deepCopy(set.spec?.template ?? {});
          if (!(await ensureClaims(set, action.ordinal, name))) {
            blocked = true;
            continue;
          }
          try {
            await client.create(podsGVR, newStatefulSetPod(set, template, action.ordinal, revision, ref), { namespace });
            event(set, 'Normal', 'SuccessfulCreate', `create Pod ${name} in StatefulSet ${setName} successful`);
          } catch (err) {
            if (err instanceof StatusError && err.code === 409) continue; // our cache is behind: seen on the next pass
            event(set, 'Warning', 'FailedCreate', `create Pod ${name} in StatefulSet ${setName} failed error: ${(err as Error).message}`);
            throw err;
          }
        } else {
          const pod = byName.get(action.name);
          if (!pod) continue;
          if (action.why === 'condemned') await fixClaimOwners(set, pod, true);
          try {
            await client.delete(podsGVR, action.name, { namespace }, { preconditions: { uid: pod.metadata?.uid } });
            event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${action.name} in StatefulSet ${setName} successful`);
          } catch (err) {
            if (!notFoundOrConflict(err)) throw err;
          }
        }
      }
      // Claims of pods in range follow the retention policy too (e.g. after the policy changed), and a Pending pod
      // whose claim went missing gets it back (createMissingPersistentVolumeClaims).
      for (const p of owned) {
        const ordinal = ordinalOf(setName, p.metadata?.name ?? '');
        if (ordinal < startOrdinal || ordinal >= startOrdinal + replicas || p.metadata?.deletionTimestamp) continue;
        if ((p.status as JsonObject | undefined)?.phase === 'Pending') await ensureClaims(set, ordinal, p.metadata?.name ?? '');
        await fixClaimOwners(set, p, false);
      }

      const status = statefulSetStatus({
        generation: set.metadata?.generation ?? 1,
        updateStrategy: strategy,
        currentRevision: currentName,
        updateRevision: updateName,
        collisionCount: history.collisionCount,
        minReadySeconds: minReady,
        now,
        pods: owned,
      });
      if (!goEqual(status, set.status ?? {})) {
        const next = deepCopy(set);
        next.status = status;
        await client.updateStatus(statefulSetsGVR, next, { namespace });
      }

      const live = new Set([currentName, updateName, ...owned.map((p) => p.metadata?.labels?.[podRevisionLabel] ?? '')]);
      await deleteRevisions(client, revisionsToPrune(history.revisions, live, set.spec?.revisionHistoryLimit ?? 10));

      const becomingAvailable = owned.some((p) => isPodReady(p) && !isPodAvailable(p, minReady, Date.now()));
      if (blocked) return { requeue: true };
      return becomingAvailable ? { requeueAfterMs: 1000 } : undefined;
    };

    const controller = new Controller<string>({ name: 'statefulset', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    const enqueue = (s: KubeObject) => controller.enqueue(formatObjectKey({ cluster: clusterOf(s), namespace: s.metadata?.namespace ?? '', name: s.metadata?.name ?? '' }));
    const enqueueOwner = (o: KubeObject) => {
      const ref = controllerOf(o);
      if (ref?.kind === 'StatefulSet') controller.enqueue(formatObjectKey({ cluster: clusterOf(o), namespace: o.metadata?.namespace ?? '', name: String(ref.name) }));
    };
    sets.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
    pods.addEventHandler({ add: enqueueOwner, update: (_o, n) => enqueueOwner(n), delete: enqueueOwner });
    revisions.addEventHandler({ add: enqueueOwner, delete: enqueueOwner });
    // A claim going away may unblock the pod that waited for it (a claim being deleted blocks recreation).
    claims.addEventHandler({
      delete: (c) => {
        for (const s of sets.lister.list()) if (s.metadata?.namespace === c.metadata?.namespace && (c.metadata?.name ?? '').includes(`-${s.metadata?.name}-`)) enqueue(s);
      },
    });
    return { name: 'statefulset', start: () => controller.start(), stop: () => controller.stop() };
  },
};
