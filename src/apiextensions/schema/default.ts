/**
 * Defaulting of custom resources (apiextensions-apiserver schema/defaulting). Upstream applies it when a request is
 * decoded (after pruning) and again when an object is read from storage, so a default added to a CRD later shows up
 * on old objects.
 */
import type { Structural } from './structural.js';
import { hasDefault, subtreeHas } from './subtree.js';

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

const isNonNullableNull = (x: unknown, s: Structural | undefined): boolean => x === null && s !== undefined && !s.nullable;

/** Deep copy of a JSON value, so two defaulted objects never share a default's nested structure. */
function copyJSON<T>(v: T): T {
  return v === null || typeof v !== 'object' ? v : structuredClone(v);
}

/**
 * Applies `default:` values in place, recursively. A property gets its default when it is absent, or when it is
 * `null` and its schema is not nullable. Inside lists and additionalProperties maps, only non-nullable nulls are
 * replaced (an absent list element cannot exist). Defaults are applied before descending, so the nested fields of a
 * defaulted object are defaulted too.
 */
export function applyDefaults(x: unknown, s: Structural | undefined): void {
  // Nothing at or below this node declares a default: the whole subtree stays as it is.
  if (!s || !subtreeHas(s, hasDefault)) return;
  if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && items!.default !== undefined) x[i] = copyJSON(items!.default);
      applyDefaults(x[i], items);
    }
    return;
  }
  if (!isObject(x)) return;
  if (s.properties) {
    for (const [k, prop] of s.properties) {
      if (prop.default !== undefined && (!(k in x) || isNonNullableNull(x[k], prop))) x[k] = copyJSON(prop.default);
      if (k in x) applyDefaults(x[k], prop);
    }
  }
  const ap = s.additionalProperties?.schema;
  if (ap && subtreeHas(ap, hasDefault)) {
    for (const k of Object.keys(x)) {
      if (s.properties?.has(k)) continue;
      if (isNonNullableNull(x[k], ap) && ap.default !== undefined) x[k] = copyJSON(ap.default);
      applyDefaults(x[k], ap);
    }
  }
}

/**
 * Deletes object fields that are `null` although their schema is neither nullable nor defaulted, as the decoder
 * does right after pruning (so such a null reads as "unset" rather than failing type validation). List elements are
 * left alone: deleting them would shift indexes.
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s?.items);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const sub = s?.properties?.get(k) ?? s?.additionalProperties?.schema;
    if (x[k] === null && sub && !sub.nullable && sub.default === undefined) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], sub);
  }
}
