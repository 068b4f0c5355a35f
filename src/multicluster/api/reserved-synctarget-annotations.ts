/**
 * A SyncTarget's CONSUMER_CLUSTERS_ANNOTATION lists the other workspaces whose namespaces the scheduler assigned to it,
 * and its syncer (system:masters in push mode) syncs every listed workspace. The SyncTarget's owner may edit the
 * SyncTarget, so were the annotation writable by them, they could have their syncer copy any workspace's objects to
 * their cluster. Only the scheduler (system:masters) may write it.
 */
import { type StoredObjectReader, SystemSetAnnotations } from '../../apiserver/admission/system-set-annotations.js';
import { CONSUMER_CLUSTERS_ANNOTATION, syncTargetsGVR } from './types.js';

/** The admission plugin refusing non-system:masters writes of a SyncTarget's consumer-clusters annotation. */
export function reservedSyncTargetAnnotations(stored: StoredObjectReader): SystemSetAnnotations {
  return new SystemSetAnnotations(stored, {
    name: 'ReservedSyncTargetAnnotations',
    group: syncTargetsGVR.group,
    resource: syncTargetsGVR.resource,
    annotations: [CONSUMER_CLUSTERS_ANNOTATION],
    setBy: 'the scheduler',
  });
}
