/**
 * The ttl-after-finished controller (pkg/controller/ttlafterfinished): a finished Job (Complete or Failed) with
 * spec.ttlSecondsAfterFinished is deleted, with its pods (Foreground), that many seconds after it finished (the
 * finished condition's lastTransitionTime). The Job is re-read before deleting, and the delete carries its
 * resourceVersion, so a Job whose TTL was changed meanwhile is not deleted by mistake.
 *
 * lastTransitionTime has whole seconds: a Job that finished at 12:00:00.990 says 12:00:00Z. Counting the TTL from
 * that stamp (as upstream does) deletes the Job up to a second early — with ttlSecondsAfterFinished: 1, often within
 * milliseconds of finishing, before any client could see it Complete. The TTL is counted from the end of the stamp's
 * second instead, so a Job always lives at least its TTL after it really finished (and at most a second more).
 */
import { stampUncertaintyMs } from '../../../apimachinery/object.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { jobsGVR } from '../workload-gvrs.js';
import { type Job, finishedCondition } from './accounting.js';

/** Milliseconds until the Job should be deleted (≤ 0: now), or undefined when it has no TTL or has not finished. */
export function ttlRemaining(job: Job, now: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  const finished = finishedCondition(job);
  if (ttl === undefined || ttl === null || !finished || job.metadata?.deletionTimestamp) return undefined;
  const stamp = finished.lastTransitionTime ?? '';
  const at = Date.parse(stamp);
  if (!Number.isFinite(at)) return undefined;
  // Counted from the latest instant the stamp can stand for; with a TTL of 0 the Job, finished, may go at once.
  return at + (ttl > 0 ? stampUncertaintyMs(stamp) : 0) + ttl * 1000 - now;
}


export const ttlAfterFinishedInstaller: ControllerInstaller = {
  name: 'ttl-after-finished',
  install(ctx: ControllerContext): RunningController {
    const { client } = ctx;
    const jobs = ctx.informers.informerFor<Job>(jobsGVR);
    const reconcile = async (key: string): Promise<ReconcileResult | void> => {
      const cached = jobs.lister.get(key);
      if (!cached) return;
      const remaining = ttlRemaining(cached, Date.now());
      if (remaining === undefined) return;
      if (remaining > 0) return { requeueAfterMs: remaining };
      const { namespace, name } = parseObjectKey(key);
      let fresh: Job;
      try {
        fresh = await client.get<Job>(jobsGVR, name, { namespace });
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return;
        throw err;
      }
      const left = ttlRemaining(fresh, Date.now());
      if (left === undefined) return;
      if (left > 0) return { requeueAfterMs: left };
      try {
        await client.delete(jobsGVR, name, { namespace }, { propagationPolicy: 'Foreground', preconditions: { resourceVersion: fresh.metadata?.resourceVersion } });
      } catch (err) {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      }
    };
    const controller = new Controller<string>({ name: 'ttl-after-finished', reconcile, rateLimiter: { baseDelayMs: 100, maxDelayMs: 10_000 } });
    const enqueue = (j: Job) => {
      if (j.spec?.ttlSecondsAfterFinished !== undefined) controller.enqueue(formatObjectKey({ cluster: clusterOf(j), namespace: j.metadata?.namespace ?? '', name: j.metadata?.name ?? '' }));
    };
    jobs.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n) });
    return { name: 'ttl-after-finished', start: () => controller.start(), stop: () => controller.stop() };
  },
};
