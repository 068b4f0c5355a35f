/**
 * ReadOnlyMirrors: mirrors (objects carrying MIRROR_LABEL: the pods, Jobs, ReplicaSets, PersistentVolumeClaims, Events
 * and ControllerRevisions a syncer records from its cluster) are written by syncers only. Anyone else is refused with 403 Forbidden when they
 *
 * - create an object carrying the label (any value),
 * - update, patch or apply (main resource or a subresource such as /status or /scale) an object that carries it, or would
 *   carry it after the write (adding or removing the label included).
 *
 * A PATCH of a mirror pod's labels and annotations only (`kubectl label|annotate pod`) never gets here either: it goes to
 * the original (streams/mirror-pod-metadata.ts). A mirror pod's pods/ephemeralcontainers (`kubectl debug`) never gets here: every write of it, a syncer's included,
 * is sent to the original on the cluster (streams/mirror-ephemeral-containers.ts), whose containers the mirror records.
 *
 * Deleting stays a matter of RBAC: `kubectl delete pod <mirror>` is how a user restarts a pod (the syncer deletes the
 * original on its cluster, whose controller makes a new one).
 *
 * Syncer identities: `system:masters` (push-mode syncers run inside atrium with its controllers' credentials; none
 * mode is given an admin kubeconfig) and the ServiceAccount `kubectl atrium workload sync` makes for a pull-mode
 * syncer, `atrium-syncer-<synctarget>-<hash>`, writing mirrors of its own SyncTarget's cluster (MIRROR_CLUSTER_LABEL
 * naming that SyncTarget; ControllerRevision mirrors carry no cluster label). A workspace admin can make such a
 * ServiceAccount: the rule keeps mirrors true to their clusters against mistakes and ordinary users, it is not a
 * security boundary against the workspace's owner, who may register clusters anyway.
 */
import { errors } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { CLUSTER_NAME_EXTRA, SYSTEM_MASTERS, type UserInfo } from '../../apimachinery/user.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../apiserver/admission/admission.js';
import type { StoredObjectReader } from '../../apiserver/admission/system-set-annotations.js';
import { isMirror, MIRROR_CLUSTER_LABEL, MIRROR_LABEL, SYNCER_SERVICE_ACCOUNT_PREFIX } from './mirrors.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The resources syncers write mirrors of (syncer/workspace-mirrors.ts, syncer/revision-mirror.ts). */
const MIRRORED_RESOURCES = new Set(['/pods', '/events', 'events.k8s.io/events', 'batch/jobs', 'apps/controllerrevisions', 'apps/replicasets', '/persistentvolumeclaims']);

/**
 * Whether `user` may write `obj` (a mirror) in logical cluster `workspace`: system:masters, or the pull-mode syncer
 * ServiceAccount of its cluster — one of this workspace (a ServiceAccount token authenticates in every workspace: one
 * of the same name made in another proves nothing here).
 */
export function maySyncMirror(user: UserInfo, obj: KubeObject | undefined, workspace: string): boolean {
  if (user.groups.includes(SYSTEM_MASTERS)) return true;
  if (!user.username.startsWith(SERVICE_ACCOUNT_PREFIX) || !(user.extra?.[CLUSTER_NAME_EXTRA] ?? []).includes(workspace)) return false;
  const saName = user.username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':')[1] ?? '';
  if (!saName.startsWith(SYNCER_SERVICE_ACCOUNT_PREFIX)) return false;
  const cluster = obj?.metadata?.labels?.[MIRROR_CLUSTER_LABEL];
  return cluster === undefined || saName.startsWith(`${SYNCER_SERVICE_ACCOUNT_PREFIX}${cluster}-`);
}

export class ReadOnlyMirrors implements AdmissionPlugin {
  readonly name = 'ReadOnlyMirrors';

  constructor(private readonly stored: StoredObjectReader) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (attrs.ctx.user.groups.includes(SYSTEM_MASTERS)) return;
    const name = attrs.name || attrs.object?.metadata?.name || '';
    // A subresource create (pods/eviction, serviceaccounts/token, ...) writes no mirror.
    if (attrs.operation === 'CREATE' && attrs.subresource) return;
    // PUT brings no old object: the stored one is read, for the resources syncers mirror only (any other object can
    // carry the label only if a syncer or system:masters wrote it, and adding it is refused from the request alone),
    // so that ordinary updates cost no extra read.
    // A subresource of its own kind (a ReplicaSet's /scale: a Scale carries no labels) is judged by its parent.
    const given = attrs.oldObject && attrs.oldObject.kind !== undefined && attrs.oldObject.kind !== attrs.def.kind ? undefined : attrs.oldObject;
    const old = attrs.operation === 'UPDATE' ? (given ?? (MIRRORED_RESOURCES.has(`${attrs.def.group}/${attrs.def.resource}`) ? await this.readStored(attrs, name) : undefined)) : undefined;
    const incoming = attrs.subresource ? undefined : attrs.object;
    if (!isMirror(incoming) && !isMirror(old)) return;
    if (maySyncMirror(attrs.ctx.user, isMirror(old) ? old : incoming, attrs.ctx.cluster)) return;
    const what = attrs.operation === 'CREATE' ? 'created' : isMirror(old) && !isMirror(incoming) && !attrs.subresource ? 'unmarked' : 'changed';
    throw errors.forbidden(
      { group: attrs.def.group, resource: attrs.def.resource },
      name,
      `objects labelled ${MIRROR_LABEL} are read-only mirrors of objects on a physical cluster, written by its syncer only, and may not be ${what}; change the workload they come from (deleting a mirrored pod restarts it)`,
    );
  }

  private async readStored(attrs: AdmissionAttributes, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.stored.storeFor(attrs.def).get(attrs.ctx, attrs.namespace, name);
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }
}
