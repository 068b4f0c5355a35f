/**
 * Validation of batch/v1 Jobs and CronJobs, with the field paths and texts of pkg/apis/batch/validation (1.32):
 * the generated selector and labels, counters, completion modes, pod failure and success policies, the restart
 * policy, immutable fields on update, and CronJob schedules, time zones and job templates.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { isDNS1123Label, isQualifiedName } from '../../../apimachinery/validation/names.js';
import { CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL } from './batch-defaults.js';
import { isKnownTimeZone, parseCronSchedule } from './cron.js';
import { asObject, goStringMap, isSet, nonNegative, selectorMatches, selectorMismatch, validateLabelSelector, validatePodTemplate } from './kinds-common.js';

const goQuoted = (values: string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** ValidateHasLabel on the pod template. */
function hasLabel(labels: JsonObject, key: string, expected: string): FieldError[] {
  const path = `spec.template.metadata.labels[${key}]`;
  if (!(key in labels)) return [fe.required(path, `must be '${expected}'`)];
  if (labels[key] !== expected) return [{ ...fe.invalid(path, labels, `must be '${expected}'`), renderedValue: goStringMap(labels) }];
  return [];
}

/** validateGeneratedSelector: the labels and selector generated on create are still in place. */
function validateGeneratedSelector(obj: JsonObject, requirePrefixedLabels: boolean): FieldError[] {
  const spec = asObject(obj.spec);
  if (spec.manualSelector === true || !isPlainObject(spec.selector)) return [];
  const meta = asObject(obj.metadata);
  const name = typeof meta.name === 'string' ? meta.name : '';
  const uid = typeof meta.uid === 'string' ? meta.uid : '';
  const errs: FieldError[] = [];
  if (!uid) errs.push(fe.required('metadata.uid'));
  const labels = asObject(asObject(asObject(spec.template).metadata).labels);
  errs.push(...hasLabel(labels, LEGACY_CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, LEGACY_JOB_NAME_LABEL, name));
  const expected: Record<string, string> = {};
  if (requirePrefixedLabels) {
    errs.push(...hasLabel(labels, CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, JOB_NAME_LABEL, name));
    expected[CONTROLLER_UID_LABEL] = uid;
    expected[JOB_NAME_LABEL] = name;
  }
  expected[LEGACY_CONTROLLER_UID_LABEL] = uid;
  expected[LEGACY_JOB_NAME_LABEL] = name;
  if (selectorMatches(spec.selector, expected) === false) errs.push({ ...fe.invalid('spec.selector', spec.selector, '`selector` not auto-generated'), renderedValue: '"object"' });
  return errs;
}

function validatePodFailurePolicy(spec: JsonObject, path: string): FieldError[] {
  const policy = asObject(spec.podFailurePolicy);
  const rules = Array.isArray(policy.rules) ? policy.rules : [];
  const errs: FieldError[] = [];
  if (rules.length > 20) errs.push(fe.tooMany(`${path}.rules`, rules.length, 20));
  const podSpec = asObject(asObject(spec.template).spec);
  const containerNames = new Set(
    [...(Array.isArray(podSpec.containers) ? podSpec.containers : []), ...(Array.isArray(podSpec.initContainers) ? podSpec.initContainers : [])].map((c) => asObject(c).name),
  );
  const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
  rules.forEach((raw, i) => {
    const rule = asObject(raw);
    const rulePath = `${path}.rules[${i}]`;
    if (!rule.action) errs.push(fe.required(`${rulePath}.action`, `valid values: ${goQuoted(actions)}`));
    else if (rule.action === 'FailIndex') {
      if (!isSet(spec.backoffLimitPerIndex)) errs.push(fe.invalid(`${rulePath}.action`, rule.action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!actions.includes(String(rule.action))) errs.push(fe.notSupported(`${rulePath}.action`, rule.action, actions));
    const conditions = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    if (isPlainObject(rule.onExitCodes)) {
      const req = rule.onExitCodes;
      const at = `${rulePath}.onExitCodes`;
      if (!req.operator) errs.push(fe.required(`${at}.operator`, `valid values: ${goQuoted(['In', 'NotIn'])}`));
      else if (req.operator !== 'In' && req.operator !== 'NotIn') errs.push(fe.notSupported(`${at}.operator`, req.operator, ['In', 'NotIn']));
      if (typeof req.containerName === 'string' && !containerNames.has(req.containerName)) {
        errs.push(fe.invalid(`${at}.containerName`, req.containerName, 'must be one of the container or initContainer names in the pod template'));
      }
      const values = Array.isArray(req.values) ? (req.values as number[]) : [];
      const rendered = `[]int32{${values.join(', ')}}`;
      if (values.length === 0) errs.push({ ...fe.invalid(`${at}.values`, values, 'at least one value is required'), renderedValue: '[]int32(nil)' });
      else if (values.length > 255) errs.push(fe.tooMany(`${at}.values`, values.length, 255));
      const seen = new Set<number>();
      let ordered = true;
      values.forEach((v, j) => {
        if (req.operator === 'In' && v === 0) errs.push(fe.invalid(`${at}.values[${j}]`, v, 'must not be 0 for the In operator'));
        if (seen.has(v)) errs.push(fe.duplicate(`${at}.values[${j}]`, v));
        else seen.add(v);
        if (j > 0 && values[j - 1]! > v) ordered = false;
      });
      if (!ordered) errs.push({ ...fe.invalid(`${at}.values`, values, 'must be ordered'), renderedValue: rendered });
    }
    if (conditions.length > 0) {
      const at = `${rulePath}.onPodConditions`;
      if (conditions.length > 20) errs.push(fe.tooMany(at, conditions.length, 20));
      conditions.forEach((c, j) => {
        const pattern = asObject(c);
        for (const msg of isQualifiedName(String(pattern.type ?? ''))) errs.push(fe.invalid(`${at}[${j}].type`, pattern.type ?? '', msg));
        const statuses = ['False', 'True', 'Unknown'];
        if (!pattern.status) errs.push(fe.required(`${at}[${j}].status`, `valid values: ${goQuoted(statuses)}`));
        else if (!statuses.includes(String(pattern.status))) errs.push(fe.notSupported(`${at}[${j}].status`, pattern.status, statuses));
      });
    }
    if (isPlainObject(rule.onExitCodes) && conditions.length > 0) {
      errs.push({ ...fe.invalid(rulePath, null, 'specifying both OnExitCodes and OnPodConditions is not supported'), omitValue: true });
    }
    if (!isPlainObject(rule.onExitCodes) && conditions.length === 0) {
      errs.push({ ...fe.invalid(rulePath, null, 'specifying one of OnExitCodes and OnPodConditions is required'), omitValue: true });
    }
  });
  return errs;
}

/** validateJobSpec: everything but the selector, shared by Jobs and CronJob job templates (`path` is the spec's). */
function validateJobSpecFields(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex']) {
    errs.push(...nonNegative(spec[f], `${path}.${f}`));
  }
  if (isSet(spec.maxFailedIndexes)) {
    errs.push(...nonNegative(spec.maxFailedIndexes, `${path}.maxFailedIndexes`));
    if (!isSet(spec.backoffLimitPerIndex)) errs.push(fe.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (typeof spec.managedBy === 'string') {
    if (spec.managedBy.length > 63) errs.push(fe.tooLong(`${path}.managedBy`, '', 63));
  }
  const indexed = spec.completionMode === 'Indexed';
  if (isSet(spec.completionMode)) {
    if (spec.completionMode !== 'NonIndexed' && !indexed) errs.push(fe.notSupported(`${path}.completionMode`, spec.completionMode, ['NonIndexed', 'Indexed']));
    if (indexed) {
      if (!isSet(spec.completions)) errs.push(fe.required(`${path}.completions`, 'when completion mode is Indexed'));
      if (typeof spec.parallelism === 'number' && spec.parallelism > 100000) {
        errs.push(fe.invalid(`${path}.parallelism`, spec.parallelism, 'must be less than or equal to 100000 when completion mode is Indexed'));
      }
      if (typeof spec.completions === 'number' && typeof spec.maxFailedIndexes === 'number' && spec.maxFailedIndexes > spec.completions) {
        errs.push(fe.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'must be less than or equal to completions'));
      }
    }
  }
  if (!indexed) {
    if (isSet(spec.backoffLimitPerIndex)) errs.push(fe.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (isSet(spec.maxFailedIndexes)) errs.push(fe.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isPlainObject(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, `${path}.podFailurePolicy`));
  if (isPlainObject(spec.successPolicy)) {
    if (!indexed) errs.push({ ...fe.invalid(`${path}.successPolicy`, spec.successPolicy, 'requires indexed completion mode'), renderedValue: '"object"' });
    else {
      const rules = Array.isArray(spec.successPolicy.rules) ? spec.successPolicy.rules : [];
      if (rules.length === 0) errs.push(fe.required(`${path}.successPolicy.rules`, 'at least one rules must be specified when the successPolicy is specified'));
    }
  }
  if (isSet(spec.podReplacementPolicy)) {
    if (isSet(spec.podFailurePolicy)) {
      if (spec.podReplacementPolicy !== 'Failed') errs.push(fe.notSupported(`${path}.podReplacementPolicy`, spec.podReplacementPolicy, ['Failed']));
    } else if (spec.podReplacementPolicy !== 'Failed' && spec.podReplacementPolicy !== 'TerminatingOrFailed') {
      errs.push(fe.notSupported(`${path}.podReplacementPolicy`, spec.podReplacementPolicy, ['Failed', 'TerminatingOrFailed']));
    }
  }
  errs.push(...validatePodTemplate(spec.template, `${path}.template`));
  // SetDefaults_PodSpec turns an unset restartPolicy into Always, so both count as missing.
  const restartPolicy = asObject(asObject(spec.template).spec).restartPolicy;
  if (restartPolicy === 'Always' || !restartPolicy) errs.push(fe.required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(fe.notSupported(`${path}.template.spec.restartPolicy`, restartPolicy, ['OnFailure', 'Never']));
  else if (isSet(spec.podFailurePolicy) && restartPolicy !== 'Never') {
    errs.push(fe.invalid(`${path}.template.spec.restartPolicy`, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

/** ValidateJobSpec: the fields, a selector present and valid, and selecting the template's labels. */
function validateJobSpec(spec: JsonObject): FieldError[] {
  const errs = validateJobSpecFields(spec, 'spec');
  if (!isPlainObject(spec.selector)) errs.push(fe.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const labels = asObject(asObject(spec.template).metadata).labels;
  if (selectorMatches(spec.selector, labels) === false) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  return errs;
}

/** ValidateJob (metadata is validated by the store): the generated selector, the spec, room for indexed hostnames. */
export function validateJob(obj: JsonObject, old?: JsonObject): FieldError[] {
  // Jobs created before the prefixed labels existed are not required to carry them.
  let requirePrefixed = true;
  if (old) {
    const oldLabels = asObject(asObject(asObject(asObject(old.spec).template).metadata).labels);
    requirePrefixed = JOB_NAME_LABEL in oldLabels && CONTROLLER_UID_LABEL in oldLabels;
  }
  const spec = asObject(obj.spec);
  const errs = [...validateGeneratedSelector(obj, requirePrefixed), ...validateJobSpec(spec)];
  if (spec.completionMode === 'Indexed' && typeof spec.completions === 'number' && spec.completions > 0) {
    const name = String(asObject(obj.metadata).name ?? '');
    const hostname = `${name}-${spec.completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) errs.push(fe.invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

/** Go's %#v of an optional pointer-to-scalar field in an immutability error. */
function immutable(path: string, value: unknown, rendered: string): FieldError {
  return { ...fe.invalid(path, value ?? null, 'field is immutable'), renderedValue: rendered };
}

/** ValidateJobSpecUpdate: completions (unless Indexed), selector, template and the policies never change. */
export function validateJobUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = validateJob(obj, old);
  const spec = asObject(obj.spec);
  const oldSpec = asObject(old.spec);
  if (spec.completionMode !== 'Indexed') {
    if (!jsonEqual(spec.completions, oldSpec.completions)) errs.push(immutable('spec.completions', spec.completions, isSet(spec.completions) ? String(spec.completions) : '"null"'));
  } else if (!jsonEqual(spec.completions, oldSpec.completions) && typeof spec.completions === 'number' && spec.completions !== spec.parallelism) {
    errs.push(fe.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
  }
  if (!jsonEqual(spec.selector, oldSpec.selector)) errs.push(immutable('spec.selector', spec.selector, '"object"'));
  if (!jsonEqual(spec.template, oldTemplateForCompare(spec.template, oldSpec.template, old))) {
    errs.push(immutable('spec.template', spec.template, '"object"'));
  }
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    if (!jsonEqual(spec[f], oldSpec[f])) {
      const v = spec[f];
      errs.push(immutable(`spec.${f}`, v, v === undefined || v === null ? '"null"' : typeof v === 'object' ? '"object"' : typeof v === 'string' ? JSON.stringify(v) : String(v)));
    }
  }
  return errs;
}

/**
 * The old template as validatePodTemplateUpdate compares it: for a suspended Job that never started, node
 * affinity, node selector, tolerations, scheduling gates, labels and annotations may change (they are taken from the
 * new template).
 */
function oldTemplateForCompare(template: unknown, oldTemplate: unknown, old: JsonObject): unknown {
  const suspended = asObject(old.spec).suspend === true;
  const notStarted = !isSet(asObject(old.status).startTime);
  if (!(suspended && notStarted)) return oldTemplate;
  const next = asObject(template);
  const nextSpec = asObject(next.spec);
  const copy = structuredClone(asObject(oldTemplate));
  const meta = asObject(copy.metadata);
  const nextMeta = asObject(next.metadata);
  for (const k of ['labels', 'annotations'] as const) {
    if (nextMeta[k] === undefined) delete meta[k];
    else meta[k] = nextMeta[k];
  }
  copy.metadata = meta;
  const spec = asObject(copy.spec);
  for (const k of ['nodeSelector', 'tolerations', 'schedulingGates'] as const) {
    if (nextSpec[k] === undefined) delete spec[k];
    else spec[k] = nextSpec[k];
  }
  const affinity = isPlainObject(spec.affinity) ? { ...spec.affinity } : undefined;
  const nextAffinity = isPlainObject(nextSpec.affinity) ? nextSpec.affinity : undefined;
  if (!nextAffinity && affinity) {
    delete affinity.nodeAffinity;
    if (Object.keys(affinity).length === 0) delete spec.affinity;
    else spec.affinity = affinity;
  } else if (nextAffinity && !affinity) {
    spec.affinity = nextAffinity.nodeAffinity === undefined ? {} : { nodeAffinity: nextAffinity.nodeAffinity };
  } else if (nextAffinity && affinity) {
    if (nextAffinity.nodeAffinity === undefined) delete affinity.nodeAffinity;
    else affinity.nodeAffinity = nextAffinity.nodeAffinity;
    spec.affinity = affinity;
  }
  copy.spec = spec;
  return copy;
}

/** ValidateJobUpdateStatus's counters. */
export function validateJobStatus(obj: JsonObject): FieldError[] {
  const s = asObject(obj.status);
  const errs: FieldError[] = [];
  for (const k of ['active', 'succeeded', 'failed', 'ready', 'terminating']) errs.push(...nonNegative(s[k], `status.${k}`));
  return errs;
}

const TIME_ZONE_CHARACTERS = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(timeZone: unknown): FieldError[] {
  if (!isSet(timeZone)) return [];
  const tz = String(timeZone);
  if (tz === '') return [fe.invalid('spec.timeZone', tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_CHARACTERS.test(part)) return [fe.invalid('spec.timeZone', tz, `unknown time zone ${tz}`)];
  }
  const errs: FieldError[] = [];
  if (tz.toLowerCase() === 'local') errs.push(fe.invalid('spec.timeZone', tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  if (!isKnownTimeZone(tz)) errs.push(fe.invalid('spec.timeZone', tz, `unknown time zone ${tz}`));
  return errs;
}

/** validateCronJobSpec (with `old` on update: TZ= in a schedule is tolerated when the stored one had it). */
function validateCronJobSpec(spec: JsonObject, oldSpec?: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') errs.push(fe.required('spec.schedule'));
  else {
    const allowTZ = oldSpec !== undefined && typeof oldSpec.schedule === 'string' && oldSpec.schedule.includes('TZ');
    try {
      parseCronSchedule(schedule);
    } catch (err) {
      errs.push(fe.invalid('spec.schedule', schedule, (err as Error).message));
    }
    if (allowTZ && schedule.includes('TZ') && isSet(spec.timeZone)) errs.push(fe.invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    else if (!allowTZ && schedule.includes('TZ')) errs.push(fe.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  errs.push(...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  if (oldSpec === undefined || !jsonEqual(oldSpec.timeZone ?? null, spec.timeZone ?? null)) errs.push(...validateTimeZone(spec.timeZone));
  const policy = spec.concurrencyPolicy;
  if (!policy) errs.push(fe.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(String(policy))) errs.push(fe.notSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  const jobSpec = asObject(asObject(spec.jobTemplate).spec);
  errs.push(...validateJobSpecFields(jobSpec, 'spec.jobTemplate.spec'));
  if (isSet(jobSpec.selector)) errs.push({ ...fe.invalid('spec.jobTemplate.spec.selector', jobSpec.selector, '`selector` will be auto-generated'), renderedValue: '"object"' });
  if (jobSpec.manualSelector === true) errs.push(fe.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'), ...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  return errs;
}

/** ValidateCronJobCreate: the spec, and a name short enough for the jobs it creates (52 characters). */
export function validateCronJob(obj: JsonObject): FieldError[] {
  const errs = validateCronJobSpec(asObject(obj.spec));
  const name = String(asObject(obj.metadata).name ?? '');
  if (name.length > 52) errs.push(fe.invalid('metadata.name', name, 'must be no more than 52 characters'));
  return errs;
}

/** ValidateCronJobUpdate: the spec (the name limit is not re-checked). */
export function validateCronJobUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  return validateCronJobSpec(asObject(obj.spec), asObject(old.spec));
}
