/**
 * The clusters a workspace runs on, and how their nodes are named there. A workspace's clusters are its own
 * SyncTargets and those of a location workspace whose scheduler lists it as a consumer (CONSUMER_CLUSTERS_ANNOTATION).
 *
 * A node is shown as `<SyncTarget>--<node>`, the name pods show in spec.nodeName too (api/node-names.ts).
 */
import { CLUSTER_ANNOTATION } from '../../client/resource.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { RequestContext } from '../../registry/rest.js';
import { parseWorkspaceNodeName as parseNodeName, workspaceNodeName as nodeName } from '../api/node-names.js';
import { CONSUMER_CLUSTERS_ANNOTATION, type SyncTarget } from '../api/types.js';

export interface WorkspaceCluster {
  target: SyncTarget;
  /** The logical cluster holding the SyncTarget. */
  targetCluster: string;
  name: string;
}

export const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:atrium:workspace-views', groups: ['system:masters'] } });

/** The SyncTargets whose clusters run `cluster`'s workloads, by name. */
export async function workspaceClusters(registry: ResourceRegistry, cluster: string): Promise<WorkspaceCluster[]> {
  const store = registry.lookup('root', 'workload.kcp.io', 'v1alpha1', 'synctargets')!;
  const all = (await store.list(systemContext('root'), '', { selection: {} }, true)).items as SyncTarget[];
  const out: WorkspaceCluster[] = [];
  for (const target of all) {
    const targetCluster = target.metadata?.annotations?.[CLUSTER_ANNOTATION];
    if (!targetCluster) continue;
    if (targetCluster === cluster || consumers(target).includes(cluster)) out.push({ target, targetCluster, name: target.metadata!.name! });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function consumers(target: SyncTarget): string[] {
  try {
    const v = JSON.parse(target.metadata?.annotations?.[CONSUMER_CLUSTERS_ANNOTATION] ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

/** The workspace's name of node `node` of `cluster`. */
export function workspaceNodeName(cluster: WorkspaceCluster, node: string): string {
  return nodeName(cluster.name, node);
}

/** The cluster and node a workspace node name stands for, or undefined when no cluster of the workspace matches. */
export function parseWorkspaceNodeName(clusters: WorkspaceCluster[], name: string): { cluster: WorkspaceCluster; node: string } | undefined {
  const where = parseNodeName(clusters.map((c) => c.name), name);
  const cluster = where && clusters.find((c) => c.name === where.cluster);
  return cluster && { cluster, node: where.node };
}
