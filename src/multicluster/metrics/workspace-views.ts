/**
 * What a workspace with compute serves of its clusters' own state, computed on each read (nothing stored): the
 * metrics API (metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics, as metrics-server's APIService is discovered on
 * a cluster) and read-only views of the clusters' Nodes, so `kubectl top pods|nodes` work in the workspace, and of
 * the PersistentVolumes bound to the workspace's claims (volume-views.ts), shown beside the workspace's own volumes.
 */
import type { ConnectHandler } from '../../apiserver/connect.js';
import { nodeMetricsResource, podMetricsResource } from '../../registry/builtin/metrics.js';
import { nodes } from '../../registry/builtin/workloads/resources.js';
import { persistentVolumes } from '../../registry/builtin/workloads/storage-resources.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import type { DownstreamDialer } from '../streams/downstream-dialer.js';
import { nodeViewHandlers } from './node-views.js';
import { podMetricsHandler } from './pod-metrics.js';
import { persistentVolumeViewHandler } from './volume-views.js';

/** core/v1 Nodes as a workspace shows its clusters' (node-views.ts): get and list, no status subresource. */
export const workspaceNodesView: ResourceDefinition = { ...nodes, verbs: ['get', 'list'], subresources: [] };

/**
 * core/v1 PersistentVolumes: the workspace's own (stored, every verb: a user's statically provisioned volumes, bound
 * by controllers/volume-binder.ts), and in get and list beside them its clusters' volumes bound to its claims
 * (volume-views.ts).
 */
export const workspacePersistentVolumesView: ResourceDefinition = persistentVolumes;

/** Served beside the workload types in every workspace with compute. */
export const workspaceViewResources: readonly ResourceDefinition[] = [workspaceNodesView, workspacePersistentVolumesView, podMetricsResource, nodeMetricsResource];

export function workspaceViewHandlers(registry: ResourceRegistry, dialer: DownstreamDialer): ConnectHandler[] {
  return [podMetricsHandler(registry, dialer, podMetricsResource), ...nodeViewHandlers(registry, dialer, { nodeMetrics: nodeMetricsResource, nodes: workspaceNodesView }), persistentVolumeViewHandler(registry, dialer, workspacePersistentVolumesView)];
}
