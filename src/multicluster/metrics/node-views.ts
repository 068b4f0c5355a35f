/**
 * The workspace's view of its clusters' nodes: NodeMetrics (metrics.k8s.io) and read-only core/v1 Nodes, each read
 * from every cluster of the workspace (workspace-clusters.ts) on request and renamed `<SyncTarget>--<node>`.
 *
 * Nodes are served (get and list only) because `kubectl top node` lists Node objects after the NodeMetrics, for the
 * allocatable its percentages divide by, and fails when nodes are not served; the view also makes `kubectl get nodes`
 * show where the workspace runs. They are never stored, written or watched (a deliberate difference from a
 * cluster's Nodes: a workspace has no kubelets).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import type { DownstreamDialer } from '../streams/downstream-dialer.js';
import { readDownstream, replyMessage } from './downstream-read.js';
import { respondList, respondObject, requireRead, unavailable, type Unreachable } from './respond.js';
import { parseWorkspaceNodeName, workspaceClusters, workspaceNodeName, type WorkspaceCluster } from './workspace-clusters.js';

interface NodeView {
  def: ResourceDefinition;
  /** The cluster's path of the resource. */
  path: string;
  /** What a 404 names: upstream's resource (`nodemetrics` for metrics-server, `nodes`). */
  notFoundResource: string;
}

function renamed(cluster: WorkspaceCluster, obj: KubeObject): KubeObject {
  const { managedFields: _m, ...meta } = obj.metadata ?? {};
  return { ...obj, metadata: { ...meta, name: workspaceNodeName(cluster, String(meta.name ?? '')) } };
}

function nodeViewHandler(registry: ResourceRegistry, dialer: DownstreamDialer, view: NodeView): ConnectHandler {
  const get = async (r: ConnectRequest, clusters: WorkspaceCluster[]) => {
    const gr = { group: view.def.group, resource: view.notFoundResource };
    const where = parseWorkspaceNodeName(clusters, r.info.name);
    if (!where) throw errors.notFound(gr, r.info.name);
    const reply = await readDownstream(dialer, where.cluster.target, where.cluster.targetCluster, `${view.path}/${encodeURIComponent(where.node)}`).catch((err: Error) => {
      throw unavailable(err.message);
    });
    if (reply.status === 404) throw errors.notFound(gr, r.info.name);
    if (reply.status !== 200) throw unavailable(`SyncTarget ${where.cluster.name}: ${replyMessage(reply)}`);
    respondObject(r, view.def, renamed(where.cluster, reply.body as KubeObject));
  };
  const list = async (r: ConnectRequest, clusters: WorkspaceCluster[]) => {
    const selector = r.query.get('labelSelector');
    const path = selector ? `${view.path}?labelSelector=${encodeURIComponent(selector)}` : view.path;
    const unreachable: Unreachable[] = [];
    const parts = await Promise.all(
      clusters.map(async (c) => {
        try {
          const reply = await readDownstream(dialer, c.target, c.targetCluster, path);
          if (reply.status !== 200) throw new Error(replyMessage(reply));
          return ((reply.body as { items?: KubeObject[] }).items ?? []).map((o) => renamed(c, o));
        } catch (err) {
          unreachable.push({ syncTarget: c.name, why: (err as Error).message });
          return [];
        }
      }),
    );
    respondList(r, view.def, parts.flat(), unreachable);
  };
  return {
    group: view.def.group,
    resource: view.def.resource,
    subresource: '',
    async serve(r) {
      requireRead(r);
      const clusters = await workspaceClusters(registry, r.ctx.cluster);
      return r.info.name ? get(r, clusters) : list(r, clusters);
    },
  };
}

export function nodeViewHandlers(registry: ResourceRegistry, dialer: DownstreamDialer, defs: { nodeMetrics: ResourceDefinition; nodes: ResourceDefinition }): ConnectHandler[] {
  return [
    nodeViewHandler(registry, dialer, { def: defs.nodeMetrics, path: '/apis/metrics.k8s.io/v1beta1/nodes', notFoundResource: 'nodemetrics' }),
    nodeViewHandler(registry, dialer, { def: defs.nodes, path: '/api/v1/nodes', notFoundResource: 'nodes' }),
  ];
}
