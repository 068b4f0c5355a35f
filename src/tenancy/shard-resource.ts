/**
 * kcp's core.kcp.io/v1alpha1 Shards: one object per kcp server that logical clusters are scheduled to, cluster-scoped
 * and served in the root workspace (kcp binds them there from its `shards.core.kcp.io` APIExport, and in every
 * shard's `system:shard` cluster, where none are stored). kcp serves them as a custom resource; here they are a
 * built-in with the custom resource's wire behaviour: its discovery verbs, generation, no unconditional updates, a
 * status subresource, the CRD's printer columns and its schema's validation messages (format `uri`, `minLength`,
 * required fields), ratcheted on update as upstream ratchets CRD validation of unchanged values.
 *
 * Deliberate difference: a value of the wrong JSON type (`baseURL: 5`) is refused by the catalog decoder in Go's
 * words, as for atrium's other kcp kinds, not with the CRD schema's `must be of type string`.
 */
import { type FieldError, invalid, required, typeInvalid } from '../apimachinery/field-errors.js';
import type { JsonObject, KubeObject } from '../apimachinery/object.js';
import { metaOf } from '../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../apimachinery/validation/object-meta.js';
import { defineBuiltin, statusOnly } from '../registry/builtin/define.js';
import type { ResourceDefinition } from '../registry/rest.js';
import type { DynamicResourceSource } from '../registry/resource-registry.js';
import { ROOT_CLUSTER } from './paths.js';
import { crdStylePrinter } from './resources.js';

/** kcp's shard-local logical cluster holding the root APIs (config/shard's SystemShardCluster). */
export const SYSTEM_SHARD_CLUSTER = 'system:shard';

/** The URL fields of a ShardSpec; each is a non-empty `uri` in kcp's schema, baseURL required. */
const URL_FIELDS = ['baseURL', 'externalURL', 'virtualWorkspaceURL'] as const;

/** The pattern kcp's schema gives status.capacity's string values (a resource.Quantity). */
const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
const quantity = new RegExp(QUANTITY_PATTERN);

/** The discovery verbs of a custom resource, in upstream's CRD discovery order (not sorted). */
const customResourceVerbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

function obj(v: unknown): JsonObject | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : undefined;
}
function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/**
 * The `uri` format check of kube-openapi (Go's url.ParseRequestURI): an absolute URI, or an absolute path; no
 * control characters.
 */
function isRequestURI(s: string): boolean {
  if (s === '' || /[\x00-\x1f\x7f]/.test(s)) return false;
  if (s === '*' || s.startsWith('/')) return !/\s/.test(s);
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/.test(s);
}

/**
 * kcp's CRD schema for a Shard, in the schema validator's messages. `old` (updates) ratchets: a value unchanged from
 * the stored object is not checked again.
 */
function validateShard(shard: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(shard.spec);
  const oldSpec = obj(old?.spec);
  if (spec) {
    if (!('baseURL' in spec)) errs.push(required('spec.baseURL'));
    for (const field of URL_FIELDS) {
      const v = spec[field];
      if (typeof v !== 'string' || (oldSpec && oldSpec[field] === v)) continue;
      const path = `spec.${field}`;
      if (v.length < 1) errs.push(invalid(path, v, `${path} in body should be at least 1 chars long`));
      if (!isRequestURI(v)) errs.push(typeInvalid(path, v, `${path} in body must be of type uri: ${JSON.stringify(v)}`));
    }
  }
  const status = obj(shard.status);
  const oldStatus = obj(old?.status);
  const capacity = obj(status?.capacity);
  for (const [k, v] of Object.entries(capacity ?? {})) {
    if (typeof v !== 'string' || quantity.test(v) || obj(oldStatus?.capacity)?.[k] === v) continue;
    const path = `status.capacity.${k}`;
    errs.push(invalid(path, v, `${path} in body should match '${QUANTITY_PATTERN}'`));
  }
  const conditions = Array.isArray(status?.conditions) ? (status.conditions as unknown[]) : [];
  conditions.forEach((c, i) => {
    const cond = obj(c);
    if (!cond) return;
    for (const k of ['lastTransitionTime', 'status', 'type']) if (!(k in cond)) errs.push(required(`status.conditions[${i}].${k}`));
  });
  return errs;
}

const shardPrinter = crdStylePrinter([
  { name: 'Region', description: 'The region this workspace is in', cell: (o) => str(obj(obj(o.metadata)?.labels)?.region) },
  { name: 'URL', description: 'Type URL to directly connect to the shard', cell: (o) => str(obj(o.spec)?.baseURL) },
  { name: 'External URL', description: 'The URL exposed in logical clusters created on that shard', cell: (o) => str(obj(o.spec)?.externalURL) },
]);

export const shards: ResourceDefinition = {
  ...defineBuiltin({
    group: 'core.kcp.io',
    version: 'v1alpha1',
    resource: 'shards',
    kind: 'Shard',
    namespaced: false,
    categories: ['kcp'],
    verbs: customResourceVerbs,
    definitionName: 'io.kcp.core.v1alpha1.Shard',
    strategy: {
      // A custom resource's: generation counts spec changes, a PUT must name the resourceVersion it replaces.
      tracksGeneration: true,
      allowUnconditionalUpdate: false,
      prepareForCreate: (o) => void delete o.status,
      prepareForUpdate(next, old) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      },
      validate: (o) => validateShard(o),
      validateUpdate: (o, old) => validateShard(o, old),
    },
    subresources: [
      {
        name: 'status',
        kind: 'Shard',
        verbs: ['get', 'patch', 'update'],
        // A custom resource's status write is validated as an update of the whole object.
        strategy: { ...statusOnly, validate: (o, old) => [...validateObjectMetaUpdate(metaOf(o), metaOf(old)), ...validateShard(o, old)] },
      },
    ],
  }),
  strategicMergePatch: false,
  tableConvertor: shardPrinter,
};

/** Serves Shards where kcp does: root, which holds them, and `system:shard`. */
export class ShardsSource implements DynamicResourceSource {
  private readonly defs = [shards];
  private readonly none: ResourceDefinition[] = [];

  resources(cluster: string): ResourceDefinition[] {
    return cluster === ROOT_CLUSTER || cluster === SYSTEM_SHARD_CLUSTER ? this.defs : this.none;
  }
}
