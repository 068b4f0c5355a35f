/**
 * The workspace's read-only view of its clusters' PersistentVolumes (core/v1, get and list only), as the Nodes view
 * (node-views.ts): read from every cluster of the workspace (workspace-clusters.ts) on request, never stored,
 * written or watched.
 *
 * A workspace's claims show the volume their cluster bound them to (spec.volumeName, mirrored up), so `kubectl get
 * pv` and upstream's e2e specs that list volumes after deleting claims must find them. A cluster's volume is shown
 * when its spec.claimRef points into one of the namespaces the workspace's syncer made there (recognised by the
 * syncer's label and namespace locator, api/keys.ts — as the syncer's NamespaceMapper maps them back), with claimRef
 * naming the upstream namespace and the upstream claim's uid (the downstream uid and resourceVersion mean nothing
 * here), annotated CLUSTER_VOLUME_ANNOTATION with the SyncTarget. Other workspaces' volumes and the cluster's own are not shown. Names stay the cluster's: a dynamically
 * provisioned volume is `pvc-<uid>`, unique, and the workspace's claims already name it.
 *
 * The workspace's own volumes (stored: a user's statically provisioned ones, controllers/volume-binder.ts) come first
 * in a get or a list; their copies on the clusters (VOLUME_COPY_LABEL) are never shown, and a cluster's volume of the
 * same name as a stored one is not either. Only get and list are answered here: every other verb, a watch included,
 * and lists across workspaces (`/clusters/*`) are the stored volumes' alone (the generic store's).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { errors, StatusError } from '../../apimachinery/status.js';
import { parseSelection } from '../../apiserver/handlers/query-options.js';
import { selectionMatches } from '../../registry/generic/selection.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import { locatorOf, syncTargetKey } from '../api/keys.js';
import { DOWNSTREAM_CLUSTER_LABEL } from '../api/types.js';
import { CLUSTER_VOLUME_ANNOTATION, VOLUME_COPY_LABEL } from '../decisions/volume-binding.js';
import type { DownstreamDialer } from '../streams/downstream-dialer.js';
import { readDownstream, replyMessage } from './downstream-read.js';
import { respondList, respondObject, requireRead, unavailable, type Unreachable } from './respond.js';
import { systemContext, workspaceClusters, type WorkspaceCluster } from './workspace-clusters.js';

interface ClaimRef {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  [k: string]: unknown;
}

const claimRefOf = (pv: KubeObject) => (pv.spec as { claimRef?: ClaimRef } | undefined)?.claimRef;

/** The upstream namespaces of `workspace` by their downstream names on cluster `c`, from the syncer's namespaces there. */
async function namespaceMap(dialer: DownstreamDialer, c: WorkspaceCluster, workspace: string): Promise<Map<string, string>> {
  const selector = `${DOWNSTREAM_CLUSTER_LABEL}=${syncTargetKey(c.targetCluster, c.name)}`;
  const reply = await readDownstream(dialer, c.target, c.targetCluster, `/api/v1/namespaces?labelSelector=${encodeURIComponent(selector)}`);
  if (reply.status !== 200) throw new Error(replyMessage(reply));
  const out = new Map<string, string>();
  for (const ns of (reply.body as { items?: KubeObject[] }).items ?? []) {
    const l = locatorOf(ns);
    if (l && l.cluster === workspace && l.syncTarget.name === c.name && l.syncTarget.cluster === c.targetCluster && ns.metadata?.name) out.set(ns.metadata.name, l.namespace);
  }
  return out;
}

/** The volumes of cluster `c` claimed from the workspace's namespaces, with claimRef in the upstream namespace. */
async function clusterVolumes(dialer: DownstreamDialer, c: WorkspaceCluster, workspace: string, selector: string | null, claimUid: (ns: string, name: string) => Promise<string | undefined>): Promise<KubeObject[]> {
  const path = selector ? `/api/v1/persistentvolumes?labelSelector=${encodeURIComponent(selector)}` : '/api/v1/persistentvolumes';
  const [namespaces, reply] = await Promise.all([namespaceMap(dialer, c, workspace), readDownstream(dialer, c.target, c.targetCluster, path)]);
  if (reply.status !== 200) throw new Error(replyMessage(reply));
  const out: KubeObject[] = [];
  for (const pv of (reply.body as { items?: KubeObject[] }).items ?? []) {
    if (pv.metadata?.labels?.[VOLUME_COPY_LABEL] !== undefined) continue;
    const ref = claimRefOf(pv);
    const upstreamNs = ref?.namespace ? namespaces.get(ref.namespace) : undefined;
    if (!ref || upstreamNs === undefined) continue;
    const { uid: _uid, resourceVersion: _rv, ...rest } = ref;
    const uid = ref.name ? await claimUid(upstreamNs, ref.name) : undefined;
    const { managedFields: _m, ...meta } = pv.metadata ?? {};
    // A list's items carry no kind; a get of one answers it with its own.
    // Which cluster it is on, as the mirrors say it (and what tells it from the workspace's own volumes).
    meta.annotations = { ...(meta.annotations ?? {}), [CLUSTER_VOLUME_ANNOTATION]: c.name };
    out.push({ ...pv, apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta, spec: { ...(pv.spec as object), claimRef: { ...rest, namespace: upstreamNs, ...(uid ? { uid } : {}) } } });
  }
  return out;
}

export function persistentVolumeViewHandler(registry: ResourceRegistry, dialer: DownstreamDialer, def: ResourceDefinition): ConnectHandler {
  /** Every volume of the workspace's clusters it may see, and the clusters that could not be read. */
  const gather = async (r: ConnectRequest, selector: string | null) => {
    const workspace = r.ctx.cluster;
    const clusters = await workspaceClusters(registry, workspace);
    // The workspace's claims, read (locally) once and only if some volume is claimed from the workspace.
    let claims: Promise<Map<string, string>> | undefined;
    const claimUid = async (ns: string, name: string) => {
      claims ??= (async () => {
        const store = registry.lookup(workspace, '', 'v1', 'persistentvolumeclaims');
        const items = store ? (await store.list(systemContext(workspace), '', { selection: {} }).catch(() => ({ items: [] as KubeObject[] }))).items : [];
        return new Map(items.map((c) => [`${c.metadata?.namespace}/${c.metadata?.name}`, String(c.metadata?.uid ?? '')]));
      })();
      return (await claims).get(`${ns}/${name}`) || undefined;
    };
    const unreachable: Unreachable[] = [];
    const parts = await Promise.all(
      clusters.map((c) =>
        clusterVolumes(dialer, c, workspace, selector, claimUid).catch((err: Error) => {
          unreachable.push({ syncTarget: c.name, why: err.message });
          return [];
        }),
      ),
    );
    // Clusters come sorted by SyncTarget name: should two clusters have a volume of the same name (only volumes
    // named by hand can; provisioned ones are pvc-<claim uid>), the first cluster's is shown and the other's is not.
    const seen = new Set<string>();
    const items = parts.flat().filter((pv) => {
      const name = String(pv.metadata?.name ?? '');
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
    return { items, unreachable };
  };
  return {
    group: def.group,
    resource: def.resource,
    subresource: '',
    async accepts(r) {
      return r.info.verb === 'get' || r.info.verb === 'list';
    },
    async serve(r) {
      requireRead(r);
      if (!r.info.name) {
        const selection = parseSelection(r.query, r.store.fieldLabelSupport());
        const stored = await r.store.list(r.ctx, '', { selection });
        const { items, unreachable } = await gather(r, r.query.get('labelSelector'));
        const names = new Set(stored.items.map((pv) => pv.metadata?.name));
        const fromClusters = items.filter((pv) => !names.has(pv.metadata?.name) && selectionMatches(selection, pv));
        return respondList(r, def, [...stored.items, ...fromClusters], unreachable, stored.resourceVersion);
      }
      const own = await r.store.get(r.ctx, '', r.info.name).catch((err: unknown) => {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      });
      if (own) return respondObject(r, def, own);
      const { items, unreachable } = await gather(r, null);
      const found = items.find((pv) => pv.metadata?.name === r.info.name);
      if (found) return respondObject(r, def, found);
      // Not on any cluster that answered: it may be on one that did not, as a Node's get on an unreachable cluster.
      if (unreachable.length) throw unavailable(unreachable.map((u) => `SyncTarget ${u.syncTarget}: ${u.why}`).join('; '));
      throw errors.notFound({ group: def.group, resource: def.resource }, r.info.name);
    },
  };
}
