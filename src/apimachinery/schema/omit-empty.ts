/**
 * The typed round trip of a built-in object's empty lists and maps: encoding the Go object (for storage, for the
 * field manager's conversion to unstructured, for every answer) leaves out a list or map field whose json tag is
 * `omitempty` when it holds nothing, and a `null` one. So a write that sends `data: {}`, or a patch that removes the
 * last key of `data` or the last label, stores and answers no `data` (no `labels`), and no field manager owns the
 * empty value. Fields without omitempty (the catalog's emitZero: Role.rules, PolicyRule.verbs, ...) are kept as they
 * are. Validation still sees the empty values (Go validates the decoded object, where an empty list is not a nil one).
 *
 * Only Kubernetes' own Go types round-trip like this: custom resources (and kinds upstream serves as custom
 * resources) are unstructured, and keep their empty values but for their metadata's (an ObjectMeta there too).
 *
 * `metadata.managedFields` is left to the field manager, which reads and rewrites it.
 */
import { isPlainObject } from '../object.js';
import { fieldHintKey } from './builtin/builtin-type.js';
import { META_V1 } from './builtin/field-types.js';
import { resolveJSONSchemaUnion } from './unknown-fields.js';
import type { FieldType, TypeCatalog } from './types.js';

const MANAGED_FIELDS = fieldHintKey(`${META_V1}.ObjectMeta`, 'managedFields');

interface Walk {
  plans: Map<string, Plan | undefined>;
  catalog: TypeCatalog;
  /** `<type>#<field>` keys of the fields Go always writes. */
  keepsEmpty: ReadonlySet<string>;
  /** Only look: stop at the first field that would be dropped. */
  check: boolean;
}

/** A type's fields by JSON name: their type, and whether an empty value of theirs goes. */
type Plan = Map<string, { type: FieldType; dropsEmpty: boolean }>;

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
    plan = new Map();
    for (const f of t.fields) {
      const key = fieldHintKey(t.name, f.name);
      const collection = 'list' in f.type || 'map' in f.type;
      plan.set(f.name, { type: f.type, dropsEmpty: collection && key !== MANAGED_FIELDS && !w.keepsEmpty.has(key) });
    }
  }
  w.plans.set(typeName, plan);
  return plan;
}

/**
 * Drops, in place, through `obj` read as catalog type `typeName`, every empty or null list or map field that is not
 * in `keepsEmpty`. Returns whether there was any; with `check`, only answers that, leaving `obj` as it is.
 */
export function dropEmptyOmitted(obj: unknown, catalog: TypeCatalog, typeName: string, keepsEmpty: ReadonlySet<string>, check = false): boolean {
  return walkType(obj, typeName, { plans: plansFor(catalog, keepsEmpty), catalog, keepsEmpty, check });
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
  for (const name of Object.keys(value)) {
    const f = plan.get(name);
    if (!f) continue;
    const v = value[name];
    if (f.dropsEmpty && isEmpty(v)) {
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
