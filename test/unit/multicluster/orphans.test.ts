/** decisions/orphans.ts: where the bare Pods a new ReplicaSet or ReplicationController would adopt run. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { adoptsPods, orphanClusters } from '../../../src/multicluster/decisions/orphans.js';

const pod = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, labels, ...extra } });

describe('orphans', () => {
  const pods = [
    { pod: pod('a', { app: 'web' }), cluster: 'east' },
    { pod: pod('b', { app: 'web', tier: 'x' }), cluster: 'west' },
    { pod: pod('owned', { app: 'web' }, { ownerReferences: [{ kind: 'ReplicaSet', name: 'other', uid: 'u', controller: true }] }), cluster: 'north' },
    { pod: pod('gone', { app: 'web' }, { deletionTimestamp: '2026-01-01T00:00:00Z' }), cluster: 'south' },
    { pod: pod('unplaced', { app: 'web' }), cluster: undefined },
    { pod: pod('db', { app: 'db' }), cluster: 'far' },
  ];

  it('a ReplicaSet: the clusters of the live, unowned, placed pods its selector matches', () => {
    assert.deepEqual([...orphanClusters('ReplicaSet', { spec: { selector: { matchLabels: { app: 'web' } } } }, pods)].sort(), ['east', 'west']);
    assert.deepEqual([...orphanClusters('ReplicaSet', { spec: { selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] } } }, pods)], ['west']);
  });

  it('a ReplicationController: its selector is a plain map', () => {
    assert.deepEqual([...orphanClusters('ReplicationController', { spec: { selector: { app: 'db' } } }, pods)], ['far']);
  });

  it('no selector, an invalid one, or a kind that does not adopt: nowhere', () => {
    assert.equal(orphanClusters('ReplicaSet', { spec: {} }, pods).size, 0);
    assert.equal(orphanClusters('ReplicaSet', { spec: { selector: { matchExpressions: [{ key: 'x', operator: 'Bogus' }] } } }, pods).size, 0);
    assert.equal(orphanClusters('StatefulSet', { spec: { selector: { matchLabels: { app: 'web' } } } }, pods).size, 0);
    assert.equal(adoptsPods('Job'), false);
    assert.equal(adoptsPods('ReplicaSet'), true);
  });
});
