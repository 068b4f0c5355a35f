/** The status kcp's location controller keeps on a Location: how many SyncTargets it groups and how many are usable. */
import { isReady, targetsOf } from './select-targets.js';
import type { LocationLike, SyncTargetLike } from './types.js';

export interface LocationStatus {
  instances: number;
  availableInstances: number;
}

/**
 * Counts the SyncTargets `location.spec.instanceSelector` picks (`instances`) and those among them that are Ready and
 * not cordoned (`availableInstances`). A missing or invalid selector picks none.
 */
export function locationStatus(location: LocationLike, syncTargets: readonly SyncTargetLike[]): LocationStatus {
  const members = targetsOf(location, syncTargets);
  return {
    instances: members.length,
    availableInstances: members.filter((t) => isReady(t) && !t.spec?.unschedulable).length,
  };
}
