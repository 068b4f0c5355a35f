/**
 * The HorizontalPodAutoscaler's arithmetic (pkg/controller/podautoscaler: replica_calculator.go and horizontal.go),
 * as pure functions:
 *
 * - resourceReplicas / rawResourceReplicas: desired = ceil(ready pods × current/target) for a resource's utilization
 *   or average value, within a 10 % tolerance, with upstream's treatment of pods that are not ready (counted as 0 %
 *   on a scale-up) and pods without metrics (100 % of the target on a scale-down, 0 % on a scale-up), never
 *   reversing the direction.
 * - Without spec.behavior: stabilizeRecommendation (the highest recommendation within the downscale window) and
 *   convertDesiredReplicasWithRules (min/max, and at most max(2×current, 4) at once).
 * - With spec.behavior: stabilizeWithBehaviors (up and down windows) and limitByBehaviorRate (the scaling policies
 *   over their periods, Max/Min/Disabled).
 *
 * Simplification: a pod counts as unready for CPU when its Ready condition is not True (upstream also ignores samples
 * taken within a metrics window after a pod became ready during its first five minutes).
 */
import { type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { isPodReady } from '../pod-conditions.js';

export const defaultTolerance = 0.1;

export interface ReplicaResult {
  replicas: number;
  /** Average utilization in percent (resource utilization targets). */
  utilization?: number;
  /** Average usage per pod in milli-units. */
  rawUsage: number;
}

/** groupPods: pods without metrics or not ready, and how many are ready with metrics. */
export function groupPods(pods: KubeObject[], metrics: Map<string, number>, resource: string): { ready: number; unready: Set<string>; missing: Set<string>; ignored: Set<string> } {
  const out = { ready: 0, unready: new Set<string>(), missing: new Set<string>(), ignored: new Set<string>() };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const phase = (pod.status as JsonObject | undefined)?.phase;
    if (pod.metadata?.deletionTimestamp || phase === 'Failed') {
      out.ignored.add(name);
      continue;
    }
    if (phase === 'Pending') {
      out.unready.add(name);
      continue;
    }
    if (!metrics.has(name)) {
      out.missing.add(name);
      continue;
    }
    if (resource === 'cpu' && !isPodReady(pod)) {
      out.unready.add(name);
      continue;
    }
    out.ready++;
  }
  return out;
}

const within = (ratio: number, tolerance: number) => Math.abs(1 - ratio) <= tolerance;

/** GetResourceUtilizationRatio: (usage ratio, utilization %, raw average usage); undefined when no request matches. */
function utilizationRatio(metrics: Map<string, number>, requests: Map<string, number>, target: number): { ratio: number; utilization: number; raw: number } | undefined {
  let total = 0;
  let requested = 0;
  let n = 0;
  for (const [name, value] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    total += value;
    requested += r;
    n++;
  }
  if (requested === 0) return undefined;
  const utilization = Math.trunc((total * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(total / n) };
}

/**
 * GetResourceReplicas for a Utilization target. `metrics` and `requests` are per pod name in milli-units; throws
 * upstream's errors when nothing can be computed.
 */
export function resourceReplicas(input: {
  currentReplicas: number;
  targetUtilization: number;
  pods: KubeObject[];
  metrics: Map<string, number>;
  requests: Map<string, number>;
  resource: string;
  tolerance?: number;
}): ReplicaResult {
  const tolerance = input.tolerance ?? defaultTolerance;
  if (input.pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics = new Map(input.metrics);
  const g = groupPods(input.pods, metrics, input.resource);
  for (const n of [...g.ignored, ...g.unready]) metrics.delete(n);
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const first = utilizationRatio(metrics, input.requests, input.targetUtilization);
  if (!first) throw new Error('no metrics returned matched known pods');
  const { ratio, utilization, raw } = first;
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (within(ratio, tolerance)) return { replicas: input.currentReplicas, utilization, rawUsage: raw };
    return { replicas: Math.ceil(ratio * g.ready), utilization, rawUsage: raw };
  }
  if (g.missing.size > 0) {
    const fallback = Math.max(100, input.targetUtilization);
    for (const n of g.missing) metrics.set(n, ratio < 1 ? Math.trunc(((input.requests.get(n) ?? 0) * fallback) / 100) : 0);
  }
  if (scaleUpWithUnready) for (const n of g.unready) metrics.set(n, 0);
  const second = utilizationRatio(metrics, input.requests, input.targetUtilization)!;
  const newRatio = second.ratio;
  if (within(newRatio, tolerance) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return { replicas: input.currentReplicas, utilization, rawUsage: raw };
  const replicas = Math.ceil(newRatio * metrics.size);
  if ((newRatio < 1 && replicas > input.currentReplicas) || (newRatio > 1 && replicas < input.currentReplicas)) return { replicas: input.currentReplicas, utilization, rawUsage: raw };
  return { replicas, utilization, rawUsage: raw };
}

/** GetRawResourceReplicas / calcPlainMetricReplicas for an AverageValue target (milli-units). */
export function rawResourceReplicas(input: {
  currentReplicas: number;
  targetAverage: number;
  pods: KubeObject[];
  metrics: Map<string, number>;
  resource: string;
  tolerance?: number;
}): ReplicaResult {
  const tolerance = input.tolerance ?? defaultTolerance;
  if (input.pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics = new Map(input.metrics);
  const g = groupPods(input.pods, metrics, input.resource);
  for (const n of [...g.ignored, ...g.unready]) metrics.delete(n);
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
  const usageRatio = (m: Map<string, number>) => {
    const usage = Math.trunc([...m.values()].reduce((a, b) => a + b, 0) / m.size);
    return { ratio: usage / input.targetAverage, usage };
  };
  const { ratio, usage } = usageRatio(metrics);
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (within(ratio, tolerance)) return { replicas: input.currentReplicas, rawUsage: usage };
    return { replicas: Math.ceil(ratio * g.ready), rawUsage: usage };
  }
  for (const n of g.missing) metrics.set(n, ratio < 1 ? input.targetAverage : 0);
  if (scaleUpWithUnready) for (const n of g.unready) metrics.set(n, 0);
  const newRatio = usageRatio(metrics).ratio;
  if (within(newRatio, tolerance) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1)) return { replicas: input.currentReplicas, rawUsage: usage };
  const replicas = Math.ceil(newRatio * metrics.size);
  if ((newRatio < 1 && replicas > input.currentReplicas) || (newRatio > 1 && replicas < input.currentReplicas)) return { replicas: input.currentReplicas, rawUsage: usage };
  return { replicas, rawUsage: usage };
}

export interface Recommendation {
  replicas: number;
  at: number;
}

/** stabilizeRecommendation (no behavior): the highest recommendation within the window, this one included. */
export function stabilizeRecommendation(history: Recommendation[], desired: number, windowMs: number, now: number): { replicas: number; history: Recommendation[] } {
  const cutoff = now - windowMs;
  let max = desired;
  for (const r of history) if (r.at > cutoff && r.replicas > max) max = r.replicas;
  return { replicas: max, history: [...history.filter((r) => r.at > cutoff), { replicas: desired, at: now }] };
}

/** convertDesiredReplicasWithRules: min/max, and a scale-up limit of max(2×current, 4); with the limiting condition. */
export function limitWithRules(current: number, desired: number, min: number, max: number): { replicas: number; reason: string; message: string } {
  const scaleUpLimit = Math.max(2 * current, 4);
  let maximum: number;
  let reason: string;
  let message: string;
  if (max > scaleUpLimit) {
    maximum = scaleUpLimit;
    reason = 'ScaleUpLimit';
    message = 'the desired replica count is increasing faster than the maximum scale rate';
  } else {
    maximum = max;
    reason = 'TooManyReplicas';
    message = 'the desired replica count is more than the maximum replica count';
  }
  if (desired < min) return { replicas: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  if (desired > maximum) return { replicas: maximum, reason, message };
  return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}

export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: { type: string; value: number; periodSeconds: number }[];
}

export interface ScaleEvent {
  change: number;
  at: number;
}

/** stabilizeRecommendationWithBehaviors: clamp between the lowest recommendation of the up window and the highest of the down window. */
export function stabilizeWithBehaviors(
  history: Recommendation[],
  current: number,
  desired: number,
  up: ScalingRules,
  down: ScalingRules,
  now: number,
): { replicas: number; reason: string; message: string; history: Recommendation[] } {
  const upCutoff = now - (up.stabilizationWindowSeconds ?? 0) * 1000;
  const downCutoff = now - (down.stabilizationWindowSeconds ?? 300) * 1000;
  let upRec = desired;
  let downRec = desired;
  for (const r of history) {
    if (r.at > upCutoff) upRec = Math.min(upRec, r.replicas);
    if (r.at > downCutoff) downRec = Math.max(downRec, r.replicas);
  }
  let replicas = current;
  if (replicas < upRec) replicas = upRec;
  if (replicas > downRec) replicas = downRec;
  const keep = history.filter((r) => r.at > Math.min(upCutoff, downCutoff));
  const [reason, message] =
    desired >= current
      ? ['ScaleUpStabilized', 'recent recommendations were lower than current one, applying the lowest recent recommendation']
      : ['ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation'];
  return { replicas, reason, message, history: [...keep, { replicas: desired, at: now }] };
}

const changeInPeriod = (events: ScaleEvent[], periodSeconds: number, now: number) => events.filter((e) => e.at > now - periodSeconds * 1000).reduce((n, e) => n + e.change, 0);

/** calculateScaleUpLimitWithScalingRules. */
export function scaleUpLimit(current: number, upEvents: ScaleEvent[], downEvents: ScaleEvent[], rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const min = rules.selectPolicy === 'Min';
  let result = min ? Infinity : -Infinity;
  for (const p of rules.policies ?? []) {
    const periodStart = current - changeInPeriod(upEvents, p.periodSeconds, now) + changeInPeriod(downEvents, p.periodSeconds, now);
    const proposed = p.type === 'Pods' ? periodStart + p.value : Math.ceil(periodStart * (1 + p.value / 100));
    result = min ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors. */
export function scaleDownLimit(current: number, upEvents: ScaleEvent[], downEvents: ScaleEvent[], rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const min = rules.selectPolicy === 'Min';
  let result = min ? -Infinity : Infinity;
  for (const p of rules.policies ?? []) {
    const periodStart = current - changeInPeriod(upEvents, p.periodSeconds, now) + changeInPeriod(downEvents, p.periodSeconds, now);
    const proposed = p.type === 'Pods' ? periodStart - p.value : Math.trunc(periodStart * (1 - p.value / 100));
    result = min ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

/** convertDesiredReplicasWithBehaviorRate: the policies' limits, then min/max; with the limiting condition. */
export function limitByBehaviorRate(
  args: { current: number; desired: number; min: number; max: number; up: ScalingRules; down: ScalingRules },
  upEvents: ScaleEvent[],
  downEvents: ScaleEvent[],
  now: number,
): { replicas: number; reason: string; message: string } {
  if (args.desired > args.current) {
    const limit = Math.max(args.current, scaleUpLimit(args.current, upEvents, downEvents, args.up, now));
    const [maximum, reason, message] =
      args.max > limit
        ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
        : [args.max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
    if (args.desired > maximum) return { replicas: maximum, reason, message };
  } else if (args.desired < args.current) {
    const limit = Math.min(args.current, scaleDownLimit(args.current, upEvents, downEvents, args.down, now));
    const [minimum, reason, message] =
      args.min < limit
        ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate']
        : [args.min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
    if (args.desired < minimum) return { replicas: minimum, reason, message };
  }
  return { replicas: args.desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}
