/**
 * The type information server-side apply needs: for every position in an object, how its value is merged and how its
 * fields are named in a field set (structured-merge-diff's schema, reduced to what atrium uses).
 *
 *   - scalar: a leaf; owned and replaced as a whole.
 *   - struct: an object with named fields. Granular structs are merged field by field; atomic ones
 *     (`+structType=atomic`, `x-kubernetes-map-type: atomic`) are a single leaf.
 *   - map: an object with arbitrary string keys (labels, ConfigMap data, `additionalProperties`), granular or atomic.
 *   - list: `atomic` (one leaf, the default for CRDs and untagged built-in lists), `set` (scalar items identified by
 *     value, `v:` path elements) or `map` (object items identified by their key fields, `k:` path elements).
 *   - deduced: nothing is known; the value decides: objects are granular maps, lists atomic, anything else a scalar.
 *
 * Two sources implement it: the built-in type catalog (builtin-schema.ts) and CRD structural schemas
 * (structural-schema.ts). A resource may also carry its own (ResourceDefinition.ssaSchema).
 */

/** smd's scalar kinds, only checked when a configuration is validated (absent: not checked). */
export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'untyped';

export type SsaType =
  | { readonly kind: 'scalar'; readonly scalar?: ScalarKind }
  | { readonly kind: 'deduced' }
  | {
      readonly kind: 'struct';
      readonly atomic: boolean;
      /** The type of a named field; undefined for a field the schema does not describe (treated as deduced). */
      field(name: string): SsaType | undefined;
      /** Whether a configuration naming an undescribed field is rejected (`field not declared in schema`). */
      readonly closed?: boolean;
    }
  | { readonly kind: 'map'; readonly atomic: boolean; readonly values: SsaType }
  | { readonly kind: 'list'; readonly listType: 'atomic' | 'set' | 'map'; readonly keys: readonly string[]; readonly items: SsaType };

/** A resource's server-side apply schema: the type of its top-level object. */
export interface SsaSchema {
  readonly root: SsaType;
}

export const SCALAR: SsaType = { kind: 'scalar' };
export const DEDUCED: SsaType = { kind: 'deduced' };

/** Schema for resources nothing is known about: every object is a granular map, every list atomic. */
export const DEDUCED_SCHEMA: SsaSchema = { root: DEDUCED };

/** A plain JSON object (not null, not an array). */
/**
 * Field `name` of a decoded object, or undefined: own properties only, so that names such as `constructor` or
 * `toString` are not found on Object.prototype, and a `__proto__` key (JSON.parse makes it an own property) is read.
 */
export function ownField(o: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(o, name) ? o[name] : undefined;
}

/** Sets field `name` as an own property: plain assignment to `__proto__` would replace the object's prototype. */
export function setField(o: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(o, name, { value, writable: true, enumerable: true, configurable: true });
  else o[name] = value;
}

export function isObjectValue(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The effective type of `value` at a position typed `t`: deduced positions take the value's shape, and a value whose
 * shape contradicts the schema (an object where a scalar is declared, ...) is handled as a scalar leaf, so that
 * malformed stored data never breaks bookkeeping.
 */
export function effectiveType(t: SsaType, value: unknown): SsaType {
  if (t.kind === 'deduced') {
    if (isObjectValue(value)) return DEDUCED_MAP;
    if (Array.isArray(value)) return DEDUCED_LIST;
    return SCALAR;
  }
  if (value === undefined || value === null) return t;
  if ((t.kind === 'struct' || t.kind === 'map') && !isObjectValue(value)) return SCALAR;
  if (t.kind === 'list' && !Array.isArray(value)) return SCALAR;
  return t;
}

const DEDUCED_MAP: SsaType = { kind: 'map', atomic: false, values: DEDUCED };
const DEDUCED_LIST: SsaType = { kind: 'list', listType: 'atomic', keys: [], items: DEDUCED };

/** The type of member `name` of a struct or map; deduced when unknown. */
export function memberType(t: SsaType, name: string): SsaType {
  if (t.kind === 'struct') return t.field(name) ?? DEDUCED;
  if (t.kind === 'map') return t.values;
  return DEDUCED;
}

/** True when values of this (effective) type are owned and replaced as one leaf. */
export function isLeaf(t: SsaType): boolean {
  switch (t.kind) {
    case 'scalar':
    case 'deduced':
      return true;
    case 'struct':
    case 'map':
      return t.atomic;
    case 'list':
      return t.listType === 'atomic';
  }
}
