/**
 * Defaulting of batch/v1 Jobs and CronJobs, as SetObjectDefaults_Job / SetObjectDefaults_CronJob (pkg/apis/batch/v1)
 * fill omitted fields in on every write (JobPodReplacementPolicy is on in 1.32), and the selector and labels the Job
 * strategy's PrepareForCreate generates.
 */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { defaultPodTemplate } from './defaults.js';
import { isSet, objectAt } from './kinds-common.js';

export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';

const MAX_INT32 = 2147483647;

/**
 * SetDefaults_Job: completions and parallelism 1 when both are unset (parallelism 1 otherwise), backoffLimit 6
 * (MaxInt32 with backoffLimitPerIndex), the template's labels as the Job's when it has none, NonIndexed, not
 * suspended, pod-condition patterns matching True, podReplacementPolicy Failed with a podFailurePolicy and
 * TerminatingOrFailed without, manualSelector false; plus the pod template's defaults.
 *
 * Upstream defaults again whenever it decodes the stored object, so a Job created without labels shows its
 * template's labels including the generated ones: run this after generateJobSelector on create.
 */
export function defaultJob(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  defaultJobSpecFields(spec);
  const meta = objectAt(obj, 'metadata');
  const templateMeta = isPlainObject(spec.template) && isPlainObject(spec.template.metadata) ? spec.template.metadata : undefined;
  if (templateMeta && isPlainObject(templateMeta.labels) && (!isPlainObject(meta.labels) || Object.keys(meta.labels).length === 0)) {
    meta.labels = { ...templateMeta.labels };
  }
  defaultPodTemplate(objectAt(spec, 'template'));
}

function defaultJobSpecFields(spec: JsonObject): void {
  if (!isSet(spec.completions) && !isSet(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (!isSet(spec.parallelism)) spec.parallelism = 1;
  if (!isSet(spec.backoffLimit)) spec.backoffLimit = isSet(spec.backoffLimitPerIndex) ? MAX_INT32 : 6;
  if (!isSet(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (!isSet(spec.suspend)) spec.suspend = false;
  if (isPlainObject(spec.podFailurePolicy) && Array.isArray(spec.podFailurePolicy.rules)) {
    for (const rule of spec.podFailurePolicy.rules) {
      if (!isPlainObject(rule) || !Array.isArray(rule.onPodConditions)) continue;
      for (const pattern of rule.onPodConditions) if (isPlainObject(pattern) && !pattern.status) pattern.status = 'True';
    }
  }
  if (!isSet(spec.podReplacementPolicy)) spec.podReplacementPolicy = isSet(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (!isSet(spec.manualSelector)) spec.manualSelector = false;
}

/**
 * generateSelector (job strategy PrepareForCreate, unless manualSelector): the job-name and controller-uid labels,
 * legacy and prefixed, on the pod template where not already set, and a selector on the prefixed controller-uid.
 */
export function generateJobSelector(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (spec.manualSelector === true) return;
  const meta = objectAt(obj, 'metadata');
  const name = typeof meta.name === 'string' ? meta.name : '';
  const uid = typeof meta.uid === 'string' ? meta.uid : '';
  const labels = objectAt(objectAt(objectAt(spec, 'template'), 'metadata'), 'labels');
  for (const [key, value] of [
    [LEGACY_JOB_NAME_LABEL, name],
    [JOB_NAME_LABEL, name],
    [LEGACY_CONTROLLER_UID_LABEL, uid],
    [CONTROLLER_UID_LABEL, uid],
  ] as const) {
    if (labels[key] === undefined) labels[key] = value;
  }
  const matchLabels = objectAt(objectAt(spec, 'selector'), 'matchLabels');
  if (matchLabels[CONTROLLER_UID_LABEL] === undefined) matchLabels[CONTROLLER_UID_LABEL] = uid;
}

/**
 * SetDefaults_CronJob: concurrencyPolicy Allow, not suspended, 3 successful and 1 failed jobs kept; the job
 * template's pod template gets the pod defaults (its JobSpec is not defaulted: SetDefaults_Job applies to Jobs).
 */
export function defaultCronJob(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (!isSet(spec.suspend)) spec.suspend = false;
  if (!isSet(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (!isSet(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  defaultPodTemplate(objectAt(objectAt(objectAt(spec, 'jobTemplate'), 'spec'), 'template'));
}
