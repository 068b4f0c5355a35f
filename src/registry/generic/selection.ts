import type { LabelSelector } from '../../apimachinery/labels/selector.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** A parsed label selector, as the registry needs it. */
export interface LabelMatcher {
  empty(): boolean;
  matches(labels: Record<string, string>): boolean;
  /** The parsed selector, when there is one (lets a list rule objects out from their stored text). */
  selector?: LabelSelector;
}

/** A parsed field selector, as the registry needs it. */
export interface FieldMatcher {
  empty(): boolean;
  matches(fields: Record<string, string>): boolean;
  /** The fields the selector refers to (validated against what a resource supports). */
  fieldNames(): string[];
}

/** Which objects a list, watch or deletecollection selects. */
export interface Selection {
  labels?: LabelMatcher;
  fields?: FieldMatcher;
}

/** The fields every object supports in a field selector, plus the resource's own. */
export function objectFields(obj: KubeObject, extra?: (o: KubeObject) => Record<string, string>): Record<string, string> {
  const m = obj.metadata ?? {};
  const base: Record<string, string> = { 'metadata.name': m.name ?? '', 'metadata.namespace': m.namespace ?? '' };
  return extra ? { ...base, ...extra(obj) } : base;
}

export function selectionMatches(sel: Selection, obj: KubeObject, extra?: (o: KubeObject) => Record<string, string>): boolean {
  if (sel.labels && !sel.labels.empty() && !sel.labels.matches(obj.metadata?.labels ?? {})) return false;
  if (sel.fields && !sel.fields.empty() && !sel.fields.matches(objectFields(obj, extra))) return false;
  return true;
}

export function selectionEmpty(sel: Selection): boolean {
  return (!sel.labels || sel.labels.empty()) && (!sel.fields || sel.fields.empty());
}
