import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatMilli, recommendReplicas, stabilize, type ClusterHpaStatus, type HpaSpecLike } from '../../../src/multicluster/decisions/hpa-recommendation.js';

const cpu = (averageUtilization: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } } });
const cpuNow = (averageUtilization: number, averageValue = '100m') => ({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization, averageValue } } });
const spec = (metrics: Record<string, unknown>[], extra: Partial<HpaSpecLike> = {}): HpaSpecLike => ({ minReplicas: 1, maxReplicas: 20, metrics, ...extra });
const cl = (cluster: string, currentReplicas: number, currentMetrics: Record<string, unknown>[]): ClusterHpaStatus => ({ cluster, currentReplicas, currentMetrics });

describe('recommendReplicas: one HPA over every cluster\'s pods', () => {
  it('utilization averaged by each cluster\'s pods: 2 pods at 100% and 2 at 50% are 75% of a 50% target → 6', () => {
    const r = recommendReplicas(spec([cpu(50)]), 4, [cl('a', 2, [cpuNow(100, '200m')]), cl('b', 2, [cpuNow(50, '100m')])]);
    assert.equal(r.desired, 6);
    assert.equal(r.pods, 4);
    assert.deepEqual(r.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 75, averageValue: '150m' } } }]);
  });

  it('weights by pods, not clusters: 1 pod at 200% and 3 at 0%', () => {
    assert.equal(recommendReplicas(spec([cpu(100)]), 4, [cl('a', 1, [cpuNow(200)]), cl('b', 3, [cpuNow(0)])]).desired, 2);
  });

  it('within the tolerance (10%) nothing changes', () => {
    assert.equal(recommendReplicas(spec([cpu(50)]), 4, [cl('a', 4, [cpuNow(54)])]).desired, 4);
  });

  it('the largest recommendation over the metrics wins; AverageValue metrics averaged', () => {
    const pods = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } };
    const podsNow = (v: string) => ({ type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: v } } });
    const r = recommendReplicas(spec([cpu(50), pods]), 4, [cl('a', 2, [cpuNow(50), podsNow('30')]), cl('b', 2, [cpuNow(50), podsNow('10')])]);
    assert.equal(r.desired, 8, 'qps averages 20 against 10 per pod');
    assert.deepEqual(r.currentMetrics[1], { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '20' } } });
  });

  it('a Value metric (External) is the largest cluster value, scaled from the current replicas', () => {
    const ext = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '100' } } };
    const extNow = (v: string) => ({ type: 'External', external: { metric: { name: 'queue' }, current: { value: v } } });
    const r = recommendReplicas(spec([ext]), 3, [cl('a', 1, [extNow('250')]), cl('b', 2, [extNow('200')])]);
    assert.equal(r.desired, 8, 'ceil(2.5 × 3)');
  });

  it('clamped to maxReplicas and minReplicas, and says so', () => {
    const hot = recommendReplicas(spec([cpu(10)], { maxReplicas: 5 }), 4, [cl('a', 4, [cpuNow(100)])]);
    assert.deepEqual([hot.desired, hot.limited], [5, 'TooManyReplicas']);
    const cold = recommendReplicas(spec([cpu(50)], { minReplicas: 3 }), 4, [cl('a', 4, [cpuNow(1)])]);
    assert.deepEqual([cold.desired, cold.limited], [3, 'TooFewReplicas']);
  });

  it('no metric reported yet: no recommendation', () => {
    const r = recommendReplicas(spec([cpu(50)]), 4, [cl('a', 2, []), { cluster: 'b' }]);
    assert.equal(r.desired, undefined);
    assert.match(r.message ?? '', /not reported/);
  });

  it('no metrics in the spec: kube\'s default, 80% CPU', () => {
    assert.equal(recommendReplicas({ maxReplicas: 10 }, 2, [cl('a', 2, [cpuNow(160)])]).desired, 4);
  });
});

describe('stabilize: kube\'s windows', () => {
  const s = spec([cpu(50)]);
  it('scales up at once by default', () => {
    assert.equal(stabilize(s, 4, 8, [], 1_000_000), 8);
  });
  it('scales down only to the highest recommendation of the last 300 s', () => {
    const history = [{ atMs: 1_000_000 - 200_000, replicas: 6 }, { atMs: 1_000_000 - 400_000, replicas: 9 }];
    assert.equal(stabilize(s, 8, 3, history, 1_000_000), 6);
    assert.equal(stabilize(s, 8, 3, [], 1_000_000), 3);
  });
  it('a scale-up window takes the lowest recommendation in it', () => {
    const up = spec([cpu(50)], { behavior: { scaleUp: { stabilizationWindowSeconds: 60 } } });
    assert.equal(stabilize(up, 4, 10, [{ atMs: 990_000, replicas: 6 }], 1_000_000), 6);
  });
  it('a disabled direction keeps the current replicas', () => {
    const off = spec([cpu(50)], { behavior: { scaleUp: { selectPolicy: 'Disabled' }, scaleDown: { selectPolicy: 'Disabled' } } });
    assert.equal(stabilize(off, 4, 10, [], 0), 4);
    assert.equal(stabilize(off, 4, 1, [], 0), 4);
  });
  it('formats milli-values as quantities', () => {
    assert.deepEqual([formatMilli(2000), formatMilli(250), formatMilli(1500.4)], ['2', '250m', '1500m']);
  });
});
