/**
 * The Kubernetes workload types a workspace with compute serves as built-in resources, exactly as kube-apiserver
 * serves them (short names, categories, scale, strategic merge patch, protobuf): every definition of the registry's
 * `workloadResources` list (src/registry/builtin/workloads/resources.ts, which `atrium pcluster` serves in full) but
 * what a control plane never serves — the physical cluster's own machinery (Nodes, PersistentVolumes) — and what the
 * multicluster plugin already serves in every workspace (Services).
 *
 * Whatever the list gains is served in compute workspaces without further change here; type negotiation enforces
 * these schemas instead of publishing CRDs for them (controllers/negotiation.ts), and compute-apis.ts copies no CRD
 * for them.
 */
import { workloadResources } from '../../registry/builtin/workloads/resources.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import { multiclusterResources } from './resources.js';

const groupResource = (d: { group: string; resource: string }) => `${d.group}/${d.resource}`;

/**
 * Group/resources of workloadResources a control plane does not serve as stored, writable types: they describe a
 * physical cluster itself. A workspace with compute shows its clusters' ones read-only instead (metrics/workspace-views.ts).
 */
export const clusterInfrastructureResources: ReadonlySet<string> = new Set(['/nodes', '/persistentvolumes']);

/**
 * Cluster configuration a workspace does not serve at all: a cluster's RuntimeClasses are its administrator's, and its
 * RuntimeClass admission applies them to the pods synced there (a workspace's own classes would admit a pod with an
 * overhead the cluster's class then refuses); CSIDrivers, CSINodes, CSIStorageCapacities and VolumeAttachments describe
 * a cluster's own storage drivers, nodes and attachments.
 */
const clusterConfigurationResources: ReadonlySet<string> = new Set([
  'node.k8s.io/runtimeclasses',
  'storage.k8s.io/csidrivers',
  'storage.k8s.io/csinodes',
  'storage.k8s.io/csistoragecapacities',
  'storage.k8s.io/volumeattachments',
]);

const servedEverywhere = new Set(multiclusterResources.map(groupResource));

/** The workload types served natively in every workspace that has compute (SyncTargets or Placements). */
export const workspaceWorkloadResources: readonly ResourceDefinition[] = workloadResources.filter(
  (d) => !clusterInfrastructureResources.has(groupResource(d)) && !clusterConfigurationResources.has(groupResource(d)) && !servedEverywhere.has(groupResource(d)),
);

/** By group/resource, the first (preferred) version of each: HorizontalPodAutoscalers are served as v2 and v1. */
const byGroupResource = new Map<string, ResourceDefinition>();
for (const d of workspaceWorkloadResources) if (!byGroupResource.has(groupResource(d))) byGroupResource.set(groupResource(d), d);

/**
 * The native definition of `group`/`resource` when a workspace with compute serves it built in: its preferred version
 * (the one a cluster's discovery prefers too, which the syncer reports and negotiation compares).
 */
export function workspaceWorkloadResource(group: string, resource: string): ResourceDefinition | undefined {
  return byGroupResource.get(`${group}/${resource}`);
}
