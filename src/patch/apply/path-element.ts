/**
 * Path elements of field sets, in their FieldsV1 spelling, which atrium also uses as their identity:
 *   - `f:<name>`  a struct field or map key;
 *   - `k:<json>`  an item of a map-type list, named by its key fields as a JSON object with sorted keys;
 *   - `v:<json>`  an item of a set-type list, named by its value;
 *   - `i:<n>`     a list position (only in sets decoded from clients; atrium never produces them).
 */
import { isObjectValue } from './schema.js';

/**
 * Elements of the field names seen, reused: a fresh `f:name` string per use must be looked up in V8's string table
 * each time it becomes a property key of a FieldsV1 object, which made writing managedFields several times slower.
 * Field names repeat across objects of a kind; the cache holds short names only and is cleared when it grows past a
 * bound (a client's odd map keys), so it never holds more than about a megabyte.
 */
const fieldElements = new Map<string, string>();
const FIELD_ELEMENT_CACHE_LIMIT = 10_000;
/** Only names this short are kept (field names are; map keys a client sends may be a megabyte long). */
const FIELD_ELEMENT_CACHE_MAX_NAME = 64;

export function fieldElement(name: string): string {
  if (name.length > FIELD_ELEMENT_CACHE_MAX_NAME) return `f:${name}`;
  let e = fieldElements.get(name);
  if (e === undefined) {
    if (fieldElements.size >= FIELD_ELEMENT_CACHE_LIMIT) fieldElements.clear();
    e = `f:${name}`;
    fieldElements.set(name, e);
  }
  return e;
}

/** The `v:` element of a set item. */
export function valueElement(value: unknown): string {
  return `v:${canonicalJson(value)}`;
}

/**
 * The `k:` element of a map-list item, or undefined when the item is not an object or lacks a key field
 * (upstream rejects such items; atrium's callers then fall back to treating the list as atomic).
 */
export function keyElement(item: unknown, keys: readonly string[]): string | undefined {
  if (!isObjectValue(item) || keys.length === 0) return undefined;
  if (keys.length === 1) {
    // The common case, one scalar key (`name`, `containerPort`): the canonical JSON of {key: value} written directly.
    const v = item[keys[0]!];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object') return `k:{${JSON.stringify(keys[0])}:${JSON.stringify(v)}}`;
  }
  const picked: Record<string, unknown> = {};
  for (const k of [...keys].sort()) {
    if (item[k] === undefined || item[k] === null) return undefined;
    picked[k] = item[k];
  }
  return `k:${canonicalJson(picked)}`;
}

/** JSON with object keys sorted, so equal values always spell the same element. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObjectValue(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A path element as structured-merge-diff prints it in conflict messages: `.name`, `[key="v",port=80]`, `[="v"]`, `[0]`.
 */
export function elementToString(element: string): string {
  const body = element.slice(2);
  switch (element.slice(0, 2)) {
    case 'f:':
      return `.${body}`;
    case 'k:': {
      const parsed = safeParse(body);
      if (!isObjectValue(parsed)) return `[${body}]`;
      return `[${Object.keys(parsed)
        .sort()
        .map((k) => `${k}=${scalarToString(parsed[k])}`)
        .join(',')}]`;
    }
    case 'v:':
      return `[=${scalarToString(safeParse(body))}]`;
    case 'i:':
      return `[${body}]`;
    default:
      return '{{invalid path element}}';
  }
}

/** A path (list of elements) as one string, e.g. `.metadata.labels.app`. */
export function pathToString(path: readonly string[]): string {
  return path.map(elementToString).join('');
}

/** True when the string is a well-formed FieldsV1 key other than ".". */
export function isValidElement(element: string): boolean {
  const prefix = element.slice(0, 2);
  if (prefix === 'f:') return true;
  if (prefix === 'i:') return /^\d+$/.test(element.slice(2));
  if (prefix === 'k:') return isObjectValue(safeParse(element.slice(2)));
  if (prefix === 'v:') return safeParse(element.slice(2)) !== INVALID;
  return false;
}

const INVALID = Symbol('invalid');

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return INVALID;
  }
}

function scalarToString(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : canonicalJson(v);
}
