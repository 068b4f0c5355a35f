/**
 * An in-memory, always-current copy of every RBAC object in every logical cluster, fed by one storage list + watch
 * per RBAC resource (an informer without the HTTP hop). Authorization reads only from here, so a request costs no
 * storage round trip. The SQLite backend publishes watch events before a write returns, so a binding is effective
 * for the very next request.
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
    for (const c of this.clusters.values()) c[resource].clear();
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
    c[resource].set(loc.id, JSON.parse(value) as KubeObject);
    return loc.cluster;
  }

  private apply(resource: RbacResource, e: StorageWatchEvent): void {
    let cluster: string | undefined;
    if (e.type === 'delete') {
      const loc = locate(e.key, resource);
      if (loc) {
        this.clusters.get(loc.cluster)?.[resource].delete(loc.id);
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
