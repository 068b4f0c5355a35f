/**
 * The syncer's API importer: reads the physical cluster's discovery (names, scope, short names, categories,
 * subresources) and OpenAPI v3 schemas for the resources its SyncTarget syncs and reports each as an APIResourceImport in the SyncTarget's workspace (created, updated only
 * when the schema changed, deleted when the cluster stops serving the resource). Run periodically, so upgrades and
 * new CRDs in the cluster are picked up without a restart.
 */
import { jsonEqual } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import { discoverResources } from '../../client/discovery.js';
import type { GroupVersionResource } from '../../client/resource.js';
import type { RestClient } from '../../client/rest-client.js';
import { apiResourceImportsGVR, importName, parseGroupResource, SYNC_TARGET_KEY_LABEL, type APIResourceImport, type APIResourceImportSpec } from '../api/types.js';
import { definitionNameFor, structuralSchemaFromOpenAPI } from '../schema/from-openapi.js';

export interface ImportScope {
  upstream: RestClient;
  upstreamCluster: string;
  downstream: RestClient;
  syncTargetName: string;
  syncTargetUID: string;
  /** The SyncTarget's key: its imports carry it as SYNC_TARGET_KEY_LABEL, so the syncer lists only its own. */
  syncTargetKey: string;
}

/** The import specs for `resources` as the downstream cluster serves them now (resources it lacks are left out). */
export async function readDownstreamImports(downstream: RestClient, syncTargetName: string, resources: string[]): Promise<APIResourceImportSpec[]> {
  const discovery = await discoverResources(downstream);
  const docs = new Map<string, Record<string, unknown>>();
  const out: APIResourceImportSpec[] = [];
  for (const text of resources) {
    const gr = parseGroupResource(text);
    const candidates = discovery.resources.filter((r) => r.group === gr.group && r.resource === gr.resource);
    const r = candidates.find((c) => c.preferred) ?? candidates[0];
    if (!r) continue;
    const gvPath = r.group ? `/openapi/v3/apis/${r.group}/${r.version}` : `/openapi/v3/api/${r.version}`;
    let doc = docs.get(gvPath);
    if (!doc) {
      const fetched = (await downstream.call('GET', gvPath)) as { components?: { schemas?: Record<string, unknown> } };
      doc = fetched.components?.schemas ?? {};
      docs.set(gvPath, doc);
    }
    const defName = definitionNameFor(doc, { group: r.group, version: r.version, kind: r.kind });
    if (!defName) continue;
    out.push({
      location: syncTargetName,
      groupVersion: { group: r.group, version: r.version },
      plural: r.resource,
      singular: r.kind.toLowerCase(),
      kind: r.kind,
      listKind: `${r.kind}List`,
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      ...(r.shortNames?.length ? { shortNames: [...r.shortNames] } : {}),
      ...(r.categories?.length ? { categories: [...r.categories] } : {}),
      openAPIV3Schema: structuralSchemaFromOpenAPI(doc, defName),
      subResources: await subresourcesOf(downstream, r),
    });
  }
  return out;
}

async function subresourcesOf(downstream: RestClient, gvr: GroupVersionResource): Promise<string[]> {
  const path = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  const list = (await downstream.call('GET', path)) as { resources?: { name: string }[] };
  return (list.resources ?? []).filter((r) => r.name.startsWith(`${gvr.resource}/`)).map((r) => r.name.slice(gvr.resource.length + 1)).filter((s) => s === 'status' || s === 'scale');
}

/**
 * Makes the workspace's APIResourceImports of this SyncTarget equal `specs`: creates missing ones, updates changed
 * ones, deletes those for resources the cluster no longer serves. Returns the number of writes.
 */
export async function reconcileImports(scope: ImportScope, specs: APIResourceImportSpec[]): Promise<number> {
  const { upstream, upstreamCluster, syncTargetName, syncTargetUID, syncTargetKey } = scope;
  // Only this target's imports: with 100 clusters the workspace holds 500 imports, each with a full schema, and every
  // syncer listing all of them made registering N clusters cost atrium O(N²) schema encodes.
  const existing = await upstream.list<APIResourceImport>(apiResourceImportsGVR, { cluster: upstreamCluster }, { labelSelector: `${SYNC_TARGET_KEY_LABEL}=${syncTargetKey}` });
  const mine = new Map(existing.items.filter((i) => i.spec?.location === syncTargetName).map((i) => [i.metadata!.name!, i]));
  let writes = 0;
  for (const spec of specs) {
    const name = importName(syncTargetName, { group: spec.groupVersion.group, version: spec.groupVersion.version, resource: spec.plural });
    const current = mine.get(name);
    mine.delete(name);
    if (current && jsonEqual(current.spec, spec)) continue;
    const body: APIResourceImport = {
      apiVersion: 'apiresource.kcp.io/v1alpha1',
      kind: 'APIResourceImport',
      metadata: {
        name,
        labels: { [SYNC_TARGET_KEY_LABEL]: syncTargetKey },
        ...(current ? { resourceVersion: current.metadata?.resourceVersion } : {}),
        ownerReferences: [{ apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', name: syncTargetName, uid: syncTargetUID }],
      },
      spec,
    };
    if (current) await upstream.update(apiResourceImportsGVR, body, { cluster: upstreamCluster });
    else {
      try {
        await upstream.create(apiResourceImportsGVR, body, { cluster: upstreamCluster });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409)) throw err;
        // There without our label (written before imports were labelled): take it over.
        const unlabelled = await upstream.get<APIResourceImport>(apiResourceImportsGVR, name, { cluster: upstreamCluster });
        await upstream.update(apiResourceImportsGVR, { ...body, metadata: { ...body.metadata, resourceVersion: unlabelled.metadata?.resourceVersion } }, { cluster: upstreamCluster });
      }
    }
    writes++;
  }
  for (const stale of mine.keys()) {
    try {
      await upstream.delete(apiResourceImportsGVR, stale, { cluster: upstreamCluster });
      writes++;
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
  }
  return writes;
}
