/**
 * Deletes everything in one namespace of one logical cluster: every namespaced resource discovery reports (so custom
 * resources are included), with deletecollection where served and list + delete otherwise, always with the Background
 * propagation policy (the garbage collector handles dependents). Then counts what remains, and which finalizers hold it.
 */
import { StatusError } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { discoverResources, type DiscoveredResource } from '../../client/discovery.js';
import type { RestClient } from '../../client/rest-client.js';
import type { DeletionOutcome } from './conditions.js';

/** Go's GroupVersionResource.String(): `/v1, Resource=pods`, `apps/v1, Resource=deployments`. */
export function gvrString(r: { group: string; version: string; resource: string }): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

/** One pass over the namespace's content; never throws for per-resource failures (they go into the outcome). */
export async function deleteAllContent(client: RestClient, cluster: string, namespace: string): Promise<DeletionOutcome> {
  const outcome: DeletionOutcome = { contentErrors: [], remainingByResource: new Map(), remainingByFinalizer: new Map() };
  let resources: DiscoveredResource[];
  try {
    const d = await discoverResources(client, cluster);
    outcome.failedGroups = d.failedGroups;
    outcome.unparsableGroupVersions = d.unparsableGroupVersions;
    resources = d.resources.filter((r) => r.namespaced && r.preferred && r.verbs.includes('delete') && r.verbs.includes('list'));
  } catch (err) {
    outcome.discoveryError = (err as Error).message;
    return outcome;
  }
  await Promise.all(resources.map((r) => deleteResourceContent(client, cluster, namespace, r, outcome)));
  return outcome;
}

async function deleteResourceContent(client: RestClient, cluster: string, namespace: string, r: DiscoveredResource, outcome: DeletionOutcome): Promise<void> {
  const scope = { cluster, namespace };
  try {
    let collectionDeleted = false;
    if (r.verbs.includes('deletecollection')) {
      try {
        await client.deleteCollection(r, scope, { propagationPolicy: 'Background' });
        collectionDeleted = true;
      } catch (err) {
        if (!(err instanceof StatusError && (err.code === 405 || err.code === 404))) throw err;
      }
    }
    let items = (await client.listAll(r, scope)).items;
    if (!collectionDeleted && items.length > 0) {
      for (const item of items) await deleteOne(client, r, scope, item);
      items = (await client.listAll(r, scope)).items;
    }
    if (items.length === 0) return;
    const gr = `${r.resource}.${r.group}`;
    outcome.remainingByResource.set(gr, (outcome.remainingByResource.get(gr) ?? 0) + items.length);
    let withFinalizers = 0;
    for (const item of items) {
      const fins = item.metadata?.finalizers ?? [];
      if (fins.length > 0) withFinalizers++;
      for (const f of fins) outcome.remainingByFinalizer.set(f, (outcome.remainingByFinalizer.get(f) ?? 0) + 1);
    }
    // Objects held by finalizers are expected to linger; anything else should have gone.
    if (withFinalizers === 0) outcome.contentErrors.push(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(r)}`);
  } catch (err) {
    outcome.contentErrors.push((err as Error).message);
  }
}

async function deleteOne(client: RestClient, r: DiscoveredResource, scope: { cluster: string; namespace: string }, item: KubeObject): Promise<void> {
  if (item.metadata?.deletionTimestamp) return;
  try {
    await client.delete(r, item.metadata?.name ?? '', scope, { propagationPolicy: 'Background' });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
}
