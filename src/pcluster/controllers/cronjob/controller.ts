/**
 * The CronJob controller (pkg/controller/cronjob, v2): at each time its schedule names (cron.ts; in spec.timeZone,
 * UTC by default), a CronJob creates a Job from jobTemplate named `<cronjob>-<minutes since the epoch>` with a
 * controller reference and the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation, unless suspended, too
 * late (startingDeadlineSeconds) or, with concurrencyPolicy Forbid, a Job is still running (Replace deletes the
 * running ones first). status.active lists its unfinished Jobs, lastScheduleTime the latest schedule time acted on,
 * lastSuccessfulTime the latest completion; finished Jobs beyond successful/failedJobsHistoryLimit are deleted,
 * oldest first.
 *
 * Time is the cluster's CronJob clock (schedule.ts SimClock): real time, or faster with --cronjob-time-scale;
 * creation times, lastScheduleTime and the scheduled-timestamp annotation are all in that clock.
 */
import { deepCopy, formatRFC3339, goEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { StatusError } from '../../../apimachinery/status.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { type CronSchedule, isKnownTimeZone, parseCronSchedule } from '../../../registry/builtin/workloads/cron.js';
import { controllerOf, isControlledBy } from '../owner-references.js';
import { cronJobsGVR, jobsGVR } from '../workload-gvrs.js';
import { type CronJob, SimClock, jobFinishedType, jobFromTemplate, jobNameFor, jobsBeyondLimit, mostRecentScheduleTime, untilNextSchedule } from './schedule.js';

export interface CronJobControllerOptions {
  /** Simulated seconds per real second for CronJob schedules (default 1). */
  timeScale?: number;
}

const notFound = (err: unknown) => err instanceof StatusError && err.code === 404;

export function cronJobControllerInstaller(opts: CronJobControllerOptions = {}): ControllerInstaller {
  return {
    name: 'cronjob',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const clock = new SimClock(opts.timeScale ?? 1);
      const cronJobs = ctx.informers.informerFor<CronJob>(cronJobsGVR);
      const jobs = ctx.informers.informerFor<KubeObject>(jobsGVR);
      const recorder = new EventRecorder(client, 'cronjob-controller');
      const event = (cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string) =>
        void recorder.record(clusterOf(cj), { apiVersion: 'batch/v1', kind: 'CronJob', namespace: cj.metadata?.namespace, name: cj.metadata?.name ?? '', uid: cj.metadata?.uid }, type, reason, message);

      const deleteJob = async (cj: CronJob, job: KubeObject, status: JsonObject): Promise<boolean> => {
        try {
          await client.delete(jobsGVR, job.metadata?.name ?? '', { namespace: job.metadata?.namespace }, { propagationPolicy: 'Background' });
        } catch (err) {
          if (!notFound(err)) {
            event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(err as Error).message}`);
            return false;
          }
        }
        status.active = ((status.active as JsonObject[] | undefined) ?? []).filter((r) => r.uid !== job.metadata?.uid);
        event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name}`);
        return true;
      };

      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const cached = cronJobs.lister.get(key);
        if (!cached) return;
        const cj = deepCopy(cached);
        const { namespace } = parseObjectKey(key);
        const status: JsonObject & NonNullable<CronJob['status']> = deepCopy(cj.status ?? {});
        const owned = jobs.lister.list().filter((j) => j.metadata?.namespace === namespace && isControlledBy(j, cj.metadata?.uid));
        const activeRefs = () => (status.active ?? []) as JsonObject[];
        const inActive = (uid: string | undefined) => activeRefs().some((r) => r.uid === uid);
        const now = clock.now();
        let requeueAfterMs: number | undefined;

        const sync = async (): Promise<void> => {
          const children = new Set<string>();
          for (const j of owned) {
            children.add(j.metadata?.uid ?? '');
            const finished = jobFinishedType(j);
            // (An unfinished Job missing from status.active is left alone: usually our own, seen before our status write.)
            if (inActive(j.metadata?.uid) && finished) {
              status.active = activeRefs().filter((r) => r.uid !== j.metadata?.uid);
              event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata?.name}, condition: ${finished}`);
            }
            if (finished === 'Complete') {
              const completion = (j.status as JsonObject | undefined)?.completionTime as string | undefined;
              if (completion && (!status.lastSuccessfulTime || Date.parse(completion) > Date.parse(status.lastSuccessfulTime))) status.lastSuccessfulTime = completion;
            }
          }
          // Active Jobs that are gone (not just missing from a lagging cache) leave the list.
          for (const ref of [...activeRefs()]) {
            if (children.has(String(ref.uid))) continue;
            try {
              await client.get(jobsGVR, String(ref.name), { namespace });
            } catch (err) {
              if (!notFound(err)) throw err;
              event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
              status.active = activeRefs().filter((r) => r.uid !== ref.uid);
            }
          }
          if (cj.metadata?.deletionTimestamp) return;
          const zone = cj.spec?.timeZone ?? 'UTC';
          if (cj.spec?.timeZone && !isKnownTimeZone(cj.spec.timeZone)) {
            event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(cj.spec.timeZone)}`);
            return;
          }
          if (cj.spec?.suspend) return;
          let schedule: CronSchedule;
          try {
            schedule = parseCronSchedule(cj.spec?.schedule ?? '', zone);
          } catch (err) {
            event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(cj.spec?.schedule)} : ${(err as Error).message}`);
            return;
          }
          const createdAt = clock.toSim(Date.parse(cj.metadata?.creationTimestamp ?? '') || Date.now());
          const until = () => {
            const d = untilNextSchedule({ ...cj, status }, now, schedule, createdAt);
            if (d !== undefined) requeueAfterMs = clock.realDuration(Math.max(0, d));
          };
          let scheduled: number | undefined;
          try {
            const r = mostRecentScheduleTime({ ...cj, status }, now, schedule, true, createdAt);
            scheduled = r.mostRecent;
            if (r.missed === 'many') event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
          } catch (err) {
            event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${cj.spec?.schedule} : ${(err as Error).message}`);
            return;
          }
          if (scheduled === undefined) return until();
          const deadline = cj.spec?.startingDeadlineSeconds;
          if (deadline !== undefined && deadline !== null && scheduled + deadline * 1000 < now) {
            event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${new Date(scheduled).toUTCString().replace('GMT', '+0000')}`);
            return until();
          }
          const name = jobNameFor(cj.metadata?.name ?? '', scheduled);
          if (activeRefs().some((r) => r.name === name) || (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === scheduled)) return until();
          if (cj.spec?.concurrencyPolicy === 'Forbid' && activeRefs().length > 0) {
            event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
            return until();
          }
          if (cj.spec?.concurrencyPolicy === 'Replace') {
            for (const ref of [...activeRefs()]) {
              let job: KubeObject;
              try {
                job = await client.get(jobsGVR, String(ref.name), { namespace });
              } catch (err) {
                if (notFound(err)) continue;
                throw err;
              }
              if (!(await deleteJob(cj, job, status))) throw new Error(`could not replace job ${namespace}/${ref.name}`);
            }
          }
          let created: KubeObject;
          try {
            created = await client.create(jobsGVR, jobFromTemplate(cj, scheduled, schedule.timeZone), { namespace });
            event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name}`);
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 409)) {
              event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
              throw err;
            }
            created = await client.get(jobsGVR, name, { namespace });
            if (!isControlledBy(created, cj.metadata?.uid) || inActive(created.metadata?.uid)) return;
          }
          status.active = [
            ...activeRefs(),
            { kind: 'Job', namespace, name: created.metadata?.name, uid: created.metadata?.uid, apiVersion: 'batch/v1', resourceVersion: created.metadata?.resourceVersion },
          ];
          status.lastScheduleTime = formatRFC3339(scheduled);
          until();
        };
        await sync();

        // cleanupFinishedJobs: the history limits, oldest first.
        const finished = (type: string) => owned.filter((j) => jobFinishedType(j) === type);
        for (const [type, limit] of [
          ['Complete', cj.spec?.successfulJobsHistoryLimit],
          ['Failed', cj.spec?.failedJobsHistoryLimit],
        ] as const) {
          if (limit === undefined || limit === null) continue;
          for (const j of jobsBeyondLimit(finished(type), limit)) await deleteJob(cj, j, status);
        }
        if (Array.isArray(status.active) && status.active.length === 0) delete status.active;
        if (!goEqual(status, cached.status ?? {})) {
          const next = deepCopy(cached);
          next.status = status;
          await client.updateStatus(cronJobsGVR, next, { namespace });
        }
        return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
      };

      const controller = new Controller<string>({ name: 'cronjob', reconcile, workers: 2, rateLimiter: { baseDelayMs: 50, maxDelayMs: 10_000 } });
      const keyOf = (o: KubeObject) => formatObjectKey({ cluster: clusterOf(o), namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
      const enqueueOwner = (j: KubeObject) => {
        const ref = controllerOf(j);
        if (ref?.kind === 'CronJob') controller.enqueue(formatObjectKey({ cluster: clusterOf(j), namespace: j.metadata?.namespace ?? '', name: String(ref.name) }));
      };
      cronJobs.addEventHandler({ add: (c) => controller.enqueue(keyOf(c)), update: (_o, n) => controller.enqueue(keyOf(n)) });
      jobs.addEventHandler({ add: enqueueOwner, update: (_o, n) => enqueueOwner(n), delete: enqueueOwner });
      return { name: 'cronjob', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}
