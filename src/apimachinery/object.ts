/** Loosely typed Kubernetes objects as they travel as JSON, and small accessors shared by every layer. */
export type JsonObject = Record<string, unknown>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: JsonObject[];
  finalizers?: string[];
  managedFields?: JsonObject[];
  [k: string]: unknown;
}

export interface KubeObject extends JsonObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object's metadata, created empty when missing. */
export function metaOf(obj: KubeObject): ObjectMeta {
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as ObjectMeta;
}

/**
 * A deep copy with exactly what a JSON round trip (JSON.parse(JSON.stringify(v))) gives — keys whose value is
 * undefined, a function or a symbol left out, such array items and non-finite numbers as null, -0 as 0, a value with
 * toJSON (a Date) or of a class as JSON writes it — copied directly, about six times faster than the round trip on
 * the objects a server and its controllers copy all the time (every update, status write and informer read).
 */
export function deepCopy<T>(v: T): T {
  return v === undefined ? v : (copyJsonValue(v) as T);
}

function copyJsonValue(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'object':
      break;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      // A function or symbol at the top: JSON.stringify gives undefined, which JSON.parse refuses.
      return JSON.parse(JSON.stringify(v) as string);
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    const n = v.length;
    const out: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      out[i] = x === undefined || typeof x === 'function' || typeof x === 'symbol' ? null : copyJsonValue(x);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.parse(JSON.stringify(v)) as unknown;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = (v as JsonObject)[k];
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
    // An own "__proto__" key, as JSON.parse makes it, not the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: copyJsonValue(x), enumerable: true, writable: true, configurable: true });
    else out[k] = copyJsonValue(x);
  }
  return out;
}

/**
 * Whether `a` and `b` hold the same values once decoded into Go's types, as a controller's Go counterpart compares
 * (reflect.DeepEqual of structs): a field left out equals its zero value — 0, '', false, null, an empty list or map,
 * a struct of zero values. A built-in object is stored in Go's round-trip form (omitempty leaves a zero count out,
 * an unset metav1.Time is written as null), so a status computed with `unavailableReplicas: 0` or a condition without
 * `lastUpdateTime` never jsonEqual'ed what the server kept of it: every pass wrote it again (no change stored, but a
 * full request each time, for every object, on every event and resync).
 * For built-in objects a controller computes; not for custom resources (stored as sent, where `false` is not absent)
 * nor for a status copied from another store (compared as it is). A Go pointer field (a Job's `ready`) going from
 * absent to 0 is a change in Go and not here: it is written with the next real change.
 */
export function goEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isGoZero(a) && isGoZero(b)) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!goEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  for (const k of Object.keys(ao)) if (!goEqual(ao[k], bo[k])) return false;
  for (const k of Object.keys(bo)) if (!(k in ao) && !isGoZero(bo[k])) return false;
  return true;
}

/** Go's zero value, as JSON: absent, null, 0, '', false, [], or an object of zero values. */
function isGoZero(v: unknown): boolean {
  if (v === undefined || v === null || v === 0 || v === '' || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) {
    for (const k in v) if (!isGoZero(v[k])) return false;
    return true;
  }
  return false;
}

/** Structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as JsonObject).filter((k) => (a as JsonObject)[k] !== undefined);
  const bk = Object.keys(b as JsonObject).filter((k) => (b as JsonObject)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!jsonEqual((a as JsonObject)[k], (b as JsonObject)[k])) return false;
  return true;
}

/** A time (a Date or epoch milliseconds) in RFC 3339 UTC with second precision, as metav1.Time marshals (truncated). */
export function formatRFC3339(t: Date | number): string {
  const ms = typeof t === 'number' ? t : t.getTime();
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The current time as formatRFC3339 writes it. */
export function nowRFC3339(): string {
  // Whole seconds: formatted once per second (every write stamps managedFields times; formatting showed in profiles).
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = formatRFC3339(second * 1000);
  }
  return lastSecondText;
}
let lastSecond = -1;
let lastSecondText = '';

/** metav1.ObjectMeta's JSON field names in Go's declaration order (the order of a stored object's metadata). */
export const OBJECT_META_FIELDS: readonly string[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** How much later than it reads an RFC 3339 time may be: 999 ms for whole seconds, 99 for tenths, ..., 0 from ms. */
export function stampUncertaintyMs(stamp: string): number {
  const digits = /T\d\d:\d\d:\d\d\.(\d+)/.exec(stamp)?.[1]?.length ?? 0;
  return digits >= 3 ? 0 : 10 ** (3 - digits) - 1;
}
