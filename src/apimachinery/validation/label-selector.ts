/**
 * Validation of a metav1.LabelSelector as k8s.io/apimachinery pkg/apis/meta/v1/validation ValidateLabelSelector does
 * it: matchLabels as labels, each matchExpressions entry's operator, values and key, with the upstream messages.
 */
import { type FieldError, FieldPath, forbidden, invalid, required } from '../field-errors.js';
import { isPlainObject } from '../object.js';
import { isValidLabelValue } from './names.js';
import { validateLabelName, validateLabels } from './object-meta.js';

export interface LabelSelectorValidationOptions {
  /** Accept values that are not valid label values (kept for objects stored before values were checked). */
  allowInvalidLabelValueInSelector?: boolean;
}

/** Every problem of the selector at `path`; an absent selector has none. */
export function validateLabelSelector(selector: unknown, path: FieldPath, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  if (!isPlainObject(selector)) return [];
  const errs: FieldError[] = [];
  const matchLabels = isPlainObject(selector.matchLabels) ? (selector.matchLabels as Record<string, string>) : undefined;
  errs.push(...validateLabels(matchLabels, path.child('matchLabels')));
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  expressions.forEach((raw, i) => {
    const expr = isPlainObject(raw) ? raw : {};
    const at = path.child('matchExpressions').index(i);
    const values = Array.isArray(expr.values) ? (expr.values as unknown[]) : [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(at.child('values').toString(), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(at.child('values').toString(), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(at.child('operator').toString(), expr.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(typeof expr.key === 'string' ? expr.key : '', at.child('key')));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((value, j) => {
        for (const msg of isValidLabelValue(String(value))) errs.push(invalid(at.child('values').index(j).toString(), value, msg));
      });
    }
  });
  return errs;
}
