/**
 * An in-memory, always-current copy of every RBAC object in every logical cluster, fed by one storage list + watch
 * per RBAC resource (an informer without the HTTP hop). Authorization reads only from here, so a request costs no
 * storage round trip. The SQLite backend publishes watch events before a write returns, so a binding is effective
 * for the very next request.
 *
 * Memory: every workspace starts with the same bootstrap roles and bindings, so the index keeps a compact copy of
 * each object (name, namespace, labels, rules, subjects, roleRef, aggregationRule: all that authorization and
 * aggregation read) whose parts are shared
 * between identical objects across clusters (reference-counted interning). 10,000 workspaces then cost 10,000
 * small records per role rather than 10,000 parsed copies of it.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { Storage, StorageWatchEvent, WatchHandle } from '../../storage/interface.js';
import { resourceRoot } from '../../registry/generic/keys.js';
import { logger } from '../../logging/logger.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export type RbacResource = 'roles' | 'rolebindings' | 'clusterroles' | 'clusterrolebindings';
const rbacResources: RbacResource[] = ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'];
const namespacedResources = new Set<RbacResource>(['roles', 'rolebindings']);

/** One logical cluster's RBAC objects. Namespaced objects are keyed `<namespace>/<name>`. */
export interface ClusterPolicy {
  roles: Map<string, KubeObject>;
  rolebindings: Map<string, KubeObject>;
  clusterroles: Map<string, KubeObject>;
  clusterrolebindings: Map<string, KubeObject>;
}

export type PolicyChangeListener = (cluster: string, resource: RbacResource) => void;

/** Shared, reference-counted copies of identical JSON values (rules lists, subjects, roleRefs, names). */
class Interner {
  private readonly values = new Map<string, { value: unknown; key: string; refs: number }>();

  /** The shared copy of `value`, and the key to release it by (the stored key, so callers keep no copy of it). */
  take<T>(value: T): { value: T; key: string } {
    const key = typeof value === 'string' ? `s${value}` : `j${JSON.stringify(value)}`;
    let e = this.values.get(key);
    if (!e) this.values.set(key, (e = { value: typeof value === 'string' ? value : deepFreeze(value), key, refs: 0 }));
    e.refs++;
    return { value: e.value as T, key: e.key };
  }

  release(key: string): void {
    const e = this.values.get(key);
    if (e && --e.refs <= 0) this.values.delete(key);
  }
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v as object)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** The interned keys a compact object holds, so replacing or deleting it releases them. */
const internedKeys = Symbol('internedKeys');
type CompactObject = KubeObject & { [internedKeys]?: string[] };

function emptyPolicy(): ClusterPolicy {
  return { roles: new Map(), rolebindings: new Map(), clusterroles: new Map(), clusterrolebindings: new Map() };
}

/** Splits `/registry/<group>/<resource>/<cluster>/[<ns>/]<name>` into its cluster and index key. */
function locate(key: string, resource: RbacResource): { cluster: string; id: string } | undefined {
  const parts = key.split('/');
  const cluster = parts[4];
  if (!cluster) return undefined;
  const rest = parts.slice(5);
  if (namespacedResources.has(resource) ? rest.length !== 2 : rest.length !== 1) return undefined;
  return { cluster, id: rest.join('/') };
}

export class RbacIndex {
  private readonly clusters = new Map<string, ClusterPolicy>();
  private readonly watches: WatchHandle[] = [];
  private readonly listeners: PolicyChangeListener[] = [];
  private readonly interner = new Interner();
  private stopped = false;

  constructor(private readonly storage: Storage) {}

  /** Loads every RBAC object and starts following changes. Resolves once the index is complete. */
  async start(): Promise<void> {
    await Promise.all(rbacResources.map((r) => this.follow(r)));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches.splice(0)) w.stop();
  }

  /** Called after each change, with the cluster and resource that changed. */
  onChange(listener: PolicyChangeListener): void {
    this.listeners.push(listener);
  }

  /** The policy of one cluster (empty when it has no RBAC objects). */
  policy(cluster: string): ClusterPolicy {
    return this.clusters.get(cluster) ?? emptyPolicy();
  }

  private async follow(resource: RbacResource): Promise<void> {
    const prefix = resourceRoot(RBAC_GROUP, resource);
    const listed = await this.storage.list(prefix);
    for (const c of this.clusters.values()) {
      for (const o of c[resource].values()) this.release(o);
      c[resource].clear();
    }
    for (const kv of listed.items) this.put(resource, kv.key, kv.value);
    const handle = this.storage.watch(prefix, listed.revision, {
      onEvent: (e) => this.apply(resource, e),
      onError: (err) => {
        if (this.stopped) return;
        // Compaction or a lost backend: start over from a fresh list rather than serve a stale policy.
        logger.warn('rbac index watch failed, relisting', { resource, error: err.message });
        this.follow(resource).catch((e) => logger.error('rbac index relist failed', { resource, error: (e as Error).message }));
      },
    });
    this.watches.push(handle);
  }

  private put(resource: RbacResource, key: string, value: string): string | undefined {
    const loc = locate(key, resource);
    if (!loc) return undefined;
    let c = this.clusters.get(loc.cluster);
    if (!c) this.clusters.set(loc.cluster, (c = emptyPolicy()));
    this.release(c[resource].get(loc.id));
    c[resource].set(loc.id, this.compact(JSON.parse(value) as KubeObject));
    return loc.cluster;
  }

  /** What authorization reads of an RBAC object, with shared parts. */
  private compact(o: KubeObject): KubeObject {
    const keys: string[] = [];
    const take = <T>(v: T): T => {
      const t = this.interner.take(v);
      keys.push(t.key);
      return t.value;
    };
    const metadata: KubeObject['metadata'] = { name: take(o.metadata?.name ?? '') };
    if (o.metadata?.namespace) metadata.namespace = take(o.metadata.namespace);
    // Labels and aggregationRule let the ClusterRole aggregator decide from the index whether a cluster needs work.
    if (o.metadata?.labels) metadata.labels = take(o.metadata.labels);
    const out: CompactObject = { metadata };
    for (const field of ['rules', 'subjects', 'roleRef', 'aggregationRule'] as const) if (o[field] !== undefined) out[field] = take(o[field]);
    Object.defineProperty(out, internedKeys, { value: keys, enumerable: false });
    return out;
  }

  private release(o: CompactObject | undefined): void {
    for (const k of o?.[internedKeys] ?? []) this.interner.release(k);
  }

  private apply(resource: RbacResource, e: StorageWatchEvent): void {
    let cluster: string | undefined;
    if (e.type === 'delete') {
      const loc = locate(e.key, resource);
      if (loc) {
        const c = this.clusters.get(loc.cluster);
        this.release(c?.[resource].get(loc.id));
        c?.[resource].delete(loc.id);
        if (c && Object.values(c).every((m: Map<string, KubeObject>) => m.size === 0)) this.clusters.delete(loc.cluster);
        cluster = loc.cluster;
      }
    } else cluster = this.put(resource, e.key, e.value);
    if (cluster === undefined) return;
    for (const l of this.listeners) {
      try {
        l(cluster, resource);
      } catch (err) {
        logger.error('rbac change listener failed', { error: (err as Error).stack });
      }
    }
  }
}
