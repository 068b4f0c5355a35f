/**
 * The arithmetic of a rolling update (pkg/controller/deployment/util): resolving maxSurge/maxUnavailable against the
 * desired replicas, how far the new ReplicaSet may grow, and how many old pods may go.
 */

/** An int-or-percent scaled against `total`: percentages round up (surge) or down (unavailable). */
export function resolveIntOrPercent(value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.endsWith('%')) {
    const pct = Number(value.slice(0, -1));
    const raw = (pct * total) / 100;
    return roundUp ? Math.ceil(raw) : Math.floor(raw);
  }
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return 0;
}

/**
 * maxSurge and maxUnavailable as pod counts (ResolveFenceposts): both zero would stall the rollout, so
 * maxUnavailable becomes 1 then.
 */
export function resolveFenceposts(maxSurge: unknown, maxUnavailable: unknown, desired: number): { surge: number; unavailable: number } {
  const surge = resolveIntOrPercent(maxSurge ?? '25%', desired, true);
  let unavailable = resolveIntOrPercent(maxUnavailable ?? '25%', desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/**
 * The replicas the new ReplicaSet may have now (NewRSNewReplicas for RollingUpdate): grow towards `desired` without
 * the total of all ReplicaSets' spec.replicas exceeding desired + surge.
 */
export function newReplicaSetReplicas(desired: number, surge: number, totalSpecReplicas: number, newRSReplicas: number): number {
  const maxTotal = desired + surge;
  if (totalSpecReplicas >= maxTotal) return newRSReplicas;
  const scaleUp = Math.min(maxTotal - totalSpecReplicas, desired - newRSReplicas);
  return newRSReplicas + Math.max(0, scaleUp);
}

/**
 * How many old pods may be removed now (reconcileOldReplicaSets): first old pods that are not available anyway
 * (cleanupUnhealthyReplicas), then available ones as long as desired - unavailable pods stay available; pods the
 * new ReplicaSet still has to bring up count as unavailable.
 */
export function oldPodsToScaleDown(input: {
  desired: number;
  unavailable: number;
  totalSpecReplicas: number;
  newRSSpecReplicas: number;
  newRSAvailable: number;
  totalAvailable: number;
  oldUnhealthy: number;
}): number {
  const minAvailable = input.desired - input.unavailable;
  const newRSUnavailable = input.newRSSpecReplicas - input.newRSAvailable;
  const maxScaledDown = input.totalSpecReplicas - minAvailable - newRSUnavailable;
  if (maxScaledDown <= 0) return 0;
  const unhealthy = Math.min(maxScaledDown, Math.max(0, input.oldUnhealthy));
  const byAvailability = Math.max(0, Math.min(maxScaledDown - unhealthy, input.totalAvailable - minAvailable));
  return unhealthy + byAvailability;
}
