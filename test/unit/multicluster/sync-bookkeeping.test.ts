/** Which upstream updates a syncer ignores: those that only record Synced conditions (its own or a sibling's). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { onlySyncBookkeepingChanged } from '../../../src/multicluster/syncer/sync-condition.js';

const base = (): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'migrate', namespace: 'web', resourceVersion: '10', labels: { 'state.workload.kcp.io/abc': 'Sync' }, annotations: { team: 'a' }, finalizers: ['workload.kcp.io/syncer-abc'] },
  spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
});

describe('onlySyncBookkeepingChanged', () => {
  it('ignores a new Synced condition, a changed refusal message and the resourceVersion and managedFields that come with them', () => {
    const next = base();
    next.metadata!.resourceVersion = '11';
    next.metadata!.managedFields = [{ manager: 'syncer' }];
    next.metadata!.annotations = { team: 'a', 'synced.workload.kcp.io/abc': '{"status":"False","reason":"SyncFailed","message":"uid 1234"}' };
    assert.equal(onlySyncBookkeepingChanged(base(), next), true);
    const again = structuredClone(next);
    again.metadata!.annotations!['synced.workload.kcp.io/abc'] = '{"status":"False","reason":"SyncFailed","message":"uid 5678"}';
    again.metadata!.annotations!['synced.workload.kcp.io/def'] = '{"status":"True","reason":"Synced"}';
    assert.equal(onlySyncBookkeepingChanged(next, again), true);
  });

  it('reconciles any other change: spec, labels, other annotations, finalizers, deletion', () => {
    const cases: ((o: KubeObject) => void)[] = [
      (o) => ((o.spec as { parallelism?: number }).parallelism = 2),
      (o) => (o.metadata!.labels = {}),
      (o) => (o.metadata!.annotations = { team: 'b' }),
      (o) => (o.metadata!.finalizers = []),
      (o) => (o.metadata!.deletionTimestamp = '2026-11-27T00:00:00Z'),
    ];
    for (const change of cases) {
      const next = base();
      change(next);
      assert.equal(onlySyncBookkeepingChanged(base(), next), false, change.toString());
    }
  });
});
