import type { APISubresourceDescriptor } from '../../apimachinery/api-resource.js';
import type { OpenAPISchemas, ResourceDefinition, Strategy, SubresourceStrategy } from '../rest.js';
import { jsonEqual, metaOf, type JsonObject, type KubeObject } from '../../apimachinery/object.js';
import type { TablePrinter } from '../../apimachinery/table/builtin-printers.js';
import { validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta.js';
import { printerFor } from '../../apimachinery/table/builtin-printers.js';
import { builtinCodec } from './builtin-codec.js';

export const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular?: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  /** OpenAPI definition name, e.g. io.k8s.api.core.v1.ConfigMap. */
  definitionName: string;
  strategy?: Partial<Strategy>;
  subresources?: (APISubresourceDescriptor & { strategy?: SubresourceStrategy })[];
  /** The columns `kubectl get` prints (default: Name, Created At). */
  printer?: TablePrinter;
  /**
   * For a kind outside the built-in type catalog (an embedding program's own): its OpenAPI schema, published under
   * `definitionName` in /openapi/v2 and /openapi/v3 so `kubectl explain` and kubectl's patch choice know it. `spec` and
   * `status` are OpenAPI v3 schema objects (no `$ref`); unset ones accept any object.
   */
  schema?: { description?: string; spec?: JsonObject; status?: JsonObject };
  /**
   * Whether strategic merge patch is accepted. Default: yes for catalog kinds; no for a kind with its own `schema`,
   * which is patched as a custom resource is (JSON patch, merge patch, server-side apply).
   */
  strategicMergePatch?: boolean;
  /**
   * The kind's defaulting as upstream's decoder applies it (SetDefaults_*, conversion): run on create and update
   * bodies and patch results as they are decoded, so the writer's managedFields entry owns what it adds.
   */
  defaults?: (obj: KubeObject) => void;
}

/**
 * Builds a built-in ResourceDefinition with Kubernetes defaults: all verbs, SMP accepted, core-type update rules, the
 * Go type's codec and the kind's table printer.
 */
export function defineBuiltin(spec: BuiltinSpec): ResourceDefinition {
  const subresourceStrategies: Record<string, SubresourceStrategy> = {};
  for (const s of spec.subresources ?? []) if (s.strategy) subresourceStrategies[s.name] = s.strategy;
  return {
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    singular: spec.singular ?? spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    verbs: spec.verbs ?? standardVerbs,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    subresources: (spec.subresources ?? []).map(({ strategy: _s, ...d }) => d),
    definitionName: spec.definitionName,
    strategicMergePatch: spec.strategicMergePatch ?? spec.schema === undefined,
    strategy: {
      nameValidation: 'subdomain',
      allowUnconditionalUpdate: true,
      allowCreateOnUpdate: false,
      tracksGeneration: false,
      ...spec.strategy,
    },
    subresourceStrategies,
    // Kubernetes' own kinds are Go types upstream; kcp's kinds are custom resources there, unstructured.
    codec: builtinCodec(spec.definitionName, subresourceStrategies, spec.defaults, spec.definitionName.startsWith('io.k8s.')),
    tableConvertor: spec.printer ?? printerFor(spec.group, spec.resource),
    ...(spec.schema ? { openAPISchemas: objectSchemas(spec, spec.schema) } : {}),
  };
}

/** The OpenAPI v2 and v3 definitions of a kind with its own schema: apiVersion, kind, ObjectMeta, spec, status. */
function objectSchemas(spec: BuiltinSpec, schema: NonNullable<BuiltinSpec['schema']>): OpenAPISchemas {
  const anyObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const definition = (metaRef: string): JsonObject => ({
    ...(schema.description ? { description: schema.description } : {}),
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'The REST resource this object represents.' },
      metadata: { $ref: metaRef },
      spec: schema.spec ?? anyObject,
      status: schema.status ?? anyObject,
    },
    'x-kubernetes-group-version-kind': [{ group: spec.group, version: spec.version, kind: spec.kind }],
  });
  return {
    v2: { [spec.definitionName]: definition('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
    v3: { [spec.definitionName]: definition('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') },
  };
}

/** A status subresource: only .status changes (plus metadata the caller may not touch anyway). */
export const statusOnly: SubresourceStrategy = {
  apply(incoming, current) {
    const next = current;
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
    return next;
  },
};

/** The object metadata a status write may change when its kind's status strategy resets only the spec. */
const STATUS_WRITABLE_METADATA = ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * A status subresource whose strategy resets only the spec, as most built-in kinds' do upstream (Service, Ingress,
 * Namespace, PersistentVolume(Claim), ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, HPA, PDB, ...): the write's
 * status and its labels, annotations, finalizers and owner references are kept (rest.BeforeUpdate then restores only
 * the system fields), validated as an ObjectMeta update. `reset` names the metadata the kind's PrepareForUpdate also
 * restores from the stored object: a Deployment's labels, a Pod's owner references, a CRD's labels, annotations and
 * owner references. Kinds whose status strategy resets
 * all metadata (ResetObjectMetaForStatus: custom resources, ValidatingAdmissionPolicies) keep statusOnly.
 */
export function statusKeepingMetadata(reset: readonly (typeof STATUS_WRITABLE_METADATA)[number][] = []): SubresourceStrategy {
  return {
    apply(incoming, current) {
      const next = statusOnly.apply(incoming, current);
      const meta = metaOf(next) as Record<string, unknown>;
      const inMeta = (incoming.metadata ?? {}) as Record<string, unknown>;
      for (const field of STATUS_WRITABLE_METADATA) {
        if (reset.includes(field)) continue;
        if (inMeta[field] === undefined || inMeta[field] === null) delete meta[field];
        // The stored value when equal, so that a write that changes nothing there (a client's maps come back in its
        // own key order: protobuf's sorted) rewrites nothing there either.
        else if (!jsonEqual(meta[field], inMeta[field])) meta[field] = inMeta[field];
      }
      return next;
    },
    validate: (obj, old) => validateObjectMetaUpdate(metaOf(obj), metaOf(old)),
  };
}

/** The status subresource of a kind whose status strategy resets only the spec (see statusKeepingMetadata). */
export const statusAndMetadata: SubresourceStrategy = statusKeepingMetadata();
