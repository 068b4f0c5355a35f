/**
 * Memoised "does anything at or below this schema node have property P" queries, so the validation walks can skip
 * whole subtrees of an object that no rule, set/map list or embedded resource can apply to. Results are cached per
 * predicate and node; structural schemas are immutable once built, so the cache never goes stale.
 */
import type { Structural } from './structural.js';

const caches = new WeakMap<(s: Structural) => boolean, WeakMap<Structural, boolean>>();

/** True when `pred` holds for `s` or any node below it (items, properties, additionalProperties). */
export function subtreeHas(s: Structural | undefined, pred: (s: Structural) => boolean): boolean {
  if (!s) return false;
  let cache = caches.get(pred);
  if (!cache) caches.set(pred, (cache = new WeakMap()));
  const known = cache.get(s);
  if (known !== undefined) return known;
  let found = pred(s) || subtreeHas(s.items, pred) || subtreeHas(s.additionalProperties?.schema, pred);
  if (!found && s.properties) for (const p of s.properties.values()) if ((found = subtreeHas(p, pred))) break;
  cache.set(s, found);
  return found;
}

export const hasValidationRules = (s: Structural): boolean => s.validations.length > 0;
export const isEmbeddedResource = (s: Structural): boolean => s.embeddedResource;
export const hasDefault = (s: Structural): boolean => s.default !== undefined;
export const isSetOrMapList = (s: Structural): boolean => s.listType === 'set' || s.listType === 'map';
