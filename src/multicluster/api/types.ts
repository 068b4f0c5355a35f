/**
 * The transparent multi-cluster vocabulary: the SyncTarget and APIResourceImport types, their GVRs, and every label,
 * annotation and finalizer the syncer protocol uses. Names follow kcp's TMC layer (workload.kcp.io,
 * apiresource.kcp.io) so that a later scheduler/placement layer can speak the same protocol.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { GroupVersionResource } from '../../client/resource.js';

export const syncTargetsGVR: GroupVersionResource = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
export const apiResourceImportsGVR: GroupVersionResource = { group: 'apiresource.kcp.io', version: 'v1alpha1', resource: 'apiresourceimports' };
export const crdsGVR: GroupVersionResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
export const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
export const nodesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export const eventsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'events' };

/** Assignment label on an upstream object or namespace: the SyncTarget (by name, in the same workspace) it runs on. */
export const CLUSTER_LABEL = 'workload.kcp.io/cluster';
/** Per-target state label prefix (`state.workload.kcp.io/<key>`); `Sync` assigns, as a scheduler writes it. */
export const STATE_LABEL_PREFIX = 'state.workload.kcp.io/';
/** Label on every downstream object the syncer created: the SyncTarget key. The syncer touches nothing else. */
export const DOWNSTREAM_CLUSTER_LABEL = 'internal.workload.kcp.io/cluster';
/** Label on a SyncTarget carrying its key. */
export const SYNC_TARGET_KEY_LABEL = 'internal.workload.kcp.io/key';
/** Downstream namespace annotation: JSON NamespaceLocator. */
export const NAMESPACE_LOCATOR_ANNOTATION = 'kcp.io/namespace-locator';
/** Downstream annotation: hash of the desired downstream content, so unchanged objects are never rewritten. */
export const SPEC_HASH_ANNOTATION = 'internal.workload.kcp.io/spec-hash';
/**
 * Downstream annotation: the uid of the upstream object the copy was made from, so a copy left by an object that was
 * deleted and made again under the same name is replaced, never taken for the new object's (a Job re-created by the
 * same manifest runs again, as on one cluster).
 */
export const UPSTREAM_UID_ANNOTATION = 'internal.workload.kcp.io/upstream-uid';
/**
 * Upstream finalizer prefix (`workload.kcp.io/syncer-<key>`): marks the clusters an object has copies on, held until
 * the copy is gone when the object leaves a cluster; a DELETE releases it at once but for Pods, claims and split children
 * (decisions/deletion.ts).
 */
export const SYNCER_FINALIZER_PREFIX = 'workload.kcp.io/syncer-';
/** Finalizer on a SyncTarget: held until its syncer stopped and downstream objects were handled. */
export const SYNC_TARGET_FINALIZER = 'workload.kcp.io/synctarget';
/** CRD annotation: this CRD was published by negotiation (so negotiation may update or delete it). */
export const NEGOTIATED_ANNOTATION = 'apiresource.kcp.io/negotiated';

/**
 * On a SyncTarget: the logical clusters (names, JSON array, sorted) other than the SyncTarget's own whose namespaces
 * the scheduler assigned to it (a Placement there names this workspace as its locationWorkspace). Written by the
 * scheduler; the syncer syncs each listed cluster as well as its own.
 */
export const CONSUMER_CLUSTERS_ANNOTATION = 'scheduling.atrium.io/consumer-clusters';
/** The field manager / user agent of syncer writes. */
export const SYNCER_FIELD_MANAGER = 'syncer';

/** The state a SyncTarget has for one synced resource. */
export type ResourceState = 'Pending' | 'Accepted' | 'Incompatible';

export interface SyncedResource {
  group: string;
  resource: string;
  /** Versions ordered by preference. */
  versions: string[];
  state: ResourceState;
  /** Why the state is Incompatible or Pending: the exact field path and reason (atrium addition). */
  message?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  severity?: string;
}

/** What to do with downstream objects when the SyncTarget goes away. */
export type DeletionPolicy = 'Delete' | 'Orphan';

/** How upstream namespaces map to downstream ones. */
export type NamespaceMapping = 'Hashed' | 'SameName';

export interface SyncTargetSpec {
  /** Push mode: a kubeconfig (YAML) for the physical cluster; atrium runs the syncer itself. */
  kubeconfig?: string;
  unschedulable?: boolean;
  evictAfter?: string;
  /** Resources to sync (`deployments.apps`, `services`, ...). Default: defaultSyncedResources. */
  resources?: string[];
  /** Delete (default) or Orphan downstream objects when the SyncTarget is deleted. */
  deletionPolicy?: DeletionPolicy;
  /** Hashed (default, `kcp-<hash>`) or SameName downstream namespaces. */
  namespaceMapping?: NamespaceMapping;
}

export interface SyncTargetStatus {
  lastSyncerHeartbeatTime?: string;
  conditions?: Condition[];
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  syncedResources?: SyncedResource[];
}

export interface SyncTarget extends KubeObject {
  spec?: SyncTargetSpec;
  status?: SyncTargetStatus;
}

/** One resource's schema as a physical cluster serves it, reported by that cluster's syncer. */
export interface APIResourceImportSpec {
  /** The SyncTarget name (in the same workspace). */
  location: string;
  groupVersion: { group: string; version: string };
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  scope: 'Namespaced' | 'Cluster';
  /** The short names and categories the cluster's discovery gives (`deploy`; `all`), carried into a negotiated CRD. */
  shortNames?: string[];
  categories?: string[];
  /** A structural schema derived from the cluster's OpenAPI v3 document. */
  openAPIV3Schema: Record<string, unknown>;
  subResources?: string[];
}

export interface APIResourceImport extends KubeObject {
  spec: APIResourceImportSpec;
  status?: { conditions?: Condition[] };
}

/**
 * The workload kinds a SyncTarget syncs when spec.resources is empty (`<plural>.<group>`, core kinds by plural alone):
 * every kind a placed namespace places (api/kind-placement.ts) but the follower kinds below. Not here: what the
 * clusters keep for themselves (ControllerRevisions, StorageClasses, IngressClasses, PriorityClasses; the syncer makes
 * a PriorityClass that synced pods name on a cluster that has none of that name, syncer/priority-classes.ts).
 * To sync another kind by default, add it here: the syncer reports its schema (APIResourceImport), negotiation
 * enforces atrium's built-in schema on it (it must be in workspaceWorkloadResources, or be negotiated as a CRD),
 * `kubectl atrium workload sync` grants the syncer access to it, and objects assigned to a cluster (label or state
 * label) are synced down with status up. How a placed namespace places it (split, one cluster, every cluster,
 * following) is api/kind-placement.ts's table, carried out by the splitter and the placement controller.
 */
export const defaultSyncedWorkloads: readonly string[] = [
  'deployments.apps',
  'statefulsets.apps',
  'daemonsets.apps',
  'replicasets.apps',
  'jobs.batch',
  'cronjobs.batch',
  'pods',
  'replicationcontrollers',
  'persistentvolumeclaims',
  'podtemplates',
  'services',
  'endpoints',
  'endpointslices.discovery.k8s.io',
  'ingresses.networking.k8s.io',
  'networkpolicies.networking.k8s.io',
  'poddisruptionbudgets.policy',
  'horizontalpodautoscalers.autoscaling',
];

/**
 * Core resources that follow their workload. In a namespace assigned by hand (labels) they are synced once anything
 * else there is assigned; in a placed namespace the placement controller sends each exactly where the workloads that
 * use it run (decisions/follow-graph.ts).
 */
export const followerResources: ReadonlySet<string> = new Set(['configmaps', 'secrets', 'serviceaccounts']);

/** Resources a SyncTarget syncs when spec.resources is empty: the default workload kinds and their followers. */
export const defaultSyncedResources: string[] = [...defaultSyncedWorkloads, ...followerResources];

/** `deployments.apps` → {resource: 'deployments', group: 'apps'}; `services` → core. */
export function parseGroupResource(text: string): { group: string; resource: string } {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

/** Inverse of parseGroupResource. */
export function formatGroupResource(gr: { group: string; resource: string }): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** The resources a SyncTarget syncs. */
export function resourcesOf(st: SyncTarget): string[] {
  const r = st.spec?.resources;
  return r && r.length ? r : defaultSyncedResources;
}

/** The APIResourceImport name kcp used: `<resource>.<location>.<version>.<group or "core">`. */
export function importName(location: string, gvr: GroupVersionResource): string {
  return `${gvr.resource}.${location}.${gvr.version}.${gvr.group || 'core'}`;
}
