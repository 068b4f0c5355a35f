/**
 * Struct fields whose Go type is a value (not a pointer), as far as they matter to the field manager: the zero value
 * of a kind's Go type holds them (`{"metadata":{...},"spec":{}}` for a Lease; a Deployment's `spec.template.metadata`
 * and `.spec`, `spec.strategy`), so a create — which upstream's field manager records as an Update from that zero
 * value — does not add them, and the creator's managedFields entry has no `.` for them (`f:spec: {f:holderIdentity:
 * {}}`, not `f:spec: {".": {}, ...}`). They are the fields go-unset-values.ts fills in as `{}`; a kind's own metadata
 * is always set. Only paths through structs count: a value struct inside a list item (a container's `resources`)
 * is added with its item.
 */
import type { FieldDescriptor, TypeCatalog } from '../types.js';
import { GO_UNSET_VALUES } from './go-unset-values.js';

/**
 * The value structs the zero value of `definitionName` holds, outermost first, by path (JSON names): `granular` ones
 * (the field manager tracks their fields) and `atomic` ones (RoleRef, a LabelSelector: leaves, left out of a create
 * only while they still hold the zero value).
 */
export function zeroValueStructPaths(catalog: TypeCatalog, definitionName: string): { granular: string[][]; atomic: string[][] } {
  const granularPaths: string[][] = [];
  const atomicPaths: string[][] = [];
  const walk = (typeName: string, path: string[], seen: ReadonlySet<string>) => {
    const t = catalog.get(typeName);
    if (!t || seen.has(typeName)) return;
    const unset = GO_UNSET_VALUES[typeName] ?? {};
    for (const f of t.fields) {
      if (!('ref' in f.type) || (path.length === 0 && f.name === 'metadata')) continue;
      const value = unset[f.name];
      if (value === null || typeof value !== 'object') continue;
      const p = [...path, f.name];
      const atomic = f.mapType !== undefined ? f.mapType === 'atomic' : catalog.get(f.type.ref)?.mapType === 'atomic';
      if (atomic) {
        atomicPaths.push(p);
        continue;
      }
      granularPaths.push(p);
      walk(f.type.ref, p, new Set([...seen, typeName]));
    }
    // A granular list or map without omitempty is in the zero value too, as null (a pod spec's `containers`): a
    // create fills in its items without adding the field itself. (An atomic one is a leaf the creator owns whole.)
    for (const f of t.fields) {
      if (unset[f.name] === null && granular(f)) granularPaths.push([...path, f.name]);
    }
  };
  walk(definitionName, [], new Set());
  return { granular: granularPaths, atomic: atomicPaths };
}

/** Whether the field manager tracks a list's items or a map's keys one by one (as patch/apply/builtin-schema.ts reads it). */
function granular(f: FieldDescriptor): boolean {
  if ('map' in f.type) return f.mapType !== 'atomic';
  if (!('list' in f.type)) return false;
  if (f.listType) return f.listType !== 'atomic';
  return !!f.patchStrategy?.split(',').includes('merge') && (!!f.patchMergeKey || 'scalar' in f.type.list);
}
