/**
 * How each Kubernetes kind is placed onto the clusters of a placed namespace (one the scheduler marked
 * `scheduling.atrium.io/split-workloads`), and the annotations the placement controller (src/multicluster/placement/)
 * and the syncer share to say so. The table is the one docs/multicluster.md shows:
 *
 * - `Split`: the splitter divides spec.replicas into `<name>--<cluster>` children (Deployments).
 * - `One`: the whole object goes to one cluster of the namespace, chosen once and kept (StatefulSets, Jobs, CronJobs,
 *   bare Pods, ReplicaSets, ReplicationControllers).
 * - `Every`: every cluster of the namespace that accepts the kind (DaemonSets, PodTemplates).
 * - `Follow`: exactly the clusters the workloads that use the object run on (the follow graph,
 *   decisions/follow-graph.ts): ConfigMaps, Secrets, ServiceAccounts, PersistentVolumeClaims, Services, Endpoints,
 *   EndpointSlices, NetworkPolicies, Ingresses, PodDisruptionBudgets (budget apportioned per cluster) and
 *   HorizontalPodAutoscalers (for a split target an observe-only copy per cluster; the upstream HPA scales).
 * - `None`: never synced: the downstream controllers keep their own (ControllerRevisions), or a cluster's classes are
 *   its own (StorageClasses, IngressClasses, PriorityClasses; a PriorityClass a synced pod spec names is made on the
 *   cluster when it has none of that name: syncer/priority-classes.ts).
 *
 * Kinds not in the table (operators' types, negotiated CRDs) keep the namespace-wide rule: every cluster the
 * namespace is assigned to.
 *
 * The placement controller writes its decision on the object as the syncer's own protocol: the state labels
 * `state.workload.kcp.io/<key>: Sync`, one per chosen SyncTarget, and in a placed namespace the syncer syncs such a
 * kind by those labels only (syncer/transform.ts isAssigned). Pure data; no I/O.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { CLUSTER_LABEL, STATE_LABEL_PREFIX } from './types.js';

export type PlacementMode = 'Split' | 'One' | 'Every' | 'Follow' | 'None';

export interface KindPlacement {
  group: string;
  /** The version the placement controller reads and writes (the preferred one). */
  version: string;
  resource: string;
  kind: string;
  mode: PlacementMode;
}

/** The per-kind decisions, in the order the docs list them. */
export const kindPlacements: readonly KindPlacement[] = [
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', mode: 'Split' },
  { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', mode: 'One' },
  { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', mode: 'One' },
  { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', mode: 'One' },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', mode: 'One' },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', mode: 'One' },
  { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController', mode: 'One' },
  { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', mode: 'Every' },
  { group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', mode: 'Every' },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', mode: 'Follow' },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', mode: 'Follow' },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', mode: 'Follow' },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', mode: 'Follow' },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', mode: 'Follow' },
  { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', mode: 'Follow' },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', mode: 'Follow' },
  { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', mode: 'Follow' },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', mode: 'Follow' },
  { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', mode: 'Follow' },
  { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', mode: 'Follow' },
  { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', mode: 'None' },
  { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', mode: 'None' },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', kind: 'IngressClass', mode: 'None' },
  { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', mode: 'None' },
];

const byGroupResource = new Map(kindPlacements.map((k) => [`${k.group}/${k.resource}`, k]));
const byGroupKind = new Map(kindPlacements.map((k) => [`${k.group}/${k.kind}`, k]));

/** The placement of `group`/`resource`; undefined for kinds outside the table (every cluster of the namespace). */
export function kindPlacementOf(group: string, resource: string): KindPlacement | undefined {
  return byGroupResource.get(`${group}/${resource}`);
}

/** The placement of an API group and kind (an HPA's scaleTargetRef names a kind); undefined outside the table. */
export function kindPlacementOfKind(group: string, kind: string): KindPlacement | undefined {
  return byGroupKind.get(`${group}/${kind}`);
}

/**
 * Annotation the placement controller keeps on every object it places: a JSON condition `{type: "Scheduled",
 * status, reason, message, lastTransitionTime}` (reasons: Scheduled; and with status False Incompatible, NoRoom,
 * NoClusters — these three also as a Warning Event —, Pending, and NotUsed for a follower no placed workload uses).
 * Every object the controller places carries it once decided: the syncer waits for it (awaitsPlacement). An annotation, not status.conditions, for the same reason as the syncer's Synced condition:
 * ConfigMaps have no status, and a workload's status is the clusters' own.
 */
export const SCHEDULED_ANNOTATION = 'scheduling.atrium.io/scheduled';

/**
 * Annotation the placement controller writes on objects whose copy differs per cluster: a JSON object from SyncTarget
 * key to a JSON merge patch of `spec` (a PodDisruptionBudget's apportioned budget; an HPA's observe-only copy
 * targeting the cluster's share). The syncer applies its own entry to the downstream copy.
 */
export const CLUSTER_SPEC_ANNOTATION = 'scheduling.atrium.io/cluster-spec';

/**
 * Per-SyncTarget annotation prefix (`status.workload.kcp.io/<key>`): the downstream status of an object synced to
 * several clusters (or with a per-cluster spec), which the placement controller folds into the one upstream status.
 * Written by the syncer instead of /status, so the clusters do not take turns overwriting it.
 */
export const STATUS_ANNOTATION_PREFIX = 'status.workload.kcp.io/';

/** The status annotation of SyncTarget `key`. */
export function statusAnnotation(key: string): string {
  return STATUS_ANNOTATION_PREFIX + key;
}

/**
 * Whether the placement controller has yet to decide `obj` (of `resource`, in namespace `ns`): the namespace is
 * placed, the kind is one it places, the object is not pinned with its own `workload.kcp.io/cluster`, and it carries no
 * Scheduled condition yet. The syncer leaves such an object alone until then.
 */
export function awaitsPlacement(obj: KubeObject, ns: KubeObject | undefined, resource: { group: string; resource: string }): boolean {
  if (ns?.metadata?.annotations?.['scheduling.atrium.io/split-workloads'] !== 'true') return false;
  const mode = kindPlacementOf(resource.group, resource.resource)?.mode;
  if (mode !== 'One' && mode !== 'Every' && mode !== 'Follow') return false;
  if (obj.metadata?.labels?.[CLUSTER_LABEL] !== undefined || isClusterLocal(resource.resource, obj)) return false;
  return obj.metadata?.annotations?.[SCHEDULED_ANNOTATION] === undefined;
}

/** The keys an object's own state labels assign it to (`state.workload.kcp.io/<key>: Sync`), sorted. */
export function ownStateKeys(obj: KubeObject | undefined): string[] {
  return Object.entries(obj?.metadata?.labels ?? {})
    .filter(([k, v]) => k.startsWith(STATE_LABEL_PREFIX) && v === 'Sync')
    .map(([k]) => k.slice(STATE_LABEL_PREFIX.length))
    .sort();
}

/**
 * Whether the clusters' statuses of `obj` are folded upstream by the placement controller (each syncer writes its
 * own into STATUS_ANNOTATION_PREFIX) rather than written to /status by the one syncer: the object is synced to more
 * than one cluster by its own state labels, or carries a per-cluster spec.
 */
export function aggregatesStatus(obj: KubeObject | undefined): boolean {
  return ownStateKeys(obj).length > 1 || obj?.metadata?.annotations?.[CLUSTER_SPEC_ANNOTATION] !== undefined;
}

/** The per-cluster spec patch of `key` on `obj`, or undefined. */
export function clusterSpecOf(obj: KubeObject, key: string): Record<string, unknown> | undefined {
  const text = obj.metadata?.annotations?.[CLUSTER_SPEC_ANNOTATION];
  if (!text) return undefined;
  try {
    const all = JSON.parse(text) as Record<string, unknown>;
    const mine = all?.[key];
    return mine && typeof mine === 'object' && !Array.isArray(mine) ? (mine as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Moving condition of a One kind whose cluster left its namespace (decisions/move-policy.ts): JSON `{type: Moving,
 * status, reason, message, lastTransitionTime}`, written by the placement controller.
 */
export const MOVING_ANNOTATION = 'scheduling.atrium.io/moving';

/**
 * Annotation on a synced bare Pod whose upstream controller reference the syncer of SyncTarget `<value>` set: the pod
 * was adopted on that cluster by a ReplicaSet or ReplicationController synced there (decisions/orphans.ts), and the
 * reference goes when the cluster's controller releases the pod. A controller reference without it is someone else's.
 */
export const ADOPTED_ON_ANNOTATION = 'scheduling.atrium.io/adopted-on';

/** Annotations that are upstream bookkeeping of placement and never reach a downstream copy. */
export function isPlacementBookkeeping(annotation: string): boolean {
  return annotation === SCHEDULED_ANNOTATION || annotation === MOVING_ANNOTATION || annotation === CLUSTER_SPEC_ANNOTATION || annotation === ADOPTED_ON_ANNOTATION || annotation.startsWith(STATUS_ANNOTATION_PREFIX);
}

/** Marks an upstream ControllerRevision mirrored from a cluster (syncer/revision-mirror.ts): never synced or placed. */
export const REVISION_MIRROR_LABEL = 'scheduling.atrium.io/mirror';

/**
 * Label on the ReplicaSets the control plane keeps as a split Deployment's revision history
 * (splitter/revision-history.ts): records for `kubectl rollout history/undo` and Helm's readiness check, never placed
 * and never synced (isClusterLocal).
 */
export const REVISION_HISTORY_LABEL = 'scheduling.atrium.io/revision-history';

/** The label the endpoints controller marks its Endpoints with (kube 1.33's, set by a workspace's controller). */
export const ENDPOINTS_MANAGED_BY_LABEL = 'endpoints.kubernetes.io/managed-by';
export const ENDPOINTS_CONTROLLER_NAME = 'endpoint-controller';
export const SLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The EndpointSlices controllers make (a Service's pods, custom Endpoints mirrored), by their managed-by label. */
export const CONTROLLER_MANAGED_SLICES: ReadonlySet<string> = new Set(['endpointslice-controller.k8s.io', 'endpointslicemirroring-controller.k8s.io']);

/**
 * Whether `obj` is the kind of object that never syncs even in an assigned namespace (per-cluster machinery): the
 * `kube-root-ca.crt` ConfigMap, the `default` ServiceAccount, ServiceAccount token Secrets, the `default/kubernetes`
 * Service with its Endpoints and EndpointSlice, the Endpoints and EndpointSlices of the endpoints controllers. A Secret read as metadata
 * only carries no type; token Secrets are told by their service-account annotation then. Also the ReplicaSets of a
 * split Deployment's revision history (REVISION_HISTORY_LABEL), which exist upstream only: the placement controller
 * never places them and no syncer copies them.
 */
export function isClusterLocal(resource: string, obj: KubeObject): boolean {
  const name = obj.metadata?.name;
  // A cluster's revision history is its own; upstream ones are mirrors of it (syncer/revision-mirror.ts).
  if (resource === 'controllerrevisions' || obj.metadata?.labels?.[REVISION_MIRROR_LABEL] !== undefined) return true;
  if (resource === 'replicasets' && obj.metadata?.labels?.[REVISION_HISTORY_LABEL] === 'true') return true;
  if (resource === 'configmaps' && name === 'kube-root-ca.crt') return true;
  // The API server's own Service (controllers/kubernetesservice): every cluster has its own.
  if (name === 'kubernetes' && obj.metadata?.namespace === 'default' && (resource === 'services' || resource === 'endpoints' || resource === 'endpointslices')) return true;
  // The Endpoints and EndpointSlices the endpoints controllers keep (a workspace's own, of its Services' pods, and
  // the mirrored slices of custom Endpoints): each cluster's controllers make theirs.
  if (resource === 'endpoints' && obj.metadata?.labels?.[ENDPOINTS_MANAGED_BY_LABEL] === ENDPOINTS_CONTROLLER_NAME) return true;
  if (resource === 'endpointslices' && CONTROLLER_MANAGED_SLICES.has(obj.metadata?.labels?.[SLICE_MANAGED_BY_LABEL] ?? '')) return true;
  if (resource === 'serviceaccounts' && name === 'default') return true;
  if (resource === 'secrets' && ((obj as { type?: string }).type === 'kubernetes.io/service-account-token' || obj.metadata?.annotations?.['kubernetes.io/service-account.name'] !== undefined)) return true;
  return false;
}
