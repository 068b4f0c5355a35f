/**
 * Small primitives over decoded JSON values (the output of JSON.parse) that the patch algorithms share.
 *
 * Every write goes through {@link setOwn} so that a key spelled `__proto__` becomes an ordinary own
 * property instead of replacing the object's prototype, and every read of a key that came from a patch
 * goes through {@link getOwn}/{@link hasOwn} so that inherited members (`constructor`, `toString`, ...)
 * are never mistaken for document content.
 */

/** A decoded JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `obj` has `key` as an own property (inherited members do not count). */
export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own property `key` of `obj`, or undefined when it has none. */
export function getOwn(obj: JsonObject, key: string): unknown {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Sets `obj[key] = value` as an own, enumerable data property. Plain assignment would treat `__proto__`
 * as the prototype setter; defining the property keeps it data, exactly as JSON.parse does.
 */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** Removes the own property `key` (no-op when absent). */
export function deleteOwn(obj: JsonObject, key: string): void {
  if (hasOwn(obj, key)) delete obj[key];
}

/** A deep copy of a JSON value; objects are rebuilt with {@link setOwn}, so `__proto__` keys survive as data. */
export function deepCloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => deepCloneJson(v)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(out, key, deepCloneJson(value[key]));
    return out as T;
  }
  return value;
}

/** Structural equality of two JSON values (object key order is irrelevant, array order is significant). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The name encoding/json uses for a JSON value's kind in `cannot unmarshal <kind> into ...` errors:
 * object, array, string, number, bool or null.
 */
export function jsonKindName(value: unknown): 'object' | 'array' | 'string' | 'number' | 'bool' | 'null' {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}
