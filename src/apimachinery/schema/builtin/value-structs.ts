/**
 * Struct fields whose Go type is a value (not a pointer), as far as they matter to the field manager: the zero value
 * of a kind's Go type holds them (`{"metadata":{...},"spec":{}}` for a Lease; a Deployment's `spec.template.metadata`
 * and `.spec`, `spec.strategy`), so a create — which upstream's field manager records as an Update from that zero
 * value — does not add them, and the creator's managedFields entry has no `.` for them (`f:spec: {f:holderIdentity:
 * {}}`, not `f:spec: {".": {}, ...}`). They are the fields go-unset-values.ts fills in as `{}`; a kind's own metadata
 * is always set. Only paths through structs count: a value struct inside a list item (a container's `resources`)
 * is added with its item.
 */
import type { TypeCatalog } from '../types.js';
import { GO_UNSET_VALUES } from './go-unset-values.js';

/** The paths (JSON names) of the value structs the zero value of `definitionName` holds, outermost first. */
export function zeroValueStructPaths(catalog: TypeCatalog, definitionName: string): string[][] {
  const out: string[][] = [];
  const walk = (typeName: string, path: string[], seen: ReadonlySet<string>) => {
    const t = catalog.get(typeName);
    if (!t || seen.has(typeName)) return;
    const unset = GO_UNSET_VALUES[typeName] ?? {};
    for (const f of t.fields) {
      if (!('ref' in f.type) || (path.length === 0 && f.name === 'metadata')) continue;
      const value = unset[f.name];
      if (value === null || typeof value !== 'object') continue;
      const p = [...path, f.name];
      out.push(p);
      walk(f.type.ref, p, new Set([...seen, typeName]));
    }
  };
  walk(definitionName, [], new Set());
  return out;
}
