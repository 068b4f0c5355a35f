/**
 * The HorizontalPodAutoscaler controller (autoscaling/v2, pkg/controller/podautoscaler): every sync period it reads
 * the target's /scale, computes a desired replica count per metric from the simulated pod metrics (metrics.ts:
 * Resource and ContainerResource metrics, Utilization or AverageValue targets; Pods, Object and External metrics
 * have no source here and report FailedGetPodsMetric/FailedGetObjectMetric/FailedGetExternalMetric), takes the
 * largest, stabilizes and limits it (math.ts; spec.behavior or the defaults: a downscale stabilization window of
 * 5 minutes), scales the target through /scale, and reports currentReplicas, desiredReplicas, currentMetrics,
 * lastScaleTime and the AbleToScale, ScalingActive and ScalingLimited conditions, so that `kubectl get hpa` shows
 * e.g. `cpu: 150%/80%`.
 */
import { deepCopy, formatRFC3339, goEqual, isPlainObject, jsonEqual, type JsonObject, type KubeObject } from '../../../apimachinery/object.js';
import { parseLabelSelector } from '../../../apimachinery/labels/selector.js';
import { integerValue, milliValue } from '../../../apimachinery/quantity.js';
import { StatusError } from '../../../apimachinery/status.js';
import { discoverResources } from '../../../client/discovery.js';
import { type GroupVersionResource, resourcePath } from '../../../client/resource.js';
import { clusterOf, formatObjectKey, parseObjectKey } from '../../../client/store.js';
import { Controller, type ReconcileResult } from '../../../controllers/runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../../../controllers/runtime/context.js';
import { EventRecorder } from '../../../controllers/runtime/event-recorder.js';
import { podsGVR } from '../gvrs.js';
import { hpaGVR } from '../workload-gvrs.js';
import {
  type Recommendation,
  type ScaleEvent,
  type ScalingRules,
  limitByBehaviorRate,
  limitWithRules,
  rawResourceReplicas,
  resourceReplicas,
  stabilizeRecommendation,
  stabilizeWithBehaviors,
} from './math.js';
import { formatMilliQuantity, podRequest, podUsage } from './metrics.js';

export interface HpaControllerOptions {
  /** How often every HPA is reconciled (--horizontal-pod-autoscaler-sync-period; default 15 s). */
  syncPeriodMs?: number;
  /** The scale-down stabilization window without spec.behavior (default 5 minutes). */
  downscaleStabilizationMs?: number;
  tolerance?: number;
}

interface Hpa extends KubeObject {
  spec?: JsonObject & {
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: JsonObject[];
    behavior?: { scaleUp?: ScalingRules; scaleDown?: ScalingRules };
  };
  status?: JsonObject & { conditions?: JsonObject[] };
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

const knownScaleTargets: Record<string, string> = {
  'apps/Deployment': 'deployments',
  'apps/ReplicaSet': 'replicasets',
  'apps/StatefulSet': 'statefulsets',
  '/ReplicationController': 'replicationcontrollers',
};

/** The HPA's condition setter (setConditionInList): lastTransitionTime moves only when the status does. */
export function setHpaCondition(conditions: JsonObject[], type: string, status: string, reason: string, message: string, now: string): void {
  let c = conditions.find((x) => x.type === type);
  if (!c) {
    c = { type };
    conditions.push(c);
  }
  if (c.status !== status) c.lastTransitionTime = now;
  c.status = status;
  c.reason = reason;
  c.message = message;
}

interface MetricOutcome {
  replicas: number;
  status: JsonObject;
  name: string;
}

class MetricError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function hpaControllerInstaller(opts: HpaControllerOptions = {}): ControllerInstaller {
  const syncPeriod = opts.syncPeriodMs ?? 15_000;
  const downscaleWindow = opts.downscaleStabilizationMs ?? 300_000;
  return {
    name: 'horizontalpodautoscaling',
    install(ctx: ControllerContext): RunningController {
      const { client } = ctx;
      const hpas = ctx.informers.informerFor<Hpa>(hpaGVR);
      const pods = ctx.informers.informerFor<KubeObject>(podsGVR);
      const recorder = new EventRecorder(client, 'horizontalpodautoscaling');
      const recommendations = new Map<string, Recommendation[]>();
      const upEvents = new Map<string, ScaleEvent[]>();
      const downEvents = new Map<string, ScaleEvent[]>();
      const resolved = new Map<string, GroupVersionResource>();

      const event = (hpa: Hpa, type: 'Normal' | 'Warning', reason: string, message: string) =>
        void recorder.record(clusterOf(hpa), { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', namespace: hpa.metadata?.namespace, name: hpa.metadata?.name ?? '', uid: hpa.metadata?.uid }, type, reason, message);

      /** The resource serving the target's kind (its /scale): the built-in scalables, else discovery. */
      const targetResource = async (apiVersion: string, kind: string): Promise<GroupVersionResource> => {
        const slash = apiVersion.indexOf('/');
        const group = slash < 0 ? '' : apiVersion.slice(0, slash);
        const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
        const known = knownScaleTargets[`${group}/${kind}`];
        if (known) return { group, version, resource: known };
        const cacheKey = `${apiVersion}/${kind}`;
        const cached = resolved.get(cacheKey);
        if (cached) return cached;
        const found = (await discoverResources(client)).resources.find((r) => r.group === group && r.version === version && r.kind === kind && !r.resource.includes('/'));
        if (!found) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
        const gvr = { group, version, resource: found.resource };
        resolved.set(cacheKey, gvr);
        return gvr;
      };

      /** One metric's replica proposal (computeReplicasForMetric). */
      const replicasForMetric = (spec: JsonObject, current: number, podsOfTarget: KubeObject[]): MetricOutcome => {
        const type = String(spec.type ?? '');
        if (type !== 'Resource' && type !== 'ContainerResource') {
          const what = type === 'Pods' ? 'pods' : type === 'Object' ? 'object' : 'external';
          throw new MetricError(`FailedGet${type || 'Unknown'}Metric`, `the HPA was unable to compute the replica count: unable to get metric: no ${what} metrics are served by this simulated cluster`);
        }
        const key = type === 'Resource' ? 'resource' : 'containerResource';
        const source = isPlainObject(spec[key]) ? (spec[key] as JsonObject) : {};
        const resource = String(source.name ?? '');
        const container = type === 'ContainerResource' ? String(source.container ?? '') : undefined;
        const target = isPlainObject(source.target) ? source.target : {};
        const reason = type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
        const metrics = new Map<string, number>();
        for (const p of podsOfTarget) {
          const u = podUsage(p, resource, container);
          if (u !== undefined) metrics.set(p.metadata?.name ?? '', u);
        }
        const what = type === 'Resource' ? 'resource' : 'container resource';
        try {
          if (metrics.size === 0) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
          if (target.type === 'AverageValue' || (target.averageUtilization === undefined && target.averageValue !== undefined)) {
            const targetMilli = resource === 'cpu' ? milliValue(target.averageValue as string) : integerValue(target.averageValue as string) * 1000;
            const r = rawResourceReplicas({ currentReplicas: current, targetAverage: targetMilli, pods: podsOfTarget, metrics, resource, tolerance: opts.tolerance });
            const current_ = { averageValue: formatMilliQuantity(r.rawUsage) };
            return { replicas: r.replicas, name: `${resource} ${what}`, status: { type, [key]: { name: resource, ...(container !== undefined ? { container } : {}), current: current_ } } };
          }
          const requests = new Map<string, number>();
          for (const p of podsOfTarget) requests.set(p.metadata?.name ?? '', podRequest(p, resource, container));
          const r = resourceReplicas({ currentReplicas: current, targetUtilization: Number(target.averageUtilization ?? 80), pods: podsOfTarget, metrics, requests, resource, tolerance: opts.tolerance });
          return {
            replicas: r.replicas,
            name: `${resource} ${what} utilization (percentage of request)`,
            status: { type, [key]: { name: resource, ...(container !== undefined ? { container } : {}), current: { averageUtilization: r.utilization, averageValue: formatMilliQuantity(r.rawUsage) } } },
          };
        } catch (err) {
          throw new MetricError(reason, `the HPA was unable to compute the replica count: failed to get ${resource} utilization: ${(err as Error).message}`);
        }
      };

      const reconcile = async (key: string): Promise<ReconcileResult | void> => {
        const hpa = hpas.lister.get(key);
        if (!hpa) {
          recommendations.delete(key);
          upEvents.delete(key);
          downEvents.delete(key);
          return;
        }
        const { namespace } = parseObjectKey(key);
        const nowMs = Date.now();
        const now = formatRFC3339(nowMs);
        const conditions = deepCopy(hpa.status?.conditions ?? []) as JsonObject[];
        const ref = hpa.spec?.scaleTargetRef ?? {};
        const writeStatus = async (status: JsonObject) => {
          if (goEqual(status, hpa.status ?? {})) return;
          const next = deepCopy(hpa);
          next.status = status;
          await client.updateStatus(hpaGVR, next, { namespace });
        };
        const baseStatus = (currentReplicas: number, desiredReplicas: number, metrics: JsonObject[] | null, rescaled: boolean): JsonObject => {
          const status: JsonObject = { currentReplicas, desiredReplicas, currentMetrics: metrics, conditions };
          const last = rescaled ? now : hpa.status?.lastScaleTime;
          if (last) status.lastScaleTime = last;
          if (hpa.status?.observedGeneration !== undefined) status.observedGeneration = hpa.status.observedGeneration;
          return status;
        };

        let gvr: GroupVersionResource;
        let scale: KubeObject;
        try {
          gvr = await targetResource(ref.apiVersion ?? '', ref.kind ?? '');
          scale = (await client.call('GET', resourcePath(gvr, { namespace, name: ref.name ?? '', subresource: 'scale' }))) as KubeObject;
        } catch (err) {
          setHpaCondition(conditions, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${(err as Error).message}`, now);
          event(hpa, 'Warning', 'FailedGetScale', (err as Error).message);
          await writeStatus(baseStatus(num(hpa.status?.currentReplicas), num(hpa.status?.desiredReplicas), (hpa.status?.currentMetrics as JsonObject[] | undefined) ?? null, false));
          return { requeueAfterMs: syncPeriod };
        }
        setHpaCondition(conditions, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", now);
        const current = Number((scale.spec as JsonObject | undefined)?.replicas ?? 0);
        const min = hpa.spec?.minReplicas ?? 1;
        const max = hpa.spec?.maxReplicas ?? 1;
        let desired = 0;
        let rescaleReason = '';
        let metricStatuses: JsonObject[] | null = null;
        let rescale = true;
        if (current === 0 && min !== 0) {
          desired = 0;
          rescale = false;
          setHpaCondition(conditions, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
        } else if (current > max) {
          rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
          desired = max;
        } else if (current < min) {
          rescaleReason = 'Current number of replicas below Spec.MinReplicas';
          desired = min;
        } else {
          const selectorText = String((scale.status as JsonObject | undefined)?.selector ?? '');
          let podsOfTarget: KubeObject[] = [];
          let selectorError: string | undefined;
          if (!selectorText) selectorError = 'selector is required';
          else {
            try {
              const selector = parseLabelSelector(selectorText);
              podsOfTarget = pods.lister.list().filter((p) => p.metadata?.namespace === namespace && selector.matches(p.metadata?.labels ?? {}));
            } catch (err) {
              selectorError = (err as Error).message;
            }
          }
          if (selectorError) {
            setHpaCondition(conditions, 'ScalingActive', 'False', 'InvalidSelector', 'the HPA target\'s scale is missing a selector', now);
            event(hpa, 'Warning', 'SelectorRequired', selectorError);
            await writeStatus(baseStatus(current, num(hpa.status?.desiredReplicas), metricStatuses, false));
            return { requeueAfterMs: syncPeriod };
          }
          const statuses: JsonObject[] = [];
          let best: MetricOutcome | undefined;
          let firstError: MetricError | undefined;
          for (const spec of hpa.spec?.metrics ?? []) {
            try {
              const out = replicasForMetric(spec, current, podsOfTarget);
              statuses.push(out.status);
              if (!best || out.replicas > best.replicas) best = out;
            } catch (err) {
              statuses.push({ type: '' });
              firstError ??= err instanceof MetricError ? err : new MetricError('FailedGetResourceMetric', (err as Error).message);
              event(hpa, 'Warning', firstError.reason, firstError.message);
            }
          }
          metricStatuses = statuses;
          if (!best) {
            const e = firstError ?? new MetricError('InvalidMetricSourceType', 'the HPA was unable to compute the replica count: no metrics');
            setHpaCondition(conditions, 'ScalingActive', 'False', e.reason, e.message, now);
            event(hpa, 'Warning', 'FailedComputeMetricsReplicas', `invalid metrics (${statuses.length} invalid out of ${statuses.length}), first error is: ${e.message}`);
            await writeStatus(baseStatus(current, num(hpa.status?.desiredReplicas), metricStatuses, false));
            return { requeueAfterMs: syncPeriod };
          }
          setHpaCondition(conditions, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${best.name}`, now);
          desired = best.replicas;
          if (desired > current) rescaleReason = `${best.name} above target`;
          if (desired < current) rescaleReason = 'All metrics below target';
          let limited: { replicas: number; reason: string; message: string };
          let stabilized: number;
          if (!hpa.spec?.behavior) {
            const s = stabilizeRecommendation(recommendations.get(key) ?? [], desired, downscaleWindow, nowMs);
            recommendations.set(key, s.history);
            stabilized = s.replicas;
            if (stabilized !== desired) setHpaCondition(conditions, 'AbleToScale', 'True', 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation', now);
            else setHpaCondition(conditions, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);
            limited = limitWithRules(current, stabilized, min, max);
          } else {
            const up: ScalingRules = hpa.spec.behavior.scaleUp ?? {};
            const down: ScalingRules = { ...(hpa.spec.behavior.scaleDown ?? {}) };
            if (down.stabilizationWindowSeconds === undefined) down.stabilizationWindowSeconds = downscaleWindow / 1000;
            const s = stabilizeWithBehaviors(recommendations.get(key) ?? [], current, desired, up, down, nowMs);
            recommendations.set(key, s.history);
            stabilized = s.replicas;
            if (stabilized !== desired) setHpaCondition(conditions, 'AbleToScale', 'True', s.reason, s.message, now);
            else setHpaCondition(conditions, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size', now);
            const horizon = (r: ScalingRules) => Math.max(0, ...(r.policies ?? []).map((p) => p.periodSeconds)) * 1000;
            const keep = (events: ScaleEvent[] | undefined, r: ScalingRules) => (events ?? []).filter((e) => e.at > nowMs - horizon(r));
            upEvents.set(key, keep(upEvents.get(key), up));
            downEvents.set(key, keep(downEvents.get(key), down));
            limited = limitByBehaviorRate({ current, desired: stabilized, min, max, up, down }, upEvents.get(key)!, downEvents.get(key)!, nowMs);
          }
          setHpaCondition(conditions, 'ScalingLimited', limited.replicas === stabilized ? 'False' : 'True', limited.reason, limited.message, now);
          desired = limited.replicas;
          rescale = desired !== current;
        }

        if (rescale) {
          try {
            const next = deepCopy(scale);
            (next.spec as JsonObject).replicas = desired;
            await client.call('PUT', resourcePath(gvr, { namespace, name: ref.name ?? '', subresource: 'scale' }), next);
          } catch (err) {
            event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${rescaleReason}; error: ${(err as Error).message}`);
            setHpaCondition(conditions, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${(err as Error).message}`, now);
            await writeStatus(baseStatus(current, num(hpa.status?.desiredReplicas), metricStatuses, false));
            if (err instanceof StatusError && err.code === 409) return { requeue: true };
            return { requeueAfterMs: syncPeriod };
          }
          setHpaCondition(conditions, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`, now);
          event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescaleReason}`);
          if (hpa.spec?.behavior) {
            const events = desired > current ? upEvents : downEvents;
            events.set(key, [...(events.get(key) ?? []), { change: Math.abs(desired - current), at: nowMs }]);
          }
        } else desired = current;
        await writeStatus(baseStatus(current, desired, metricStatuses, rescale));
        return { requeueAfterMs: syncPeriod };
      };

      const controller = new Controller<string>({ name: 'horizontalpodautoscaling', reconcile, workers: 2, rateLimiter: { baseDelayMs: 100, maxDelayMs: 10_000 } });
      const keyOf = (h: KubeObject) => formatObjectKey({ cluster: clusterOf(h), namespace: h.metadata?.namespace ?? '', name: h.metadata?.name ?? '' });
      hpas.addEventHandler({ add: (h) => controller.enqueue(keyOf(h)), update: (o, n) => !jsonEqual(o.spec, n.spec) && controller.enqueue(keyOf(n)), delete: (h) => controller.enqueue(keyOf(h)) });
      return { name: 'horizontalpodautoscaling', start: () => controller.start(), stop: () => controller.stop() };
    },
  };
}
