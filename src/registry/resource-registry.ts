import type { KubeObject } from '../apimachinery/object.js';
import type { Storage } from '../storage/interface.js';
import type { WatchCache } from '../storage/cacher/watch-cache.js';
import { GenericStore, type DeletionRelease } from './generic/store.js';
import type { ResourceDefinition } from './rest.js';

/**
 * Supplies resources that exist only in some logical clusters: custom resources from CRDs, the workload types of
 * workspaces with compute (src/multicluster).
 */
export interface DynamicResourceSource {
  resources(cluster: string): ResourceDefinition[];
  /**
   * What `/clusters/*` serves for list and watch across every logical cluster (and discovery there, which is what
   * wildcard controllers such as the garbage collector read), and what a deleted logical cluster may still hold objects
   * of. Unset: the source's resources in root, as for CRDs.
   */
  wildcardResources?(): ResourceDefinition[];
}

/** How a source ranks against the others when two serve the same group and resource in one logical cluster. */
export interface SourceOptions {
  /**
   * Consulted before the sources added without it: its definition of a group/resource hides theirs in discovery,
   * OpenAPI and routing (native workload types over a negotiated CRD of the same name left from older versions).
   */
  first?: boolean;
}

function groupResource(def: ResourceDefinition): string {
  return `${def.group}/${def.resource}`;
}

/**
 * Every served resource, by logical cluster: the built-ins (the same in every cluster) plus what dynamic sources add.
 * The router, discovery and OpenAPI read from here, so a new resource is visible everywhere at once.
 */
export class ResourceRegistry {
  private readonly builtins: ResourceDefinition[] = [];
  private readonly stores = new Map<ResourceDefinition, GenericStore>();
  private readonly sources: DynamicResourceSource[] = [];
  /** How many of `sources` (at the front) were added with `first`. */
  private firstSources = 0;
  /** Ends of the open (non-wildcard) watches of every store, by logical cluster. */
  private readonly clusterWatches = new Map<string, Set<() => void>>();
  /** Which finalizers a DELETE releases by itself, shared by every store (releaseFinalizersOnDelete). */
  private readonly deletionRelease: DeletionRelease = {};

  constructor(
    readonly storage: Storage,
    readonly watchCache: WatchCache,
  ) {}

  registerBuiltin(def: ResourceDefinition): GenericStore {
    this.builtins.push(def);
    return this.storeFor(def);
  }

  addSource(source: DynamicResourceSource, opts: SourceOptions = {}): void {
    if (opts.first) this.sources.splice(this.firstSources++, 0, source);
    else this.sources.push(source);
  }

  /**
   * All resources served in a logical cluster: the built-ins, then each source's. When two sources serve the same
   * group and resource there, the earlier source's definitions (every version) hide the later one's.
   */
  resources(cluster: string): ResourceDefinition[] {
    return this.collect((s) => s.resources(cluster));
  }

  /**
   * What `/clusters/*` serves (list and watch across every logical cluster, and its discovery): the built-ins and
   * each source's wildcard resources (root's, for a source that declares none).
   */
  wildcardResources(root = 'root'): ResourceDefinition[] {
    return this.collect((s) => (s.wildcardResources ? s.wildcardResources() : s.resources(root)));
  }

  /**
   * Every resource whose objects a logical cluster may hold: what it serves, and what a source serves elsewhere
   * (workload types of a workspace whose compute was unbound stay stored while unserved). Used to remove a deleted
   * logical cluster's content.
   */
  storedResources(cluster: string): ResourceDefinition[] {
    const out = this.resources(cluster);
    const seen = new Set(out.map(groupResource));
    for (const s of this.sources) for (const def of s.wildcardResources?.() ?? []) if (!seen.has(groupResource(def))) out.push(def);
    return out;
  }

  private collect(of: (s: DynamicResourceSource) => ResourceDefinition[]): ResourceDefinition[] {
    const out = [...this.builtins];
    // Most clusters get definitions from at most one source: no de-duplication is needed then.
    let taken: Set<string> | undefined;
    let contributed = false;
    for (const s of this.sources) {
      const defs = of(s);
      if (defs.length === 0) continue;
      if (!contributed) {
        contributed = true;
        out.push(...defs);
        continue;
      }
      taken ??= new Set(out.slice(this.builtins.length).map(groupResource));
      const added: string[] = [];
      for (const def of defs) {
        const gr = groupResource(def);
        if (taken.has(gr)) continue;
        out.push(def);
        added.push(gr);
      }
      for (const gr of added) taken.add(gr);
    }
    return out;
  }

  lookup(cluster: string, group: string, version: string, resource: string): GenericStore | undefined {
    return this.find(this.resources(cluster), group, version, resource);
  }

  /** The store serving a resource under `/clusters/*` (list and watch across every logical cluster). */
  lookupWildcard(group: string, version: string, resource: string, root = 'root'): GenericStore | undefined {
    return this.find(this.wildcardResources(root), group, version, resource);
  }

  private find(defs: ResourceDefinition[], group: string, version: string, resource: string): GenericStore | undefined {
    for (const def of defs) {
      if (def.group === group && def.version === version && def.resource === resource) return this.storeFor(def);
    }
    return undefined;
  }

  /**
   * Finalizers that do not hold a DELETE: a plugin's bookkeeping finalizer that marks where an object has copies
   * (multi-cluster's syncer finalizers), which a DELETE removes with the object at once when `releases` says so, the
   * copies being cleaned up afterwards by whoever added it. Other finalizers hold the object as usual.
   */
  releaseFinalizersOnDelete(releases: (resource: { group: string; resource: string }, finalizer: string, obj: KubeObject) => boolean): void {
    this.deletionRelease.releases = releases;
  }

  /** One GenericStore per definition object (a CRD update produces a new definition and so a new store). */
  storeFor(def: ResourceDefinition): GenericStore {
    let s = this.stores.get(def);
    if (!s) {
      s = new GenericStore(def, this.storage, this.watchCache, this.clusterWatches, this.deletionRelease);
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

  /** Ends the open watches of `defs` in one logical cluster, which no longer serves them (other clusters may). */
  endResourceWatchesIn(defs: readonly ResourceDefinition[], cluster: string): void {
    for (const def of defs) this.stores.get(def)?.endWatchesIn(cluster);
  }

  forget(def: ResourceDefinition): void {
    this.stores.delete(def);
  }
}
