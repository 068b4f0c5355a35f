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
  catalog: TypeCatalog;
  /** `<type>#<field>` keys of the fields Go always writes. */
  keepsEmpty: ReadonlySet<string>;
  /** Only look: stop at the first field that would be dropped. */
  check: boolean;
}

/**
 * Drops, in place, through `obj` read as catalog type `typeName`, every empty or null list or map field that is not
 * in `keepsEmpty`. Returns whether there was any; with `check`, only answers that, leaving `obj` as it is.
 */
export function dropEmptyOmitted(obj: unknown, catalog: TypeCatalog, typeName: string, keepsEmpty: ReadonlySet<string>, check = false): boolean {
  return walkType(obj, typeName, { catalog, keepsEmpty, check });
}

function isEmpty(v: unknown): boolean {
  return v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

function walkType(value: unknown, typeName: string, w: Walk): boolean {
  const resolved = resolveJSONSchemaUnion(typeName);
  // A JSONSchemaPropsOrArray holding a list of schemas.
  if (Array.isArray(value) && resolved !== typeName) return walkItems(value, { ref: resolved }, w);
  const t = w.catalog.get(resolved);
  if (!t || !isPlainObject(value)) return false;
  let found = false;
  for (const f of t.fields) {
    if (!(f.name in value)) continue;
    const v = value[f.name];
    if ('list' in f.type || 'map' in f.type) {
      const key = fieldHintKey(t.name, f.name);
      if (key === MANAGED_FIELDS) continue;
      if (!w.keepsEmpty.has(key) && isEmpty(v)) {
        if (w.check) return true;
        delete value[f.name];
        found = true;
        continue;
      }
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
