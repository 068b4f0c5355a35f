import type { Storage } from '../storage/interface.js';
import type { WatchCache } from '../storage/cacher/watch-cache.js';
import { GenericStore } from './generic/store.js';
import type { ResourceDefinition } from './rest.js';

/** Supplies resources that exist only in some logical clusters (custom resources from CRDs). */
export interface DynamicResourceSource {
  resources(cluster: string): ResourceDefinition[];
}

/**
 * Every served resource, by logical cluster: the built-ins (the same in every cluster) plus what dynamic sources add.
 * The router, discovery and OpenAPI read from here, so a new resource is visible everywhere at once.
 */
export class ResourceRegistry {
  private readonly builtins: ResourceDefinition[] = [];
  private readonly stores = new Map<ResourceDefinition, GenericStore>();
  private readonly sources: DynamicResourceSource[] = [];
  /** Ends of the open (non-wildcard) watches of every store, by logical cluster. */
  private readonly clusterWatches = new Map<string, Set<() => void>>();

  constructor(
    readonly storage: Storage,
    readonly watchCache: WatchCache,
  ) {}

  registerBuiltin(def: ResourceDefinition): GenericStore {
    this.builtins.push(def);
    return this.storeFor(def);
  }

  addSource(source: DynamicResourceSource): void {
    this.sources.push(source);
  }

  /** All resources served in a logical cluster. */
  resources(cluster: string): ResourceDefinition[] {
    const out = [...this.builtins];
    for (const s of this.sources) out.push(...s.resources(cluster));
    return out;
  }

  lookup(cluster: string, group: string, version: string, resource: string): GenericStore | undefined {
    for (const def of this.resources(cluster)) {
      if (def.group === group && def.version === version && def.resource === resource) return this.storeFor(def);
    }
    return undefined;
  }

  /** One GenericStore per definition object (a CRD update produces a new definition and so a new store). */
  storeFor(def: ResourceDefinition): GenericStore {
    let s = this.stores.get(def);
    if (!s) {
      s = new GenericStore(def, this.storage, this.watchCache, this.clusterWatches);
      this.stores.set(def, s);
    }
    return s;
  }

  /** The store of a definition if one was made. */
  existingStore(def: ResourceDefinition): GenericStore | undefined {
    return this.stores.get(def);
  }

  /**
   * The logical cluster is gone (its LogicalCluster was deleted): every watch opened in it ends, so a client watching
   * /clusters/<path>/... re-resolves the path (a workspace recreated there is another logical cluster) instead of
   * waiting forever on the old one.
   */
  endWatchesIn(cluster: string): void {
    const ends = this.clusterWatches.get(cluster);
    if (!ends) return;
    this.clusterWatches.delete(cluster);
    for (const end of [...ends]) end();
  }

  forget(def: ResourceDefinition): void {
    this.stores.delete(def);
  }
}
