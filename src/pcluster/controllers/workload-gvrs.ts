/** The resources the StatefulSet, DaemonSet, Job, CronJob, HPA and disruption controllers read and write. */
import type { GroupVersionResource } from '../../client/resource.js';

export const statefulSetsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'statefulsets' };
export const daemonSetsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'daemonsets' };
export const controllerRevisionsGVR: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'controllerrevisions' };
export const jobsGVR: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'jobs' };
export const cronJobsGVR: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'cronjobs' };
export const hpaGVR: GroupVersionResource = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
export const pdbGVR: GroupVersionResource = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };
export const pvcGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
export const replicationControllersGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'replicationcontrollers' };
