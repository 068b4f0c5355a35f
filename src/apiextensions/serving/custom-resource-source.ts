/**
 * The DynamicResourceSource that serves custom resources: it holds the CRDs of every logical cluster as last
 * observed in storage and yields the definitions of the established ones. Definitions are rebuilt only when a CRD's
 * resourceVersion changes, and the old ones are dropped from the registry's store cache, so resources(cluster) is a
 * map read on the request path.
 */
import type { DynamicResourceSource, ResourceRegistry } from '../../registry/resource-registry.js';
import { WebhookClient } from '../../apiserver/webhook/client.js';
import type { CustomResourceDefinition } from '../crd/types.js';
import { type CustomResourceServing, customResourceDefinitions, SchemaCache } from './custom-resource.js';
import { WebhookConverter } from './conversion-webhook.js';

const noResources: CustomResourceServing[] = [];

interface Entry {
  crd: CustomResourceDefinition;
  defs: CustomResourceServing[];
}

export class CustomResourceSource implements DynamicResourceSource {
  readonly schemas = new SchemaCache();
  /** Calls the conversion webhooks of CRDs with `conversion.strategy: Webhook` (pooled connections per CA bundle). */
  readonly webhooks: WebhookClient;
  /** Conversion webhook converters by CRD uid (see WebhookConverter). */
  private readonly converters = new Map<string, WebhookConverter>();
  private readonly byCluster = new Map<string, Map<string, Entry>>();
  private readonly flat = new Map<string, CustomResourceServing[]>();

  constructor(private readonly registry: ResourceRegistry) {
    this.webhooks = new WebhookClient(registry);
  }

  /**
   * The converter of a CRD with `conversion.strategy: Webhook`, one per CRD uid, kept current (undefined for None,
   * though a converter made earlier is updated for the stores still holding it).
   */
  readonly converterFor = (crd: CustomResourceDefinition): WebhookConverter | undefined => {
    const uid = crd.metadata?.uid ?? '';
    let c = this.converters.get(uid);
    c?.update(crd);
    if (crd.spec.conversion?.strategy !== 'Webhook') return undefined;
    if (!c) this.converters.set(uid, (c = new WebhookConverter(crd, this.webhooks, this.schemas)));
    return c;
  };

  /** Closes the conversion webhooks' pooled connections. */
  close(): void {
    this.webhooks.close();
  }

  resources(cluster: string): CustomResourceServing[] {
    let out = this.flat.get(cluster);
    if (!out) {
      // Most workspaces have no CRDs: answer them without caching an entry per cluster ever asked about.
      const m = this.byCluster.get(cluster);
      if (!m || m.size === 0) return noResources;
      out = [];
      for (const e of this.byCluster.get(cluster)?.values() ?? []) out.push(...e.defs);
      this.flat.set(cluster, out);
    }
    return out;
  }

  /** The CRD as last observed, if any. */
  get(cluster: string, name: string): CustomResourceDefinition | undefined {
    return this.byCluster.get(cluster)?.get(name)?.crd;
  }

  /** Every CRD observed in a cluster. */
  list(cluster: string): CustomResourceDefinition[] {
    return [...(this.byCluster.get(cluster)?.values() ?? [])].map((e) => e.crd);
  }

  /** Every CRD observed, with its logical cluster. */
  *all(): Iterable<[cluster: string, crd: CustomResourceDefinition]> {
    for (const [cluster, m] of this.byCluster) for (const e of m.values()) yield [cluster, e.crd];
  }

  /**
   * Records the stored state of a CRD (null: it is gone). Called synchronously from the storage watch, so the serving
   * set changes in the same tick the write commits; older resourceVersions than the one held are ignored.
   */
  observe(cluster: string, name: string, crd: CustomResourceDefinition | null): void {
    let m = this.byCluster.get(cluster);
    const prev = m?.get(name);
    if (crd && prev && Number(prev.crd.metadata?.resourceVersion ?? 0) >= Number(crd.metadata?.resourceVersion ?? 0)) return;
    this.flat.delete(cluster);
    if (!crd) {
      if (prev) this.retire(prev.defs, noResources);
      m?.delete(name);
      if (m && m.size === 0) this.byCluster.delete(cluster);
      if (prev && prev.crd.metadata?.uid) {
        this.schemas.forget(prev.crd.metadata.uid);
        this.converters.delete(prev.crd.metadata.uid);
      }
      return;
    }
    if (!m) this.byCluster.set(cluster, (m = new Map()));
    let defs: CustomResourceServing[] = [];
    try {
      defs = customResourceDefinitions(crd, this.schemas, this.converterFor);
    } catch {
      // A stored CRD passed validation; a schema the engine still cannot compile is not served rather than fatal.
      defs = [];
    }
    if (prev) this.retire(prev.defs, defs);
    m.set(name, { crd, defs });
  }

  /**
   * Drops the stores of a CRD's previous definitions. A resource still served under the new ones keeps its open
   * watches (the new store tracks them); one no longer served (CRD deleted, version removed or no longer served) has
   * them ended, as upstream's crdHandler tears down the storage of a removed CRD (removeDeadStorage/tearDown: the
   * cacher stops and its watchers' result channels close), so clients see the stream end and re-list (getting 404).
   */
  private retire(prevDefs: CustomResourceServing[], nextDefs: CustomResourceServing[]): void {
    for (const p of prevDefs) {
      const old = this.registry.existingStore(p);
      this.registry.forget(p);
      if (!old) continue;
      const next = nextDefs.find((d) => d.group === p.group && d.version === p.version && d.resource === p.resource);
      if (next) this.registry.storeFor(next).shareWatches(old);
      else old.endWatches();
    }
  }
}
