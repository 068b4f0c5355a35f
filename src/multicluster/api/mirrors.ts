/**
 * The contract between what mirrors a cluster's objects up into a workspace (pods, events: syncer/) and what reaches
 * a mirrored pod on its cluster (logs, exec, attach, port-forward, metrics). Mirrors are read-only records of
 * downstream state: never placed, never synced down (isClusterLocal: they carry MIRROR_LABEL), written only by the
 * syncer of their cluster.
 */
import { REVISION_MIRROR_LABEL } from './kind-placement.js';

/** Marks every upstream object mirrored from a cluster (`"true"`): ControllerRevisions, Pods, Events. */
export const MIRROR_LABEL = REVISION_MIRROR_LABEL;

/** On a mirror: the name of the SyncTarget (in the workspace that owns it) whose cluster holds the original. */
export const MIRROR_CLUSTER_LABEL = 'scheduling.atrium.io/cluster';

/** On a mirror: the key of that SyncTarget (api/keys.ts syncTargetKey), which tells the syncer that owns it. */
export const MIRROR_SYNC_TARGET_KEY_ANNOTATION = 'scheduling.atrium.io/sync-target-key';

/** On a mirror: the workspace (logical cluster) of that SyncTarget, when it is not the mirror's own. */
export const MIRROR_SYNC_TARGET_CLUSTER_ANNOTATION = 'scheduling.atrium.io/sync-target-cluster';

/** On a mirror: where the original lives on its cluster, `<namespace>/<name>` (`<name>` for cluster-scoped). */
export const MIRROR_SOURCE_ANNOTATION = 'scheduling.atrium.io/downstream';

export interface MirrorSource {
  syncTargetName: string;
  syncTargetKey: string;
  /** The SyncTarget's workspace when given; else the mirror's own. */
  syncTargetCluster?: string;
  namespace?: string;
  name: string;
}

/** Where a mirror's original lives, or undefined when `obj` is not a mirror. */
export function mirrorSourceOf(obj: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } }): MirrorSource | undefined {
  const labels = obj.metadata?.labels ?? {};
  const annotations = obj.metadata?.annotations ?? {};
  const syncTargetName = labels[MIRROR_CLUSTER_LABEL];
  const syncTargetKey = annotations[MIRROR_SYNC_TARGET_KEY_ANNOTATION];
  const source = annotations[MIRROR_SOURCE_ANNOTATION];
  if (labels[MIRROR_LABEL] === undefined || !syncTargetName || !syncTargetKey || !source) return undefined;
  const slash = source.indexOf('/');
  const syncTargetCluster = annotations[MIRROR_SYNC_TARGET_CLUSTER_ANNOTATION];
  return {
    syncTargetName,
    syncTargetKey,
    ...(syncTargetCluster ? { syncTargetCluster } : {}),
    ...(slash >= 0 ? { namespace: source.slice(0, slash), name: source.slice(slash + 1) } : { name: source }),
  };
}

/**
 * On a mirror: the uid of its original on the cluster. A user deleting a mirror pod (`kubectl delete pod`) has the
 * syncer delete exactly that pod (precondition on this uid), never a successor of the same name.
 */
export const MIRROR_SOURCE_UID_ANNOTATION = 'scheduling.atrium.io/downstream-uid';

/** On a mirror: a hash of what the syncer last wrote but status, so an unchanged original costs no write. */
export const MIRROR_HASH_ANNOTATION = 'scheduling.atrium.io/mirror-hash';

/** Whether `obj` carries the mirror mark (any value: removing or changing it is as guarded as setting it). */
export function isMirror(obj: { metadata?: { labels?: Record<string, string> } } | undefined): boolean {
  return obj?.metadata?.labels?.[MIRROR_LABEL] !== undefined;
}

/** The ServiceAccount a pull-mode syncer of SyncTarget `<name>` runs as starts with this (cli/workload-sync.ts syncerId). */
export const SYNCER_SERVICE_ACCOUNT_PREFIX = 'atrium-syncer-';
