/**
 * `kubectl atrium workload cordon|uncordon|drain <synctarget>`: cordon sets spec.unschedulable (no new work lands
 * there, work already there stays), uncordon clears it and spec.evictAfter, drain sets spec.unschedulable and
 * spec.evictAfter to now (the scheduler moves the target's work elsewhere).
 */
import { nowRFC3339 } from '../../apimachinery/object.js';
import type { RestClient } from '../../client/rest-client.js';
import { syncTargetsGVR } from '../api/types.js';

export type CordonAction = 'cordon' | 'uncordon' | 'drain';

/** The merge patch of a SyncTarget's spec for `action` at time `now` (RFC 3339). */
export function cordonPatch(action: CordonAction, now: string): { spec: { unschedulable: boolean | null; evictAfter: string | null } } {
  if (action === 'cordon') return { spec: { unschedulable: true, evictAfter: null } };
  if (action === 'uncordon') return { spec: { unschedulable: null, evictAfter: null } };
  return { spec: { unschedulable: true, evictAfter: now } };
}

/** Applies `action` to SyncTarget `name` in `cluster`; returns kubectl's style of message (`synctarget/x cordoned`). */
export async function cordonSyncTarget(client: RestClient, cluster: string, name: string, action: CordonAction): Promise<string> {
  await client.patch(syncTargetsGVR, name, 'merge', cordonPatch(action, nowRFC3339()), { cluster });
  return `synctarget.workload.kcp.io/${name} ${action === 'drain' ? 'drained' : action + 'ed'}`;
}
