/**
 * The FieldManager of one endpoint of a served resource: its schema comes from the resource itself
 * (`ResourceDefinition.ssaSchema`, which custom resources set from their structural schema), else from the built-in
 * catalog by the kind's OpenAPI definition name, else everything is deduced.
 */
import { groupVersionString } from '../../apimachinery/api-resource.js';
import { builtinCatalog } from '../../apimachinery/schema/builtin/index.js';
import { zeroValueStructPaths } from '../../apimachinery/schema/builtin/value-structs.js';
import type { ResourceDefinition } from '../rest.js';
import { BuiltinSsaTypes } from '../../patch/apply/builtin-schema.js';
import { FieldManager } from '../../patch/apply/field-manager.js';
import { DEDUCED_SCHEMA } from '../../patch/apply/schema.js';

const builtinTypes = new BuiltinSsaTypes(builtinCatalog);
const cache = new WeakMap<ResourceDefinition, Map<string, FieldManager>>();

/**
 * The fields an endpoint resets and so never hands out (dotted paths): what the strategy declares (a CSR's
 * endpoints), else, with a status subresource, the main resource resets `status` and `/status` resets `spec`; a
 * namespace's `/finalize` resets `status`.
 */
export function resetFieldsOf(def: ResourceDefinition, subresource: string): string[] {
  const declared = subresource ? def.subresourceStrategies[subresource]?.resetFields : def.strategy.resetFields;
  if (declared) return [...declared];
  if (subresource === 'status') return ['spec'];
  if (subresource === 'finalize') return ['status'];
  if (subresource) return [];
  return def.subresources.some((s) => s.name === 'status') ? ['status'] : [];
}

function zeroStructsOf(definitionName: string): { zeroStructs: string[][]; zeroLeaves: string[][] } {
  const { granular, atomic } = zeroValueStructPaths(builtinCatalog, definitionName);
  return { zeroStructs: granular, zeroLeaves: atomic };
}

/** The (cached) FieldManager for `def` written through `subresource` ('' for the main resource). */
export function fieldManagerFor(def: ResourceDefinition, subresource = ''): FieldManager {
  let byEndpoint = cache.get(def);
  if (!byEndpoint) cache.set(def, (byEndpoint = new Map()));
  let fm = byEndpoint.get(subresource);
  if (!fm) {
    const schema = def.ssaSchema ?? builtinTypes.schemaFor(def.definitionName) ?? DEDUCED_SCHEMA;
    fm = new FieldManager({
      root: schema.root,
      apiVersion: groupVersionString(def.group, def.version),
      subresource,
      resetFields: resetFieldsOf(def, subresource),
      // A custom resource's zero value is an empty object; a built-in kind's holds its value structs.
      ...(def.ssaSchema ? {} : zeroStructsOf(def.definitionName)),
    });
    byEndpoint.set(subresource, fm);
  }
  return fm;
}
