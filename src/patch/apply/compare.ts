/**
 * What changed between two versions of an object, as field sets (structured-merge-diff's Compare): leaves present
 * only in the new object are added, only in the old one removed, in both with different values modified. A granular
 * map, struct or list item that appears or disappears as a whole is itself added or removed too, which is why an
 * Update that creates `data` owns `f:data: {".": {}}`.
 */
import { jsonEqual } from '../../apimachinery/object.js';
import { FieldSet } from './field-set.js';
import { indexItems, listItemElements } from './list-items.js';
import { fieldElement } from './path-element.js';
import { effectiveType, isLeaf, isObjectValue, memberType, ownField, type SsaType } from './schema.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Compares `oldObj` with `newObj` (either may be undefined for "absent") under type `t`. */
export function compareObjects(oldObj: unknown, newObj: unknown, t: SsaType): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareChildren(c, [], oldObj, newObj, effectiveType(t, newObj ?? oldObj));
  return c;
}

function compareChildren(c: Comparison, path: string[], lhs: unknown, rhs: unknown, t: SsaType): void {
  if (t.kind === 'struct' || t.kind === 'map') {
    const l = isObjectValue(lhs) ? lhs : {};
    const r = isObjectValue(rhs) ? rhs : {};
    const names = new Set([...Object.keys(l), ...Object.keys(r)]);
    for (const name of names) compareValue(c, [...path, fieldElement(name)], ownField(l, name), ownField(r, name), memberType(t, name));
    return;
  }
  if (t.kind === 'list') {
    const l = Array.isArray(lhs) ? lhs : [];
    const r = Array.isArray(rhs) ? rhs : [];
    const le = listItemElements(t, l)!;
    const re = listItemElements(t, r)!;
    const li = indexItems(le, l);
    const ri = indexItems(re, r);
    for (const e of new Set([...le, ...re])) compareValue(c, [...path, e], li.get(e), ri.get(e), t.items);
  }
}

function compareValue(c: Comparison, path: string[], lhs: unknown, rhs: unknown, declared: SsaType): void {
  if (lhs === undefined && rhs === undefined) return;
  const lt = effectiveType(declared, lhs);
  const rt = effectiveType(declared, rhs);
  const granular = (t: SsaType, v: unknown) =>
    v !== undefined && v !== null && !isLeaf(t) && (t.kind !== 'list' || listItemElements(t, v as unknown[]) !== undefined);
  const lg = granular(lt, lhs);
  const rg = granular(rt, rhs);
  if ((lg || lhs === undefined) && (rg || rhs === undefined) && (lg || rg) && (lhs === undefined || rhs === undefined || lt.kind === rt.kind)) {
    compareChildren(c, path, lhs, rhs, lg ? lt : rt);
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    return;
  }
  compareLeaf(c, path, lhs, rhs);
}

function compareLeaf(c: Comparison, path: string[], lhs: unknown, rhs: unknown): void {
  const lNull = lhs === undefined || lhs === null;
  const rNull = rhs === undefined || rhs === null;
  if (lNull && rNull) return;
  if (lNull) c.added.insert(path);
  else if (rNull) c.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
}
