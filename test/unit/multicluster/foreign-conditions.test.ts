/** decisions/foreign-conditions.ts: what the status coming up from a cluster keeps of the upstream conditions. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withForeignConditions } from '../../../src/multicluster/decisions/foreign-conditions.js';

const c = (type: string, status = 'True') => ({ type, status });

describe('foreign conditions', () => {
  it('keeps upstream conditions the kind\'s controllers do not manage; the cluster\'s own replace theirs', () => {
    const fromCluster = { replicas: 2, conditions: [c('Available'), c('Progressing')] };
    const upstream = { replicas: 0, conditions: [c('Available', 'False'), c('StatusPatched'), c('ReplicaFailure')] };
    assert.deepEqual(withForeignConditions('deployments', fromCluster, upstream), { replicas: 2, conditions: [c('Available'), c('Progressing'), c('StatusPatched')] });
  });

  it('a condition the controllers removed on the cluster goes upstream too (ReplicaFailure once resolved)', () => {
    assert.deepEqual(withForeignConditions('replicasets', { replicas: 1 }, { conditions: [c('ReplicaFailure')] }), { replicas: 1 });
  });

  it('a Job keeps a custom condition beside Complete; a custom resource gets the cluster\'s status as it is', () => {
    assert.deepEqual(withForeignConditions('jobs', { succeeded: 1, conditions: [c('Complete')] }, { conditions: [c('CustomConditionType')] }), { succeeded: 1, conditions: [c('Complete'), c('CustomConditionType')] });
    assert.deepEqual(withForeignConditions('widgets', { phase: 'Ready' }, { conditions: [c('Mine')] }), { phase: 'Ready' });
  });
});
