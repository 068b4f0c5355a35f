import { isPlainObject } from '../object.js';
import type { FieldType, TypeCatalog } from './types.js';

/**
 * Paths of fields in obj that the type does not declare, as strict decoding reports them (`spec.foo`,
 * `metadata.labels` never, items as `items[0].x`). Maps of free-form values (RawExtension, JSON) are not descended.
 */
export function unknownFieldsOf(obj: unknown, catalog: TypeCatalog, typeName: string): string[] {
  const out: string[] = [];
  walkType(obj, catalog, typeName, '', out, true);
  return out;
}

/**
 * The apiextensions JSON unions (JSONSchemaPropsOrArray, ...OrBool, ...OrStringArray) have no fields of their own: on
 * the wire they are a JSONSchemaProps object, a list of them, a boolean or a list of strings. Returns the type a
 * value of such a union is checked as (arrays: per element), or the type name itself for everything else.
 */
export function resolveJSONSchemaUnion(typeName: string): string {
  const m = /^(.*\.JSONSchemaProps)Or(Array|Bool|StringArray)$/.exec(typeName);
  return m ? m[1]! : typeName;
}

function walkType(value: unknown, catalog: TypeCatalog, typeName: string, path: string, out: string[], root: boolean): void {
  const resolved = resolveJSONSchemaUnion(typeName);
  if (resolved !== typeName) {
    if (Array.isArray(value)) value.forEach((v, i) => walkType(v, catalog, resolved, `${path}[${i}]`, out, false));
    else walkType(value, catalog, resolved, path, out, false);
    return;
  }
  const t = catalog.get(typeName);
  if (!t || !isPlainObject(value)) return;
  const byName = new Map(t.fields.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind')) continue;
    const f = byName.get(k);
    const p = path ? `${path}.${k}` : k;
    if (!f) {
      out.push(p);
      continue;
    }
    walkField(v, catalog, f.type, p, out);
  }
}

function walkField(value: unknown, catalog: TypeCatalog, type: FieldType, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  if ('ref' in type) walkType(value, catalog, type.ref, path, out, false);
  else if ('list' in type) {
    if (Array.isArray(value)) value.forEach((v, i) => walkField(v, catalog, type.list, `${path}[${i}]`, out));
  } else if ('map' in type) {
    if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) walkField(v, catalog, type.map, `${path}[${k}]`, out);
  }
}
