/**
 * The bookkeeping of the Job controller (pkg/controller/job, 1.32: JobPodReplacementPolicy, JobSuccessPolicy and
 * PodIndexLabel on), as pure functions: which pods count as active, ready, terminating, newly succeeded or failed;
 * completed indexes; how many pods should be active; the failure backoff; when a Job has failed (backoffLimit,
 * restarts under OnFailure, activeDeadlineSeconds) or completed; and the conditions, set as ensureJobConditionStatus
 * does.
 */
import { type JsonObject, type KubeObject, formatRFC3339, isPlainObject } from '../../../apimachinery/object.js';
import { isPodReady } from '../pod-conditions.js';

export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';
export const completionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';

export interface JobCondition extends JsonObject {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  completionMode?: string;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
  ttlSecondsAfterFinished?: number;
  template?: JsonObject;
}

export interface Job extends KubeObject {
  spec?: JobSpec & JsonObject;
  status?: JsonObject & { conditions?: JobCondition[]; startTime?: string; succeeded?: number; failed?: number; completedIndexes?: string; uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] } };
}

const phaseOf = (p: KubeObject) => String((p.status as JsonObject | undefined)?.phase ?? '');

export function hasTrackingFinalizer(pod: KubeObject): boolean {
  return (pod.metadata?.finalizers ?? []).includes(jobTrackingFinalizer);
}

export function isIndexed(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed';
}

/** The Complete or Failed condition that is True, if the Job finished. */
export function finishedCondition(job: Job): JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** A pod's completion index from its annotation, or -1. */
export function completionIndexOf(pod: KubeObject): number {
  const v = pod.metadata?.annotations?.[completionIndexAnnotation];
  return v !== undefined && /^(0|[1-9][0-9]*)$/.test(v) ? Number(v) : -1;
}

/** `1,3-5,7` → [1, 3, 4, 5, 7]. */
export function parseIndexes(text: string | undefined): number[] {
  const out: number[] = [];
  for (const part of (text ?? '').split(',').filter(Boolean)) {
    const [a, b] = part.split('-').map(Number);
    for (let i = a!; i <= (b ?? a!); i++) out.push(i);
  }
  return out;
}

/** [1, 3, 4, 5, 7] → `1,3-5,7` (sorted, deduplicated). */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((x, y) => x - y);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * isPodFailed with podReplacementPolicy TerminatingOrFailed (and no podFailurePolicy): Failed, or deleted before it
 * succeeded (an orphan that will never reach a phase). With podReplacementPolicy Failed only the phase counts.
 */
export function isPodFailed(pod: KubeObject, job: Job): boolean {
  if (phaseOf(pod) === 'Failed') return true;
  // onlyReplaceFailedPods: a pod failure policy judges pods by their terminal status, so only the phase counts.
  if (job.spec?.podReplacementPolicy === 'Failed' || job.spec?.podFailurePolicy) return false;
  return Boolean(pod.metadata?.deletionTimestamp) && phaseOf(pod) !== 'Succeeded';
}

interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: { containerName?: string; operator?: string; values?: number[] };
  onPodConditions?: { type?: string; status?: string }[];
}

/**
 * matchPodFailurePolicy: the first rule of the Job's podFailurePolicy a failed pod matches decides whether the
 * failure counts towards backoffLimit (`Ignore` does not; `Count`, `FailIndex` — no backoffLimitPerIndex here — and no
 * match do) and whether it fails the whole Job (`FailJob`, with upstream's message). An exit-code rule looks at the
 * containers and then the init containers that terminated with a non-zero code; a condition rule at the pod's
 * conditions (DisruptionTarget for an evicted or preempted pod).
 */
export function matchPodFailurePolicy(job: Job, pod: KubeObject): { countFailed: boolean; failJobMessage?: string } {
  const policy = job.spec?.podFailurePolicy;
  const rules = isPlainObject(policy) && Array.isArray(policy.rules) ? (policy.rules as unknown[]).filter(isPlainObject) as PodFailurePolicyRule[] : [];
  const status = isPlainObject(pod.status) ? pod.status : {};
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  for (const [index, rule] of rules.entries()) {
    let failJobMessage: string | undefined;
    if (rule.onExitCodes) {
      const req = rule.onExitCodes;
      const matching = (key: string) =>
        (Array.isArray(status[key]) ? (status[key] as unknown[]).filter(isPlainObject) : []).find((cs) => {
          const term = isPlainObject(cs.state) && isPlainObject(cs.state.terminated) ? cs.state.terminated : undefined;
          if (!term || (req.containerName && req.containerName !== cs.name)) return false;
          const code = Number(term.exitCode ?? 0);
          if (code === 0) return false;
          const listed = (req.values ?? []).includes(code);
          return req.operator === 'In' ? listed : req.operator === 'NotIn' ? !listed : false;
        });
      const cs = matching('containerStatuses') ?? matching('initContainerStatuses');
      if (!cs) continue;
      failJobMessage = `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${(cs.state as { terminated: { exitCode: number } }).terminated.exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const patterns = rule.onPodConditions;
      const condition = (Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : []).find((c) => patterns.some((p) => p.type === c.type && p.status === c.status));
      if (!condition) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${condition.type} matching ${rule.action} rule at index ${index}`;
    } else continue;
    switch (rule.action) {
      case 'Ignore':
        return { countFailed: false };
      case 'FailJob':
        return { countFailed: true, failJobMessage };
      case 'Count':
      case 'FailIndex':
        return { countFailed: true };
    }
  }
  return { countFailed: true };
}

/** getFailJobMessage: the message of the first failed pod a FailJob rule matches, if any. */
export function podFailurePolicyFailure(job: Job, pods: KubeObject[]): string | undefined {
  if (!job.spec?.podFailurePolicy) return undefined;
  for (const pod of pods) {
    if (!isPodFailed(pod, job)) continue;
    const message = matchPodFailurePolicy(job, pod).failJobMessage;
    if (message !== undefined) return message;
  }
  return undefined;
}

export interface PodClasses {
  /** Not finished and not being deleted. */
  active: KubeObject[];
  ready: number;
  /** Being deleted, not finished. */
  terminating: number;
  /** Finished pods still holding the tracking finalizer, not yet counted: uids to add to uncountedTerminatedPods. */
  newSucceeded: string[];
  newFailed: string[];
  /** Indexed: indexes that newly succeeded. */
  newSucceededIndexes: number[];
  /** Pods whose finalizer may go now (counted, or about to be). */
  releasable: KubeObject[];
}

/**
 * Classifies the Job's pods. `failing` (the Job has a failure target) makes every unfinished pod with the finalizer
 * count as failed, as trackJobStatusAndRemoveFinalizers does.
 */
export function classifyPods(job: Job, pods: KubeObject[], failing: boolean): PodClasses {
  const uncounted = job.status?.uncountedTerminatedPods ?? {};
  const inSucceeded = new Set(uncounted.succeeded ?? []);
  const inFailed = new Set(uncounted.failed ?? []);
  const completed = new Set(parseIndexes(job.status?.completedIndexes));
  const completions = job.spec?.completions ?? 0;
  const out: PodClasses = { active: [], ready: 0, terminating: 0, newSucceeded: [], newFailed: [], newSucceededIndexes: [], releasable: [] };
  for (const pod of pods) {
    const phase = phaseOf(pod);
    const finished = phase === 'Succeeded' || phase === 'Failed';
    if (!finished && !pod.metadata?.deletionTimestamp) {
      out.active.push(pod);
      if (isPodReady(pod)) out.ready++;
    }
    if (!finished && pod.metadata?.deletionTimestamp) out.terminating++;
    const uid = pod.metadata?.uid ?? '';
    // Indexed: every succeeded pod's index counts (calculateSucceededIndexes), finalizer or not.
    if (phase === 'Succeeded' && isIndexed(job) && !inFailed.has(uid)) {
      const ix = completionIndexOf(pod);
      if (ix >= 0 && ix < completions && !completed.has(ix)) {
        completed.add(ix);
        out.newSucceededIndexes.push(ix);
      }
    }
    if (!hasTrackingFinalizer(pod)) continue;
    const failed = isPodFailed(pod, job);
    if (phase === 'Succeeded' && !inFailed.has(uid)) {
      out.releasable.push(pod);
      if (!isIndexed(job) && !inSucceeded.has(uid)) out.newSucceeded.push(uid);
    } else if (failed || (failing && !finished)) {
      out.releasable.push(pod);
      // A failure the pod failure policy ignores is released without being counted.
      if (!inFailed.has(uid) && (!job.spec?.podFailurePolicy || matchPodFailurePolicy(job, pod).countFailed)) out.newFailed.push(uid);
    }
  }
  return out;
}

/** How many pods should be active (manageJob's wantActive). */
export function wantActive(job: Job, succeeded: number, active: number): number {
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  if (completions === undefined || completions === null) return succeeded > 0 ? active : parallelism;
  return Math.max(0, Math.min(parallelism, completions - succeeded));
}

/** Whether the Job has succeeded: enough completions (or, without completions, any success) and nothing active. */
export function isComplete(job: Job, succeeded: number, active: number): boolean {
  const completions = job.spec?.completions;
  if (completions === undefined || completions === null) return succeeded > 0 && active === 0;
  return succeeded >= completions && active === 0;
}

/** firstPendingIndexes: the lowest `count` indexes below completions neither completed nor held by an active pod. */
export function firstPendingIndexes(completions: number, completed: Iterable<number>, activeIndexes: Iterable<number>, count: number): number[] {
  const taken = new Set([...completed, ...activeIndexes]);
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}

/**
 * Active pods to remove first for an Indexed Job (appendDuplicatedIndexPodsForRemoval): pods with an index out of
 * range or that another active pod (the one kept) already holds, or whose index is already completed.
 */
export function duplicateIndexPods(pods: KubeObject[], completions: number, completed: ReadonlySet<number>): KubeObject[] {
  const seen = new Set<number>();
  const out: KubeObject[] = [];
  for (const pod of [...pods].sort((a, b) => (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''))) {
    const ix = completionIndexOf(pod);
    if (ix < 0 || ix >= completions || seen.has(ix) || completed.has(ix)) out.push(pod);
    else seen.add(ix);
  }
  return out;
}

/** When a finished pod finished (its containers' latest finishedAt, else its deletion), in ms. */
export function podFinishTime(pod: KubeObject): number {
  const status = isPlainObject(pod.status) ? pod.status : {};
  let t = 0;
  for (const cs of Array.isArray(status.containerStatuses) ? status.containerStatuses.filter(isPlainObject) : []) {
    const term = isPlainObject(cs.state) && isPlainObject(cs.state.terminated) ? cs.state.terminated : undefined;
    t = Math.max(t, Date.parse(String(term?.finishedAt ?? '')) || 0);
  }
  return t || Date.parse(pod.metadata?.deletionTimestamp ?? '') || Date.parse(pod.metadata?.creationTimestamp ?? '') || 0;
}

/**
 * The pod-failure backoff before new pods may be created (backoffRecord.getRemainingTime): `base` doubled per
 * failure since the last success (at most `max`), counted from the last failure. 0 when nothing failed since.
 */
export function failureBackoffRemaining(pods: KubeObject[], job: Job, now: number, baseMs: number, maxMs: number): number {
  const finished = pods.filter((p) => phaseOf(p) === 'Succeeded' || isPodFailed(p, job)).sort((a, b) => podFinishTime(a) - podFinishTime(b));
  let failures = 0;
  let lastFailure = 0;
  for (const p of finished) {
    if (phaseOf(p) === 'Succeeded') {
      failures = 0;
      lastFailure = 0;
    } else {
      failures++;
      lastFailure = Math.max(lastFailure, podFinishTime(p));
    }
  }
  if (failures === 0) return 0;
  let backoff = baseMs;
  for (let i = 1; i < failures; i++) {
    backoff *= 2;
    if (backoff >= maxMs) {
      backoff = maxMs;
      break;
    }
  }
  return Math.max(0, backoff - (now - lastFailure));
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, container restarts of running pods count as failures. */
export function pastBackoffLimitOnFailure(job: Job, pods: KubeObject[]): boolean {
  const template = isPlainObject(job.spec?.template) ? job.spec!.template : {};
  if ((isPlainObject(template.spec) ? template.spec.restartPolicy : undefined) !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    if (!['Running', 'Pending'].includes(phaseOf(pod))) continue;
    const status = isPlainObject(pod.status) ? pod.status : {};
    for (const key of ['initContainerStatuses', 'containerStatuses']) {
      for (const cs of Array.isArray(status[key]) ? (status[key] as unknown[]).filter(isPlainObject) : []) restarts += Number(cs.restartCount ?? 0);
    }
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** pastActiveDeadline: active for at least activeDeadlineSeconds since startTime (never while suspended). */
export function activeDeadlineRemaining(job: Job, now: number): number | undefined {
  const deadline = job.spec?.activeDeadlineSeconds;
  const start = Date.parse(job.status?.startTime ?? '');
  if (deadline === undefined || deadline === null || job.spec?.suspend || !Number.isFinite(start)) return undefined;
  return start + deadline * 1000 - now;
}

/** The failure reason the Job has reached, if any (a FailJob rule first, then BackoffLimitExceeded, then DeadlineExceeded). */
export function failureReason(job: Job, failed: number, pods: KubeObject[], now: number): { reason: string; message: string } | undefined {
  const failJob = podFailurePolicyFailure(job, pods);
  if (failJob !== undefined) return { reason: 'PodFailurePolicy', message: failJob };
  if (failed > (job.spec?.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods)) return { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  const remaining = activeDeadlineRemaining(job, now);
  if (remaining !== undefined && remaining <= 0) return { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
  return undefined;
}

/** ensureJobConditionStatus: replaces a changed condition, appends a new non-False one; returns whether it changed. */
export function ensureCondition(conditions: JobCondition[], type: string, status: string, reason: string, message: string, now: number): boolean {
  const time = formatRFC3339(now);
  const fresh: JobCondition = { type, status, lastProbeTime: time, lastTransitionTime: time, reason, message };
  const i = conditions.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = conditions[i]!;
    if (c.status === status && c.reason === reason && c.message === message) return false;
    conditions[i] = fresh;
    return true;
  }
  if (status === 'False') return false;
  conditions.push(fresh);
  return true;
}
