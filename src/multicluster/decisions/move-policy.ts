/**
 * Whether a workload that runs whole on one cluster (a One kind: StatefulSet, Job, bare Pod...) may move when its
 * cluster leaves the namespace (a drain, a Placement or label change, a lost or deleted SyncTarget), and what the
 * upstream object is told about it. Pure: place-namespace.ts asks it once the object's cluster is no longer one of
 * the namespace's, with the cluster a fresh choice would give it.
 *
 * - Data: a StatefulSet with volumeClaimTemplates, or any workload whose pod template mounts a PersistentVolumeClaim,
 *   keeps its data in claims on its cluster; a copy on another cluster starts with new, empty claims (nothing is
 *   copied). So by default it does not move: it stays on its cluster while that cluster is alive (also when drained
 *   or no longer in the namespace's placement), with `Moving=False, reason DataWouldBeLost`. When its cluster is not
 *   Ready (heartbeat lost) it is not failed over: it stays assigned there (its syncer resumes if the cluster comes
 *   back), `reason ClusterLost`; when the SyncTarget is deleted it runs nowhere, `reason ClusterLost`, saying the
 *   claims' data went with the cluster. `scheduling.atrium.io/move-policy: AllowDataLoss` lets it move (and fail
 *   over): `reason MovedWithoutData` states that its claims on the new cluster start empty.
 * - Jobs: a running Job (no Complete or Failed condition) is not moved by a placement change (it would start over)
 *   unless `move-policy` is `Recreate` (or AllowDataLoss): `reason JobRunning`; moved, `reason Recreated`. A Job whose
 *   cluster is lost is started again elsewhere (`reason FailedOver`), as kube replaces the pods of a lost node. A
 *   finished Job is never run again: it stays where it ran while that cluster exists (`reason JobFinished`).
 * - Everything else (CronJobs, StatefulSets without claims, bare Pods without claims, ReplicaSets) moves, as before.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { MOVING_ANNOTATION } from '../api/kind-placement.js';
import { podReferences, podTemplateOf } from './workload-references.js';

/** The annotation on a workload that allows a move that loses data (`AllowDataLoss`) or restarts a Job (`Recreate`). */
export const MOVE_POLICY_ANNOTATION = 'scheduling.atrium.io/move-policy';
export { MOVING_ANNOTATION };

export type MoveReason = 'DataWouldBeLost' | 'ClusterLost' | 'MovedWithoutData' | 'JobRunning' | 'Recreated' | 'FailedOver' | 'JobFinished' | 'NoDestination';

/** Reasons that describe a standing state (cleared once the object runs on a cluster of the namespace again). */
export const STANDING_REASONS: readonly MoveReason[] = ['DataWouldBeLost', 'ClusterLost', 'JobRunning', 'JobFinished', 'NoDestination'];
/** Reasons recorded as Warning Events (the others are Normal). */
export const WARNING_REASONS: readonly MoveReason[] = ['DataWouldBeLost', 'ClusterLost', 'MovedWithoutData', 'FailedOver', 'NoDestination'];

export interface MovingCondition {
  status: 'True' | 'False';
  reason: MoveReason;
  message: string;
}

export interface MoveInput {
  /** The object's kind (StatefulSet, Job, Pod...). */
  kind: string;
  obj: KubeObject;
  /** The cluster it runs on, which is no longer one of the namespace's: Alive (Ready), NotReady, or Deleted. */
  from: { name: string; state: 'Alive' | 'NotReady' | 'Deleted' };
  /** Where a fresh choice among the namespace's clusters would put it; undefined when none can take it. */
  to?: string;
}

/** `from`: stay on the old cluster; `to`: go to the chosen one; `none`: run nowhere. */
export interface MoveVerdict {
  place: 'from' | 'to' | 'none';
  condition?: MovingCondition;
}

/** The claims whose data a copy of `obj` would not have elsewhere: volumeClaimTemplates' per-replica claims, mounted claims. */
export function claimsOf(kind: string, obj: KubeObject): string[] {
  const out: string[] = [];
  const spec = (obj.spec ?? {}) as { replicas?: number; volumeClaimTemplates?: { metadata?: { name?: string } }[] };
  if (kind === 'StatefulSet') {
    const replicas = Math.max(1, spec.replicas ?? 1);
    for (const t of spec.volumeClaimTemplates ?? []) {
      const n = t.metadata?.name;
      if (!n) continue;
      for (let i = 0; i < replicas; i++) out.push(`${n}-${obj.metadata?.name ?? ''}-${i}`);
    }
  }
  out.push(...[...podReferences(podTemplateOf(kind, obj)?.spec).persistentVolumeClaims].sort());
  return out;
}

/** Whether a Job has finished: a Complete or Failed condition that is True. */
export function jobFinished(obj: KubeObject): boolean {
  const conditions = ((obj.status ?? {}) as { conditions?: { type?: string; status?: string }[] }).conditions ?? [];
  return conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

function policyOf(obj: KubeObject): string | undefined {
  return obj.metadata?.annotations?.[MOVE_POLICY_ANNOTATION]?.trim();
}

function list(names: readonly string[], max = 4): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

/** Decides (see the file comment). */
export function decideMove(input: MoveInput): MoveVerdict {
  const { kind, obj, from, to } = input;
  const policy = policyOf(obj);
  const fromText = from.state === 'Deleted' ? `"${from.name}" (its SyncTarget is deleted)` : from.state === 'NotReady' ? `"${from.name}" (not Ready: its heartbeat is lost)` : `"${from.name}"`;
  const lostOrLeft = from.state === 'Alive' ? 'left the namespace\'s placement (or was drained)' : from.state === 'NotReady' ? 'is lost (not Ready)' : 'was deleted';
  const claims = claimsOf(kind, obj);
  // Nowhere to go: stay while the cluster exists (a move never breaks before it makes).
  const noDestination = (why: string): MoveVerdict =>
    from.state === 'Deleted'
      ? { place: 'none', condition: { status: 'False', reason: 'ClusterLost', message: `its cluster ${fromText} is gone and ${why}` } }
      : { place: 'from', condition: { status: 'False', reason: 'NoDestination', message: `it may move off ${fromText}, which ${lostOrLeft}, but ${why}: it stays on "${from.name}"` } };

  if (kind === 'Job' && jobFinished(obj)) {
    if (from.state === 'Deleted') return { place: 'none', condition: { status: 'False', reason: 'JobFinished', message: `the Job finished on ${fromText}; a finished Job is never run again` } };
    return { place: 'from', condition: { status: 'False', reason: 'JobFinished', message: `the Job finished on ${fromText}, which ${lostOrLeft}; a finished Job is never run again, so it is not moved` } };
  }

  if (claims.length > 0) {
    const what = `its claims (${list(claims)})`;
    if (policy !== 'AllowDataLoss') {
      const allow = `annotate ${MOVE_POLICY_ANNOTATION}=AllowDataLoss to move it anyway (its claims on the new cluster would start empty)`;
      if (from.state === 'Alive') {
        return { place: 'from', condition: { status: 'False', reason: 'DataWouldBeLost', message: `not moved off "${from.name}", which ${lostOrLeft}${to ? `, to "${to}"` : ''}: ${what} hold its data on "${from.name}" and a copy elsewhere would start with new, empty claims (data is never copied); it keeps running on "${from.name}"; ${allow}` } };
      }
      if (from.state === 'NotReady') {
        return { place: 'from', condition: { status: 'False', reason: 'ClusterLost', message: `not failed over: its cluster ${fromText} holds the data of ${what}, unreachable while the cluster is lost; a copy elsewhere would start with new, empty claims; it stays assigned to "${from.name}" and resumes if that cluster comes back; ${allow}` } };
      }
      return { place: 'none', condition: { status: 'False', reason: 'ClusterLost', message: `its cluster ${fromText} is gone, and with it the data of ${what}; it runs nowhere; ${allow}` } };
    }
    if (to === undefined) return noDestination('no cluster of the namespace can take it');
    const left =
      from.state === 'Alive'
        ? `the claims on "${from.name}" and their data are not copied: ${kind === 'StatefulSet' ? 'the old claims of its volumeClaimTemplates stay on that cluster unless its persistentVolumeClaimRetentionPolicy deletes them' : 'the claims it mounted are removed from that cluster (their volumes follow their reclaimPolicy)'}`
        : `the data of the claims on ${fromText} is lost to it`;
    return { place: 'to', condition: { status: 'False', reason: 'MovedWithoutData', message: `moved off ${fromText} to "${to}" as ${MOVE_POLICY_ANNOTATION}=AllowDataLoss allows: ${what} on "${to}" start new and empty; ${left}` } };
  }

  if (kind === 'Job') {
    if (from.state !== 'Alive') {
      if (to === undefined) return noDestination('no cluster of the namespace can take it');
      return { place: 'to', condition: { status: 'False', reason: 'FailedOver', message: `its cluster ${fromText} is lost: the Job was started again on "${to}" from the beginning (what its pods did on "${from.name}" is not carried over)` } };
    }
    if (policy !== 'Recreate' && policy !== 'AllowDataLoss') {
      return { place: 'from', condition: { status: 'False', reason: 'JobRunning', message: `the Job is running on "${from.name}", which ${lostOrLeft}: not moved, since it would start over; it finishes there; annotate ${MOVE_POLICY_ANNOTATION}=Recreate to run it again from the beginning on the namespace's clusters` } };
    }
    if (to === undefined) return noDestination('no cluster of the namespace can take it');
    return { place: 'to', condition: { status: 'False', reason: 'Recreated', message: `moved off "${from.name}" to "${to}" as ${MOVE_POLICY_ANNOTATION}=${policy} asks: the Job starts again there from the beginning; its run on "${from.name}" is deleted` } };
  }
  return { place: 'to' };
}
