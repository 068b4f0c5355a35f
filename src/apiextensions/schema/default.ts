/**
 * Defaulting of custom resources (apiextensions-apiserver schema/defaulting). Upstream applies it when a request is
 * decoded (after pruning) and again when an object is read from storage, so a default added to a CRD later shows up
 * on old objects.
 */
import { isPlainObject } from '../../apimachinery/object.js';
import type { Structural } from './structural.js';
import { hasDefault, subtreeHas } from './subtree.js';

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
  const plan = s && planOf(s);
  if (plan) defaultWith(x, plan);
}

/** What defaulting does at one schema node, worked out once per node (undefined: nothing at or below it). */
interface DefaultPlan {
  schema: Structural;
  /** Properties with a default of their own. */
  defaulted: [string, Structural][];
  /** Properties with defaults at or below them, to descend into. */
  descend: [string, DefaultPlan][];
  items?: DefaultPlan;
  additional?: DefaultPlan;
}

const plans = new WeakMap<Structural, DefaultPlan | null>();

function planOf(s: Structural): DefaultPlan | undefined {
  const known = plans.get(s);
  if (known !== undefined) return known ?? undefined;
  let plan: DefaultPlan | undefined;
  if (subtreeHas(s, hasDefault)) {
    plan = { schema: s, defaulted: [], descend: [] };
    for (const [k, prop] of s.properties ?? []) {
      if (prop.default !== undefined) plan.defaulted.push([k, prop]);
      const sub = planOf(prop);
      if (sub) plan.descend.push([k, sub]);
    }
    if (s.items) plan.items = planOf(s.items);
    const ap = s.additionalProperties?.schema;
    if (ap) plan.additional = planOf(ap);
  }
  plans.set(s, plan ?? null);
  return plan;
}

function defaultWith(x: unknown, plan: DefaultPlan): void {
  if (Array.isArray(x)) {
    const items = plan.items;
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items.schema) && items.schema.default !== undefined) x[i] = copyJSON(items.schema.default);
      defaultWith(x[i], items);
    }
    return;
  }
  if (!isPlainObject(x)) return;
  for (const [k, prop] of plan.defaulted) {
    if (!(k in x) || isNonNullableNull(x[k], prop)) x[k] = copyJSON(prop.default);
  }
  for (const [k, sub] of plan.descend) if (k in x) defaultWith(x[k], sub);
  const ap = plan.additional;
  if (ap) {
    const declared = plan.schema.properties;
    for (const k of Object.keys(x)) {
      if (declared?.has(k)) continue;
      if (isNonNullableNull(x[k], ap.schema) && ap.schema.default !== undefined) x[k] = copyJSON(ap.schema.default);
      defaultWith(x[k], ap);
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
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    const sub = s?.properties?.get(k) ?? s?.additionalProperties?.schema;
    if (x[k] === null && sub && !sub.nullable && sub.default === undefined) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], sub);
  }
}
