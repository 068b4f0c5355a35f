/**
 * Rewrites, in place, every resource.Quantity of an object of a catalogued type in its canonical text, as decoding a
 * built-in object into its Go type and encoding it again does (Quantity.UnmarshalJSON then String): what
 * kube-apiserver stores and answers for `cpu: .5` is `500m`, for `2000m` `2`, for a JSON number `1` the string `"1"`.
 * So a read (and kubectl apply's three-way diff against the live object) sees what it would see against
 * kube-apiserver. A value that is not a quantity is left as it is, for decoding or validation to refuse.
 */
import { canonicalQuantity, isExactQuantity } from '../exact-quantity.js';
import { isPlainObject } from '../object.js';
import { resolveJSONSchemaUnion } from './unknown-fields.js';
import type { FieldType, TypeCatalog } from './types.js';

export function canonicalizeQuantities(obj: unknown, catalog: TypeCatalog, typeName: string): void {
  walkType(obj, catalog, typeName);
}

function walkType(value: unknown, catalog: TypeCatalog, typeName: string): void {
  const t = catalog.get(resolveJSONSchemaUnion(typeName));
  if (!t || !isPlainObject(value)) return;
  for (const f of t.fields) {
    if (!(f.name in value)) continue;
    const v = walkField(value[f.name], catalog, f.type);
    if (v !== undefined) value[f.name] = v;
  }
}

/** Walks one field's value; returns the value to put in its place when it is a quantity to rewrite. */
function walkField(value: unknown, catalog: TypeCatalog, type: FieldType): unknown {
  if (value === null || value === undefined) return undefined;
  if ('scalar' in type) {
    if (type.scalar !== 'quantity' || !(typeof value === 'string' || typeof value === 'number') || !isExactQuantity(value)) return undefined;
    const canonical = canonicalQuantity(value);
    return canonical === value ? undefined : canonical;
  }
  if ('ref' in type) walkType(value, catalog, type.ref);
  else if ('list' in type) {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        const next = walkField(v, catalog, type.list);
        if (next !== undefined) value[i] = next;
      });
    }
  } else if ('map' in type && isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const next = walkField(v, catalog, type.map);
      if (next !== undefined) value[k] = next;
    }
  }
  return undefined;
}
