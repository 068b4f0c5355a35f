/**
 * Validation of apps/v1 StatefulSets, DaemonSets and ControllerRevisions, in the order and with the field paths and
 * texts of pkg/apis/apps/validation (1.32). Every error is collected; the store answers one 422 with all of them.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { FieldPath } from '../../../apimachinery/field-errors.js';
import { validateAnnotations, validateLabels } from '../../../apimachinery/validation/object-meta.js';
import {
  asObject,
  goIntOrString,
  goLabelSelectorValue,
  intOrPercentValue,
  isEmptySelector,
  isSet,
  nonNegative,
  notMoreThan100Percent,
  selectorMatches,
  selectorMismatch,
  validateLabelSelector,
  validatePodTemplate,
  validatePositiveIntOrPercent,
} from './kinds-common.js';

function restartPolicyAlways(template: JsonObject, kind: string): FieldError[] {
  const podSpec = asObject(template.spec);
  const errs: FieldError[] = [];
  if (podSpec.restartPolicy !== 'Always') errs.push(fe.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy ?? '', ['Always']));
  if (isSet(podSpec.activeDeadlineSeconds)) errs.push(fe.forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`));
  return errs;
}

function retentionPolicyType(value: unknown, path: string): FieldError[] {
  return value === 'Retain' || value === 'Delete' ? [] : [fe.notSupported(path, value ?? '', ['Retain', 'Delete'])];
}

/** ValidateStatefulSetSpec. */
function validateStatefulSetSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  switch (spec.podManagementPolicy) {
    case undefined:
    case null:
    case '':
      errs.push(fe.required('spec.podManagementPolicy'));
      break;
    case 'OrderedReady':
    case 'Parallel':
      break;
    default:
      errs.push(fe.invalid('spec.podManagementPolicy', spec.podManagementPolicy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = asObject(spec.updateStrategy);
  switch (strategy.type) {
    case undefined:
    case null:
    case '':
      errs.push(fe.required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (isSet(strategy.rollingUpdate)) {
        errs.push({ ...fe.invalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"), renderedValue: goRollingUpdateStatefulSet(strategy.rollingUpdate) });
      }
      break;
    case 'RollingUpdate':
      if (isPlainObject(strategy.rollingUpdate)) {
        const ru = strategy.rollingUpdate;
        errs.push(...nonNegative(ru.partition, 'spec.updateStrategy.rollingUpdate.partition'));
        if (isSet(ru.maxUnavailable)) {
          const path = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
          errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, path));
          if (intOrPercentValue(ru.maxUnavailable) === 0) errs.push({ ...fe.invalid(path, ru.maxUnavailable, 'cannot be 0'), renderedValue: goIntOrString(ru.maxUnavailable) });
          errs.push(...notMoreThan100Percent(ru.maxUnavailable, path));
        }
      }
      break;
    default:
      errs.push({ ...fe.invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"), renderedValue: `apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(String(strategy.type))}, RollingUpdate:${goRollingUpdateStatefulSet(strategy.rollingUpdate)}}` });
  }
  if (isPlainObject(spec.persistentVolumeClaimRetentionPolicy)) {
    const policy = spec.persistentVolumeClaimRetentionPolicy;
    errs.push(...retentionPolicyType(policy.whenDeleted, 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted'));
    errs.push(...retentionPolicyType(policy.whenScaled, 'spec.persistentVolumeClaimRetentionPolicy.whenScaled'));
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isPlainObject(spec.ordinals)) errs.push(...nonNegative(spec.ordinals.start, 'spec.ordinals.start'));
  if (!isPlainObject(spec.selector)) errs.push(fe.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    if (isEmptySelector(spec.selector)) errs.push({ ...fe.invalid('spec.selector', spec.selector, 'empty selector is invalid for statefulset'), renderedValue: goLabelSelectorValue(spec.selector) });
  }
  // ValidatePodTemplateSpecForStatefulSet: a selector that converts must select the template; the pod spec itself is
  // not validated for StatefulSets (upstream leaves it to the pods).
  const template = asObject(spec.template);
  const matches = selectorMatches(spec.selector, asObject(template.metadata).labels);
  if (matches === undefined) errs.push({ ...fe.invalid('spec.selector', spec.selector, ''), renderedValue: goLabelSelectorValue(spec.selector) });
  else {
    const meta = asObject(template.metadata);
    // An empty selector selects everything (labels.Selector.Empty); a missing one nothing, so it never matches.
    if (!(isPlainObject(spec.selector) && isEmptySelector(spec.selector)) && !matches) errs.push(selectorMismatch('spec.template.metadata.labels', meta.labels));
    errs.push(...validateLabels(asObject(meta.labels) as Record<string, string>, FieldPath.root('spec.template.labels')));
    errs.push(...validateAnnotations(asObject(meta.annotations) as Record<string, string>, FieldPath.root('spec.template.annotations')));
  }
  errs.push(...restartPolicyAlways(template, 'StatefulSet'));
  return errs;
}

function goRollingUpdateStatefulSet(ru: unknown): string {
  if (!isPlainObject(ru)) return '(*apps.RollingUpdateStatefulSetStrategy)(nil)';
  return `&apps.RollingUpdateStatefulSetStrategy{Partition:${typeof ru.partition === 'number' ? ru.partition : 0}, MaxUnavailable:${isSet(ru.maxUnavailable) ? `&${goIntOrString(ru.maxUnavailable)}` : '(*intstr.IntOrString)(nil)'}}`;
}

/** ValidateStatefulSet (metadata is validated by the store, with DNS-label names). */
export function validateStatefulSet(obj: JsonObject): FieldError[] {
  return validateStatefulSetSpec(asObject(obj.spec));
}

const statefulSetUpdateForbidden =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** ValidateStatefulSetUpdate: the spec again, and nothing outside the mutable fields changed. */
export function validateStatefulSetUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = validateStatefulSetSpec(asObject(obj.spec));
  const rest = (spec: unknown): JsonObject => {
    const s = { ...asObject(spec) };
    for (const f of ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy']) delete s[f];
    return s;
  };
  if (!jsonEqual(rest(obj.spec), rest(old.spec))) errs.push(fe.forbidden('spec', statefulSetUpdateForbidden));
  return errs;
}

/** ValidateStatefulSetStatus, for writes to /status. */
export function validateStatefulSetStatus(obj: JsonObject): FieldError[] {
  const s = asObject(obj.status);
  const n = (k: string): number => (typeof s[k] === 'number' ? (s[k] as number) : 0);
  const errs: FieldError[] = [];
  for (const k of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']) errs.push(...nonNegative(s[k], `status.${k}`));
  for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) {
    if (n(k) > n('replicas')) errs.push(fe.invalid(`status.${k}`, n(k), 'cannot be greater than status.replicas'));
  }
  if (n('availableReplicas') > n('readyReplicas')) errs.push(fe.invalid('status.availableReplicas', n('availableReplicas'), 'cannot be greater than status.readyReplicas'));
  return errs;
}

/** ValidateRollingUpdateDaemonSet. */
function validateRollingUpdateDaemonSet(ru: JsonObject): FieldError[] {
  const base = 'spec.updateStrategy.rollingUpdate';
  const errs = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, `${base}.maxUnavailable`),
    ...validatePositiveIntOrPercent(ru.maxSurge, `${base}.maxSurge`),
    ...notMoreThan100Percent(ru.maxUnavailable, `${base}.maxUnavailable`),
    ...notMoreThan100Percent(ru.maxSurge, `${base}.maxSurge`),
  ];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) errs.push({ ...fe.invalid(`${base}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'), renderedValue: goIntOrString(ru.maxSurge) });
  else if (!hasUnavailable && !hasSurge) errs.push(fe.required(`${base}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return errs;
}

/** ValidateDaemonSetSpec. */
export function validateDaemonSet(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const template = asObject(spec.template);
  const labels = asObject(template.metadata).labels;
  const errs = validateLabelSelector(spec.selector, 'spec.selector');
  // A missing selector selects nothing (LabelSelectorAsSelector(nil)), so the template never matches it.
  if (selectorMatches(spec.selector, labels) === false) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  if (isPlainObject(spec.selector) && isEmptySelector(spec.selector)) {
    errs.push({ ...fe.invalid('spec.selector', spec.selector, 'empty selector is invalid for daemonset'), renderedValue: goLabelSelectorValue(spec.selector) });
  }
  errs.push(...validatePodTemplate(spec.template, 'spec.template'), ...restartPolicyAlways(template, 'DaemonSet'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  const strategy = asObject(spec.updateStrategy);
  switch (strategy.type) {
    case 'OnDelete':
      break;
    case 'RollingUpdate':
      if (!isPlainObject(strategy.rollingUpdate)) errs.push(fe.required('spec.updateStrategy.rollingUpdate'));
      else errs.push(...validateRollingUpdateDaemonSet(strategy.rollingUpdate));
      break;
    default:
      errs.push(fe.notSupported('spec.updateStrategy', strategy, ['RollingUpdate', 'OnDelete']));
  }
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return errs;
}

/** apps/v1 selectors cannot change once set (the DaemonSet and StatefulSet strategies' ValidateUpdate). */
export function validateSelectorUnchanged(obj: JsonObject, old: JsonObject): FieldError[] {
  const sel = asObject(obj.spec).selector;
  return jsonEqual(sel, asObject(old.spec).selector) ? [] : [{ ...fe.invalid('spec.selector', sel ?? null, 'field is immutable'), renderedValue: goLabelSelectorValue(sel) }];
}

/** ValidateControllerRevisionCreate: a non-negative revision and a JSON object as data. */
export function validateControllerRevision(obj: JsonObject): FieldError[] {
  const errs = nonNegative(obj.revision, 'revision');
  if (obj.data === undefined || obj.data === null) errs.push(fe.required('data', 'data is mandatory'));
  else if (!isPlainObject(obj.data)) errs.push(fe.required('data', 'data must be a valid JSON object'));
  return errs;
}

/** ValidateControllerRevisionUpdate: data never changes. */
export function validateControllerRevisionUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = nonNegative(obj.revision, 'revision');
  if (!jsonEqual(obj.data, old.data)) errs.push({ ...fe.invalid('data', obj.data ?? null, 'field is immutable'), renderedValue: goRawExtension(obj.data) });
  return errs;
}

/** Go's %#v of a runtime.RawExtension holding `data` as compact JSON. */
function goRawExtension(data: unknown): string {
  if (data === undefined) return 'runtime.RawExtension{Raw:[]uint8(nil), Object:runtime.Object(nil)}';
  const bytes = [...Buffer.from(JSON.stringify(data))].map((b) => `0x${b.toString(16)}`);
  return `runtime.RawExtension{Raw:[]uint8{${bytes.join(', ')}}, Object:runtime.Object(nil)}`;
}
