/**
 * Go's `%#v` renderings of the values workload validation errors print (label maps and selectors), as
 * k8s.io/apimachinery's field.Error shows them. Shared by the kinds' validation modules.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { isPlainObject } from '../../../apimachinery/object.js';

/** Go's %#v of a map[string]string (keys sorted, as fmt prints maps), how field errors print label sets. */
export function goStringMap(m: unknown): string {
  if (!isPlainObject(m)) return 'map[string]string(nil)';
  const entries = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(m[k]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/**
 * A *metav1.LabelSelector as a field error prints it: field.Error dereferences a pointer before `%#v`, so no `&`
 * (goLabelSelector keeps it, for a selector inside a struct).
 */
export function goLabelSelectorValue(sel: unknown): string {
  return isPlainObject(sel) ? goLabelSelector(sel).slice(1) : 'null';
}

/** Go's %#v of a *metav1.LabelSelector, close enough to tell what was sent. */
export function goLabelSelector(sel: unknown): string {
  if (!isPlainObject(sel)) return '(*v1.LabelSelector)(nil)';
  const labels = goStringMap(sel.matchLabels);
  const exprs = Array.isArray(sel.matchExpressions) ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions.map(goRequirement).join(', ')}}` : '[]v1.LabelSelectorRequirement(nil)';
  return `&v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${exprs}}`;
}

function goRequirement(r: unknown): string {
  const req = isPlainObject(r) ? r : {};
  const values = Array.isArray(req.values) ? `[]string{${req.values.map((v) => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)';
  return `v1.LabelSelectorRequirement{Key:${JSON.stringify(String(req.key ?? ''))}, Operator:${JSON.stringify(String(req.operator ?? ''))}, Values:${values}}`;
}

/** `<path>: Invalid value: map[string]string{…}: \`selector\` does not match template \`labels\`` */
export function selectorMismatch(path: string, labels: unknown): FieldError {
  return { ...fe.invalid(path, labels ?? null, '`selector` does not match template `labels`'), renderedValue: goStringMap(labels) };
}
