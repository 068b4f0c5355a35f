/**
 * The deployment controller: rolls a Deployment's pod template out through ReplicaSets named
 * `<deployment>-<pod-template-hash>`, scaling the new one up and old ones down within maxSurge/maxUnavailable
 * (RollingUpdate) or all old ones to zero first (Recreate), prunes old ReplicaSets beyond revisionHistoryLimit, and
 * computes status (replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas,
 * observedGeneration, Available and Progressing conditions) as upstream does, so `kubectl rollout status` works.
 * Each scaling is recorded as kube 1.32's controller records it (reason ScalingReplicaSet, `Scaled up replica set
 * <rs> from 0 to 3`, `Scaled down replica set <rs> from 3 to 2`), so `kubectl describe deploy` shows the rollout.
 */
import { findCondition } from '../../../apimachinery/conditions.js';
import { deepCopy, goEqual, isPlainObject, nowRFC3339, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { deploymentsGVR, replicaSetsGVR } from '../gvrs.js';
import { claimObjects } from '../claim-objects.js';
import { controllerOf, controllerRef, isControlledBy } from '../owner-references.js';
import { type DeploymentCondition, reasons, setCondition } from './conditions.js';
import { type ScalableReplicaSet, isScalingEvent, newReplicaSetReplicas, oldReplicaSetTargets, proportionalScale, resolveFenceposts } from './rollout-math.js';
import { computeTemplateHash, podTemplateHashLabel, templateMatches } from '../../../registry/builtin/workloads/pod-template-hash.js';

export { podTemplateHashLabel, templateMatches };

export const revisionAnnotation = 'deployment.kubernetes.io/revision';
const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';

interface Deployment extends KubeObject {
  spec?: {
    replicas?: number;
    selector?: LabelSelectorSpec;
    template?: JsonObject;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: unknown; maxUnavailable?: unknown } };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: JsonObject & { conditions?: DeploymentCondition[]; collisionCount?: number };
}

interface ReplicaSet extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelectorSpec; template?: JsonObject; minReadySeconds?: number };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number };
}

const specReplicas = (rs: ReplicaSet): number => rs.spec?.replicas ?? 0;
const sum = (list: ReplicaSet[], f: (rs: ReplicaSet) => number): number => list.reduce((n, rs) => n + f(rs), 0);
/** The revision annotation as upstream's int64 (a BigInt: revisions beyond 2^53 stay exact); 0 when absent or not a number. */
const revisionOf = (rs: ReplicaSet): bigint => {
  const text = rs.metadata?.annotations?.[revisionAnnotation];
  return text !== undefined && /^-?\d+$/.test(text) ? BigInt(text) : 0n;
};
const maxRevision = (list: ReplicaSet[]): bigint => list.reduce((m, rs) => (revisionOf(rs) > m ? revisionOf(rs) : m), 0n);
const createdAt = (o: KubeObject): number => Date.parse(o.metadata?.creationTimestamp ?? '') || 0;

/** The ReplicaSet a Deployment creates for its current template. */
function newReplicaSetFor(d: Deployment, hash: string, replicas: number, revision: bigint, maxSurge: number): ReplicaSet {
  const template = deepCopy(d.spec?.template ?? {});
  const tmeta = (isPlainObject(template.metadata) ? template.metadata : (template.metadata = {})) as JsonObject;
  tmeta.labels = { ...((tmeta.labels as Record<string, string> | undefined) ?? {}), [podTemplateHashLabel]: hash };
  const selector = deepCopy(d.spec?.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [podTemplateHashLabel]: hash };
  const desired = d.spec?.replicas ?? 1;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata?.name}-${hash}`,
      namespace: d.metadata?.namespace,
      labels: tmeta.labels as Record<string, string>,
      annotations: { [revisionAnnotation]: String(revision), [desiredReplicasAnnotation]: String(desired), [maxReplicasAnnotation]: String(desired + maxSurge) },
      ownerReferences: [controllerRef(d, 'apps/v1', 'Deployment')],
    },
    spec: { replicas, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
  };
}

export const deploymentControllerInstaller: ControllerInstaller = {
  name: 'deployment',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const dInformer = ctx.informers.informerFor<Deployment>(deploymentsGVR);
    const rsInformer = ctx.informers.informerFor<ReplicaSet>(replicaSetsGVR);

    const recorder = new EventRecorder(client, 'deployment-controller');
    const scalingEvent = (d: Deployment, message: string) =>
      void recorder.record(clusterOf(d), { apiVersion: 'apps/v1', kind: 'Deployment', namespace: d.metadata?.namespace, name: d.metadata?.name ?? '', uid: d.metadata?.uid }, 'Normal', 'ScalingReplicaSet', message);

    /** Scales one ReplicaSet, keeping its replica annotations current (kube's scaleReplicaSet, with its event). */
    const scale = async (rs: ReplicaSet, replicas: number, d: Deployment, maxSurge: number): Promise<void> => {
      const next = deepCopy(rs);
      const from = specReplicas(rs);
      next.spec = { ...(next.spec ?? {}), replicas };
      const desired = d.spec?.replicas ?? 1;
      next.metadata!.annotations = { ...(next.metadata?.annotations ?? {}), [desiredReplicasAnnotation]: String(desired), [maxReplicasAnnotation]: String(desired + maxSurge) };
      await client.update(replicaSetsGVR, next, { namespace: rs.metadata?.namespace });
      if (from !== replicas) scalingEvent(d, `Scaled ${replicas > from ? 'up' : 'down'} replica set ${rs.metadata?.name} from ${from} to ${replicas}`);
    };

    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const cached = dInformer.lister.get(key);
      if (!cached || cached.metadata?.deletionTimestamp) return;
      let d: Deployment = cached;
      const { namespace } = parseObjectKey(key);
      // getReplicaSetsForDeployment: the namespace's ReplicaSets claimed by the selector — orphans that match are
      // adopted (a Deployment created over an existing ReplicaSet takes it over, as RollingUpdateDeployment expects),
      // its own that stopped matching are released.
      const candidates = rsInformer.lister.list().filter((rs) => rs.metadata?.namespace === namespace && clusterOf(rs) === clusterOf(d));
      const all: ReplicaSet[] = await claimObjects(
        { client, gvr: replicaSetsGVR, controllerGVR: deploymentsGVR, apiVersion: 'apps/v1', kind: 'Deployment' },
        d,
        fromLabelSelector(d.spec?.selector),
        candidates,
      );
      let newRS = all.find((rs) => templateMatches(rs.spec?.template, d.spec?.template));
      const old = all.filter((rs) => rs !== newRS).sort((a, b) => createdAt(a) - createdAt(b));
      const desired = d.spec?.replicas ?? 1;
      const strategy = d.spec?.strategy?.type ?? 'RollingUpdate';
      const { surge, unavailable } = strategy === 'Recreate' ? { surge: 0, unavailable: desired } : resolveFenceposts(d.spec?.strategy?.rollingUpdate?.maxSurge, d.spec?.strategy?.rollingUpdate?.maxUnavailable, desired);
      const now = nowRFC3339();
      let conditions = [...(d.status?.conditions ?? [])];
      let collisionCount = d.status?.collisionCount;

      const scalable = (rs: ReplicaSet): ScalableReplicaSet => {
        const annotation = (k: string) => {
          const v = rs.metadata?.annotations?.[k];
          return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined;
        };
        return { name: rs.metadata?.name ?? '', spec: specReplicas(rs), available: rs.status?.availableReplicas ?? 0, created: createdAt(rs), desired: annotation(desiredReplicasAnnotation), maxReplicas: annotation(maxReplicasAnnotation) };
      };
      if (d.spec?.paused || isScalingEvent(all.map(scalable), desired)) {
        // sync(): a paused Deployment, or one whose size changed, has its ReplicaSets resized (in proportion during a
        // rollout) and nothing else rolled.
        const targets = proportionalScale(
          { replicas: desired, maxSurge: surge, statusReplicas: Number(d.status?.replicas ?? 0), rollingUpdate: strategy === 'RollingUpdate' },
          newRS && scalable(newRS),
          old.map(scalable),
        );
        const scaled = await Promise.all(all.map(async (rs) => {
          const target = targets.get(rs.metadata?.name ?? '');
          if (target === undefined) return rs;
          await scale(rs, target, d, surge);
          return { ...rs, spec: { ...rs.spec, replicas: target } };
        }));
        const scaledNew = scaled.find((rs) => rs.metadata?.uid === newRS?.metadata?.uid && newRS !== undefined);
        return syncStatus(d, scaled.filter((rs) => rs !== scaledNew), scaledNew, conditions, collisionCount, unavailable, now);
      }

      const maxOldRevision = maxRevision(old);
      if (!newRS && (strategy === 'RollingUpdate' || sum(old, specReplicas) === 0 && sum(old, (rs) => rs.status?.replicas ?? 0) === 0)) {
        const hash = computeTemplateHash(d.spec?.template ?? {}, collisionCount);
        const replicas = strategy === 'Recreate' ? desired : newReplicaSetReplicas(desired, surge, sum(old, specReplicas), 0);
        try {
          newRS = await client.create(replicaSetsGVR, newReplicaSetFor(d, hash, replicas, maxOldRevision + 1n, surge), { namespace });
          if (replicas > 0) scalingEvent(d, `Scaled up replica set ${newRS.metadata?.name} from 0 to ${replicas}`);
          conditions = setCondition(conditions, { type: 'Progressing', status: 'True', reason: reasons.newReplicaSetCreated, message: `Created new replica set "${newRS.metadata?.name}"` }, now);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 409)) throw err;
          // A ReplicaSet with this name exists but is not ours for this template: a hash collision. Bump the
          // collision count so the next attempt hashes differently (unless it is just our cache lagging).
          const existing = await client.get<ReplicaSet>(replicaSetsGVR, `${d.metadata?.name}-${hash}`, { namespace });
          if (isControlledBy(existing, d.metadata?.uid) && templateMatches(existing.spec?.template, d.spec?.template)) return { requeue: true };
          collisionCount = (collisionCount ?? 0) + 1;
        }
      } else if (newRS) {
        if (!findCondition(conditions, 'Progressing')) {
          conditions = setCondition(conditions, { type: 'Progressing', status: 'True', reason: reasons.foundNewReplicaSet, message: `Found new replica set "${newRS.metadata?.name}"` }, now);
        }
        if (revisionOf(newRS) <= maxOldRevision) {
          // A rollback to an older template: that ReplicaSet becomes the newest revision again.
          const next = deepCopy(newRS);
          next.metadata!.annotations = { ...(next.metadata?.annotations ?? {}), [revisionAnnotation]: String(maxOldRevision + 1n) };
          newRS = await client.update(replicaSetsGVR, next, { namespace });
        }
      }

      if (strategy === 'Recreate') {
        for (const rs of old) if (specReplicas(rs) > 0) await scale(rs, 0, d, surge);
        if (newRS && specReplicas(newRS) !== desired && sum(old, (rs) => rs.status?.replicas ?? 0) === 0) await scale(newRS, desired, d, surge);
      } else if (newRS) {
        const total = specReplicas(newRS) + sum(old, specReplicas);
        const target = specReplicas(newRS) > desired ? desired : newReplicaSetReplicas(desired, surge, total, specReplicas(newRS));
        if (target !== specReplicas(newRS)) {
          await scale(newRS, target, d, surge);
          newRS = { ...newRS, spec: { ...newRS.spec, replicas: target } };
        }
        const targets = oldReplicaSetTargets(
          old.map((rs) => ({ spec: specReplicas(rs), available: rs.status?.availableReplicas ?? 0 })),
          { desired, unavailable, newRSSpecReplicas: specReplicas(newRS), newRSAvailable: newRS.status?.availableReplicas ?? 0 },
        );
        for (const [i, rs] of old.entries()) if (targets[i]! !== specReplicas(rs)) await scale(rs, targets[i]!, d, surge);
      }

      // Keep at most revisionHistoryLimit fully scaled-down old ReplicaSets, deleting the oldest first.
      const limit = d.spec?.revisionHistoryLimit ?? 10;
      const idle = old.filter((rs) => specReplicas(rs) === 0 && (rs.status?.replicas ?? 0) === 0 && !rs.metadata?.deletionTimestamp);
      for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
        try {
          await client.delete(replicaSetsGVR, rs.metadata?.name ?? '', { namespace });
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }

      const revision = newRS ? String(revisionOf(newRS)) : undefined;
      if (revision && d.metadata?.annotations?.[revisionAnnotation] !== revision) {
        // The status below is written over the patched object: over the cached one its resourceVersion was stale,
        // and every new Deployment's first status write failed with a 409 and waited for a retry.
        const patched = await client.patch<Deployment>(deploymentsGVR, d.metadata?.name ?? '', 'merge', { metadata: { annotations: { [revisionAnnotation]: revision } } }, { namespace });
        if (patched.metadata?.uid === d.metadata?.uid) d = patched;
      }
      return syncStatus(d, all.filter((rs) => rs.metadata?.uid !== newRS?.metadata?.uid), newRS, conditions, collisionCount, unavailable, now);
    };

    /** Computes status from the ReplicaSets (calculateStatus + syncRolloutStatus) and writes it when it changed. */
    const syncStatus = async (
      d: Deployment,
      old: ReplicaSet[],
      newRS: ReplicaSet | undefined,
      conditionsIn: DeploymentCondition[],
      collisionCount: number | undefined,
      maxUnavailable: number,
      now: string,
    ): Promise<ReconcileResult | void> => {
      const all = newRS ? [newRS, ...old] : old;
      const desired = d.spec?.replicas ?? 1;
      const replicas = sum(all, (rs) => rs.status?.replicas ?? 0);
      const updated = newRS?.status?.replicas ?? 0;
      const ready = sum(all, (rs) => rs.status?.readyReplicas ?? 0);
      const available = sum(all, (rs) => rs.status?.availableReplicas ?? 0);
      let conditions = conditionsIn;
      conditions =
        available >= desired - maxUnavailable
          ? setCondition(conditions, { type: 'Available', status: 'True', reason: reasons.minimumReplicasAvailable, message: 'Deployment has minimum availability.' }, now)
          : setCondition(conditions, { type: 'Available', status: 'False', reason: reasons.minimumReplicasUnavailable, message: 'Deployment does not have minimum availability.' }, now);

      const generation = d.metadata?.generation ?? 1;
      const previous = d.status ?? {};
      let requeueAfterMs: number | undefined;
      const progressing = findCondition(conditions, 'Progressing');
      if (d.spec?.paused) {
        conditions = setCondition(conditions, { type: 'Progressing', status: 'Unknown', reason: reasons.paused, message: 'Deployment is paused' }, now);
      } else if (progressing?.reason === reasons.paused) {
        conditions = setCondition(conditions, { type: 'Progressing', status: 'Unknown', reason: reasons.resumed, message: 'Deployment is resumed' }, now);
      }
      if (!d.spec?.paused && newRS) {
        const rsName = newRS.metadata?.name;
        const complete = updated === desired && replicas === desired && available === desired && (newRS.spec?.replicas ?? 0) === desired && old.every((rs) => specReplicas(rs) === 0);
        const madeProgress =
          updated !== (previous.updatedReplicas ?? 0) ||
          ready !== (previous.readyReplicas ?? 0) ||
          available !== (previous.availableReplicas ?? 0) ||
          replicas - updated < ((previous.replicas as number | undefined) ?? 0) - ((previous.updatedReplicas as number | undefined) ?? 0);
        const current = findCondition(conditions, 'Progressing');
        if (complete) {
          conditions = setCondition(conditions, { type: 'Progressing', status: 'True', reason: reasons.newReplicaSetAvailable, message: `ReplicaSet "${rsName}" has successfully progressed.` }, now);
        } else if (madeProgress || !current || current.reason === reasons.newReplicaSetAvailable) {
          // Progress refreshes lastUpdateTime (the deadline clock) while keeping lastTransitionTime.
          const base = conditions.filter((c) => c.type !== 'Progressing');
          const transition = current?.status === 'True' ? (current.lastTransitionTime ?? now) : now;
          const keepReason = current?.reason === reasons.newReplicaSetCreated || current?.reason === reasons.foundNewReplicaSet;
          const reason = keepReason && !madeProgress ? current!.reason! : reasons.replicaSetUpdated;
          const message = reason === reasons.replicaSetUpdated ? `ReplicaSet "${rsName}" is progressing.` : current!.message!;
          conditions = [...base, { type: 'Progressing', status: 'True', lastUpdateTime: now, lastTransitionTime: transition, reason, message }];
        } else if (current?.status === 'True') {
          const deadlineMs = (d.spec?.progressDeadlineSeconds ?? 600) * 1000;
          const since = Date.parse(current.lastUpdateTime ?? '') || Date.now();
          if (since + deadlineMs <= Date.now()) {
            conditions = setCondition(conditions, { type: 'Progressing', status: 'False', reason: reasons.progressDeadlineExceeded, message: `ReplicaSet "${rsName}" has timed out progressing.` }, now);
          } else requeueAfterMs = since + deadlineMs - Date.now() + 100;
        }
      }

      const status: JsonObject = {
        observedGeneration: generation,
        replicas,
        updatedReplicas: updated,
        readyReplicas: ready,
        availableReplicas: available,
        unavailableReplicas: Math.max(0, desired - available),
        conditions,
      };
      if (collisionCount !== undefined) status.collisionCount = collisionCount;
      for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) if (status[k] === 0) delete status[k];
      if (!goEqual(status, previous)) {
        const next = deepCopy(d);
        next.status = status;
        await client.updateStatus(deploymentsGVR, next, { namespace: d.metadata?.namespace });
      }
      return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
    };

    const controller = new Controller<string>({ name: 'deployment', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
    const enqueue = (d: Deployment) => controller.enqueue(formatObjectKey({ cluster: clusterOf(d), namespace: d.metadata?.namespace ?? '', name: d.metadata?.name ?? '' }));
    const enqueueOwner = (rs: ReplicaSet) => {
      const ref = controllerOf(rs);
      if (ref?.kind === 'Deployment') controller.enqueue(formatObjectKey({ cluster: clusterOf(rs), namespace: rs.metadata?.namespace ?? '', name: String(ref.name) }));
      else if (ref === undefined && !rs.metadata?.deletionTimestamp) {
        // An orphan: every Deployment of its namespace whose selector matches it may adopt it (upstream's
        // getDeploymentsForReplicaSet).
        const labels = rs.metadata?.labels ?? {};
        for (const d of dInformer.lister.list()) {
          if (d.metadata?.namespace !== rs.metadata?.namespace || clusterOf(d) !== clusterOf(rs) || !d.spec?.selector) continue;
          if (fromLabelSelector(d.spec.selector).matches(labels)) enqueue(d);
        }
      }
    };
    dInformer.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
    rsInformer.addEventHandler({ add: enqueueOwner, update: (_o, n) => enqueueOwner(n), delete: enqueueOwner });
    return { name: 'deployment', start: () => controller.start(), stop: () => controller.stop() };
  },
};
