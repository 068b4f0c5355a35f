/** The resources the physical-cluster controllers read and write. */
import type { GroupVersionResource } from '../../client/resource.js';

export const deploymentsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
export const replicaSetsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };
export const podsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const nodesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export const leasesGVR: GroupVersionResource = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
export const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
