/**
 * Removing a whole logical cluster: every object of every resource served in it, and, first, the logical clusters of
 * its child workspaces, transitively. Objects are removed straight from storage (finalizers are not waited for: once
 * the workspace is going, nothing could ever run them), and watchers still see a DELETED event for each. It is one
 * prefix list per resource per cluster, so a big subtree is deleted at storage speed rather than stalling on
 * per-object controllers.
 */
import { isStorageError } from '../storage/errors.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { collectionPrefix } from '../registry/generic/keys.js';

const pageSize = 500;

/** The logical clusters of `root`'s subtree (root first), found through the Workspace objects' spec.cluster. */
export async function subtreeClusters(registry: ResourceRegistry, root: string): Promise<string[]> {
  const out: string[] = [];
  const stack = [root];
  const seen = new Set<string>();
  while (stack.length) {
    const cluster = stack.pop()!;
    if (seen.has(cluster)) continue;
    seen.add(cluster);
    out.push(cluster);
    const prefix = collectionPrefix('tenancy.kcp.io', 'workspaces', cluster, '');
    for await (const kv of scan(registry, prefix)) {
      try {
        const child = (JSON.parse(kv.value) as { spec?: { cluster?: string } }).spec?.cluster;
        if (child) stack.push(child);
      } catch {
        /* an unreadable object has no children to follow */
      }
    }
  }
  return out;
}

/**
 * Deletes every object stored in `cluster`: of all resources served there (custom resources included) and of those
 * it may hold unserved (workload types kept in storage after its compute was unbound; registry.storedResources).
 */
export async function deleteClusterContent(registry: ResourceRegistry, cluster: string): Promise<number> {
  const roots = new Set<string>();
  for (const def of registry.storedResources(cluster)) roots.add(collectionPrefix(def.group, def.resource, cluster, ''));
  let deleted = 0;
  for (const prefix of roots) {
    // Keys are collected before deleting so paging is not disturbed by our own deletions.
    const keys: string[] = [];
    for await (const kv of scan(registry, prefix)) keys.push(kv.key);
    for (const key of keys) {
      try {
        await registry.storage.delete(key);
        deleted++;
      } catch (err) {
        if (!isStorageError(err, 'NotFound')) throw err;
      }
    }
  }
  return deleted;
}

/** Deletes the logical cluster `root` and every logical cluster below it; returns the clusters removed. */
export async function deleteClusterTree(registry: ResourceRegistry, root: string): Promise<string[]> {
  const clusters = await subtreeClusters(registry, root);
  // Deepest first, so a parent's Workspace objects outlive their children's content.
  for (const c of [...clusters].reverse()) await deleteClusterContent(registry, c);
  return clusters;
}

async function* scan(registry: ResourceRegistry, prefix: string): AsyncGenerator<{ key: string; value: string }> {
  let afterKey: string | undefined;
  for (;;) {
    const page = await registry.storage.list(prefix, { limit: pageSize, afterKey });
    for (const kv of page.items) yield kv;
    if (!page.more || page.items.length === 0) return;
    afterKey = page.items[page.items.length - 1]!.key;
  }
}
