/**
 * The syncing state of an upstream object for one SyncTarget, visible on the object itself: an annotation
 * `synced.workload.kcp.io/<key>` holding a JSON condition `{type: "Synced", status, reason, message,
 * lastTransitionTime}` (an annotation rather than status.conditions because ConfigMaps and Secrets have no status,
 * and a workload's status is the downstream one, replaced wholesale). One annotation per SyncTarget, since an object
 * may be assigned to several. Written only when status, reason or message change, and removed together with the
 * syncer finalizer once the object left the cluster. Failures are also recorded as Events.
 */
import { setStatusCondition } from '../../apimachinery/conditions.js';
import { nowRFC3339, type KubeObject } from '../../apimachinery/object.js';

/** Prefix of the per-target annotation (`synced.workload.kcp.io/<SyncTarget key>`). */
export const SYNCED_ANNOTATION_PREFIX = 'synced.workload.kcp.io/';

export interface SyncCondition {
  type: 'Synced';
  status: 'True' | 'False';
  reason: string;
  message?: string;
  lastTransitionTime: string;
}

/** The annotation key for a SyncTarget key. */
export function syncedAnnotation(key: string): string {
  return SYNCED_ANNOTATION_PREFIX + key;
}

/** The condition recorded on `obj` for `key`; undefined when absent or malformed. */
export function syncConditionOf(obj: KubeObject | undefined, key: string): SyncCondition | undefined {
  const text = obj?.metadata?.annotations?.[syncedAnnotation(key)];
  if (!text) return undefined;
  try {
    const c = JSON.parse(text) as SyncCondition;
    return c && c.type === 'Synced' && (c.status === 'True' || c.status === 'False') ? c : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The annotation value to write for a new state, or undefined when the recorded condition already says the same
 * (status, reason and message equal), so steady state costs no writes. lastTransitionTime moves only when the status
 * flips, as for any Kubernetes condition (setStatusCondition).
 */
export function nextSyncCondition(obj: KubeObject, key: string, next: { status: 'True' | 'False'; reason: string; message?: string }, now = nowRFC3339()): string | undefined {
  const cur = syncConditionOf(obj, key);
  const conditions: SyncCondition[] = cur ? [{ ...cur }] : [];
  return setStatusCondition(conditions, { type: 'Synced', ...next }, now) ? JSON.stringify(conditions[0]) : undefined;
}

/**
 * `obj` without any target's Synced annotation (a shallow copy; the input is not mutated): these record upstream
 * bookkeeping and must not reach the downstream copy, or writing them would change its content hash.
 */
export function withoutSyncConditions(obj: KubeObject): KubeObject {
  const annotations = obj.metadata?.annotations;
  if (!annotations || !Object.keys(annotations).some((k) => k.startsWith(SYNCED_ANNOTATION_PREFIX))) return obj;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !k.startsWith(SYNCED_ANNOTATION_PREFIX)));
  return { ...obj, metadata: { ...obj.metadata, annotations: kept } };
}

/**
 * Whether an upstream update changed nothing but syncers' bookkeeping (the Synced annotations, which every syncer of
 * the object writes for its own cluster) and the fields any write changes (resourceVersion, managedFields). Such an
 * update needs no reconcile: a syncer that reacted to it would answer its own (or a sibling's) write, and a refusal
 * whose message differs on every attempt (it names a generated uid) would loop without backoff.
 */
export function onlySyncBookkeepingChanged(old: KubeObject, next: KubeObject): boolean {
  // The syncers of every cluster of a workspace share its informers: each gets the same (old, next) pair, and
  // stringifying both objects was done once per cluster.
  const seen = bookkeepingVerdicts.get(next);
  if (seen?.old === old) return seen.verdict;
  const verdict = compareWithoutBookkeeping(old, next);
  bookkeepingVerdicts.set(next, { old, verdict });
  return verdict;
}

const bookkeepingVerdicts = new WeakMap<KubeObject, { old: KubeObject; verdict: boolean }>();

function compareWithoutBookkeeping(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => {
    const s = withoutSyncConditions(o);
    const { resourceVersion: _rv, managedFields: _mf, ...meta } = s.metadata ?? {};
    return { ...s, metadata: meta };
  };
  return JSON.stringify(strip(old)) === JSON.stringify(strip(next));
}
