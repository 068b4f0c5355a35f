/** The resources the physical-cluster controllers read and write. */
import type { GroupVersionResource } from '../../client/resource.js';

export const deploymentsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
export const replicaSetsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };
export const podsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const nodesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export const leasesGVR: GroupVersionResource = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
export const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
export const replicationControllersGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'replicationcontrollers' };
export const servicesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
export const endpointsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
export const endpointSlicesGVR: GroupVersionResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
export const persistentVolumeClaimsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
export const persistentVolumesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumes' };
export const storageClassesGVR: GroupVersionResource = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };
export const ingressesGVR: GroupVersionResource = { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' };
export const ingressClassesGVR: GroupVersionResource = { group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses' };
