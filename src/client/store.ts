/**
 * The in-memory, indexed object cache an Informer fills and controllers read (client-go's Indexer + Lister).
 * Keys are `<cluster>|<namespace>/<name>` (namespace empty for cluster-scoped objects), so one store can hold objects
 * of many logical clusters, as a `/clusters/*` wildcard informer delivers them.
 * Objects handed out are the cached ones: treat them as read-only and deepCopy before changing anything.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { CLUSTER_ANNOTATION } from './resource.js';

/** Index functions map an object to the index values it is found under. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

/** Identifies an object across logical clusters. */
export interface ObjectKey {
  cluster: string;
  namespace: string;
  name: string;
}

/** `<cluster>|<namespace>/<name>`. */
export function formatObjectKey(k: ObjectKey): string {
  return `${k.cluster}|${k.namespace}/${k.name}`;
}

/** Inverse of formatObjectKey. */
export function parseObjectKey(key: string): ObjectKey {
  const bar = key.indexOf('|');
  const rest = key.slice(bar + 1);
  const slash = rest.indexOf('/');
  return { cluster: key.slice(0, bar), namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

/** The logical cluster of an object: the wildcard annotation if present, else `fallback`. */
export function clusterOf(obj: KubeObject, fallback = 'root'): string {
  return obj.metadata?.annotations?.[CLUSTER_ANNOTATION] ?? fallback;
}

/** The store key of an object; `defaultCluster` is used when it carries no cluster annotation. */
export function keyOf(obj: KubeObject, defaultCluster = 'root'): string {
  return formatObjectKey({ cluster: clusterOf(obj, defaultCluster), namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' });
}

/** Read access to a cache: what controllers get. */
export interface Lister<T extends KubeObject = KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
  /** Objects whose index `indexName` yields `value`. Unknown index → Error. */
  byIndex(indexName: string, value: string): T[];
  keys(): string[];
}

export class Store<T extends KubeObject = KubeObject> implements Lister<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly keyFunc: (obj: T) => string) {}

  /** Adds an index; existing objects are indexed at once. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(index, v, key);
  }

  keyOf(obj: T): string {
    return this.keyFunc(obj);
  }

  /** Inserts or replaces; returns the previous object. */
  upsert(obj: T): T | undefined {
    const key = this.keyFunc(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) for (const v of fn(obj)) addTo(this.indices.get(name)!, v, key);
    return old;
  }

  /** Removes by key; returns the removed object. */
  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`store: no index named ${JSON.stringify(indexName)}`);
    return [...(index.get(value) ?? [])].map((k) => this.items.get(k)!).filter(Boolean);
  }

  get size(): number {
    return this.items.size;
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) index.delete(v);
      }
    }
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (!set) index.set(value, (set = new Set()));
  set.add(key);
}
