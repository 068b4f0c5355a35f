/**
 * The upstream HorizontalPodAutoscaler of a split Deployment: one HPA, in the workspace, drives the whole Deployment's
 * spec.replicas (through its scale subresource) and the splitter re-divides the replicas over the clusters; no
 * cluster scales its share. The metrics come from the clusters: each runs an observe-only copy of the HPA on its share
 * (placed by the placement controller with scaling disabled both ways), and the syncer reports that copy's status
 * (currentReplicas, currentMetrics) in `status.workload.kcp.io/<key>`; decisions/hpa-recommendation.ts folds them and
 * recommends, and this writes the result: the Deployment's replicas and the HPA's status (currentReplicas,
 * desiredReplicas, the combined currentMetrics, lastScaleTime, and the AbleToScale, ScalingActive and ScalingLimited
 * conditions kube's HPA controller keeps).
 *
 * The recommendation history (for the stabilization windows) is kept in memory per HPA; after a restart the
 * scale-down window starts empty, which can only make the first scale-down after a restart come sooner.
 */
import { setStatusCondition, type StatusCondition } from '../../apimachinery/conditions.js';
import { deepCopy, goEqual, nowRFC3339, type KubeObject } from '../../apimachinery/object.js';
import type { RestClient } from '../../client/rest-client.js';
import { statusAnnotation } from '../api/kind-placement.js';
import { recommendReplicas, stabilize, type ClusterHpaStatus, type HpaSpecLike, type PastRecommendation } from '../decisions/hpa-recommendation.js';
import { deploymentsGVR } from '../scheduling/types.js';

const hpasGVR = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
const FIELD_MANAGER = 'atrium-horizontal-pod-autoscaler';

export class UpstreamAutoscalers {
  private readonly history = new Map<string, PastRecommendation[]>();

  /**
   * One evaluation of `hpa` (in logical cluster `cluster`) whose target is the split Deployment `root`, synced to
   * `clusters` (name and SyncTarget key each).
   */
  async reconcile(client: RestClient, cluster: string, hpa: KubeObject, root: KubeObject | undefined, clusters: readonly { name: string; key: string }[], nowMs = Date.now()): Promise<void> {
    const scope = { cluster, namespace: hpa.metadata!.namespace };
    const spec = (hpa.spec ?? {}) as HpaSpecLike;
    const previous = (hpa.status ?? {}) as Record<string, unknown>;
    const conditions = deepCopy((previous.conditions as StatusCondition[] | undefined) ?? []);
    const now = nowRFC3339();
    const status: Record<string, unknown> = {};
    if (hpa.metadata?.generation !== undefined) status.observedGeneration = hpa.metadata.generation;
    if (previous.lastScaleTime !== undefined) status.lastScaleTime = previous.lastScaleTime;
    if (!root) {
      setStatusCondition(conditions, { type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: deployments.apps "${(spec as { scaleTargetRef?: { name?: string } }).scaleTargetRef?.name}" not found` }, now);
      await this.writeStatus(client, hpa, { ...status, currentReplicas: 0, desiredReplicas: 0, conditions }, scope);
      return;
    }
    const current = typeof (root.spec as { replicas?: unknown } | undefined)?.replicas === 'number' ? ((root.spec as { replicas: number }).replicas) : 1;
    const reports: ClusterHpaStatus[] = clusters.map(({ name, key }) => {
      const text = hpa.metadata?.annotations?.[statusAnnotation(key)];
      let s: { currentReplicas?: number; currentMetrics?: Record<string, unknown>[] } = {};
      try {
        if (text) s = JSON.parse(text) as typeof s;
      } catch {
        s = {};
      }
      return { cluster: name, currentReplicas: s.currentReplicas, currentMetrics: s.currentMetrics };
    });
    const rec = recommendReplicas(spec, current, reports);
    const uid = hpa.metadata?.uid ?? `${hpa.metadata?.namespace}/${hpa.metadata?.name}`;
    const window = Math.max(spec.behavior?.scaleUp?.stabilizationWindowSeconds ?? 0, spec.behavior?.scaleDown?.stabilizationWindowSeconds ?? 300) * 1000;
    const past = (this.history.get(uid) ?? []).filter((h) => nowMs - h.atMs <= window);
    let desired = current;
    if (rec.desired !== undefined) {
      desired = stabilize(spec, current, rec.desired, past, nowMs);
      past.push({ atMs: nowMs, replicas: rec.desired });
    }
    this.history.set(uid, past);
    if (rec.desired === undefined) {
      setStatusCondition(conditions, { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: 'the HPA controller was able to get the target\'s current scale' }, now);
      setStatusCondition(conditions, { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: ${rec.message ?? 'no metrics'}` }, now);
    } else {
      if (desired !== current) {
        await client.patch(deploymentsGVR, root.metadata!.name!, 'merge', { spec: { replicas: desired } }, { ...scope, subresource: 'scale', fieldManager: FIELD_MANAGER });
        status.lastScaleTime = now;
        setStatusCondition(conditions, { type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}` }, now);
      } else {
        setStatusCondition(conditions, { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' }, now);
      }
      setStatusCondition(conditions, { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from the metrics the clusters measured' }, now);
      if (rec.limited) setStatusCondition(conditions, { type: 'ScalingLimited', status: 'True', reason: rec.limited, message: `the desired replica count is ${rec.limited === 'TooManyReplicas' ? 'more than the maximum' : 'less than the minimum'} replica count` }, now);
      else setStatusCondition(conditions, { type: 'ScalingLimited', status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' }, now);
    }
    const rootReplicas = (root.status as { replicas?: number } | undefined)?.replicas;
    status.currentReplicas = typeof rootReplicas === 'number' ? rootReplicas : current;
    status.desiredReplicas = desired;
    const measured = rec.currentMetrics.filter((m) => Object.keys(((m as Record<string, Record<string, unknown>>)[Object.keys(m).find((k) => k !== 'type')!] ?? {}).current ?? {}).length > 0);
    if (measured.length > 0) status.currentMetrics = measured;
    status.conditions = conditions;
    await this.writeStatus(client, hpa, status, scope);
  }

  /** Forgets the history of HPAs not in `live` (uids). */
  retain(live: ReadonlySet<string>): void {
    for (const uid of this.history.keys()) if (!live.has(uid)) this.history.delete(uid);
  }

  private async writeStatus(client: RestClient, hpa: KubeObject, status: Record<string, unknown>, scope: { cluster: string; namespace?: string }): Promise<void> {
    if (goEqual(status, hpa.status)) return;
    await client.patch(hpasGVR, hpa.metadata!.name!, 'json', [{ op: 'add', path: '/status', value: status }], { ...scope, subresource: 'status' });
  }
}
