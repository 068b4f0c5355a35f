/**
 * What atrium knows of apis.kcp.io, as last observed in storage, and the resources it makes served: every
 * APIExport, APIResourceSchema and APIBinding of every logical cluster (fed synchronously from wildcard storage watches
 * on every replica), and the DynamicResourceSource that serves a workspace the resources its Bound APIBindings bound.
 *
 * A bound resource is served with full CRD semantics: its ResourceDefinition is the one apiextensions builds for an
 * Established CRD made from the APIResourceSchema (schema validation, pruning, defaulting, CEL, status and scale,
 * printer columns, server-side apply), its objects stored under `/registry/<group>/<resource>:<identity hash>/...`, so
 * the objects of two exports of one group and resource never mix, and every workspace bound to one export shares one
 * key space the APIExport virtual workspace lists across. Unlike kcp, no CRD is written to a system logical cluster
 * (`system:bound-crds`): the definition is built in memory from the schema, which is immutable.
 */
import type { ResourceDefinition } from '../registry/rest.js';
import type { DynamicResourceSource, ResourceRegistry } from '../registry/resource-registry.js';
import { type CustomResourceServing, customResourceDefinitions, SchemaCache } from '../apiextensions/serving/custom-resource.js';
import { crdOfSchema } from './resources.js';
import { type APIBinding, type APIExport, type APIResourceSchema, boundStorageResource } from './types.js';

type ByCluster<T> = Map<string, Map<string, T>>;

function put<T>(m: ByCluster<T>, cluster: string, name: string, v: T | null): void {
  let inner = m.get(cluster);
  if (v === null) {
    inner?.delete(name);
    if (inner && inner.size === 0) m.delete(cluster);
    return;
  }
  if (!inner) m.set(cluster, (inner = new Map()));
  inner.set(name, v);
}

const none: ResourceDefinition[] = [];

export class BoundAPIs implements DynamicResourceSource {
  readonly exports: ByCluster<APIExport> = new Map();
  readonly schemas: ByCluster<APIResourceSchema> = new Map();
  readonly bindings: ByCluster<APIBinding> = new Map();
  private readonly compiled = new SchemaCache();
  /** Definitions of one schema under one identity, shared by every workspace that binds it. */
  private readonly defsBySchema = new Map<string, CustomResourceServing[]>();
  private readonly byCluster = new Map<string, ResourceDefinition[]>();
  /** Called with a logical cluster whose APIBindings changed (the controller requeues them). */
  onChange?: (kind: 'export' | 'schema' | 'binding', cluster: string, name: string) => void;

  constructor(private readonly registry: ResourceRegistry) {}

  resources(cluster: string): ResourceDefinition[] {
    let out = this.byCluster.get(cluster);
    if (out) return out;
    const bindings = this.bindings.get(cluster);
    if (!bindings) return none;
    out = [];
    for (const b of bindings.values()) out.push(...this.definitionsOf(b));
    this.byCluster.set(cluster, out);
    return out;
  }

  /** Bound resources are served only in the workspaces that bind them; `/clusters/*` reaches them through the APIExport virtual workspace. */
  wildcardResources(): ResourceDefinition[] {
    return none;
  }

  /** The served definitions of what a binding bound (every served version of each bound resource). */
  definitionsOf(b: APIBinding): CustomResourceServing[] {
    const exportCluster = b.status?.apiExportClusterName;
    if (b.status?.phase !== 'Bound' || !exportCluster) return [];
    const out: CustomResourceServing[] = [];
    for (const br of b.status.boundResources ?? []) {
      const schema = this.schemas.get(exportCluster)?.get(br.schema.name);
      if (schema) out.push(...this.definitionsOfSchema(schema, br.schema.identityHash, exportCluster));
    }
    return out;
  }

  /**
   * The definitions of an APIResourceSchema of the export workspace `exportCluster` stored under an identity (cached:
   * schemas are immutable). They name that workspace (apiExportCluster): its admission webhooks and policies review
   * the resource wherever it is bound, as kcp's admission plugins do.
   */
  definitionsOfSchema(schema: APIResourceSchema, identityHash: string, exportCluster: string): CustomResourceServing[] {
    const key = `${schema.metadata?.uid ?? ''}/${identityHash}`;
    let defs = this.defsBySchema.get(key);
    if (defs) return defs;
    const crd = crdOfSchema(schema);
    crd.status = {
      acceptedNames: crd.spec.names,
      storedVersions: crd.spec.versions.filter((v) => v.storage).map((v) => v.name),
      conditions: [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
    };
    try {
      defs = customResourceDefinitions(crd, this.compiled).map((d) => ({
        ...d,
        storage: { ...d.storage!, resource: boundStorageResource(d.resource, identityHash) },
        apiExportCluster: exportCluster,
      }));
    } catch {
      // A schema validated on create that the engine still cannot compile is not served rather than fatal.
      defs = [];
    }
    this.defsBySchema.set(key, defs);
    return defs;
  }

  observeExport(cluster: string, name: string, o: APIExport | null): void {
    put(this.exports, cluster, name, o);
    this.onChange?.('export', cluster, name);
  }

  observeSchema(cluster: string, name: string, o: APIResourceSchema | null): void {
    put(this.schemas, cluster, name, o);
    // Bindings of any workspace may name it.
    this.byCluster.clear();
    this.onChange?.('schema', cluster, name);
  }

  observeBinding(cluster: string, name: string, o: APIBinding | null): void {
    const before = this.byCluster.get(cluster);
    put(this.bindings, cluster, name, o);
    this.byCluster.delete(cluster);
    if (before) {
      // Watches on a resource this workspace no longer serves end, so clients re-list (and get 404).
      const now = new Set(this.resources(cluster));
      const gone = before.filter((d) => !now.has(d));
      if (gone.length) this.registry.endResourceWatchesIn(gone, cluster);
    }
    this.onChange?.('binding', cluster, name);
  }

  /** The bindings, in every workspace, to the export `<cluster>/<name>`. */
  *bindingsTo(exportCluster: string, exportName: string): Iterable<[cluster: string, binding: APIBinding]> {
    for (const [cluster, m] of this.bindings) {
      for (const b of m.values()) {
        if (b.status?.apiExportClusterName === exportCluster && b.spec?.reference?.export?.name === exportName) yield [cluster, b];
      }
    }
  }
}
