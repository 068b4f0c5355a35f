/**
 * The catalog of every type atrium serves built in (see ../types.ts for the format), and GVK lookup into it.
 *
 * Union-shaped apiextensions types: JSONSchemaProps.items / additionalProperties / additionalItems / dependencies
 * refer to the pseudo-types JSONSchemaPropsOrArray, JSONSchemaPropsOrBool and JSONSchemaPropsOrStringArray. They
 * have no JSON properties (their JSON value is a schema, an array, or a boolean, as their descriptions say);
 * the protobuf decoder special-cases their wrapper messages by name (src/apimachinery/protobuf/json-schema-unions.ts).
 */
import type { TypeCatalog, TypeDescriptor } from '../types.js';
import { admissionregistrationV1Types } from './admissionregistration-v1.js';
import { apiextensionsV1Types } from './apiextensions-v1.js';
import { appsV1Types } from './apps-v1.js';
import { authenticationV1Types } from './authentication-v1.js';
import { authorizationV1Types } from './authorization-v1.js';
import { autoscalingV1Types } from './autoscaling-v1.js';
import { autoscalingV2Types } from './autoscaling-v2.js';
import { batchV1Types } from './batch-v1.js';
import { certificatesV1Types } from './certificates-v1.js';
import { compileBuiltinTypes, type ProtobufFieldHints } from './builtin-type.js';
import { coordinationV1Types } from './coordination-v1.js';
import { discoveryV1Types } from './discovery-v1.js';
import { coreV1Types } from './core-v1.js';
import { coreV1MoreTypes } from './core-v1-more.js';
import { coreV1QuotaTypes } from './core-v1-quota.js';
import { coreV1StorageTypes } from './core-v1-storage.js';
import { coreV1WorkloadTypes } from './core-v1-workloads.js';
import { eventsV1Types } from './events-v1.js';
import { META_V1 } from './field-types.js';
import { metaV1Types } from './meta-v1.js';
import { networkingV1Types } from './networking-v1.js';
import { policyV1Types } from './policy-v1.js';
import { rbacV1Types } from './rbac-v1.js';
import { schedulingV1Types } from './scheduling-v1.js';
import { nodeV1Types } from './node-v1.js';
import { schedulingV1alpha1Types } from './scheduling-v1alpha1.js';
import { storageV1Types } from './storage-v1.js';
import { storageV1CSITypes } from './storage-v1-csi.js';
import { tenancyV1alpha1Types } from './tenancy-v1alpha1.js';

export { fieldHintKey, type ProtobufFieldHints } from './builtin-type.js';

const compiled = compileBuiltinTypes([
  ...metaV1Types,
  ...coreV1Types,
  ...eventsV1Types,
  ...coordinationV1Types,
  ...certificatesV1Types,
  ...rbacV1Types,
  ...authorizationV1Types,
  ...authenticationV1Types,
  ...autoscalingV1Types,
  ...apiextensionsV1Types,
  ...admissionregistrationV1Types,
  ...coreV1WorkloadTypes,
  ...coreV1StorageTypes,
  ...coreV1QuotaTypes,
  ...coreV1MoreTypes,
  ...discoveryV1Types,
  ...networkingV1Types,
  ...storageV1Types,
  ...storageV1CSITypes,
  ...schedulingV1Types,
  ...nodeV1Types,
  ...appsV1Types,
  ...batchV1Types,
  ...policyV1Types,
  ...autoscalingV2Types,
  ...tenancyV1alpha1Types,
  ...schedulingV1alpha1Types,
]);

/** Every built-in type descriptor by OpenAPI definition name. */
export const builtinCatalog: TypeCatalog = compiled.descriptors;

/** Protobuf facts about built-in fields that the catalog format cannot hold (zero-value presence, wrapped lists). */
export const builtinProtobufHints: ProtobufFieldHints = compiled.hints;

/** The definition name of metav1.DeleteOptions, which is accepted under any group version. */
export const DELETE_OPTIONS_DEFINITION = `${META_V1}.DeleteOptions`;

const gvkIndexes = new WeakMap<TypeCatalog, Map<string, string>>();

function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/**
 * Finds the definition name serving `group`/`version`/`kind` in `catalog` (default: the built-in catalog), using
 * the descriptors' `gvk` lists. DeleteOptions is found under any group version (typed clients label it with the
 * resource's group version, "v1" or "meta.k8s.io/v1"), provided the catalog has it. Returns undefined when unknown.
 */
export function definitionNameFor(
  group: string,
  version: string,
  kind: string,
  catalog: TypeCatalog = builtinCatalog,
): string | undefined {
  let index = gvkIndexes.get(catalog);
  if (!index) {
    index = new Map();
    for (const descriptor of catalog.values()) {
      for (const gvk of descriptor.gvk ?? []) index.set(gvkKey(gvk.group, gvk.version, gvk.kind), descriptor.name);
    }
    gvkIndexes.set(catalog, index);
  }
  const exact = index.get(gvkKey(group, version, kind));
  if (exact !== undefined) return exact;
  if (kind === 'DeleteOptions' && catalog.has(DELETE_OPTIONS_DEFINITION)) return DELETE_OPTIONS_DEFINITION;
  return undefined;
}

/** The descriptor serving the GVK, or undefined; see definitionNameFor. */
export function typeDescriptorFor(
  group: string,
  version: string,
  kind: string,
  catalog: TypeCatalog = builtinCatalog,
): TypeDescriptor | undefined {
  const name = definitionNameFor(group, version, kind, catalog);
  return name === undefined ? undefined : catalog.get(name);
}
