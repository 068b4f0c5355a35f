/**
 * HorizontalPodAutoscalers are stored once, as autoscaling/v2, and served as v2 and v1, as kube-apiserver does. v1
 * knows only a CPU utilization target; pkg/apis/autoscaling/v1/conversion.go keeps everything else in annotations
 * of the v1 object, so a v1 client that writes back what it read loses nothing:
 *
 *   - spec.targetCPUUtilizationPercentage ↔ a Resource metric on cpu with a Utilization target;
 *   - `autoscaling.alpha.kubernetes.io/metrics`: the other metrics, as v1 MetricSpecs (JSON);
 *   - `autoscaling.alpha.kubernetes.io/behavior`: spec.behavior, as Go marshals the internal type (Go field names);
 *   - status.currentCPUUtilizationPercentage ↔ the cpu Resource metric status;
 *   - `autoscaling.alpha.kubernetes.io/current-metrics`: every current metric, as v1 MetricStatuses;
 *   - `autoscaling.alpha.kubernetes.io/conditions`: status.conditions.
 *
 * The v2 defaults (SetDefaults_HorizontalPodAutoscaler) are here too: upstream applies them whenever it decodes the
 * stored v2 object, so a v1 write reads back through v2 defaulted.
 */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isSet, objectAt } from './kinds-common.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [METRIC_SPECS_ANNOTATION, BEHAVIOR_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION];

/** autoscaling.DefaultCPUUtilization. */
const DEFAULT_CPU_UTILIZATION = 80;

const o = (v: unknown): JsonObject => (isPlainObject(v) ? v : {});
const arr = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** Copies the keys of `from` that are set, in order, into a new object. */
function pick(from: JsonObject, keys: string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

function cpuUtilizationMetric(utilization: unknown): JsonObject {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } };
}

/** A Quantity field Go always marshals (no omitempty): "0" when unset. */
const quantityOrZero = (v: unknown): unknown => (isSet(v) ? v : '0');

// ---- v2 → v1 metric shapes (Convert_autoscaling_*_To_v1_*)

function crossVersionRef(ref: unknown): JsonObject {
  const r = o(ref);
  return { kind: r.kind ?? '', name: r.name ?? '', ...(r.apiVersion ? { apiVersion: r.apiVersion } : {}) };
}

function metricSpecToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isPlainObject(m.object)) {
    const s = m.object;
    const target = o(s.target);
    const metric = o(s.metric);
    out.object = {
      target: crossVersionRef(s.describedObject),
      metricName: metric.name ?? '',
      targetValue: quantityOrZero(target.value),
      ...(isSet(metric.selector) ? { selector: metric.selector } : {}),
      ...(isSet(target.averageValue) ? { averageValue: target.averageValue } : {}),
    };
  }
  if (isPlainObject(m.pods)) {
    const s = m.pods;
    const metric = o(s.metric);
    out.pods = { metricName: metric.name ?? '', targetAverageValue: quantityOrZero(o(s.target).averageValue), ...(isSet(metric.selector) ? { selector: metric.selector } : {}) };
  }
  if (isPlainObject(m.resource)) {
    const s = m.resource;
    const target = o(s.target);
    out.resource = { name: s.name ?? '', ...pick({ targetAverageUtilization: target.averageUtilization, targetAverageValue: target.averageValue }, ['targetAverageUtilization', 'targetAverageValue']) };
  }
  if (isPlainObject(m.containerResource)) {
    const s = m.containerResource;
    const target = o(s.target);
    out.containerResource = {
      name: s.name ?? '',
      ...pick({ targetAverageUtilization: target.averageUtilization, targetAverageValue: target.averageValue }, ['targetAverageUtilization', 'targetAverageValue']),
      container: s.container ?? '',
    };
  }
  if (isPlainObject(m.external)) {
    const s = m.external;
    const target = o(s.target);
    const metric = o(s.metric);
    out.external = {
      metricName: metric.name ?? '',
      ...pick({ metricSelector: metric.selector, targetValue: target.value, targetAverageValue: target.averageValue }, ['metricSelector', 'targetValue', 'targetAverageValue']),
    };
  }
  return out;
}

function metricStatusToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isPlainObject(m.object)) {
    const s = m.object;
    const current = o(s.current);
    const metric = o(s.metric);
    out.object = {
      target: crossVersionRef(s.describedObject),
      metricName: metric.name ?? '',
      currentValue: quantityOrZero(current.value),
      ...(isSet(metric.selector) ? { selector: metric.selector } : {}),
      ...(isSet(current.averageValue) ? { averageValue: current.averageValue } : {}),
    };
  }
  if (isPlainObject(m.pods)) {
    const s = m.pods;
    const metric = o(s.metric);
    out.pods = { metricName: metric.name ?? '', currentAverageValue: quantityOrZero(o(s.current).averageValue), ...(isSet(metric.selector) ? { selector: metric.selector } : {}) };
  }
  if (isPlainObject(m.resource)) {
    const s = m.resource;
    const current = o(s.current);
    out.resource = { name: s.name ?? '', ...(isSet(current.averageUtilization) ? { currentAverageUtilization: current.averageUtilization } : {}), currentAverageValue: quantityOrZero(current.averageValue) };
  }
  if (isPlainObject(m.containerResource)) {
    const s = m.containerResource;
    const current = o(s.current);
    out.containerResource = {
      name: s.name ?? '',
      ...(isSet(current.averageUtilization) ? { currentAverageUtilization: current.averageUtilization } : {}),
      currentAverageValue: quantityOrZero(current.averageValue),
      container: s.container ?? '',
    };
  }
  if (isPlainObject(m.external)) {
    const s = m.external;
    const current = o(s.current);
    const metric = o(s.metric);
    out.external = {
      metricName: metric.name ?? '',
      ...(isSet(metric.selector) ? { metricSelector: metric.selector } : {}),
      currentValue: quantityOrZero(current.value),
      ...(isSet(current.averageValue) ? { currentAverageValue: current.averageValue } : {}),
    };
  }
  return out;
}

// ---- v1 → v2 metric shapes (Convert_v1_*_To_autoscaling_*)

function identifier(name: unknown, selector: unknown): JsonObject {
  return { name: name ?? '', ...(isSet(selector) ? { selector } : {}) };
}

function metricSpecFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isPlainObject(m.object)) {
    const s = m.object;
    out.object = {
      describedObject: crossVersionRef(s.target),
      target: { type: isSet(s.averageValue) ? 'AverageValue' : 'Value', value: quantityOrZero(s.targetValue), ...(isSet(s.averageValue) ? { averageValue: s.averageValue } : {}) },
      metric: identifier(s.metricName, s.selector),
    };
  }
  if (isPlainObject(m.pods)) {
    const s = m.pods;
    out.pods = { metric: identifier(s.metricName, s.selector), target: { type: 'AverageValue', averageValue: quantityOrZero(s.targetAverageValue) } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isPlainObject(m[key])) continue;
    const s = m[key] as JsonObject;
    out[key] = {
      name: s.name ?? '',
      target: {
        type: isSet(s.targetAverageUtilization) ? 'Utilization' : 'AverageValue',
        ...pick({ averageValue: s.targetAverageValue, averageUtilization: s.targetAverageUtilization }, ['averageValue', 'averageUtilization']),
      },
      ...(key === 'containerResource' ? { container: s.container ?? '' } : {}),
    };
  }
  if (isPlainObject(m.external)) {
    const s = m.external;
    out.external = {
      metric: identifier(s.metricName, s.metricSelector),
      target: { type: isSet(s.targetValue) ? 'Value' : 'AverageValue', ...pick({ value: s.targetValue, averageValue: s.targetAverageValue }, ['value', 'averageValue']) },
    };
  }
  return out;
}

function metricStatusFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: m.type ?? '' };
  if (isPlainObject(m.object)) {
    const s = m.object;
    out.object = {
      metric: identifier(s.metricName, s.selector),
      current: { value: quantityOrZero(s.currentValue), ...(isSet(s.averageValue) ? { averageValue: s.averageValue } : {}) },
      describedObject: crossVersionRef(s.target),
    };
  }
  if (isPlainObject(m.pods)) {
    const s = m.pods;
    out.pods = { metric: identifier(s.metricName, s.selector), current: { averageValue: quantityOrZero(s.currentAverageValue) } };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isPlainObject(m[key])) continue;
    const s = m[key] as JsonObject;
    out[key] = {
      name: s.name ?? '',
      current: { averageValue: quantityOrZero(s.currentAverageValue), ...(isSet(s.currentAverageUtilization) ? { averageUtilization: s.currentAverageUtilization } : {}) },
      ...(key === 'containerResource' ? { container: s.container ?? '' } : {}),
    };
  }
  if (isPlainObject(m.external)) {
    const s = m.external;
    out.external = {
      metric: identifier(s.metricName, s.metricSelector),
      current: { value: quantityOrZero(s.currentValue), ...(isSet(s.currentAverageValue) ? { averageValue: s.currentAverageValue } : {}) },
    };
  }
  return out;
}

// ---- behavior, as encoding/json writes and reads the internal (tag-less) Go type

function behaviorRulesToGo(rules: unknown): unknown {
  if (!isPlainObject(rules)) return null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? null,
    SelectPolicy: rules.selectPolicy ?? null,
    Policies: Array.isArray(rules.policies) ? rules.policies.map((p) => ({ Type: o(p).type ?? '', Value: o(p).value ?? 0, PeriodSeconds: o(p).periodSeconds ?? 0 })) : null,
  };
}

/** encoding/json matches object keys to Go field names case-insensitively. */
function field(from: JsonObject, goName: string): unknown {
  const want = goName.toLowerCase();
  for (const [k, v] of Object.entries(from)) if (k.toLowerCase() === want) return v;
  return undefined;
}

function behaviorRulesFromGo(rules: unknown): JsonObject | undefined {
  if (!isPlainObject(rules)) return undefined;
  const out: JsonObject = {};
  const window = field(rules, 'StabilizationWindowSeconds');
  const select = field(rules, 'SelectPolicy');
  const policies = field(rules, 'Policies');
  if (isSet(window)) out.stabilizationWindowSeconds = window;
  if (isSet(select)) out.selectPolicy = select;
  if (Array.isArray(policies)) {
    out.policies = policies.filter(isPlainObject).map((p) => ({ type: field(p, 'Type') ?? '', value: field(p, 'Value') ?? 0, periodSeconds: field(p, 'PeriodSeconds') ?? 0 }));
  }
  return out;
}

function parseJsonArray(text: unknown): JsonObject[] | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter(isPlainObject) : v === null ? [] : undefined;
  } catch {
    return undefined;
  }
}

function withoutRoundTripAnnotations(meta: JsonObject): JsonObject {
  if (!isPlainObject(meta.annotations)) return meta;
  const annotations = { ...meta.annotations };
  let dropped = false;
  for (const k of ROUND_TRIP_ANNOTATIONS) {
    if (k in annotations) {
      delete annotations[k];
      dropped = true;
    }
  }
  if (!dropped) return meta;
  const out: JsonObject = { ...meta, annotations };
  if (Object.keys(annotations).length === 0) delete out.annotations;
  return out;
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler, from the stored v2 object. */
export function hpaV2ToV1(v2: JsonObject): JsonObject {
  const spec = o(v2.spec);
  const status = o(v2.status);
  const meta = withoutRoundTripAnnotations(o(v2.metadata));
  const annotations: Record<string, string> = isPlainObject(meta.annotations) ? { ...(meta.annotations as Record<string, string>) } : {};
  const metrics = arr(spec.metrics);
  const isCpuUtilization = (m: JsonObject): boolean => m.type === 'Resource' && isPlainObject(m.resource) && m.resource.name === 'cpu' && isSet(o(m.resource.target).averageUtilization);
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  if (others.length > 0) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(others);
  const currentMetrics = arr(status.currentMetrics);
  if (currentMetrics.length > 0) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  if (isPlainObject(spec.behavior)) {
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({ ScaleUp: behaviorRulesToGo(spec.behavior.scaleUp), ScaleDown: behaviorRulesToGo(spec.behavior.scaleDown) });
  }
  const conditions = arr(status.conditions);
  if (conditions.length > 0) {
    annotations[CONDITIONS_ANNOTATION] = JSON.stringify(
      conditions.map((c) => ({ type: c.type ?? '', status: c.status ?? '', lastTransitionTime: c.lastTransitionTime ?? null, ...pick(c, ['reason', 'message']) })),
    );
  }
  const outMeta: JsonObject = { ...meta };
  if (Object.keys(annotations).length > 0) outMeta.annotations = annotations;
  else delete outMeta.annotations;

  const v1Spec: JsonObject = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  if (isSet(spec.minReplicas)) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas ?? 0;
  const cpu = metrics.find(isCpuUtilization);
  if (cpu) v1Spec.targetCPUUtilizationPercentage = o(o(cpu.resource).target).averageUtilization;

  const v1Status: JsonObject = {};
  if (isSet(status.observedGeneration)) v1Status.observedGeneration = status.observedGeneration;
  if (isSet(status.lastScaleTime)) v1Status.lastScaleTime = status.lastScaleTime;
  v1Status.currentReplicas = status.currentReplicas ?? 0;
  v1Status.desiredReplicas = status.desiredReplicas ?? 0;
  // The last cpu Resource status with a utilization wins, as the upstream loop does.
  for (const m of currentMetrics) {
    if (m.type === 'Resource' && isPlainObject(m.resource) && m.resource.name === 'cpu' && isSet(o(m.resource.current).averageUtilization)) {
      v1Status.currentCPUUtilizationPercentage = o(m.resource.current).averageUtilization;
    }
  }
  const out: JsonObject = { ...v2, apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: outMeta, spec: v1Spec, status: v1Status };
  return out;
}

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler, into the stored v2 shape. */
export function hpaV1ToV2(v1: JsonObject): JsonObject {
  const spec = o(v1.spec);
  const status = o(v1.status);
  const meta = o(v1.metadata);
  const annotations = o(meta.annotations);

  let metrics: JsonObject[] = isSet(spec.targetCPUUtilizationPercentage) ? [cpuUtilizationMetric(spec.targetCPUUtilizationPercentage)] : [];
  const others = parseJsonArray(annotations[METRIC_SPECS_ANNOTATION]);
  if (others !== undefined) metrics = [...others.map(metricSpecFromV1), ...metrics.slice(0, 1)];
  let behavior: JsonObject | undefined;
  if (typeof annotations[BEHAVIOR_ANNOTATION] === 'string') {
    try {
      const parsed = JSON.parse(annotations[BEHAVIOR_ANNOTATION] as string) as unknown;
      if (isPlainObject(parsed)) {
        const scaleUp = behaviorRulesFromGo(field(parsed, 'ScaleUp'));
        const scaleDown = behaviorRulesFromGo(field(parsed, 'ScaleDown'));
        if (scaleUp || scaleDown) behavior = { ...(scaleUp ? { scaleUp } : {}), ...(scaleDown ? { scaleDown } : {}) };
      }
    } catch {
      // Upstream ignores an annotation it cannot decode.
    }
  }
  let currentMetrics: JsonObject[] | undefined = isSet(status.currentCPUUtilizationPercentage)
    ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }]
    : undefined;
  const statuses = parseJsonArray(annotations[METRIC_STATUSES_ANNOTATION]);
  if (statuses !== undefined) currentMetrics = statuses.map(metricStatusFromV1);
  if (metrics.length === 0) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  let conditions: JsonObject[] | undefined;
  const parsedConditions = parseJsonArray(annotations[CONDITIONS_ANNOTATION]);
  if (parsedConditions !== undefined) {
    conditions = parsedConditions.map((c) => ({ type: c.type ?? '', status: c.status ?? '', ...pick(c, ['lastTransitionTime', 'reason', 'message']) }));
    for (const c of conditions) if (c.lastTransitionTime === null) delete c.lastTransitionTime;
  }

  const v2Spec: JsonObject = { scaleTargetRef: crossVersionRef(spec.scaleTargetRef) };
  if (isSet(spec.minReplicas)) v2Spec.minReplicas = spec.minReplicas;
  v2Spec.maxReplicas = spec.maxReplicas ?? 0;
  v2Spec.metrics = metrics;
  if (behavior) v2Spec.behavior = behavior;

  const v2Status: JsonObject = {};
  if (isSet(status.observedGeneration)) v2Status.observedGeneration = status.observedGeneration;
  if (isSet(status.lastScaleTime)) v2Status.lastScaleTime = status.lastScaleTime;
  if (typeof status.currentReplicas === 'number' && status.currentReplicas !== 0) v2Status.currentReplicas = status.currentReplicas;
  v2Status.desiredReplicas = status.desiredReplicas ?? 0;
  v2Status.currentMetrics = currentMetrics ?? null;
  if (conditions && conditions.length > 0) v2Status.conditions = conditions;

  return { ...v1, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: withoutRoundTripAnnotations(meta), spec: v2Spec, status: v2Status };
}

const scaleUpDefaults = (): JsonObject => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
const scaleDownDefaults = (): JsonObject => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules: the set fields of `from` over the direction's defaults. */
function scalingRules(from: unknown, defaults: JsonObject): JsonObject {
  if (!isPlainObject(from)) return defaults;
  const out = { ...defaults };
  if (isSet(from.selectPolicy)) out.selectPolicy = from.selectPolicy;
  if (isSet(from.stabilizationWindowSeconds)) out.stabilizationWindowSeconds = from.stabilizationWindowSeconds;
  if (isSet(from.policies)) out.policies = from.policies;
  return out;
}

/**
 * SetDefaults_HorizontalPodAutoscaler (autoscaling/v2): minReplicas 1, an 80% average CPU utilization metric when none
 * is given, and, when spec.behavior is set, each direction's rules completed from the defaults (scale up: no
 * stabilization, the larger of +4 pods or +100% per 15 s; scale down: the larger of -100% per 15 s).
 */
export function defaultHPAv2(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (!isSet(spec.minReplicas)) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) spec.metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  if (isPlainObject(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, scaleUpDefaults());
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, scaleDownDefaults());
  }
}

/** SetDefaults_HorizontalPodAutoscaler (autoscaling/v1): minReplicas 1. */
export function defaultHPAv1(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (!isSet(spec.minReplicas)) spec.minReplicas = 1;
}

/** The v2 status Go always writes: desiredReplicas and currentMetrics have no omitempty. */
export function normalizeHPAv2Status(obj: JsonObject): void {
  const status = objectAt(obj, 'status');
  if (!isSet(status.desiredReplicas)) status.desiredReplicas = 0;
  if (status.currentMetrics === undefined) status.currentMetrics = null;
}
