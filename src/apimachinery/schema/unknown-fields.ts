import { isPlainObject } from '../object.js';
import { type FieldType, type TypeCatalog, fieldsByName } from './types.js';

/**
 * Paths of fields in obj that the type does not declare, as strict decoding reports them (`spec.foo`,
 * `metadata.labels` never, items as `items[0].x`). Maps of free-form values (RawExtension, JSON) are not descended.
 */
export function unknownFieldsOf(obj: unknown, catalog: TypeCatalog, typeName: string): string[] {
  const out: string[] = [];
  walkUnknownFields(obj, catalog, typeName, (_parent, _key, path) => out.push(path()));
  return out;
}

/**
 * Removes, in place, every field the type does not declare: what decoding into a Go struct does to a built-in object
 * under fieldValidation Warn and Ignore (Strict refuses the request instead). Top-level apiVersion/kind are kept, and
 * free-form values (RawExtension, JSON) are left alone. Types missing from the catalog are not touched, so an
 * incomplete catalog never loses data.
 */
export function dropUnknownFields(obj: unknown, catalog: TypeCatalog, typeName: string): void {
  walkUnknownFields(obj, catalog, typeName, (parent, key) => delete parent[key]);
}

/**
 * Calls `onUnknown` for every field of `obj` that the named catalog type (and the types it refers to) does not
 * declare: the one walk behind strict decoding's unknown-field list and the Go decoder's dropping of them. Top-level
 * apiVersion/kind count as declared; free-form values (RawExtension, JSON) and types missing from the catalog are not
 * descended. `path()` renders the field's path (`spec.foo`, `items[0].x`, map values as `labels[k]`) on demand, so a
 * walk that only deletes builds no strings. The parent may be changed from the callback (its keys were listed first).
 */
export function walkUnknownFields(
  obj: unknown,
  catalog: TypeCatalog,
  typeName: string,
  onUnknown: (parent: Record<string, unknown>, key: string, path: () => string) => void,
): void {
  walkType(obj, { catalog, onUnknown, path: [] }, typeName, true);
}

/**
 * The apiextensions JSON unions (JSONSchemaPropsOrArray, ...OrBool, ...OrStringArray) have no fields of their own: on
 * the wire they are a JSONSchemaProps object, a list of them, a boolean or a list of strings. Returns the type a
 * value of such a union is checked as (arrays: per element), or the type name itself for everything else.
 */
export function resolveJSONSchemaUnion(typeName: string): string {
  // Only the three union names end so; the suffix test keeps the regular expression off every other type name.
  if (!typeName.endsWith('Array') && !typeName.endsWith('Bool')) return typeName;
  const m = /^(.*\.JSONSchemaProps)Or(Array|Bool|StringArray)$/.exec(typeName);
  return m ? m[1]! : typeName;
}

interface Walk {
  catalog: TypeCatalog;
  onUnknown: (parent: Record<string, unknown>, key: string, path: () => string) => void;
  /** The path of the value being walked: field names, list indexes (numbers) and map keys (`[k]`). */
  path: (string | number | { mapKey: string })[];
}

function renderPath(segments: Walk['path']): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string') out = out ? `${out}.${seg}` : seg;
    else out += `[${seg.mapKey}]`;
  }
  return out;
}

function walkType(value: unknown, w: Walk, typeName: string, root: boolean): void {
  const resolved = resolveJSONSchemaUnion(typeName);
  if (resolved !== typeName) {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        w.path.push(i);
        walkType(v, w, resolved, false);
        w.path.pop();
      });
    } else walkType(value, w, resolved, false);
    return;
  }
  const t = w.catalog.get(typeName);
  if (!t || !isPlainObject(value)) return;
  const byName = fieldsByName(t);
  for (const [k, v] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind')) continue;
    const f = byName.get(k);
    w.path.push(k);
    if (!f) {
      const at = w.path.slice();
      w.onUnknown(value, k, () => renderPath(at));
    } else walkField(v, w, f.type);
    w.path.pop();
  }
}

function walkField(value: unknown, w: Walk, type: FieldType): void {
  if (value === null || value === undefined) return;
  if ('ref' in type) walkType(value, w, type.ref, false);
  else if ('list' in type) {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        w.path.push(i);
        walkField(v, w, type.list);
        w.path.pop();
      });
    }
  } else if ('map' in type) {
    if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        w.path.push({ mapKey: k });
        walkField(v, w, type.map);
        w.path.pop();
      }
    }
  }
}
