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
 * The replicas each old ReplicaSet keeps now (reconcileOldReplicaSets), `old` ordered oldest first: nothing while the
 * pods beyond the minimum available (desired − unavailable) are all taken by new pods not yet available; else first
 * the old pods that are not available anyway (cleanupUnhealthyReplicas: an old ReplicaSet whose new template cannot
 * start must not block the rollout), at most that many, then available ones while more than the minimum are available
 * (scaleDownOldReplicaSetsForRollingUpdate), each time from the oldest ReplicaSet on.
 */
export function oldReplicaSetTargets(
  old: readonly { spec: number; available: number }[],
  input: { desired: number; unavailable: number; newRSSpecReplicas: number; newRSAvailable: number },
): number[] {
  const target = old.map((rs) => rs.spec);
  const minAvailable = input.desired - input.unavailable;
  const totalSpec = target.reduce((n, r) => n + r, 0) + input.newRSSpecReplicas;
  const maxScaledDown = totalSpec - minAvailable - (input.newRSSpecReplicas - input.newRSAvailable);
  if (maxScaledDown <= 0) return target;
  let cleaned = 0;
  old.forEach((rs, i) => {
    const unhealthy = rs.spec - rs.available;
    if (cleaned >= maxScaledDown || rs.spec === 0 || unhealthy <= 0) return;
    const n = Math.min(maxScaledDown - cleaned, unhealthy);
    target[i] = rs.spec - n;
    cleaned += n;
  });
  let toScale = old.reduce((n, rs) => n + rs.available, 0) + input.newRSAvailable - minAvailable;
  target.forEach((replicas, i) => {
    if (toScale <= 0 || replicas === 0) return;
    const n = Math.min(replicas, toScale);
    target[i] = replicas - n;
    toScale -= n;
  });
  return target;
}
