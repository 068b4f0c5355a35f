/**
 * The typed round trip of a built-in object: what decoding the JSON into the Go type and encoding it again leaves
 * (for storage, for the field manager's conversion to unstructured, for every answer).
 *   - A list or map field whose json tag is `omitempty` is left out when it holds nothing, or is `null`. So a write
 *     that sends `data: {}`, or a patch that removes the last key of `data` or the last label, stores and answers no
 *     `data` (no `labels`), and no field manager owns the empty value. Fields without omitempty (the catalog's
 *     emitZero: Role.rules, PolicyRule.verbs, ...) are kept as they are.
 *   - A plain scalar field (string, number, boolean) held by value with `omitempty` is left out at its zero value
 *     (`hostNetwork: false`, `minReadySeconds: 0`, `subPath: ""`), or when `null`; pointers and fields without
 *     omitempty (emitZero) keep it.
 *   - A field Go always writes is filled in when unset (builtin/go-unset-values.ts): a struct held by value as `{}`
 *     (a container's `resources: {}`), a metav1.Time as `null` (a template's `creationTimestamp: null`), a Quantity as
 *     "0", a field without omitempty as its zero value.
 * Validation still sees the values as sent (Go validates the decoded object, where an empty list is not a nil one).
 *
 * Only Kubernetes' own Go types round-trip like this: custom resources (and kinds upstream serves as custom
 * resources) are unstructured, and keep their values as sent but for their metadata's (an ObjectMeta there too).
 *
 * `metadata.managedFields` is left to the field manager, which reads and rewrites it.
 */
import { isPlainObject } from '../object.js';
import { fieldHintKey } from './builtin/builtin-type.js';
import { META_V1 } from './builtin/field-types.js';
import { GO_UNSET_VALUES } from './builtin/go-unset-values.js';
import { resolveJSONSchemaUnion } from './unknown-fields.js';
import type { FieldType, ScalarType, TypeCatalog } from './types.js';

const MANAGED_FIELDS = fieldHintKey(`${META_V1}.ObjectMeta`, 'managedFields');

interface Walk {
  plans: Map<string, Plan | undefined>;
  catalog: TypeCatalog;
  /** `<type>#<field>` keys of the fields Go always writes. */
  keepsEmpty: ReadonlySet<string>;
  /** Only look: stop at the first field that would be dropped. */
  check: boolean;
  /** Drop empty omitempty lists and maps too (storage); without, only zero scalars go and unset fields are filled. */
  dropEmpty: boolean;
}

/**
 * A type's fields by JSON name: their type, whether an empty list or map of theirs goes (dropsEmpty), whether a zero
 * scalar of theirs goes (dropsZero); and the values Go writes for the fields it always writes, when unset (fills).
 */
interface Plan {
  fields: Map<string, { type: FieldType; dropsEmpty: boolean; dropsZero: boolean }>;
  fills: readonly (readonly [name: string, value: unknown])[];
}

/** Scalars Go holds as plain values (not structs with their own JSON form, as metav1.Time or Quantity). */
const PLAIN_SCALARS: ReadonlySet<ScalarType> = new Set(['string', 'bytes', 'boolean', 'int32', 'int64', 'double']);

function isZeroScalar(v: unknown): boolean {
  return v === null || v === '' || v === 0 || v === false;
}

/** Plans by catalog and keepsEmpty set, by type name: a write walks the same few types again and again. */
const plansByCatalog = new WeakMap<TypeCatalog, WeakMap<ReadonlySet<string>, Map<string, Plan | undefined>>>();

function plansFor(catalog: TypeCatalog, keepsEmpty: ReadonlySet<string>): Map<string, Plan | undefined> {
  let byKeeps = plansByCatalog.get(catalog);
  if (!byKeeps) plansByCatalog.set(catalog, (byKeeps = new WeakMap()));
  let plans = byKeeps.get(keepsEmpty);
  if (!plans) byKeeps.set(keepsEmpty, (plans = new Map()));
  return plans;
}

function planOf(typeName: string, w: Walk): Plan | undefined {
  if (w.plans.has(typeName)) return w.plans.get(typeName);
  const t = w.catalog.get(typeName);
  let plan: Plan | undefined;
  if (t) {
    const fields: Plan['fields'] = new Map();
    for (const f of t.fields) {
      const key = fieldHintKey(t.name, f.name);
      const collection = 'list' in f.type || 'map' in f.type;
      const plainScalar = 'scalar' in f.type && PLAIN_SCALARS.has(f.type.scalar);
      fields.set(f.name, {
        type: f.type,
        dropsEmpty: collection && key !== MANAGED_FIELDS && !w.keepsEmpty.has(key),
        dropsZero: plainScalar && !w.keepsEmpty.has(key),
      });
    }
    const unset = GO_UNSET_VALUES[t.name];
    plan = { fields, fills: unset ? Object.entries(unset).filter(([name]) => fields.has(name)) : [] };
  }
  w.plans.set(typeName, plan);
  return plan;
}

/**
 * Gives `obj`, in place, read as catalog type `typeName`, the form Go's round trip leaves (see the module comment):
 * drops empty or null list and map fields that are not in `keepsEmpty`, zero plain scalars that are not in it, and
 * fills in what Go always writes. Returns whether anything changed; with `check`, only answers that (a null that would be
 * filled in does not count), leaving `obj` as it is.
 */
export function roundTripAsGo(obj: unknown, catalog: TypeCatalog, typeName: string, keepsEmpty: ReadonlySet<string>, check = false): boolean {
  return walkType(obj, typeName, { plans: plansFor(catalog, keepsEmpty), catalog, keepsEmpty, check, dropEmpty: true });
}

/**
 * What decoding into the Go type alone leaves, which is what validation sees: zero scalars dropped and unset fields
 * filled as in roundTripAsGo, but empty lists and maps kept (a decoded empty slice is not a nil one). So an update's
 * new object compares equal to the stored one wherever nothing changed (immutable fields, StatefulSet's spec).
 */
export function decodeAsGo(obj: unknown, catalog: TypeCatalog, typeName: string, keepsEmpty: ReadonlySet<string>): boolean {
  return walkType(obj, typeName, { plans: plansFor(catalog, keepsEmpty), catalog, keepsEmpty, check: false, dropEmpty: false });
}

function isEmpty(v: unknown): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isPlainObject(v)) return false;
  for (const _ in v) return false;
  return true;
}

function walkType(value: unknown, typeName: string, w: Walk): boolean {
  const resolved = resolveJSONSchemaUnion(typeName);
  // A JSONSchemaPropsOrArray holding a list of schemas.
  if (Array.isArray(value) && resolved !== typeName) return walkItems(value, { ref: resolved }, w);
  if (!isPlainObject(value)) return false;
  const plan = planOf(resolved, w);
  if (!plan) return false;
  let found = false;
  for (const [name, unset] of plan.fills) {
    if (name in value) continue;
    // A null Go writes is nothing anyone reads or owns (the field manager skips nulls): only a struct or zero value
    // filled in counts as a change to look at, which spares the store a copy of most writes.
    if (w.check) {
      if (unset === null) continue;
      return true;
    }
    // A filled struct is walked below like any other, so its own always-written fields are filled in too.
    value[name] = isPlainObject(unset) ? {} : unset;
    found = true;
  }
  for (const name of Object.keys(value)) {
    const f = plan.fields.get(name);
    if (!f) continue;
    const v = value[name];
    if ((w.dropEmpty && f.dropsEmpty && isEmpty(v)) || (f.dropsZero && isZeroScalar(v))) {
      if (w.check) return true;
      delete value[name];
      found = true;
      continue;
    }
    if (walkField(v, f.type, w)) {
      if (w.check) return true;
      found = true;
    }
  }
  return found;
}

/** List items and map values are kept even when empty (Go writes every element); their own fields are walked. */
function walkItems(items: Iterable<unknown>, type: FieldType, w: Walk): boolean {
  let found = false;
  for (const item of items) {
    if (walkField(item, type, w)) {
      if (w.check) return true;
      found = true;
    }
  }
  return found;
}

function walkField(value: unknown, type: FieldType, w: Walk): boolean {
  if (value === null || value === undefined || 'scalar' in type) return false;
  if ('ref' in type) return walkType(value, type.ref, w);
  if ('list' in type) return Array.isArray(value) && walkItems(value, type.list, w);
  return isPlainObject(value) && walkItems(Object.values(value), type.map, w);
}
