/**
 * Unbinding compute cleanly. A workspace serves the Kubernetes workload types only while it has compute (a SyncTarget
 * or a Placement, serving/compute-index.ts). When its last Placement goes, what the Placement set in motion still
 * needs those types to finish: the splitter deletes the `<name>--<cluster>` children, and the syncers delete their
 * downstream copies and release their finalizers (`workload.kcp.io/syncer-<key>`) on the workspace's objects.
 *
 * So every Placement carries PLACEMENT_CLEANUP_FINALIZER (set on create; the scheduler adds it to older ones), and the
 * scheduler releases it once the Placement's namespaces are released and, when no other compute stays in the
 * workspace, no workload object there is a split child or still waits for a syncer that can release it (one whose
 * SyncTarget is Ready; an unreachable cluster's finalizers are dropped by the splitter, or left to its syncer, as
 * before). A cleanup that takes longer than the timeout (default 5 minutes) is given up: the Placement goes anyway.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { SYNCER_FINALIZER_PREFIX } from '../api/types.js';
import { PLACEMENT_ANNOTATION, PLACEMENT_CLEANUP_FINALIZER, SPLIT_FROM_LABEL } from './types.js';

export { PLACEMENT_CLEANUP_FINALIZER };

/** The metadata.finalizers of a Placement that lacks the cleanup finalizer (undefined when it has it or is deleting). */
export function finalizersWithCleanup(placement: KubeObject): string[] | undefined {
  const fins = placement.metadata?.finalizers ?? [];
  if (placement.metadata?.deletionTimestamp || fins.includes(PLACEMENT_CLEANUP_FINALIZER)) return undefined;
  return [...fins, PLACEMENT_CLEANUP_FINALIZER];
}

/** Whether a terminating Placement still holds the cleanup finalizer (the scheduler's to release). */
export function awaitsCleanup(placement: KubeObject): boolean {
  return !!placement.metadata?.deletionTimestamp && (placement.metadata.finalizers ?? []).includes(PLACEMENT_CLEANUP_FINALIZER);
}

export interface CleanupInputs {
  placement: KubeObject;
  /** The namespaces of the Placement's workspace, as last seen. */
  namespaces: readonly KubeObject[];
  /** Whether the workspace keeps compute once this Placement is gone (a SyncTarget, or a Placement not deleting). */
  computeStays: boolean;
  /** The workspace's objects of the workload types (only consulted when compute does not stay). */
  workloads?: readonly KubeObject[];
  /** Whether the syncer behind a syncer finalizer key can still release it (its SyncTarget exists and is Ready). */
  releasable(key: string): boolean;
  now: Date;
  timeoutSeconds: number;
}

/** What still holds the Placement (undefined: release its finalizer now). */
export function cleanupPending(i: CleanupInputs): string | undefined {
  const since = Date.parse(i.placement.metadata?.deletionTimestamp ?? '');
  if (Number.isFinite(since) && i.now.getTime() - since > i.timeoutSeconds * 1000) return undefined;
  const name = i.placement.metadata?.name;
  const placed = i.namespaces.filter((ns) => ns.metadata?.annotations?.[PLACEMENT_ANNOTATION] === name).map((ns) => ns.metadata!.name!);
  if (placed.length) return `namespaces still placed: ${placed.join(', ')}`;
  if (i.computeStays) return undefined;
  if (i.workloads === undefined) return 'workloads not read yet';
  for (const o of i.workloads) {
    const what = `${o.kind ?? 'object'} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`;
    if (o.metadata?.labels?.[SPLIT_FROM_LABEL] !== undefined) return `split child ${what} still exists`;
    const waiting = (o.metadata?.finalizers ?? []).filter((f) => f.startsWith(SYNCER_FINALIZER_PREFIX) && i.releasable(f.slice(SYNCER_FINALIZER_PREFIX.length)));
    if (waiting.length) return `${what} still synced (${waiting.join(', ')})`;
  }
  return undefined;
}
