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

/** What the proportional scaling of a Deployment's ReplicaSets reads of each. */
export interface ScalableReplicaSet {
  name: string;
  spec: number;
  available: number;
  /** Creation time in ms, for the tie-breaks. */
  created: number;
  /** The desired-replicas annotation (the Deployment's size when the set was last scaled), if any. */
  desired?: number;
  /** The max-replicas annotation (that size plus maxSurge), if any. */
  maxReplicas?: number;
}

/** isScalingEvent: an active ReplicaSet was last sized for another Deployment size than spec.replicas. */
export function isScalingEvent(sets: readonly ScalableReplicaSet[], desired: number): boolean {
  return sets.some((rs) => rs.spec > 0 && rs.desired !== undefined && rs.desired !== desired);
}

/** Go's math.Round (half away from zero), as integer.RoundToInt32 rounds. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/**
 * The Deployment controller's scale() for a scaling event (or a paused Deployment): the sizes the ReplicaSets get,
 * by name (those to write; the rest keep theirs). One active set (or, with none, the newest) takes spec.replicas; a
 * saturated new set leaves the old ones nothing; otherwise, for RollingUpdate, the difference to replicas + maxSurge
 * is shared out in proportion to each active set's size against the size it was scaled for (the max-replicas
 * annotation, else status.replicas), largest first (newer first when growing, older first when shrinking), leftovers
 * to the first.
 */
export function proportionalScale(
  d: { replicas: number; maxSurge: number; statusReplicas: number; rollingUpdate: boolean },
  newRS: ScalableReplicaSet | undefined,
  old: readonly ScalableReplicaSet[],
): Map<string, number> {
  const out = new Map<string, number>();
  const byCreation = (a: ScalableReplicaSet, b: ScalableReplicaSet) => a.created - b.created || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const oldNewestFirst = [...old].sort((a, b) => byCreation(b, a));
  const active = [...oldNewestFirst, ...(newRS ? [newRS] : [])].filter((rs) => rs.spec > 0);
  if (newRS || old.length) {
    const only = active.length === 0 ? (newRS ?? oldNewestFirst[0]) : active.length === 1 ? active[0] : undefined;
    if (only) {
      // Deliberately also written when only its annotations are stale (upstream leaves it): the scaling event would
      // otherwise never end and the rollout never resume.
      if (only.spec !== d.replicas || (only.spec > 0 && only.desired !== undefined && only.desired !== d.replicas)) out.set(only.name, d.replicas);
      return out;
    }
  }
  if (newRS && newRS.spec === d.replicas && newRS.desired === d.replicas && newRS.available === d.replicas) {
    for (const rs of old) if (rs.spec > 0) out.set(rs.name, 0);
    return out;
  }
  if (!d.rollingUpdate) return out;
  const allowed = d.replicas > 0 ? d.replicas + d.maxSurge : 0;
  const toAdd = allowed - active.reduce((n, rs) => n + rs.spec, 0);
  const sorted = [...active].sort((a, b) => (a.spec !== b.spec ? b.spec - a.spec : toAdd > 0 ? byCreation(b, a) : byCreation(a, b)));
  let added = 0;
  const sizes = sorted.map((rs) => {
    if (toAdd === 0 || toAdd === added) return rs.spec;
    let fraction: number;
    if (d.replicas === 0) fraction = -rs.spec;
    else {
      const before = rs.maxReplicas !== undefined && rs.maxReplicas !== 0 ? rs.maxReplicas : d.statusReplicas;
      fraction = before === 0 ? 0 : roundHalfAway((rs.spec * (d.replicas + d.maxSurge)) / before) - rs.spec;
    }
    const proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
    added += proportion;
    return rs.spec + proportion;
  });
  if (sorted.length && toAdd !== 0) sizes[0] = Math.max(0, sizes[0]! + toAdd - added);
  // Every active set is written: its annotations record the new Deployment size even where its own size stays.
  sorted.forEach((rs, i) => out.set(rs.name, sizes[i]!));
  return out;
}
