/**
 * A cap on how many objects one logical cluster may hold (`--max-objects-per-workspace`), so one tenant cannot fill
 * the shared storage. Checked before every create; a create that would exceed it is refused with 403 in the
 * ResourceQuota message style. `system:masters` (controllers, the admin, bootstrap) is exempt.
 */
import { errors } from '../../apimachinery/status.js';
import type { RequestContext } from '../../registry/rest.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { collectionPrefix } from '../../registry/generic/keys.js';

export class ObjectCountLimit {
  constructor(
    private readonly registry: ResourceRegistry,
    readonly maxObjects: number,
  ) {}

  /** How many objects the cluster holds across every stored resource it serves. */
  async count(cluster: string): Promise<number> {
    const seen = new Set<string>();
    let total = 0;
    for (const def of this.registry.resources(cluster)) {
      const gr = `${def.group}/${def.resource}`;
      // Create-only resources (reviews) are never stored; several versions share one storage prefix.
      if (seen.has(gr) || !def.verbs.includes('get')) continue;
      seen.add(gr);
      total += await this.registry.storage.count(collectionPrefix(def.group, def.resource, cluster, ''));
    }
    return total;
  }

  /** Throws 403 when creating one more object of group/resource would exceed the limit. */
  async admitCreate(ctx: RequestContext, group: string, resource: string): Promise<void> {
    if (ctx.user.groups.includes('system:masters')) return;
    const used = await this.count(ctx.cluster);
    if (used + 1 > this.maxObjects) {
      throw errors.forbidden(
        { group, resource },
        '',
        `exceeded quota: max-objects-per-workspace, requested: objects=1, used: objects=${used}, limited: objects=${this.maxObjects} (workspace ${JSON.stringify(ctx.cluster)})`,
      );
    }
  }
}
