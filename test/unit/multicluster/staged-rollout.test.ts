/**
 * decisions/staged-rollout.ts: a DaemonSet on several clusters rolls one cluster at a time; the others' copies are
 * held with OnDelete until the one rolling reports every pod updated and available.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { clusterRolledOut, daemonSetRolloutHolds, HELD_COPY } from '../../../src/multicluster/decisions/staged-rollout.js';

const clusters = [
  { name: 'west', key: 'kw' },
  { name: 'east', key: 'ke' },
  { name: 'north', key: 'kn' },
];
const status = (observedGeneration: number, desired: number, updated: number, available: number, scheduled = desired) =>
  JSON.stringify({ observedGeneration, desiredNumberScheduled: desired, currentNumberScheduled: scheduled, updatedNumberScheduled: updated, numberAvailable: available, ...(available < desired ? { numberUnavailable: desired - available } : {}) });
const ds = (generation: number, statuses: Record<string, string>, held: string[] = [], strategy?: string): KubeObject => ({
  metadata: {
    name: 'agent',
    generation,
    annotations: {
      ...Object.fromEntries(Object.entries(statuses).map(([k, v]) => [`status.workload.kcp.io/${k}`, v])),
      ...(held.length ? { 'scheduling.atrium.io/cluster-spec': JSON.stringify(Object.fromEntries(held.map((k) => [k, HELD_COPY]))) } : {}),
    },
  },
  spec: strategy ? { updateStrategy: { type: strategy } } : {},
});

describe('staged DaemonSet rollout', () => {
  it('a cluster is rolled out when it observed the generation and every pod is updated and available', () => {
    assert.equal(clusterRolledOut(ds(2, { ke: status(2, 3, 3, 3) }), 'ke'), true);
    assert.equal(clusterRolledOut(ds(2, { ke: status(1, 3, 3, 3) }), 'ke'), false, 'an older generation');
    assert.equal(clusterRolledOut(ds(2, { ke: status(2, 3, 2, 3) }), 'ke'), false, 'a pod of the old template');
    assert.equal(clusterRolledOut(ds(2, { ke: status(2, 3, 3, 2) }), 'ke'), false, 'a pod not available');
    assert.equal(clusterRolledOut(ds(2, { ke: status(2, 0, 0, 0) }), 'ke'), true, 'no nodes: nothing to roll');
    assert.equal(clusterRolledOut(ds(2, {}), 'ke'), false, 'nothing reported yet');
  });

  it('a new DaemonSet: the first cluster by name is released, the others held; nothing to roll, nothing changes', () => {
    assert.deepEqual(daemonSetRolloutHolds(ds(1, {}), clusters), { north: HELD_COPY, west: HELD_COPY });
    const created = ds(1, { ke: status(1, 2, 2, 2), kn: status(1, 2, 2, 1), kw: status(1, 2, 0, 0, 0) }, ['kn', 'kw']);
    assert.deepEqual(daemonSetRolloutHolds(created, clusters), { north: HELD_COPY, west: HELD_COPY }, 'pods still starting or unscheduled elsewhere are of the current template');
    const unobserved = ds(1, { ke: status(1, 2, 2, 2), kn: status(0, 2, 0, 0, 0) }, ['kn', 'kw']);
    assert.deepEqual(daemonSetRolloutHolds(unobserved, clusters), { north: HELD_COPY, west: HELD_COPY });
  });

  it('the released cluster rolls a new template first; once done, the next one with pods of an older template is released', () => {
    const rolling = ds(2, { ke: status(2, 2, 1, 1), kn: status(2, 2, 0, 2), kw: status(2, 2, 0, 2) }, ['ke', 'kw']);
    assert.deepEqual(daemonSetRolloutHolds(rolling, clusters), { east: HELD_COPY, west: HELD_COPY }, 'north (released before) rolls on');
    const northDone = ds(2, { ke: status(2, 2, 0, 2), kn: status(2, 2, 2, 2), kw: status(2, 2, 0, 2) }, ['ke', 'kw']);
    assert.deepEqual(daemonSetRolloutHolds(northDone, clusters), { north: HELD_COPY, west: HELD_COPY }, 'east next');
    const westBehind = ds(2, { ke: status(2, 2, 2, 2), kn: status(2, 2, 2, 2), kw: status(1, 2, 2, 2) }, ['kn', 'kw']);
    assert.deepEqual(daemonSetRolloutHolds(westBehind, clusters), { north: HELD_COPY, west: HELD_COPY }, 'west has not observed the template yet: east stays released until it has');
    const westObserved = ds(2, { ke: status(2, 2, 2, 2), kn: status(2, 2, 2, 2), kw: status(2, 2, 0, 2) }, ['kn', 'kw']);
    assert.deepEqual(daemonSetRolloutHolds(westObserved, clusters), { east: HELD_COPY, north: HELD_COPY }, 'then west rolls');
  });

  it('with every cluster rolled out, the one released stays released (no rewrite in a steady state)', () => {
    const done = { ke: status(3, 2, 2, 2), kn: status(3, 2, 2, 2), kw: status(3, 2, 2, 2) };
    assert.deepEqual(daemonSetRolloutHolds(ds(3, done, ['ke', 'kn']), clusters), { east: HELD_COPY, north: HELD_COPY });
  });

  it('holds nothing for an OnDelete DaemonSet or one on a single cluster', () => {
    assert.equal(daemonSetRolloutHolds(ds(1, {}, [], 'OnDelete'), clusters), undefined);
    assert.equal(daemonSetRolloutHolds(ds(1, {}), [clusters[0]!]), undefined);
  });
});
