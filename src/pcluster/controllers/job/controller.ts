/**
 * The Job controller (pkg/controller/job, 1.32): runs a Job's pods — `parallelism` at a time until `completions`
 * succeed (NonIndexed), or one per completion index (Indexed: the job-completion-index annotation and label, the
 * JOB_COMPLETION_INDEX variable, hostname `<job>-<index>`) — each with the `batch.kubernetes.io/job-tracking`
 * finalizer, so no finished pod is lost before it is counted: finished pods go to status.uncountedTerminatedPods,
 * their finalizer is removed, then they move to succeeded/failed. Failures back off (10 s doubling by default) and
 * past backoffLimit (or, with restartPolicy OnFailure, that many container restarts) or activeDeadlineSeconds the
 * Job gets FailureTarget, its pods are deleted, then Failed (BackoffLimitExceeded, DeadlineExceeded); enough
 * successes give SuccessCriteriaMet, then Complete with completionTime. suspend deletes the active pods (Suspended
 * condition); resuming restarts startTime. Orphaned pods (their Job gone) lose the finalizer.
 * The bookkeeping is in accounting.ts.
 */
import { deepCopy, formatRFC3339, goEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { Expectations } from '../expectations.js';
import { podsGVR } from '../gvrs.js';
import { claimObjects } from '../claim-objects.js';
import { controllerOf, controllerRef, isControlledBy } from '../owner-references.js';
import { deletionOrder } from '../replicaset-controller.js';
import { jobsGVR } from '../workload-gvrs.js';
import {
  type Job,
  type JobCondition,
  activeDeadlineRemaining,
  classifyPods,
  completionIndexAnnotation,
  completionIndexOf,
  duplicateIndexPods,
  ensureCondition,
  failureBackoffRemaining,
  failureReason,
  finishedCondition,
  firstPendingIndexes,
  formatIndexes,
  hasTrackingFinalizer,
  isComplete,
  isIndexed,
  jobTrackingFinalizer,
  parseIndexes,
  wantActive,
} from './accounting.js';

export interface JobControllerOptions {
  /** The first pod-failure backoff, doubled per further failure (default 10 s, as upstream). */
  podFailureBackoffMs?: number;
  /** The longest backoff (default 6 minutes). */
  maxPodFailureBackoffMs?: number;
}

/** At most this many pods are created or deleted per sync (MaxPodCreateDeletePerSync). */
const maxPodCreateDeletePerSync = 500;
const orphanPrefix = 'orphan#';

/** The pod a Job creates (for a completion index, when Indexed). */
export function podForJob(job: Job, index: number | undefined): KubeObject {
  const template = deepCopy(job.spec?.template ?? {});
  const meta = (template.metadata ?? {}) as JsonObject;
  const spec = (template.spec ?? {}) as JsonObject;
  const labels = { ...((meta.labels as Record<string, string> | undefined) ?? {}) };
  const annotations = { ...((meta.annotations as Record<string, string> | undefined) ?? {}) };
  let generateName = `${job.metadata?.name}-`;
  if (index !== undefined) {
    annotations[completionIndexAnnotation] = String(index);
    labels[completionIndexAnnotation] = String(index);
    if (!spec.hostname) spec.hostname = `${job.metadata?.name}-${index}`;
    generateName = `${job.metadata?.name}-${index}-`;
    for (const key of ['initContainers', 'containers']) {
      for (const c of (Array.isArray(spec[key]) ? spec[key] : []) as JsonObject[]) {
        const env = (Array.isArray(c.env) ? c.env : []) as JsonObject[];
        if (!env.some((e) => e.name === 'JOB_COMPLETION_INDEX')) {
          c.env = [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${completionIndexAnnotation}']` } } }];
        }
      }
    }
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName,
      namespace: job.metadata?.namespace,
      labels,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      finalizers: [...new Set([...((meta.finalizers as string[] | undefined) ?? []), jobTrackingFinalizer])],
      ownerReferences: [controllerRef(job, 'batch/v1', 'Job')],
    },
    spec,
  };
}

export function jobControllerInstaller(opts: JobControllerOptions = {}): ControllerInstaller {
  const backoffBase = opts.podFailureBackoffMs ?? 10_000;
  const backoffMax = opts.maxPodFailureBackoffMs ?? 360_000;
  return {
    name: 'job',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const jobs = ctx.informers.informerFor<Job>(jobsGVR);
      const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
      const expectations = new Expectations();
      /** Pods whose finalizer we removed but the cache still shows (uid → job key): not counted twice. */
      const removing = new Map<string, string>();
      /** The resourceVersion of our last status write per Job: an older cached Job is not acted on. */
      const written = new Map<string, number>();
      const recorder = new EventRecorder(client, 'job-controller');

      const event = (job: Job, type: 'Normal' | 'Warning', reason: string, message: string) =>
        void recorder.record(clusterOf(job), { apiVersion: 'batch/v1', kind: 'Job', namespace: job.metadata?.namespace, name: job.metadata?.name ?? '', uid: job.metadata?.uid }, type, reason, message);

      /** Removes the tracking finalizer; true when done (or the pod is gone). */
      const release = async (pod: KubeObject, jobKey: string): Promise<boolean> => {
        const finalizers = (pod.metadata?.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer);
        try {
          await client.patch(podsGVR, pod.metadata?.name ?? '', 'merge', { metadata: { resourceVersion: pod.metadata?.resourceVersion, finalizers: finalizers.length ? finalizers : null } }, { namespace: pod.metadata?.namespace });
          removing.set(pod.metadata?.uid ?? '', jobKey);
          return true;
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return true;
          if (err instanceof StatusError && err.code === 409) return false;
          throw err;
        }
      };

      /** deleteJobPods: removes the finalizer (not counted as failures), then deletes. */
      const deletePods = async (job: Job, key: string, victims: KubeObject[], keepFinalizer: boolean): Promise<number> => {
        if (victims.length === 0) return 0;
        expectations.expect(key, 0, victims.length);
        let deleted = 0;
        for (const pod of victims) {
          try {
            if (!keepFinalizer && hasTrackingFinalizer(pod) && !(await release(pod, key))) {
              expectations.lowerExpectations(key, 0, 1);
              continue;
            }
            await client.delete(podsGVR, pod.metadata?.name ?? '', { namespace: pod.metadata?.namespace }, { preconditions: { uid: pod.metadata?.uid } });
            deleted++;
            event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name}`);
          } catch (err) {
            expectations.lowerExpectations(key, 0, 1);
            if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
          }
        }
        return deleted;
      };

      const reconcileOrphan = async (podKey: string): Promise<void> => {
        const pod = pods.lister.get(podKey);
        if (!pod || !hasTrackingFinalizer(pod)) return;
        const ref = controllerOf(pod);
        if (ref && ref.kind === 'Job') {
          try {
            const job = await client.get<Job>(jobsGVR, String(ref.name), { namespace: pod.metadata?.namespace });
            if (job.metadata?.uid === ref.uid && !finishedCondition(job) && !job.metadata?.deletionTimestamp) return;
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 404)) throw err;
          }
        }
        await release(pod, '');
      };

      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        if (key.startsWith(orphanPrefix)) return reconcileOrphan(key.slice(orphanPrefix.length));
        const job = jobs.lister.get(key);
        if (!job) {
          expectations.forget(key);
          written.delete(key);
          return;
        }
        if (Number(job.metadata?.resourceVersion ?? 0) < (written.get(key) ?? 0)) return { requeueAfterMs: 100 };
        const { namespace } = parseObjectKey(key);
        const selector = fromLabelSelector(job.spec?.selector as LabelSelectorSpec | undefined);
        // getPodsForJob: the namespace's pods claimed by the Job (matching orphans adopted with the tracking
        // finalizer, its own that stopped matching released), unless it is finished or being deleted.
        const inNamespace = pods.lister.list().filter((p) => p.metadata?.namespace === namespace && clusterOf(p) === clusterOf(job));
        const claimable = finishedCondition(job) || job.metadata?.deletionTimestamp
          ? inNamespace.filter((p) => isControlledBy(p, job.metadata?.uid) && selector.matches(p.metadata?.labels ?? {}))
          : await claimObjects({ client, gvr: podsGVR, controllerGVR: jobsGVR, apiVersion: 'batch/v1', kind: 'Job', finalizer: jobTrackingFinalizer }, job, selector, inNamespace);
        const owned = claimable
          .map((p) => (removing.has(p.metadata?.uid ?? '') && hasTrackingFinalizer(p) ? { ...p, metadata: { ...p.metadata, finalizers: (p.metadata?.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer) } } : p));

        if (finishedCondition(job) || job.metadata?.deletionTimestamp) {
          // A finished (or deleted) Job keeps no pod from going away.
          for (const pod of owned) if (hasTrackingFinalizer(pod)) await release(pod, key);
          return;
        }

        const now = Date.now();
        const status: JsonObject & Job['status'] = deepCopy(job.status ?? {});
        const conditions: JobCondition[] = [...((status.conditions as JobCondition[] | undefined) ?? [])];
        const suspended = job.spec?.suspend === true;
        if (!status.startTime && !suspended) status.startTime = formatRFC3339(now);
        const probe: Job = { ...job, status };
        const condTrue = (type: string) => conditions.find((c) => c.type === type && c.status === 'True');
        const successMet = condTrue('SuccessCriteriaMet');
        let failureTarget = condTrue('FailureTarget');

        const countFailed = (c: ReturnType<typeof classifyPods>) => (status.failed ?? 0) + (status.uncountedTerminatedPods?.failed?.length ?? 0) + c.newFailed.length;
        let classes = classifyPods(probe, owned, Boolean(failureTarget));
        let requeueAfterMs: number | undefined;
        let newFailure: { reason: string; message: string } | undefined;
        if (!successMet && !failureTarget) {
          newFailure = failureReason(probe, countFailed(classes), owned, now);
          if (newFailure) classes = classifyPods(probe, owned, true);
          else {
            const remaining = activeDeadlineRemaining(probe, now);
            if (remaining !== undefined) requeueAfterMs = remaining;
          }
        }
        const completed = new Set([...parseIndexes(status.completedIndexes), ...classes.newSucceededIndexes]);
        const uncounted = {
          succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? []), ...classes.newSucceeded],
          failed: [...(status.uncountedTerminatedPods?.failed ?? []), ...classes.newFailed],
        };
        const succeededNow = () => (isIndexed(job) ? completed.size : (status.succeeded ?? 0) + uncounted.succeeded.length);

        let active = classes.active.length;
        let terminating = classes.terminating;
        let ready = classes.ready;
        let newSuccess = false;
        if (failureTarget || newFailure) {
          const deleted = await deletePods(job, key, classes.active, true);
          active -= deleted;
          terminating += deleted;
          ready = 0;
        } else if (!successMet) {
          let managed = false;
          if (expectations.satisfied(key)) {
            managed = true;
            const r = await manage(job, key, classes.active, owned, classes.terminating, succeededNow(), completed, now);
            active = r.active;
            terminating += r.removed;
            if (r.removed) ready = Math.max(0, ready - r.removed);
            if (r.requeueAfterMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, r.requeueAfterMs);
          }
          if (isComplete(job, succeededNow(), active)) newSuccess = true;
          else if (managed) {
            if (suspended) {
              if (ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) event(job, 'Normal', 'Suspended', 'Job suspended');
            } else if (ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
              event(job, 'Normal', 'Resumed', 'Job resumed');
              status.startTime = formatRFC3339(now);
            }
          }
        }

        // The pod counts go with every write, the first included: a pod recorded as finished is no longer active.
        status.active = active;
        status.ready = ready;
        status.terminating = terminating;
        const zeroCountersDropped = (s: JsonObject): JsonObject => {
          for (const k of ['active', 'succeeded', 'failed']) if (s[k] === 0) delete s[k];
          return s;
        };

        let latest = job;
        // 1. Record newly finished pods before their finalizers go, so that none is lost or counted twice — and a new
        //    failure's interim FailureTarget with them, as upstream does: once the finalizers go, the pods that made
        //    the Job fail may be gone (their restarts under OnFailure no longer to be seen), and the Job must not
        //    forget that it failed and start new pods.
        if (newFailure && ensureCondition(conditions, 'FailureTarget', 'True', newFailure.reason, newFailure.message, Date.now())) {
          failureTarget = conditions.find((c) => c.type === 'FailureTarget');
        }
        if (classes.newSucceeded.length + classes.newFailed.length > 0 || newFailure) {
          status.uncountedTerminatedPods = { ...(uncounted.succeeded.length ? { succeeded: uncounted.succeeded } : {}), ...(uncounted.failed.length ? { failed: uncounted.failed } : {}) };
          latest = await writeStatus(latest, key, zeroCountersDropped({ ...status, ...(conditions.length ? { conditions } : {}) }));
        }
        // 2. Remove the finalizers of counted pods.
        const released = new Set<string>();
        for (const pod of classes.releasable) if (await release(pod, key)) released.add(pod.metadata?.uid ?? '');
        const present = new Set(owned.map((p) => p.metadata?.uid ?? ''));
        const flushable = (uid: string) => released.has(uid) || !present.has(uid) || !owned.find((p) => p.metadata?.uid === uid && hasTrackingFinalizer(p));
        // 3. Move them to the counters.
        const moved = { succeeded: uncounted.succeeded.filter(flushable), failed: uncounted.failed.filter(flushable) };
        if (!isIndexed(job)) status.succeeded = (status.succeeded ?? 0) + moved.succeeded.length;
        else {
          status.succeeded = completed.size;
          status.completedIndexes = formatIndexes(completed);
        }
        status.failed = (status.failed ?? 0) + moved.failed.length;
        const left = { succeeded: uncounted.succeeded.filter((u) => !moved.succeeded.includes(u)), failed: uncounted.failed.filter((u) => !moved.failed.includes(u)) };
        status.uncountedTerminatedPods = { ...(left.succeeded.length ? { succeeded: left.succeeded } : {}), ...(left.failed.length ? { failed: left.failed } : {}) };
        const allCounted = left.succeeded.length + left.failed.length === 0;

        // 4. Conditions: the interim one once everything is counted, the terminal one once no pod is left running.
        //    They are stamped now, as they are recorded, not with the time this sync began: recording the finished
        //    pods and removing their finalizers took round trips to the server (seconds on a loaded one), and the
        //    Job has finished only now. Stamped that much in the past, Complete or Failed made ttlSecondsAfterFinished
        //    count from before the Job finished, so a short TTL deleted it the moment it finished, before any client
        //    could see it Complete.
        const recordedAt = Date.now();
        let success = successMet;
        if (allCounted && newSuccess && ensureCondition(conditions, 'SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods', recordedAt)) {
          success = conditions.find((c) => c.type === 'SuccessCriteriaMet');
        }
        if (allCounted && terminating === 0 && active === 0) {
          if (failureTarget && ensureCondition(conditions, 'Failed', 'True', failureTarget.reason ?? '', failureTarget.message ?? '', recordedAt)) {
            event(job, 'Warning', failureTarget.reason ?? 'Failed', failureTarget.message ?? '');
          } else if (success && ensureCondition(conditions, 'Complete', 'True', success.reason ?? '', success.message ?? '', recordedAt)) {
            status.completionTime = formatRFC3339(recordedAt);
            event(job, 'Normal', 'Completed', 'Job completed');
          }
        }
        if (conditions.length) status.conditions = conditions;
        if (isIndexed(job) && !status.completedIndexes) status.completedIndexes = '';
        zeroCountersDropped(status);
        if (!goEqual(status, latest.status ?? {})) await writeStatus(latest, key, status);
        if (failureTarget || successMet || newSuccess) return terminating > 0 ? { requeueAfterMs: 500 } : undefined;
        return requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(0, requeueAfterMs) } : undefined;
      };

      /** Writes the Job's status and remembers the resourceVersion, so a stale cache is not acted on. */
      const writeStatus = async (job: Job, key: string, status: JsonObject): Promise<Job> => {
        const next = deepCopy(job);
        next.status = deepCopy(status);
        const out = await client.updateStatus(jobsGVR, next, { namespace: job.metadata?.namespace });
        written.set(key, Number(out.metadata?.resourceVersion ?? 0));
        return out;
      };

      /** manageJob: deletes surplus pods or creates missing ones (never both in one pass), honoring suspend and the failure backoff. */
      const manage = async (
        job: Job,
        key: string,
        active: KubeObject[],
        all: KubeObject[],
        terminatingPods: number,
        succeeded: number,
        completed: Set<number>,
        now: number,
      ): Promise<{ active: number; removed: number; requeueAfterMs?: number }> => {
        if (job.spec?.suspend) {
          const removed = await deletePods(job, key, [...active].sort(deletionOrder), false);
          return { active: active.length - removed, removed };
        }
        const want = wantActive(job, succeeded, active.length);
        const completions = job.spec?.completions ?? 0;
        const rmAtLeast = Math.max(0, active.length - want);
        let victims: KubeObject[] = isIndexed(job) ? duplicateIndexPods(active, completions, completed) : [];
        if (victims.length < rmAtLeast) {
          const rest = active.filter((p) => !victims.includes(p)).sort(deletionOrder);
          victims = [...victims, ...rest.slice(0, rmAtLeast - victims.length)];
        }
        victims = victims.slice(0, maxPodCreateDeletePerSync);
        if (victims.length) {
          const removed = await deletePods(job, key, victims, false);
          return { active: active.length - removed, removed };
        }
        // onlyReplaceFailedPods (podReplacementPolicy Failed, implied by a pod failure policy): a pod still being
        // deleted is replaced only once it has failed.
        const terminating = job.spec?.podReplacementPolicy === 'Failed' || job.spec?.podFailurePolicy ? terminatingPods : 0;
        let diff = Math.min(want - terminating - active.length, maxPodCreateDeletePerSync);
        if (diff <= 0) return { active: active.length, removed: 0 };
        const wait = failureBackoffRemaining(all, job, now, backoffBase, backoffMax);
        if (wait > 0) return { active: active.length, removed: 0, requeueAfterMs: wait };
        let indexes: (number | undefined)[] = Array.from({ length: diff }, () => undefined);
        if (isIndexed(job)) {
          indexes = firstPendingIndexes(completions, completed, active.map(completionIndexOf), diff);
          diff = indexes.length;
        }
        expectations.expect(key, diff, 0);
        const results = await Promise.allSettled(indexes.map((ix) => client.create(podsGVR, podForJob(job, ix), { namespace: job.metadata?.namespace })));
        const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        expectations.lowerExpectations(key, failed.length, 0);
        for (const r of results) if (r.status === 'fulfilled') event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata?.name}`);
        if (failed.length) {
          event(job, 'Warning', 'FailedCreate', `Error creating: ${(failed[0]!.reason as Error).message}`);
          throw failed[0]!.reason;
        }
        return { active: active.length + diff, removed: 0 };
      };

      const controller = new Controller<string>({ name: 'job', reconcile, workers: 2, rateLimiter: { baseDelayMs: 20, maxDelayMs: 5_000 } });
      const jobKeyOf = (j: KubeObject) => formatObjectKey({ cluster: clusterOf(j), namespace: j.metadata?.namespace ?? '', name: j.metadata?.name ?? '' });
      const ownerKey = (p: KubeObject): string | undefined => {
        const ref = controllerOf(p);
        return ref?.kind === 'Job' ? formatObjectKey({ cluster: clusterOf(p), namespace: p.metadata?.namespace ?? '', name: String(ref.name) }) : undefined;
      };
      /** A pod holding the finalizer for a Job that is gone (or another one of that name) is released. */
      const checkOrphan = (p: KubeObject, k: string | undefined) => {
        if (!hasTrackingFinalizer(p)) return;
        const job = k ? jobs.lister.get(k) : undefined;
        if (!job || job.metadata?.uid !== controllerOf(p)?.uid) controller.enqueue(orphanPrefix + jobKeyOf(p));
      };
      /** An orphan pod wakes every Job of its namespace whose selector matches it (getPodJobs): one may adopt it. */
      const enqueueMatchingJobs = (p: KubeObject) => {
        if (controllerOf(p)) return;
        for (const j of jobs.lister.list()) {
          if (j.metadata?.namespace !== p.metadata?.namespace || clusterOf(j) !== clusterOf(p)) continue;
          try {
            if (fromLabelSelector(j.spec?.selector as LabelSelectorSpec | undefined).matches(p.metadata?.labels ?? {})) controller.enqueue(jobKeyOf(j));
          } catch {
            // an invalid selector matches nothing
          }
        }
      };
      jobs.addEventHandler({ add: (j) => controller.enqueue(jobKeyOf(j)), update: (_o, n) => controller.enqueue(jobKeyOf(n)), delete: (j) => controller.enqueue(jobKeyOf(j)) });
      pods.addEventHandler({
        add(p) {
          const k = ownerKey(p);
          if (k) {
            expectations.observedAdd(k);
            controller.enqueue(k);
          }
          checkOrphan(p, k);
          enqueueMatchingJobs(p);
        },
        update(o, p) {
          if (!hasTrackingFinalizer(p)) removing.delete(p.metadata?.uid ?? '');
          const k = ownerKey(p);
          if (k) controller.enqueue(k);
          // Released by a relabelling: the Job it left counts again.
          const old = ownerKey(o);
          if (old && old !== k) controller.enqueue(old);
          checkOrphan(p, k);
          enqueueMatchingJobs(p);
        },
        delete(p) {
          removing.delete(p.metadata?.uid ?? '');
          const k = ownerKey(p);
          if (k) {
            expectations.observedDelete(k);
            controller.enqueue(k);
          }
        },
      });
      return { name: 'job', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}
