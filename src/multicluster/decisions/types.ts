/**
 * The shapes the multi-cluster decision functions read and return. Inputs are structural subsets of the JSON objects
 * (SyncTarget, Location, Placement, Deployment status) with kcp's and Kubernetes' field names, so a controller can pass
 * the objects it read from storage straight in; outputs are plain data the controller writes back.
 *
 * Nothing here performs I/O or reads the clock: every decision takes `now` explicitly, which keeps them pure and
 * table-testable.
 */
import type { LabelSelectorSpec } from '../../apimachinery/labels/selector.js';

/** The group and resource Locations and Placements use for SyncTargets (kcp's workload API). */
export const SYNC_TARGET_RESOURCE = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' } as const;

/**
 * A SyncTarget label holding a static replica weight (a non-negative integer) used when a Placement splits replicas by
 * static weights. An absent or malformed label counts as weight 1.
 */
export const REPLICA_WEIGHT_LABEL = 'scheduling.atrium.io/replica-weight';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A status condition as both metav1.Condition and kcp's conditions type serialize it. */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  severity?: string;
}

/** One entry of SyncTarget.status.syncedResources: whether the target can serve a resource (kcp's negotiation). */
export interface SyncedResource {
  group?: string;
  resource: string;
  versions?: string[];
  identityHash?: string;
  /** Pending (default), Accepted or Incompatible. */
  state?: 'Pending' | 'Accepted' | 'Incompatible';
}

/** The parts of a workload.kcp.io/v1alpha1 SyncTarget the decisions read. */
export interface SyncTargetLike {
  metadata: { name: string; labels?: Record<string, string> | null; annotations?: Record<string, string> | null };
  spec?: {
    /** Cordon: no new work lands here; work already here stays. */
    unschedulable?: boolean;
    /** Drain: from this RFC 3339 time on, the work here is moved elsewhere. */
    evictAfter?: string | null;
  };
  status?: {
    conditions?: Condition[] | null;
    syncedResources?: SyncedResource[] | null;
    lastSyncerHeartbeatTime?: string | null;
  };
}

/** scheduling.kcp.io/v1alpha1 GroupVersionResource. */
export interface GroupVersionResource {
  group?: string;
  version: string;
  resource: string;
}

/** The parts of a scheduling.kcp.io/v1alpha1 Location the decisions read. */
export interface LocationLike {
  metadata: { name: string; labels?: Record<string, string> | null };
  spec: {
    resource: GroupVersionResource;
    description?: string;
    availableSelectorLabels?: { key: string; values: string[]; description?: string }[] | null;
    instanceSelector?: LabelSelectorSpec | null;
  };
  status?: { instances?: number; availableInstances?: number };
}

/**
 * How many SyncTargets of the selected Location a Placement binds (an atrium extension of kcp's PlacementSpec):
 * `One` (kcp's behaviour and the default), `Count` (spec.clusterSpread.count of them) or `All` (every eligible one).
 */
export interface ClusterSpread {
  mode: 'One' | 'Count' | 'All';
  count?: number;
}

/** scheduling.kcp.io/v1alpha1 LocationReference. */
export interface LocationReference {
  path: string;
  locationName: string;
}

export type PlacementPhase = 'Pending' | 'Unbound' | 'Bound';

/** The parts of a scheduling.kcp.io/v1alpha1 Placement the decisions read. */
export interface PlacementLike {
  metadata: { name: string };
  spec: {
    /** ORed; an empty list selects no Location (as in kcp; the default Placement carries one empty selector). */
    locationSelectors?: LabelSelectorSpec[] | null;
    locationResource: GroupVersionResource;
    namespaceSelector?: LabelSelectorSpec | null;
    locationWorkspace?: string;
    clusterSpread?: ClusterSpread | null;
  };
  status?: {
    phase?: PlacementPhase;
    selectedLocation?: LocationReference | null;
    conditions?: Condition[] | null;
  };
}

/** A resource (group + plural resource name) whose objects a Placement's namespaces hold. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** apps/v1 DeploymentStatus (also the shape of StatefulSet/ReplicaSet replica counters that matter here). */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: Condition[];
}

/** How a workload's replicas relate across its clusters. */
export type ReplicaMode = 'Divided' | 'Duplicated';
