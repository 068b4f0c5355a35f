/**
 * Pure decisions of the garbage collector, table-tested: what to do with a dependent given the state of each of its
 * owners, and which finalizer-driven phase an object being deleted is in.
 */
import type { KubeObject } from '../../apimachinery/object.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export const foregroundDeletionFinalizer = 'foregroundDeletion';
export const orphanFinalizer = 'orphan';

/** The state of one owner as seen from a dependent. */
export type OwnerState =
  /** Exists with the referenced uid and is not waiting for its dependents. */
  | 'solid'
  /** Does not exist, or exists with another uid, or cannot be in the dependent's namespace. */
  | 'dangling'
  /** Exists, is being deleted in the foreground (waits for dependents). */
  | 'waiting'
  /** Its kind is not served, or a cluster-scoped dependent names a namespaced kind: never treated as gone. */
  | 'unresolvable';

export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  const refs = obj.metadata?.ownerReferences;
  return Array.isArray(refs) ? (refs as unknown as OwnerReference[]) : [];
}

export function hasFinalizer(obj: KubeObject, f: string): boolean {
  return (obj.metadata?.finalizers ?? []).includes(f);
}

export type DependentAction =
  | { action: 'none' }
  /** Drop references to dangling owners and unblock waiting ones; the dependent stays (it has a solid owner). */
  | { action: 'patch'; removeOwnerUids: string[]; unblockOwnerUids: string[] }
  | {
      action: 'delete';
      propagationPolicy: 'Foreground' | 'Background' | 'Orphan';
      /** Set blockOwnerDeletion=false on every owner reference first (a possible cycle of foreground deletions). */
      unblockOwnersFirst?: true;
    };

/**
 * What to do with a dependent (an object not being deleted, with owner references), given each owner's state
 * (garbagecollector.go attemptToDeleteItem):
 * - any unresolvable owner, or no owners at all → nothing;
 * - some solid owner → keep it, but drop dangling references and set blockOwnerDeletion=false on references to owners
 *   that wait for it (so they are not blocked by a dependent that stays);
 * - no solid owner → delete it: in the foreground when an owner waits on it and it has dependents itself (so the
 *   owner keeps waiting for the whole subtree), else honouring a GC finalizer it already has, else in the background.
 *   When one of those dependents is itself waiting for its dependents, the objects may own one another in a circle
 *   that would wait forever: its owner references stop blocking first, as upstream's cycle guard does (which
 *   accepts the same false positives).
 */
export function decideDependentAction(
  owners: { uid: string; state: OwnerState; blocks: boolean }[],
  dependent: { hasDependents: boolean; finalizers: string[]; aDependentWaits?: boolean },
): DependentAction {
  if (owners.length === 0) return { action: 'none' };
  if (owners.some((o) => o.state === 'unresolvable')) return { action: 'none' };
  const solid = owners.filter((o) => o.state === 'solid');
  const dangling = owners.filter((o) => o.state === 'dangling');
  const waiting = owners.filter((o) => o.state === 'waiting');
  if (solid.length > 0) {
    const unblock = waiting.filter((o) => o.blocks);
    if (dangling.length === 0 && unblock.length === 0) return { action: 'none' };
    return { action: 'patch', removeOwnerUids: dangling.map((o) => o.uid), unblockOwnerUids: unblock.map((o) => o.uid) };
  }
  if (waiting.length > 0 && dependent.hasDependents) {
    return dependent.aDependentWaits && owners.some((o) => o.blocks)
      ? { action: 'delete', propagationPolicy: 'Foreground', unblockOwnersFirst: true }
      : { action: 'delete', propagationPolicy: 'Foreground' };
  }
  if (dependent.finalizers.includes(orphanFinalizer)) return { action: 'delete', propagationPolicy: 'Orphan' };
  if (dependent.finalizers.includes(foregroundDeletionFinalizer)) return { action: 'delete', propagationPolicy: 'Foreground' };
  return { action: 'delete', propagationPolicy: 'Background' };
}

/**
 * The owner references left after a 'patch' decision: dangling ones removed, blockOwnerDeletion cleared on the
 * unblocked ones. Returns undefined when nothing changes.
 */
export function patchedOwnerReferences(refs: OwnerReference[], removeUids: string[], unblockUids: string[]): OwnerReference[] | undefined {
  let changed = false;
  const out: OwnerReference[] = [];
  for (const r of refs) {
    if (removeUids.includes(r.uid)) {
      changed = true;
      continue;
    }
    if (unblockUids.includes(r.uid) && r.blockOwnerDeletion) {
      out.push({ ...r, blockOwnerDeletion: false });
      changed = true;
      continue;
    }
    out.push(r);
  }
  return changed ? out : undefined;
}
