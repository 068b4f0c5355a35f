/**
 * What the StatefulSet, DaemonSet, ControllerRevision, Job, CronJob, PodDisruptionBudget and HorizontalPodAutoscaler
 * definitions share: JSON accessors, the status and scale subresource descriptors, status handling on the main
 * endpoint, and the field-error helpers of upstream's apps and metav1 validation they all call (label selectors,
 * int-or-percent values, non-negative counters, pod templates).
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { FieldPath, type FieldError } from '../../../apimachinery/field-errors.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../../apimachinery/labels/selector.js';
import { type JsonObject, type KubeObject, isPlainObject, metaOf } from '../../../apimachinery/object.js';
import type { TablePrinter } from '../../../apimachinery/table/builtin-printers.js';
import { validateLabelName, validateLabels, validateObjectMetaUpdate } from '../../../apimachinery/validation/object-meta.js';
import { isValidLabelValue } from '../../../apimachinery/validation/names.js';
import type { ResourceDefinition, SubresourceStrategy } from '../../rest.js';
import { statusAndMetadata, statusKeepingMetadata } from '../define.js';
import { scaleSubresource } from './scale.js';
import { validatePodTemplateSpec } from './validation.js';

export { goLabelSelector, goLabelSelectorValue, goStringMap, selectorMismatch } from './go-values.js';

export function asObject(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}

/** The object at parent[key], created when missing. */
export function objectAt(parent: JsonObject, key: string): JsonObject {
  if (!isPlainObject(parent[key])) parent[key] = {};
  return parent[key] as JsonObject;
}

export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** A built-in definition with the printer render.ts uses for Table output. */
export function withPrinter(def: ResourceDefinition, printer: TablePrinter): ResourceDefinition {
  return Object.assign(def, { tableConvertor: printer });
}

export const scaleDescriptor = { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], strategy: scaleSubresource };
/**
 * The /status of a kind whose status strategy resets only the spec (most built-in kinds upstream): the write's status,
 * labels, annotations, finalizers and owner references are kept; `reset` names metadata its PrepareForUpdate also
 * restores (a Deployment's labels, a Pod's owner references). See statusKeepingMetadata.
 */
export const statusDescriptor = (kind: string, reset: Parameters<typeof statusKeepingMetadata>[0] = []) => ({ name: 'status', kind, verbs: ['get', 'patch', 'update'], strategy: statusKeepingMetadata(reset) });

/**
 * A /status subresource that writes .status (and, as the kind's spec-only status strategy does upstream, the write's
 * labels, annotations, finalizers and owner references), then fills in the status fields Go always serializes (those
 * without omitempty: a status write that leaves them out still reads back with their zero values), and validates the
 * write as the kind's status strategy does.
 */
export function statusSubresource(kind: string, zeros: JsonObject, validate?: (obj: KubeObject, old: KubeObject) => FieldError[]) {
  const base = statusAndMetadata;
  const strategy: SubresourceStrategy = {
    apply(incoming, current) {
      const next = base.apply(incoming, current);
      fillStatusZeros(next, zeros);
      return next;
    },
    validate: (obj, old) => [...validateObjectMetaUpdate(metaOf(obj), metaOf(old)), ...(validate?.(obj, old) ?? [])],
  };
  return { name: 'status', kind, verbs: ['get', 'patch', 'update'], strategy };
}

/** Sets each key of `zeros` the status lacks (a fresh status on create is exactly `zeros`). */
export function fillStatusZeros(obj: KubeObject, zeros: JsonObject): void {
  if (!isPlainObject(obj.status)) obj.status = {};
  const status = obj.status as JsonObject;
  for (const [k, v] of Object.entries(zeros)) if (status[k] === undefined) status[k] = structuredClone(v);
}

/** The main endpoint never writes status; a create starts from an empty one (strategy PrepareForCreate). */
export function resetStatus(obj: KubeObject): void {
  obj.status = {};
}

/** An update through the main endpoint keeps the stored status (strategy PrepareForUpdate). */
export function keepStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = old.status;
}

/** ValidateNonnegativeField for an optional integer field. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  if (typeof value !== 'number') return [];
  return value < 0 ? [fe.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** metav1validation.ValidateLabelSelector: matchLabels as labels, every requirement well-formed. */
export function validateLabelSelector(selector: unknown, path: string): FieldError[] {
  if (!isPlainObject(selector)) return [];
  const p = FieldPath.root(path);
  const errs = validateLabels(asObject(selector.matchLabels) as Record<string, string>, p.child('matchLabels'));
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  exprs.forEach((raw, i) => {
    const expr = asObject(raw);
    const at = p.child('matchExpressions').index(i);
    const values = Array.isArray(expr.values) ? expr.values : [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fe.required(at.child('values').toString(), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fe.forbidden(at.child('values').toString(), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fe.invalid(at.child('operator').toString(), expr.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(typeof expr.key === 'string' ? expr.key : '', at.child('key')));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(String(v))) errs.push(fe.invalid(at.child('values').index(j).toString(), v, msg));
    });
  });
  return errs;
}

/** Whether the selector (metav1.LabelSelectorAsSelector) selects `labels`; undefined when it cannot be converted. */
export function selectorMatches(selector: unknown, labels: unknown): boolean | undefined {
  try {
    return fromLabelSelector(isPlainObject(selector) ? (selector as LabelSelectorSpec) : undefined).matches(asObject(labels) as Record<string, string>);
  } catch {
    return undefined;
  }
}

/** An empty selector (no matchLabels, no matchExpressions) of a set selector. */
export function isEmptySelector(selector: unknown): boolean {
  const s = asObject(selector);
  return Object.keys(asObject(s.matchLabels)).length + (Array.isArray(s.matchExpressions) ? s.matchExpressions.length : 0) === 0;
}

/** The value of an IntOrString as intstr does: the int, or the percent number; 0 for anything else. */
function percentValue(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^[0-9]+%$/.test(v)) return undefined;
  return Number(v.slice(0, -1));
}

export function intOrPercentValue(v: unknown): number {
  const pct = percentValue(v);
  if (pct !== undefined) return pct;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return Number(v);
  return 0;
}

/** How Go's field.Error prints an intstr.IntOrString value (%#v of the struct). */
export function goIntOrString(v: unknown): string {
  return typeof v === 'number' ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}` : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(String(v))}}`;
}

/** appsvalidation.ValidatePositiveIntOrPercent: a non-negative integer, or a valid percent string. */
export function validatePositiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') {
    if (percentValue(v) !== undefined) return [];
    return [
      {
        ...fe.invalid(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
        renderedValue: goIntOrString(v),
      },
    ];
  }
  if (typeof v === 'number') return nonNegative(v, path);
  return [];
}

/** appsvalidation.IsNotMoreThan100Percent. */
export function notMoreThan100Percent(v: unknown, path: string): FieldError[] {
  const pct = percentValue(v);
  if (pct === undefined || pct <= 100) return [];
  return [{ ...fe.invalid(path, v, 'must not be greater than 100%'), renderedValue: goIntOrString(v) }];
}

/** corevalidation.ValidatePodTemplateSpec (validation.ts). */
export function validatePodTemplate(template: unknown, path: string): FieldError[] {
  return validatePodTemplateSpec(template, path);
}
