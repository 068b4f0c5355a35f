/**
 * LogicalCluster annotations the workspace controller sets and everything else trusts: `kcp.io/path` (the workspace
 * index, the scheduler and the compute-apis controller map workspace paths to logical clusters by it) and the
 * workspace type (which decides the child workspace types allowed). A workspace's owner is cluster-admin of it and may
 * edit its LogicalCluster; setting `kcp.io/path: root:compute` there would make other tenants' Placements, and
 * requests to that path, land in the owner's workspace. As kcp's path-annotation admission does, only the system may
 * write them; the tenancy code writes LogicalClusters over storage, so admission never sees its own writes.
 */
import { type StoredObjectReader, SystemSetAnnotations } from '../apiserver/admission/system-set-annotations.js';
import { PATH_ANNOTATION, TYPE_ANNOTATION } from './workspace-types.js';

/** The admission plugin refusing non-system:masters writes of a LogicalCluster's path and type annotations. */
export function logicalClusterPathAdmission(stored: StoredObjectReader): SystemSetAnnotations {
  return new SystemSetAnnotations(stored, {
    name: 'LogicalClusterPathAnnotation',
    group: 'core.kcp.io',
    resource: 'logicalclusters',
    annotations: [PATH_ANNOTATION, TYPE_ANNOTATION],
    setBy: 'the workspace controller',
  });
}
