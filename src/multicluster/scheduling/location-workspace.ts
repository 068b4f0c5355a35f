/**
 * Resolving a Placement's spec.locationWorkspace: the workspace (a path such as `root:compute`, as kcp writes it) whose
 * Locations and SyncTargets the Placement schedules onto. Pure: the caller supplies the directory of logical clusters
 * it knows (from the LogicalCluster objects, whose `kcp.io/path` annotation carries the canonical path).
 */
import type { KubeObject } from '../../apimachinery/object.js';

/** LogicalCluster annotation with the canonical workspace path (kcp.io/path). */
export const PATH_ANNOTATION = 'kcp.io/path';

/** Maps between canonical workspace paths and logical cluster names. */
export interface WorkspaceDirectory {
  /** The logical cluster a canonical path names, if any. */
  clusterOfPath(path: string): string | undefined;
  /** The canonical path of a logical cluster, if known. */
  pathOfCluster(cluster: string): string | undefined;
}

/**
 * A directory over LogicalCluster objects: each one (named `cluster`) lives in the logical cluster it describes, so
 * `clusterOf(obj)` is the name and its kcp.io/path annotation the path. Objects without the annotation are known by
 * name only.
 */
export function directoryOf(logicalClusters: readonly KubeObject[], clusterOf: (o: KubeObject) => string): WorkspaceDirectory {
  const byPath = new Map<string, string>();
  const byCluster = new Map<string, string>();
  for (const lc of logicalClusters) {
    const name = clusterOf(lc);
    const path = lc.metadata?.annotations?.[PATH_ANNOTATION];
    if (!name || !path) continue;
    byPath.set(path, name);
    byCluster.set(name, path);
  }
  return { clusterOfPath: (p) => byPath.get(p), pathOfCluster: (c) => byCluster.get(c) };
}

/** Where a Placement's Locations live: the logical cluster and the path reported in status.selectedLocation.path. */
export type ResolvedLocationWorkspace = { found: true; cluster: string; path: string } | { found: false; path: string };

/**
 * Resolves `locationWorkspace` for a Placement in logical cluster `own`.
 *
 * - Empty or missing: the Placement's own workspace (kcp defaults the field to it).
 * - A canonical path the directory knows (`root:compute`): that logical cluster.
 * - A logical cluster name (one segment, as `/clusters/<name>` accepts): that cluster when the directory knows it, or
 *   when it is `own` (a server without tenancy knows no paths; its only workspaces are addressed by name).
 * - Anything else: not found; the path is kept for the condition message.
 *
 * The reported path is the canonical one when known, so the same workspace named by path or by cluster name yields
 * the same status.selectedLocation.
 */
export function resolveLocationWorkspace(locationWorkspace: string | undefined, own: string, directory: WorkspaceDirectory): ResolvedLocationWorkspace {
  const canonical = (cluster: string) => directory.pathOfCluster(cluster) ?? cluster;
  if (!locationWorkspace) return { found: true, cluster: own, path: canonical(own) };
  const byPath = directory.clusterOfPath(locationWorkspace);
  if (byPath !== undefined) return { found: true, cluster: byPath, path: locationWorkspace };
  if (locationWorkspace === own || directory.pathOfCluster(locationWorkspace) !== undefined) {
    return { found: true, cluster: locationWorkspace, path: canonical(locationWorkspace) };
  }
  return { found: false, path: locationWorkspace };
}

/**
 * On a Placement naming another workspace: the logical cluster its location workspace resolved to when the Placement
 * was admitted (and the user's `bind` there checked). Written by the PlacementLocationWorkspace admission plugin only.
 */
export const LOCATION_CLUSTER_ANNOTATION = 'scheduling.atrium.io/location-cluster';

/**
 * resolveLocationWorkspace for a Placement, held to what admission checked: another workspace counts only while its
 * path still names the logical cluster recorded at admission. A path deleted and created again (a new logical
 * cluster, perhaps someone else's) is not found, so existing Placements never follow it to another owner's clusters.
 */
export function resolvePlacementLocation(
  placement: { spec?: { locationWorkspace?: string }; metadata?: { annotations?: Record<string, string> } },
  own: string,
  directory: WorkspaceDirectory,
): ResolvedLocationWorkspace {
  const where = resolveLocationWorkspace(placement.spec?.locationWorkspace, own, directory);
  if (!where.found || where.cluster === own) return where;
  return placement.metadata?.annotations?.[LOCATION_CLUSTER_ANNOTATION] === where.cluster ? where : { found: false, path: where.path };
}
