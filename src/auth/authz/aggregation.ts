/**
 * Aggregated ClusterRoles (kubernetes pkg/controller/clusterroleaggregation): a ClusterRole with an aggregationRule
 * gets, as its rules, the union of the rules of every other ClusterRole whose labels match one of its selectors,
 * taken in name order and de-duplicated. Manual edits of such a role's rules are overwritten.
 */
import { type KubeObject, jsonEqual } from '../../apimachinery/object.js';
import { fromLabelSelector, type LabelSelectorSpec } from '../../apimachinery/labels/selector.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import { isStatusError } from '../../apimachinery/status.js';
import { logger } from '../../logging/logger.js';
import { type PolicyRule, rulesOf } from './policy-rule.js';
import { RBAC_GROUP, type RbacIndex } from './rbac-index.js';

const systemUser = { username: 'system:apiserver', groups: ['system:masters'] };

/** The rules an aggregating role should hold, given every ClusterRole of its cluster. Pure. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): PolicyRule[] {
  const selectors = (((role.aggregationRule as { clusterRoleSelectors?: LabelSelectorSpec[] } | undefined)?.clusterRoleSelectors) ?? []).map((s) =>
    fromLabelSelector(s),
  );
  const out: PolicyRule[] = [];
  const sources = all
    .filter((r) => r.metadata?.name !== role.metadata?.name)
    .filter((r) => selectors.some((s) => s.matches(r.metadata?.labels ?? {})))
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  for (const src of sources) {
    for (const rule of rulesOf(src)) if (!out.some((r) => jsonEqual(r, rule))) out.push(rule);
  }
  return out;
}

/** Whether some aggregating role among `roles` (all ClusterRoles of one cluster) lacks its aggregated rules. */
export function needsAggregation(roles: readonly KubeObject[]): boolean {
  return roles.some((role) => role.aggregationRule !== undefined && !jsonEqual(role.rules ?? [], aggregatedRules(role, roles)));
}

/** Brings every aggregating ClusterRole of one cluster up to date; writes only roles whose rules changed. */
export async function aggregateClusterRoles(registry: ResourceRegistry, cluster: string): Promise<void> {
  const store = registry.lookup(cluster, RBAC_GROUP, 'v1', 'clusterroles');
  if (!store) return;
  const ctx = { cluster, user: systemUser };
  const { items } = await store.list(ctx, '', { selection: {} });
  for (const role of items) {
    if (!role.aggregationRule) continue;
    const wanted = aggregatedRules(role, items);
    if (jsonEqual(role.rules ?? [], wanted)) continue;
    try {
      await store.guaranteedUpdate(ctx, '', role.metadata!.name!, (current) => ({ ...current!, rules: aggregatedRules(current!, items) }), { dryRun: false });
    } catch (err) {
      if (!isStatusError(err, 'NotFound')) throw err;
    }
  }
}

/**
 * Keeps aggregated roles current as ClusterRoles change in any cluster: changes are coalesced per cluster and
 * reconciled one cluster at a time. Its own writes cause one more pass, which finds nothing to do.
 */
export class ClusterRoleAggregator {
  private readonly pending = new Set<string>();
  private running = false;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly index: RbacIndex,
  ) {
    index.onChange((cluster, resource) => {
      if (resource !== 'clusterroles') return;
      this.pending.add(cluster);
      if (!this.running) setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.pending.size > 0) {
        const cluster = this.pending.values().next().value as string;
        this.pending.delete(cluster);
        // Decided from the index first (no storage read): new workspaces get their aggregating roles created
        // already aggregated, so the common case costs a few comparisons of shared rule lists.
        if (!needsAggregation([...this.index.policy(cluster).clusterroles.values()])) continue;
        try {
          await aggregateClusterRoles(this.registry, cluster);
        } catch (err) {
          logger.error('clusterrole aggregation failed', { cluster, error: (err as Error).message });
        }
      }
    } finally {
      this.running = false;
    }
  }
}
