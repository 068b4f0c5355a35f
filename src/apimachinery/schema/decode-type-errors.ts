/**
 * The type errors Go's JSON decoding of a built-in kind reports (`json: cannot unmarshal number into Go struct field
 * ConfigMap.data of type string`): a value of the wrong JSON type where the Go struct has a string, bool, number,
 * byte slice, struct, slice or map. kube-apiserver refuses such a body with 400 before anything else; storing it
 * would break every typed client that later lists the object. Fields with custom JSON decoding (times, durations,
 * quantities, int-or-string, raw JSON) are left to their own checks.
 */
import { isPlainObject } from '../object.js';
import type { FieldType, ScalarType, TypeCatalog } from './types.js';
import { resolveJSONSchemaUnion } from './unknown-fields.js';

/** The first such error in document order, as Go words it, or undefined. */
export function firstDecodeTypeError(obj: unknown, catalog: TypeCatalog, typeName: string): string | undefined {
  return checkStruct(obj, catalog, typeName, '', true);
}

const goScalar: Partial<Record<ScalarType, string>> = { string: 'string', boolean: 'bool', int32: 'int32', int64: 'int64', double: 'float64', bytes: '[]uint8' };

/** Go's name of a catalog type: the package's last segment and the type (`v1.ObjectMeta`). */
function goTypeName(typeName: string): string {
  const parts = typeName.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : typeName;
}

function goTypeOf(type: FieldType): string | undefined {
  if ('scalar' in type) return goScalar[type.scalar];
  if ('ref' in type) return goTypeName(type.ref);
  const inner = goTypeOf('list' in type ? type.list : type.map);
  if (inner === undefined) return undefined;
  return 'list' in type ? `[]${inner}` : `map[string]${inner}`;
}

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function checkStruct(value: unknown, catalog: TypeCatalog, typeName: string, path: string, root: boolean): string | undefined {
  const t = catalog.get(resolveJSONSchemaUnion(typeName));
  if (!t || !isPlainObject(value) || resolveJSONSchemaUnion(typeName) !== typeName) return undefined;
  const struct = typeName.slice(typeName.lastIndexOf('.') + 1);
  const byName = new Map(t.fields.map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind')) continue;
    const f = byName.get(k);
    if (!f) continue;
    const p = path ? `${path}.${k}` : k;
    const err = checkField(v, catalog, f.type, p, struct);
    if (err) return err;
  }
  return undefined;
}

/** `struct` is the innermost Go struct holding the field; Go names it with the whole JSON path from the root. */
function checkField(value: unknown, catalog: TypeCatalog, type: FieldType, path: string, struct: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const mismatch = (what = jsonTypeOf(value)) => {
    const goType = goTypeOf(type);
    return goType === undefined ? undefined : `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`;
  };
  if ('scalar' in type) {
    switch (type.scalar) {
      case 'string':
      case 'bytes':
        return typeof value === 'string' ? undefined : mismatch();
      case 'boolean':
        return typeof value === 'boolean' ? undefined : mismatch();
      case 'int32':
      case 'int64':
        if (typeof value !== 'number') return mismatch();
        return Number.isInteger(value) ? undefined : mismatch(`number ${value}`);
      case 'double':
        return typeof value === 'number' ? undefined : mismatch();
      default:
        return undefined; // custom unmarshalers (time, quantity, int-or-string, raw JSON, ...)
    }
  }
  if ('ref' in type) {
    if (resolveJSONSchemaUnion(type.ref) !== type.ref) return undefined;
    if (!isPlainObject(value)) return catalog.has(type.ref) && !isCustomJson(catalog, type.ref) ? mismatch() : undefined;
    return checkStruct(value, catalog, type.ref, path, false);
  }
  if ('list' in type) {
    if (!Array.isArray(value)) return mismatch();
    for (const item of value) {
      const err = checkField(item, catalog, type.list, path, struct);
      if (err) return err;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return mismatch();
  for (const item of Object.values(value)) {
    const err = checkField(item, catalog, type.map, path, struct);
    if (err) return err;
  }
  return undefined;
}

/** Catalog types without fields are decoded by custom code (e.g. a JSON wrapper): not checked as structs. */
function isCustomJson(catalog: TypeCatalog, typeName: string): boolean {
  return (catalog.get(typeName)?.fields.length ?? 0) === 0;
}
