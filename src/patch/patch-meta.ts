/**
 * Strategic-merge-patch metadata lookup over the TypeCatalog: for a field of the node being merged,
 * which `patchStrategy`/`patchMergeKey` applies and what schema describes its value (for a list, its
 * elements). This plays the role of apimachinery's `LookupPatchMeta` backed by Go struct tags.
 *
 * Unlike the Go struct lookup, nothing here fails: a field that the catalog does not describe (an unknown
 * field, a value under a map of strings, a RawExtension) yields an untyped node with no strategy, so it
 * is merged like a JSON merge patch (maps recursively, lists replaced).
 */

import type { FieldType, TypeCatalog, TypeDescriptor } from '../apimachinery/schema/types.js';

/** The schema of one node of the document being patched. */
export type PatchSchema =
  | { kind: 'struct'; catalog: TypeCatalog; type: TypeDescriptor }
  | { kind: 'map'; catalog: TypeCatalog; value: FieldType }
  | { kind: 'untyped' };

/** What a field's Go tags say about strategic merge patch. */
export interface PatchMeta {
  /** `patchStrategy` split on commas, e.g. `['merge', 'retainKeys']`; empty when the field has none. */
  strategies: string[];
  /** `patchMergeKey`, or '' when the field has none. */
  mergeKey: string;
}

const UNTYPED: PatchSchema = { kind: 'untyped' };
const NO_META: PatchMeta = { strategies: [], mergeKey: '' };

/**
 * The schema of the top-level object of type `typeName`.
 * Throws when the catalog does not know the type: a built-in type without a descriptor is a bug.
 */
export function rootPatchSchema(catalog: TypeCatalog, typeName: string): PatchSchema {
  const type = catalog.get(typeName);
  if (!type) throw new Error(`strategic merge patch: type ${typeName} is not in the type catalog`);
  return { kind: 'struct', catalog, type };
}

/** Metadata of field `key` whose value is a JSON object; the returned schema describes that object. */
export function lookupPatchMetaForMap(schema: PatchSchema, key: string): { schema: PatchSchema; meta: PatchMeta } {
  const found = lookupField(schema, key);
  if (!found) return { schema: UNTYPED, meta: NO_META };
  const type = found.type;
  return { schema: 'list' in type ? UNTYPED : schemaOfType(found.catalog, type), meta: found.meta };
}

/** Metadata of field `key` whose value is a JSON array; the returned schema describes the list's elements. */
export function lookupPatchMetaForList(schema: PatchSchema, key: string): { schema: PatchSchema; meta: PatchMeta } {
  const found = lookupField(schema, key);
  if (!found) return { schema: UNTYPED, meta: NO_META };
  const type = found.type;
  return { schema: 'list' in type ? schemaOfType(found.catalog, type.list) : UNTYPED, meta: found.meta };
}

/**
 * The Go kind name of the node, as `LookupPatchMeta.Name()` reports it in
 * `cannot merge lists without merge key for <name>`.
 */
export function patchSchemaName(schema: PatchSchema): string {
  switch (schema.kind) {
    case 'struct':
      return 'struct';
    case 'map':
      return 'map';
    default:
      return 'interface';
  }
}

function lookupField(schema: PatchSchema, key: string): { catalog: TypeCatalog; type: FieldType; meta: PatchMeta } | undefined {
  if (schema.kind === 'map') return { catalog: schema.catalog, type: schema.value, meta: NO_META };
  if (schema.kind !== 'struct') return undefined;
  const field = schema.type.fields.find((f) => f.name === key);
  if (!field) return undefined;
  const strategies = field.patchStrategy ? field.patchStrategy.split(',') : [];
  return { catalog: schema.catalog, type: field.type, meta: { strategies, mergeKey: field.patchMergeKey ?? '' } };
}

function schemaOfType(catalog: TypeCatalog, type: FieldType): PatchSchema {
  if ('ref' in type) {
    const descriptor = catalog.get(type.ref);
    return descriptor ? { kind: 'struct', catalog, type: descriptor } : UNTYPED;
  }
  if ('map' in type) return { kind: 'map', catalog, value: type.map };
  return UNTYPED;
}
