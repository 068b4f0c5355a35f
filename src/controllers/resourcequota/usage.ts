/**
 * A quota's status as the quota controller computes it (syncResourceQuota, quota.CalculateUsage): status.hard is
 * spec.hard; status.used is, for every limited name an evaluator accounts, the sum of what the namespace's objects of
 * that resource use (only objects under all the quota's scopes), and for names nothing accounts, what status.used
 * already said. Pure: the controller hands in the objects.
 */
import { type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { compareQuantity, zeroQuantity } from '../../apimachinery/exact-quantity.js';
import { evaluatorFor, groupResourceOfQuotaName } from '../../apimachinery/quota/evaluators.js';
import { type ResourceList, addResources, maskResources, resourceListFrom, resourceListJSON, resourcesEqual } from '../../apimachinery/quota/resource-list.js';
import { scopeRequirementsOf } from '../../apimachinery/quota/scopes.js';

/** `<group>/<resource>` of every resource whose objects a quota's spec.hard accounts. */
export function groupResourcesOfQuota(quota: KubeObject): string[] {
  const hard = isPlainObject(quota.spec) && isPlainObject(quota.spec.hard) ? Object.keys(quota.spec.hard) : [];
  const out = new Set<string>();
  for (const name of hard) {
    const gr = groupResourceOfQuotaName(name);
    if (gr) out.add(`${gr.group}/${gr.resource}`);
  }
  return [...out];
}

/**
 * The status the quota should have. `objectsOf(groupResource)` lists the namespace's objects of a resource, or
 * undefined when the resource is not served in the quota's cluster (its names then count zero).
 */
export function computeStatus(quota: KubeObject, objectsOf: (groupResource: string) => KubeObject[] | undefined, now = Date.now()): { hard: Record<string, string>; used: Record<string, string> } {
  const hard = resourceListFrom(isPlainObject(quota.spec) ? quota.spec.hard : undefined);
  const previous = resourceListFrom(isPlainObject(quota.status) ? quota.status.used : undefined);
  const scopes = scopeRequirementsOf(quota);
  let used: ResourceList = new Map(previous);
  for (const gr of groupResourcesOfQuota(quota)) {
    const [group, resource] = gr.split('/') as [string, string];
    const evaluator = evaluatorFor(group, resource);
    const names = evaluator.matchingResources(hard.keys());
    let sum: ResourceList = new Map(names.map((n) => [n, zeroQuantity]));
    for (const obj of objectsOf(gr) ?? []) {
      if (!scopes.every((r) => evaluator.matchesScope(r, obj))) continue;
      sum = addResources(sum, evaluator.usage(obj, now));
    }
    used = new Map([...used, ...maskResources(sum, names)]);
  }
  return { hard: resourceListJSON(hard), used: resourceListJSON(maskResources(used, hard.keys())) };
}

/** Whether the quota's status already says this (quota.Equals on hard and used). */
export function statusIsCurrent(quota: KubeObject, status: { hard: Record<string, string>; used: Record<string, string> }): boolean {
  const current = isPlainObject(quota.status) ? quota.status : undefined;
  if (!current || !isPlainObject(current.hard) || !isPlainObject(current.used)) return false;
  return resourcesEqual(resourceListFrom(current.hard), resourceListFrom(status.hard)) && resourcesEqual(resourceListFrom(current.used), resourceListFrom(status.used));
}

/** Whether the computed status lowers any value status.used has now (a release). */
export function releases(quota: KubeObject, status: { used: Record<string, string> }): boolean {
  const current = resourceListFrom(isPlainObject(quota.status) ? quota.status.used : undefined);
  const next = resourceListFrom(status.used);
  for (const [k, v] of current) {
    const n = next.get(k);
    if (n && compareQuantity(n, v) < 0) return true;
  }
  return false;
}
