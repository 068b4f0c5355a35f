/**
 * Conversion of decoded JSON into the values CEL rules see (k8s.io/apiserver pkg/cel/common UnstructuredToVal),
 * driven by the structural schema: `integer` → int (bigint), `number` → double, int-or-string integers → int,
 * `format: date-time` strings → timestamp, `format: byte` → bytes, objects with properties → only the declared
 * properties (plus apiVersion/kind/metadata on embedded resources), maps and schemaless values → every key.
 */
import { isPlainObject } from '../../../apimachinery/object.js';
import type { Structural } from '../structural.js';

const embeddedMetaFields = ['apiVersion', 'kind', 'metadata'];

/** Converts `x` (described by `s`, or schemaless when `s` is undefined) to its CEL representation. */
export function toCelValue(x: unknown, s: Structural | undefined): unknown {
  if (x === null || x === undefined) return null;
  if (!s) return inferred(x);
  if (typeof x === 'number') {
    if (s.type === 'number') return x;
    return Number.isInteger(x) ? BigInt(x) : x;
  }
  if (typeof x === 'string') {
    if (s.type === 'string' && (s.format === 'date-time' || s.format === 'datetime')) {
      const t = Date.parse(x);
      if (!Number.isNaN(t)) return new Date(t);
    }
    if (s.type === 'string' && s.format === 'byte') return new Uint8Array(Buffer.from(x, 'base64'));
    return x;
  }
  if (Array.isArray(x)) return x.map((v) => toCelValue(v, s.items));
  if (!isPlainObject(x)) return x;
  const out: Record<string, unknown> = {};
  if (s.properties && s.properties.size > 0) {
    for (const [k, prop] of s.properties) if (k in x) out[k] = toCelValue(x[k], prop);
    if (s.embeddedResource) for (const k of embeddedMetaFields) if (k in x && !(k in out)) out[k] = inferred(x[k]);
    return out;
  }
  if (s.additionalProperties) {
    for (const k of Object.keys(x)) out[k] = toCelValue(x[k], s.additionalProperties.schema);
    return out;
  }
  if (s.preserveUnknownFields || s.embeddedResource) return inferred(x);
  return out;
}

/** Schemaless conversion: integral numbers become int, everything else keeps its JSON shape. */
function inferred(x: unknown): unknown {
  if (typeof x === 'number') return Number.isInteger(x) ? BigInt(x) : x;
  if (Array.isArray(x)) return x.map(inferred);
  if (isPlainObject(x)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(x)) out[k] = inferred(x[k]);
    return out;
  }
  return x;
}

/**
 * toCelValue of an object restricted to `fields`: the result has exactly the keys toCelValue(x, s) would have among
 * `fields`, converted the same way. Rules that only select a few fields of `self` need no more than this.
 */
export function toCelValueFields(x: Record<string, unknown>, s: Structural, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.properties && s.properties.size > 0) {
    for (const k of fields) {
      if (!(k in x)) continue;
      const prop = s.properties.get(k);
      if (prop) out[k] = toCelValue(x[k], prop);
      else if (s.embeddedResource && embeddedMetaFields.includes(k)) out[k] = inferred(x[k]);
    }
    return out;
  }
  if (s.additionalProperties) {
    for (const k of fields) if (k in x) out[k] = toCelValue(x[k], s.additionalProperties.schema);
    return out;
  }
  if (s.preserveUnknownFields || s.embeddedResource) for (const k of fields) if (k in x) out[k] = inferred(x[k]);
  return out;
}
