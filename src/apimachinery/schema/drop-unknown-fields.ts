import { isPlainObject } from '../object.js';
import type { FieldType, TypeCatalog } from './types.js';
import { resolveJSONSchemaUnion } from './unknown-fields.js';

/**
 * Removes, in place, every field the type does not declare: what decoding into a Go struct does to a built-in object
 * under fieldValidation Warn and Ignore (Strict refuses the request instead). Top-level apiVersion/kind are kept, and
 * free-form values (RawExtension, JSON) are left alone. Types missing from the catalog are not touched, so an
 * incomplete catalog never loses data.
 */
export function dropUnknownFields(obj: unknown, catalog: TypeCatalog, typeName: string): void {
  pruneType(obj, catalog, typeName, true);
}

function pruneType(value: unknown, catalog: TypeCatalog, typeName: string, root: boolean): void {
  const resolved = resolveJSONSchemaUnion(typeName);
  if (resolved !== typeName) {
    if (Array.isArray(value)) for (const v of value) pruneType(v, catalog, resolved, false);
    else pruneType(value, catalog, resolved, false);
    return;
  }
  const t = catalog.get(typeName);
  if (!t || !isPlainObject(value)) return;
  const byName = new Map(t.fields.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind')) continue;
    const f = byName.get(k);
    if (!f) delete value[k];
    else pruneField(v, catalog, f.type);
  }
}

function pruneField(value: unknown, catalog: TypeCatalog, type: FieldType): void {
  if (value === null || value === undefined) return;
  if ('ref' in type) pruneType(value, catalog, type.ref, false);
  else if ('list' in type) {
    if (Array.isArray(value)) for (const v of value) pruneField(v, catalog, type.list);
  } else if ('map' in type) {
    if (isPlainObject(value)) for (const v of Object.values(value)) pruneField(v, catalog, type.map);
  }
}
