/**
 * PlacementLocationWorkspace: admission for Placements that name another workspace's compute.
 *
 * A Placement whose spec.locationWorkspace names a workspace other than its own schedules the placing workspace's
 * workloads onto that workspace's SyncTargets (its physical clusters), and its status shows their names and health.
 * kcp asks for `bind` permission in the compute workspace (on its APIExport) before a workspace may use it; atrium has
 * no APIExport for compute, so the equivalent permission is `bind` on locations.scheduling.kcp.io in the location
 * workspace, with access to that workspace (kcp's `access` on `/`; workspace admins have both through `*`). Checked when a Placement is created with such a
 * locationWorkspace, or updated to name a different one; `system:masters` (atrium's own controllers) is exempt.
 *
 * A location workspace that does not exist is refused the same way as one the user may not bind: the answer must not
 * tell a user which workspaces exist elsewhere in the tree.
 */
import { errors } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../apiserver/admission/admission.js';
import type { AuthorizationAttributes } from '../../apiserver/authorization.js';
import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import { LOCATION_CLUSTER_ANNOTATION } from './location-workspace.js';

export interface PlacementAdmissionDeps {
  /** The logical cluster a workspace path or cluster name names (the tenancy index). */
  resolvePath(pathOrName: string): string | undefined;
  /** RBAC of a logical cluster. */
  authorize(cluster: string, attrs: AuthorizationAttributes): { decision: string };
}

const locationWorkspaceOf = (o: KubeObject | undefined): string => ((o?.spec as { locationWorkspace?: unknown } | undefined)?.locationWorkspace as string | undefined) ?? '';

export class PlacementLocationWorkspace implements AdmissionPlugin {
  readonly name = 'PlacementLocationWorkspace';

  constructor(private readonly deps: PlacementAdmissionDeps) {}

  admit(attrs: AdmissionAttributes): void {
    if (attrs.def.group !== 'scheduling.kcp.io' || attrs.def.resource !== 'placements' || attrs.subresource) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const object = attrs.object;
    if (!object) return;
    const { user, cluster } = attrs.ctx;
    const wanted = locationWorkspaceOf(object);
    const target = wanted && typeof wanted === 'string' ? this.deps.resolvePath(wanted) : cluster;
    // The admitted logical cluster is recorded (LOCATION_CLUSTER_ANNOTATION) and only this plugin writes it: the
    // scheduler honours another workspace only while its path still names that cluster.
    if (target === cluster) return recordLocationCluster(object, undefined);
    if (attrs.operation === 'UPDATE' && attrs.oldObject && locationWorkspaceOf(attrs.oldObject) === wanted) {
      return recordLocationCluster(object, attrs.oldObject.metadata?.annotations?.[LOCATION_CLUSTER_ANNOTATION]);
    }
    if (user.groups.includes(SYSTEM_MASTERS)) return recordLocationCluster(object, target);
    const allowed =
      target !== undefined &&
      this.deps.authorize(target, { user, verb: 'bind', resourceRequest: true, path: '', apiGroup: 'scheduling.kcp.io', apiVersion: 'v1alpha1', resource: 'locations', subresource: '', namespace: '', name: '' }).decision === 'Allow';
    if (allowed) return recordLocationCluster(object, target);
    throw errors.forbidden(
      { group: 'scheduling.kcp.io', resource: 'placements' },
      attrs.name || attrs.object?.metadata?.name || '',
      `user "${user.username}" cannot use the compute of location workspace "${wanted}": it needs "bind" on locations.scheduling.kcp.io there ` +
        `and access to that workspace (ask an admin of "${wanted}" for both, or check the path)`,
    );
  }
}

/** Sets (or, with undefined, removes) LOCATION_CLUSTER_ANNOTATION on the Placement being admitted. */
function recordLocationCluster(placement: KubeObject, cluster: string | undefined): void {
  const annotations = { ...(placement.metadata?.annotations ?? {}) };
  if (cluster === undefined) {
    if (!(LOCATION_CLUSTER_ANNOTATION in annotations)) return;
    delete annotations[LOCATION_CLUSTER_ANNOTATION];
  } else annotations[LOCATION_CLUSTER_ANNOTATION] = cluster;
  placement.metadata = { ...(placement.metadata ?? {}), annotations };
  if (Object.keys(annotations).length === 0) delete placement.metadata.annotations;
}
