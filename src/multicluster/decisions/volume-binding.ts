/**
 * A workspace's own PersistentVolumes (a user's statically provisioned volumes: a hostPath, an NFS share, a disk that
 * already exists) and the claims that bind them, decided in the workspace as kube-controller-manager's PV controller
 * decides them on one cluster (pkg/controller/volume/persistentvolume/pv_controller.go), so that `kubectl get pv|pvc`
 * show the binding before any cluster is involved; the syncer then sends the volume with its claim, pre-bound
 * (syncer/workspace-volumes.ts). Pure.
 *
 * Which volume a claim binds (volumeFor):
 * - a volume pre-bound to the claim (its claimRef names the claim) or the one the claim names (spec.volumeName), when
 *   it is not another claim's and satisfies the claim (capacity, class, volume mode), as syncUnboundClaim;
 * - otherwise the smallest Available volume of the claim's class with its access modes, capacity, volume mode and
 *   selector (FindMatchingVolume) — but only for a claim that names a class (`storageClassName`, "" included).
 *   Deliberate difference: a claim naming no class binds no workspace volume by matching. On a cluster the
 *   DefaultStorageClass admission would have given it the default class (and a provisioner a volume); a workspace has
 *   no default class, so such claims are left to the clusters' provisioners, as before workspaces had volumes.
 * - WaitForFirstConsumer is not waited for: a workspace has no nodes to wait for (the cluster's scheduler still places
 *   the pod by the volume's node affinity).
 *
 * What a volume's phase is (volumePhase): Available without a claim, Bound while its claim exists (same uid),
 * Released once the claim it was bound to is gone; reclaimOf says what then happens: Retain keeps it Released,
 * Delete deletes the object (the workspace's only: atrium never deletes the storage behind it), Recycle fails it
 * (nothing scrubs the storage). A claim bound to a volume that lost its claimRef is bound to it again
 * (syncBoundClaim); one whose volume is gone or another claim's is Lost.
 */
import { createHash } from 'node:crypto';
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { accessModesOf, betaStorageClassAnnotation, boundByControllerAnnotation, claimRequestBytes, findMatchingVolume, volumeBytes, volumeClassName } from '../../registry/builtin/workloads/volume-matching.js';

/** On a claim bound to a volume of its workspace: the volume's name (the binder writes it, the syncer reads it). */
export const WORKSPACE_VOLUME_ANNOTATION = 'scheduling.atrium.io/workspace-volume';
/** On a cluster's copy of a workspace's volume: `"true"` (never shown in the workspace's view of the clusters' volumes). */
export const VOLUME_COPY_LABEL = 'scheduling.atrium.io/workspace-volume-copy';
/** On a cluster's copy: the workspace (logical cluster) and the volume's name there. */
export const VOLUME_COPY_SOURCE_ANNOTATION = 'scheduling.atrium.io/workspace-volume-source';

/** On a cluster's volume as the workspace shows it (metrics/volume-views.ts): the SyncTarget it is on. */
export const CLUSTER_VOLUME_ANNOTATION = 'scheduling.atrium.io/cluster-volume';

export { bindCompletedAnnotation as BIND_COMPLETED_ANNOTATION, boundByControllerAnnotation as BOUND_BY_CONTROLLER_ANNOTATION } from '../../registry/builtin/workloads/volume-matching.js';

const specOf = (o: KubeObject | undefined): JsonObject => (o && isPlainObject(o.spec) ? o.spec : {});

/**
 * Whether the status of `obj` (of `resource`) is the workspace binder's rather than its clusters': a claim bound to a
 * volume of its workspace. The syncer and the placement controller carry no cluster status up for it.
 */
export function statusIsBinders(resource: string, obj: KubeObject): boolean {
  return resource === 'persistentvolumeclaims' && obj.metadata?.annotations?.[WORKSPACE_VOLUME_ANNOTATION] !== undefined;
}

export interface ClaimRef {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export function claimRefOf(pv: KubeObject): ClaimRef | undefined {
  const ref = specOf(pv).claimRef;
  return isPlainObject(ref) ? (ref as ClaimRef) : undefined;
}

/** Whether the volume's claimRef names this claim (by namespace and name, and by uid when it has one). */
export function refersTo(pv: KubeObject, claim: KubeObject): boolean {
  const ref = claimRefOf(pv);
  if (!ref || ref.namespace !== claim.metadata?.namespace || ref.name !== claim.metadata?.name) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

/** The class a claim asks for; undefined when it names none (neither spec.storageClassName nor the beta annotation). */
export function requestedClass(claim: KubeObject): string | undefined {
  const annotated = claim.metadata?.annotations?.[betaStorageClassAnnotation];
  if (annotated !== undefined) return annotated;
  const name = specOf(claim).storageClassName;
  return typeof name === 'string' ? name : undefined;
}

/** Why a volume cannot take a claim (checkVolumeSatisfyClaim), or undefined when it can. */
export function mismatch(claim: KubeObject, pv: KubeObject): string | undefined {
  if (volumeBytes(pv) < claimRequestBytes(claim)) return 'requested PV is too small';
  if ((requestedClass(claim) ?? '') !== volumeClassName(pv)) return 'storageClassName does not match';
  if ((specOf(pv).volumeMode ?? 'Filesystem') !== (specOf(claim).volumeMode ?? 'Filesystem')) return 'incompatible volumeMode';
  return undefined;
}

/** The workspace volume an unbound claim binds now, if any (see the file comment). */
export function volumeFor(claim: KubeObject, volumes: readonly KubeObject[]): KubeObject | undefined {
  if (claim.metadata?.deletionTimestamp) return undefined;
  const usable = (pv: KubeObject) => !pv.metadata?.deletionTimestamp && mismatch(claim, pv) === undefined;
  // A claim naming a volume takes that one or none (syncUnboundClaim), whatever else is pre-bound to it.
  const named = specOf(claim).volumeName;
  if (typeof named === 'string' && named !== '') {
    const pv = volumes.find((v) => v.metadata?.name === named);
    return pv && (!claimRefOf(pv) || refersTo(pv, claim)) && usable(pv) ? pv : undefined;
  }
  const preBound = volumes.find((pv) => refersTo(pv, claim) && usable(pv));
  if (preBound) return preBound;
  if (requestedClass(claim) === undefined) return undefined;
  // Available volumes only: a new one is Pending until the binder has looked at it (then its claims are looked at again).
  return findMatchingVolume(claim, volumes);
}

/**
 * The volume's phase given the claim its claimRef names, as found in the workspace (undefined: no such claim):
 * Available without a claimRef or when pre-bound to a claim that does not exist yet, Bound while the claim bound to it
 * exists, Released once a claim it was bound to (its uid recorded) is gone or replaced.
 */
export function volumePhase(pv: KubeObject, claim: KubeObject | undefined): 'Available' | 'Bound' | 'Released' {
  const ref = claimRefOf(pv);
  if (!ref) return 'Available';
  if (claim && refersTo(pv, claim)) return specOf(claim).volumeName === pv.metadata?.name ? 'Bound' : 'Available';
  return ref.uid ? 'Released' : 'Available';
}

/**
 * A volume whose claim exists but is bound to another volume (syncVolume's unbindVolume): the claimRef the binder set
 * goes (null), a user's pre-binding keeps the claim's name without the uid; undefined when nothing is to be undone.
 */
export function unbound(pv: KubeObject, claim: KubeObject | undefined): { claimRef: ClaimRef | null } | undefined {
  const ref = claimRefOf(pv);
  const other = specOf(claim).volumeName;
  if (!ref?.uid || !claim || !refersTo(pv, claim) || typeof other !== 'string' || other === '' || other === pv.metadata?.name) return undefined;
  if (pv.metadata?.annotations?.[boundByControllerAnnotation] === 'yes') return { claimRef: null };
  const { uid: _uid, resourceVersion: _rv, ...rest } = ref;
  return { claimRef: rest };
}

/**
 * What a Released volume's reclaim policy makes of it: Retain keeps it, Delete deletes the object. Recycle (deprecated
 * upstream) would scrub the storage first, which atrium cannot do for storage it does not run: the volume turns
 * Failed, as upstream's controller leaves a volume no recycler plugin can scrub, so no other claim sees its data.
 */
export function reclaimOf(pv: KubeObject): 'keep' | 'delete' | 'fail' {
  const policy = specOf(pv).persistentVolumeReclaimPolicy;
  return policy === 'Delete' ? 'delete' : policy === 'Recycle' ? 'fail' : 'keep';
}

/** The status of a Recycle volume once Released (reclaimOf: fail). */
export const RECYCLE_FAILED = { phase: 'Failed', reason: 'VolumeFailedRecycle', message: 'No recycler plugin found for the volume!' };

/** The claimRef a volume gets when bound to `claim` (GetReference of the claim). */
export function claimRefFor(claim: KubeObject): ClaimRef {
  return { kind: 'PersistentVolumeClaim', namespace: claim.metadata?.namespace, name: claim.metadata?.name, uid: claim.metadata?.uid, apiVersion: 'v1', resourceVersion: claim.metadata?.resourceVersion };
}

/** A bound claim's status: its volume's capacity and access modes (as the PV controller writes it). */
export function boundClaimStatus(claim: KubeObject, pv: KubeObject): JsonObject {
  const status = isPlainObject(claim.status) ? claim.status : {};
  const capacity = isPlainObject(specOf(pv).capacity) ? specOf(pv).capacity : undefined;
  return { ...status, phase: 'Bound', accessModes: accessModesOf(pv), ...(capacity ? { capacity } : {}) };
}

/**
 * The name of a workspace volume's copy on a cluster: cluster-scoped there, beside other workspaces' copies, so it is
 * the volume's name with a suffix from the uid of the claim it is bound to (one binding, one copy).
 */
export function volumeCopyName(volumeName: string, claimUid: string): string {
  const suffix = createHash('sha256').update(claimUid).digest('hex').slice(0, 10);
  return `${volumeName.slice(0, 253 - suffix.length - 1)}-${suffix}`;
}
