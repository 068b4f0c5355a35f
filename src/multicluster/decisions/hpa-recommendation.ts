/**
 * The replicas an upstream HorizontalPodAutoscaler asks of a Deployment split over clusters, from the metrics the
 * clusters measure. Each cluster runs an observe-only copy of the HPA on its share (scaling disabled both ways), whose
 * status.currentMetrics and currentReplicas the syncer reports; this folds them as one HPA over all the pods would
 * see them and applies the autoscaling/v2 algorithm:
 *
 * - per metric, the clusters' current values are combined: averages (Utilization, AverageValue) weighted by each
 *   cluster's currentReplicas; a Value metric (Object, External) is the largest cluster value (each cluster measures
 *   the same shared thing);
 * - per metric, desired = ceil(ratio × pods) with ratio = current / target and pods the summed currentReplicas, or
 *   the current replicas while the ratio is within the tolerance (0.1, kube's default);
 * - the largest desired over the metrics, clamped to [minReplicas (default 1), maxReplicas];
 * - then stabilized as kube does: a scale-up takes the lowest recommendation of its window (default 0 s), a
 *   scale-down the highest of its window (default 300 s), windows from spec.behavior.
 * Pure: the caller keeps the recommendation history and passes `now`.
 */
import { milliValue } from '../../apimachinery/quantity.js';

type Json = Record<string, unknown>;

export interface ClusterHpaStatus {
  cluster: string;
  currentReplicas?: number;
  currentMetrics?: Json[];
}

export interface HpaSpecLike {
  minReplicas?: number;
  maxReplicas: number;
  metrics?: Json[];
  behavior?: { scaleUp?: { stabilizationWindowSeconds?: number; selectPolicy?: string }; scaleDown?: { stabilizationWindowSeconds?: number; selectPolicy?: string } };
}

export interface Recommendation {
  /** Undefined when no metric could be computed (nothing reported yet): the target is left alone. */
  desired?: number;
  /** The combined currentMetrics, in spec order, for the HPA's status. */
  currentMetrics: Json[];
  /** Pods the clusters measured (summed currentReplicas). */
  pods: number;
  /** Why there is no recommendation. */
  message?: string;
  /** True when the result was clamped to minReplicas or maxReplicas. */
  limited?: 'TooFewReplicas' | 'TooManyReplicas';
}

const TOLERANCE = 0.1;

const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/** The source block of a metric spec or status (`resource`, `pods`, `object`, ...) by its type. */
function sourceKey(type: unknown): string | undefined {
  switch (type) {
    case 'Resource':
      return 'resource';
    case 'ContainerResource':
      return 'containerResource';
    case 'Pods':
      return 'pods';
    case 'Object':
      return 'object';
    case 'External':
      return 'external';
    default:
      return undefined;
  }
}

/** What identifies a metric across spec and status: its type and name (and container, described object). */
function identity(m: Json): string {
  const key = sourceKey(m.type);
  const src = key ? obj(m[key]) : {};
  const name = (src.name as string | undefined) ?? (obj(src.metric).name as string | undefined) ?? '';
  return JSON.stringify([m.type, name, src.container ?? '', obj(src.describedObject).name ?? '']);
}

function quantity(v: unknown): number | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try {
    return milliValue(v);
  } catch {
    return undefined;
  }
}

/** A milli-value as a Kubernetes quantity (`2`, `250m`). */
export function formatMilli(m: number): string {
  const r = Math.round(m);
  return r % 1000 === 0 ? String(r / 1000) : `${r}m`;
}

/** Combines the clusters' currentMetrics and recommends replicas (see the file comment). */
export function recommendReplicas(spec: HpaSpecLike, currentReplicas: number, clusters: readonly ClusterHpaStatus[]): Recommendation {
  const metrics = spec.metrics && spec.metrics.length > 0 ? spec.metrics : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  const pods = clusters.reduce((s, c) => s + Math.max(0, c.currentReplicas ?? 0), 0);
  const combined: Json[] = [];
  const desires: number[] = [];
  const missing: string[] = [];
  for (const m of metrics) {
    const key = sourceKey(m.type);
    if (!key) continue;
    const target = obj(obj(m[key]).target);
    const reports = clusters
      .map((c) => ({ c, status: (c.currentMetrics ?? []).find((s) => identity(s) === identity(m)) }))
      .filter((r) => r.status !== undefined);
    if (reports.length === 0) {
      missing.push(identity(m));
      continue;
    }
    const weight = (r: { c: ClusterHpaStatus }) => Math.max(0, r.c.currentReplicas ?? 0);
    const totalWeight = reports.reduce((s, r) => s + weight(r), 0);
    const mean = (pick: (cur: Json) => number | undefined): number | undefined => {
      let sum = 0;
      let w = 0;
      for (const r of reports) {
        const v = pick(obj(obj(r.status![key]).current));
        if (v === undefined) continue;
        const rw = totalWeight > 0 ? weight(r) : 1;
        sum += v * rw;
        w += rw;
      }
      return w > 0 ? sum / w : undefined;
    };
    const current: Json = {};
    let ratio: number | undefined;
    let base = pods;
    if (target.type === 'Utilization') {
      const util = mean((cur) => (typeof cur.averageUtilization === 'number' ? cur.averageUtilization : undefined));
      const avg = mean((cur) => quantity(cur.averageValue));
      if (util !== undefined) current.averageUtilization = Math.round(util);
      if (avg !== undefined) current.averageValue = formatMilli(avg);
      if (util !== undefined && typeof target.averageUtilization === 'number' && target.averageUtilization > 0) ratio = util / target.averageUtilization;
    } else if (target.type === 'AverageValue') {
      const avg = mean((cur) => quantity(cur.averageValue));
      const want = quantity(target.averageValue);
      if (avg !== undefined) current.averageValue = formatMilli(avg);
      if (avg !== undefined && want) ratio = avg / want;
    } else if (target.type === 'Value') {
      const values = reports.map((r) => quantity(obj(obj(r.status![key]).current).value)).filter((v): v is number => v !== undefined);
      const want = quantity(target.value);
      if (values.length) {
        const v = Math.max(...values);
        current.value = formatMilli(v);
        if (want) ratio = v / want;
      }
      base = currentReplicas;
    }
    const { target: _t, ...source } = obj(m[key]);
    void _t;
    combined.push({ type: m.type, [key]: { ...source, current } });
    if (ratio === undefined) {
      missing.push(identity(m));
      continue;
    }
    desires.push(Math.abs(ratio - 1) <= TOLERANCE || base === 0 ? currentReplicas : Math.ceil(ratio * base));
  }
  if (desires.length === 0) return { currentMetrics: combined, pods, message: 'the clusters have not reported the metrics yet' };
  const min = spec.minReplicas ?? 1;
  const raw = Math.max(...desires);
  if (raw > spec.maxReplicas) return { desired: spec.maxReplicas, currentMetrics: combined, pods, limited: 'TooManyReplicas' };
  if (raw < min) return { desired: min, currentMetrics: combined, pods, limited: 'TooFewReplicas' };
  return { desired: raw, currentMetrics: combined, pods };
}

/** One recommendation made at `atMs`. */
export interface PastRecommendation {
  atMs: number;
  replicas: number;
}

/**
 * The stabilized replicas: scaling up to at most the lowest recommendation within the scale-up window, down to at
 * least the highest within the scale-down window (both windows include `desired` made now). A direction whose
 * selectPolicy is Disabled keeps the current replicas.
 */
export function stabilize(spec: HpaSpecLike, current: number, desired: number, history: readonly PastRecommendation[], nowMs: number): number {
  const upWindow = (spec.behavior?.scaleUp?.stabilizationWindowSeconds ?? 0) * 1000;
  const downWindow = (spec.behavior?.scaleDown?.stabilizationWindowSeconds ?? 300) * 1000;
  const within = (w: number) => [...history.filter((h) => nowMs - h.atMs <= w).map((h) => h.replicas), desired];
  if (desired > current) {
    if (spec.behavior?.scaleUp?.selectPolicy === 'Disabled') return current;
    return Math.max(current, Math.min(...within(upWindow)));
  }
  if (desired < current) {
    if (spec.behavior?.scaleDown?.selectPolicy === 'Disabled') return current;
    return Math.min(current, Math.max(...within(downWindow)));
  }
  return current;
}
