/**
 * Uniqueness of `x-kubernetes-list-type: set` and `map` lists (apiextensions-apiserver schema/listtype). Each
 * repeated value (or map key) is reported once, at the index of its second occurrence.
 */
import { isPlainObject } from '../../apimachinery/object.js';
import { type FieldError, type FieldPath, duplicate, invalid } from '../../apimachinery/field-errors.js';
import { goSharpV } from '../../apimachinery/go-fmt.js';
import type { Structural } from './structural.js';
import { isSetOrMapList, subtreeHas } from './subtree.js';

/** A key that identifies a JSON value: scalars by type and value, compounds by canonical (sorted-key) JSON. */
function identity(v: unknown): string {
  if (v === null || typeof v !== 'object') return `${typeof v}:${String(v)}`;
  return `json:${canonicalJSON(v)}`;
}

function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (isPlainObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`)
      .join(',')}}`;
  }
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
}

/** Indexes of the second occurrence of every value seen more than once. */
function nonUniqueIndexes(keys: string[]): number[] {
  if (new Set(keys).size === keys.length) return []; // the usual case: nothing repeats
  return repeatedIndexes(keys);
}

function repeatedIndexes(keys: string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const times = seen.get(k) ?? 0;
    if (times === 1) out.push(i);
    seen.set(k, times + 1);
  });
  return out;
}

/** Validates every set and map list under `obj` (an object described by `s`), with paths under `base`. */
export function validateListSetsAndMaps(s: Structural | undefined, obj: unknown, base: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  walk(s, obj, base, errs);
  return errs;
}

function walk(s: Structural | undefined, x: unknown, p: FieldPath, errs: FieldError[]): void {
  if (!s || !subtreeHas(s, isSetOrMapList)) return;
  if (Array.isArray(x)) {
    if (s.listType === 'set') {
      for (const i of nonUniqueIndexes(x.map(identity))) errs.push(duplicate(p.index(i).toString(), x[i]));
    } else if (s.listType === 'map') {
      validateListMap(s, x, p, errs);
    }
    // Children are tested before descending so that set/map-free subtrees cost no FieldPath.
    if (subtreeHas(s.items, isSetOrMapList)) for (let i = 0; i < x.length; i++) walk(s.items, x[i], p.index(i), errs);
    return;
  }
  if (!isPlainObject(x)) return;
  const ap = subtreeHas(s.additionalProperties?.schema, isSetOrMapList) ? s.additionalProperties!.schema : undefined;
  if (!ap) {
    // Only the properties whose subtree holds a set or map list (usually one or two of many) need a look.
    for (const [k, prop] of listPropertiesOf(s)) if (k in x) walk(prop, x[k], p.child(k), errs);
    return;
  }
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop) {
      if (subtreeHas(prop, isSetOrMapList)) walk(prop, x[k], p.child(k), errs);
    } else walk(ap, x[k], p.key(k), errs);
  }
}

const listProperties = new WeakMap<Structural, [string, Structural][]>();

/** The properties of `s` with a set or map list at or below them, in schema order (worked out once per node). */
function listPropertiesOf(s: Structural): [string, Structural][] {
  let props = listProperties.get(s);
  if (!props) {
    props = [...(s.properties ?? [])].filter(([, p]) => subtreeHas(p, isSetOrMapList));
    listProperties.set(s, props);
  }
  return props;
}

function validateListMap(s: Structural, x: unknown[], p: FieldPath, errs: FieldError[]): void {
  for (let i = 0; i < x.length; i++) {
    if (x[i] !== null && !isPlainObject(x[i])) {
      errs.push(invalid(p.index(i).toString(), x[i], 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (x.length <= 1) return;
  const keyFields = s.listMapKeys ?? [];
  const ids = x.map((item) => mapKeyIdentity(item, keyFields));
  for (const i of nonUniqueIndexes(ids)) {
    const item = x[i];
    const key: Record<string, unknown> = {};
    if (isPlainObject(item)) for (const f of keyFields) if (f in item) key[f] = item[f];
    // With a single key field upstream reports the key as `{name: value}`, an absent key as `{}`.
    errs.push({ ...duplicate(p.index(i).toString(), key), renderedValue: goSharpV(key) });
  }
}

/**
 * Identifies a list-map item by its key fields (absent and present-but-null differ; an int decoded as bigint equals
 * the same number). The common single scalar key needs no JSON at all.
 */
function mapKeyIdentity(item: unknown, keyFields: string[]): string {
  const one = (f: string): string => {
    if (!isPlainObject(item) || !(f in item)) return 'absent';
    const v = item[f];
    return typeof v === 'bigint' ? `number:${v}` : identity(v);
  };
  if (keyFields.length === 1) return one(keyFields[0]!);
  return JSON.stringify(keyFields.map(one));
}
