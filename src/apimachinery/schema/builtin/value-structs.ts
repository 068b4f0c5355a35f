/**
 * Struct fields whose Go type is a value (not a pointer), which the catalog format does not record, as far as they
 * matter: the zero value of a kind's Go type holds them (`{"metadata":{...},"spec":{}}` for a Lease), so a create —
 * which upstream's field manager records as an Update from that zero value — does not add them, and the creator's
 * managedFields entry has no `.` for them (`f:spec: {f:holderIdentity: {}}`, not `f:spec: {".": {}, ...}`).
 * Top-level `spec` and `status` are value structs in every built-in kind (API conventions); nested ones are listed.
 * Not yet listed: the workload kinds' nested ones (DeploymentSpec.template and .strategy, PodTemplateSpec.metadata
 * and .spec, ...): with them the syncer's downstream-ownership test (test/integration/syncer-ownership) sees the
 * upstream Deployment rewritten in a loop, which is to be understood first.
 */
import type { TypeCatalog } from '../types.js';

/** Nested value-struct fields by Go struct name and JSON name. */
const NESTED_VALUE_STRUCTS = new Set([
  'CustomResourceDefinitionSpec.names',
  'CustomResourceDefinitionStatus.acceptedNames',
]);

/** The paths (JSON names) of the value structs the zero value of `definitionName` holds, outermost first. */
export function zeroValueStructPaths(catalog: TypeCatalog, definitionName: string): string[][] {
  const out: string[][] = [];
  const walk = (typeName: string, path: string[]) => {
    const t = catalog.get(typeName);
    if (!t) return;
    const struct = typeName.slice(typeName.lastIndexOf('.') + 1);
    for (const f of t.fields) {
      if (!('ref' in f.type) || f.name === 'metadata') continue;
      const topLevel = path.length === 0 && (f.name === 'spec' || f.name === 'status');
      if (!topLevel && !NESTED_VALUE_STRUCTS.has(`${struct}.${f.name}`)) continue;
      const p = [...path, f.name];
      out.push(p);
      walk(f.type.ref, p);
    }
  };
  walk(definitionName, []);
  return out;
}
