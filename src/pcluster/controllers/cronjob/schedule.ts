/**
 * The time arithmetic of the CronJob controller (pkg/controller/cronjob/utils.go, v2), as pure functions over a
 * parsed schedule (src/registry/builtin/workloads/cron.ts): the most recent unmet schedule time, when to look next,
 * the Job a scheduled time makes (named `<cronjob>-<minutes since the epoch>`, with the scheduled-timestamp
 * annotation), which finished Jobs the history limits remove; and SimClock, the optionally sped-up clock
 * (`--cronjob-time-scale`) CronJobs are scheduled by in the simulated cluster.
 */
import { type JsonObject, type KubeObject, deepCopy, isPlainObject } from '../../../apimachinery/object.js';
import { type CronSchedule, wallTime } from '../../../registry/builtin/workloads/cron.js';
import { controllerRef } from '../owner-references.js';

export const scheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

export interface CronJob extends KubeObject {
  spec?: JsonObject & {
    schedule?: string;
    timeZone?: string;
    startingDeadlineSeconds?: number;
    concurrencyPolicy?: string;
    suspend?: boolean;
    jobTemplate?: JsonObject;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
  };
  status?: JsonObject & { active?: JsonObject[]; lastScheduleTime?: string; lastSuccessfulTime?: string };
}

export type Missed = 'none' | 'few' | 'many';

/**
 * A clock running `scale` times faster than real time from `origin` (real ms): CronJobs see simulated time, so a
 * `* * * * *` schedule fires every 60/scale real seconds. scale 1 is the real clock.
 */
export class SimClock {
  constructor(
    readonly scale = 1,
    readonly origin = Date.now(),
  ) {}

  /** Simulated ms for a real time (ms). */
  toSim(real: number): number {
    return this.scale === 1 ? real : this.origin + (real - this.origin) * this.scale;
  }

  /** A simulated duration as real ms. */
  realDuration(simMs: number): number {
    return simMs / this.scale;
  }

  now(): number {
    return this.toSim(Date.now());
  }
}

/**
 * mostRecentScheduleTime: from the later of creation (or lastScheduleTime) and, with `includeDeadline`, now minus
 * startingDeadlineSeconds, the latest schedule time not after `now` (undefined if none is due), and whether
 * several or very many (over 100) were missed. Throws when two schedule times are less than a second apart.
 */
export function mostRecentScheduleTime(
  cj: CronJob,
  now: number,
  schedule: CronSchedule,
  includeDeadline: boolean,
  createdAt: number,
): { earliest: number; mostRecent?: number; missed: Missed } {
  let earliest = cj.status?.lastScheduleTime ? Date.parse(cj.status.lastScheduleTime) : createdAt;
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (includeDeadline && deadline !== undefined && deadline !== null) earliest = Math.max(earliest, now - deadline * 1000);
  const t1 = schedule.next(new Date(earliest))?.getTime();
  if (t1 === undefined || now < t1) return { earliest, missed: 'none' };
  const t2 = schedule.next(new Date(t1))?.getTime();
  if (t2 === undefined || now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error('time difference between two schedules is less than 1 second');
  const elapsed = Math.floor((now - t1) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  let mostRecent: number | undefined;
  const potentialEarliest = t1 + (missedCount - 2) * between * 1000;
  for (let t = schedule.next(new Date(potentialEarliest))?.getTime(); t !== undefined && t <= now; t = schedule.next(new Date(t))?.getTime()) mostRecent = t;
  const missed: Missed = missedCount > 100 ? 'many' : missedCount > 1 ? 'few' : 'none';
  return { earliest, mostRecent, missed };
}

/** nextScheduleTimeDuration: ms (in the CronJob's clock) until the next schedule time, plus 100 ms. */
export function untilNextSchedule(cj: CronJob, now: number, schedule: CronSchedule, createdAt: number): number | undefined {
  let r: ReturnType<typeof mostRecentScheduleTime>;
  try {
    r = mostRecentScheduleTime(cj, now, schedule, false, createdAt);
  } catch {
    return undefined;
  }
  const from = r.mostRecent ?? (r.missed === 'none' ? r.earliest : now);
  const next = schedule.next(new Date(from))?.getTime();
  return next === undefined ? undefined : next + 100 - now;
}

/** getJobName: `<cronjob>-<scheduled time in minutes since the epoch>`. */
export function jobNameFor(cronJobName: string, scheduled: number): string {
  return `${cronJobName}-${Math.floor(scheduled / 60_000)}`;
}

/** RFC 3339 in a time zone, with its offset (`2025-01-02T09:00:00+01:00`; `Z` in UTC), as Go's time.Format does. */
export function formatInZone(instant: number, zone: string): string {
  const wall = wallTime(instant, zone);
  const offsetMin = Math.round((wall - instant) / 60_000);
  const base = new Date(Math.floor(wall / 1000) * 1000).toISOString().slice(0, 19);
  if (offsetMin === 0) return `${base}Z`;
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${base}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** getJobFromTemplate2: the Job for one scheduled time. */
export function jobFromTemplate(cj: CronJob, scheduled: number, zone: string): KubeObject {
  const template = isPlainObject(cj.spec?.jobTemplate) ? cj.spec!.jobTemplate : {};
  const meta = isPlainObject(template.metadata) ? template.metadata : {};
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cj.metadata?.name ?? '', scheduled),
      namespace: cj.metadata?.namespace,
      labels: { ...((meta.labels as Record<string, string> | undefined) ?? {}) },
      annotations: { ...((meta.annotations as Record<string, string> | undefined) ?? {}), [scheduledTimestampAnnotation]: formatInZone(scheduled, zone) },
      ownerReferences: [controllerRef(cj, 'batch/v1', 'CronJob')],
    },
    spec: deepCopy(template.spec ?? {}),
  };
}

/** The finished condition type of a Job (Complete or Failed), if it finished. */
export function jobFinishedType(job: KubeObject): 'Complete' | 'Failed' | undefined {
  const conditions = (isPlainObject(job.status) && Array.isArray(job.status.conditions) ? job.status.conditions : []) as JsonObject[];
  const c = conditions.find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c ? (c.type as 'Complete' | 'Failed') : undefined;
}

/** removeOldestJobs: the Jobs beyond `limit`, oldest start first (Jobs that never started last, then by name). */
export function jobsBeyondLimit(jobs: KubeObject[], limit: number): KubeObject[] {
  const n = jobs.length - limit;
  if (n <= 0) return [];
  const start = (j: KubeObject) => (isPlainObject(j.status) && typeof j.status.startTime === 'string' ? Date.parse(j.status.startTime) : undefined);
  const sorted = [...jobs].sort((a, b) => {
    const sa = start(a);
    const sb = start(b);
    if (sa === undefined && sb !== undefined) return 1;
    if (sa !== undefined && sb === undefined) return -1;
    if (sa === sb) return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
    return sa! - sb!;
  });
  return sorted.slice(0, n);
}
