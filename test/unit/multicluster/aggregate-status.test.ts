import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateDeploymentStatus, type AggregateStatusInput, type ClusterWorkloadStatus } from '../../../src/multicluster/decisions/aggregate-status.js';
import type { Condition, DeploymentStatus } from '../../../src/multicluster/decisions/types.js';

const available = (status: Condition['status'], reason = status === 'True' ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable', at = '2025-01-01T10:00:00Z'): Condition => ({
  type: 'Available',
  status,
  reason,
  message: status === 'True' ? 'Deployment has minimum availability.' : 'Deployment does not have minimum availability.',
  lastTransitionTime: at,
  lastUpdateTime: at,
});
const progressing = (status: Condition['status'], reason: string, at = '2025-01-01T10:00:00Z'): Condition => ({ type: 'Progressing', status, reason, message: `${reason} here`, lastTransitionTime: at, lastUpdateTime: at });

/** A cluster that has caught up with generation 2 and reports the given counters and conditions. */
function cluster(target: string, counts: [number, number, number, number, number], conditions: Condition[], extra: Partial<ClusterWorkloadStatus> = {}): ClusterWorkloadStatus {
  const [replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas] = counts;
  const status: DeploymentStatus = { observedGeneration: 7, replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas, conditions };
  return { target, syncedGeneration: 2, generation: 7, status, ...extra };
}

const healthy = [available('True'), progressing('True', 'NewReplicaSetAvailable')];

describe('aggregateDeploymentStatus: counters', () => {
  const table: { name: string; in: AggregateStatusInput; want: [number, number, number, number, number] }[] = [
    { name: 'Divided sums every counter', in: { generation: 2, clusters: [cluster('a', [3, 3, 2, 2, 1], healthy), cluster('b', [2, 1, 1, 1, 1], healthy)] }, want: [5, 4, 3, 3, 2] },
    { name: 'a cluster without status counts as zeros', in: { generation: 2, clusters: [cluster('a', [3, 3, 3, 3, 0], healthy), { target: 'b' }] }, want: [3, 3, 3, 3, 0] },
    { name: 'Duplicated takes the weakest copy', in: { generation: 2, mode: 'Duplicated', clusters: [cluster('a', [3, 3, 3, 3, 0], healthy), cluster('b', [3, 2, 1, 1, 2], healthy)] }, want: [3, 2, 1, 1, 2] },
    { name: 'no cluster: all zero', in: { generation: 2, clusters: [] }, want: [0, 0, 0, 0, 0] },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const s = aggregateDeploymentStatus(tc.in);
      assert.deepEqual([s.replicas, s.updatedReplicas, s.readyReplicas, s.availableReplicas, s.unavailableReplicas], tc.want);
    });
  }
});

describe('aggregateDeploymentStatus: observedGeneration', () => {
  const table: { name: string; in: AggregateStatusInput; want: number | undefined }[] = [
    { name: 'every cluster caught up: the generation', in: { generation: 2, previousObservedGeneration: 1, clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), cluster('b', [1, 1, 1, 1, 0], healthy)] }, want: 2 },
    { name: 'one cluster still has the old spec: the previous value', in: { generation: 2, previousObservedGeneration: 1, clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), cluster('b', [1, 1, 1, 1, 0], healthy, { syncedGeneration: 1 })] }, want: 1 },
    {
      name: 'one cluster has the spec but its controller has not observed it',
      in: { generation: 2, previousObservedGeneration: 1, clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), cluster('b', [1, 1, 1, 1, 0], healthy, { generation: 8 })] },
      want: 1,
    },
    { name: 'a cluster that reported nothing holds it back', in: { generation: 2, previousObservedGeneration: 1, clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), { target: 'b', syncedGeneration: 2 }] }, want: 1 },
    { name: 'a new lagging cluster lowers a previous value equal to the generation', in: { generation: 2, previousObservedGeneration: 2, clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), { target: 'b' }] }, want: 1 },
    { name: 'no previous value and not caught up: absent', in: { generation: 2, clusters: [{ target: 'a' }] }, want: undefined },
    { name: 'no cluster and no replica wanted: the generation', in: { generation: 3, replicas: 0, clusters: [] }, want: 3 },
    { name: 'no cluster but replicas wanted: held back', in: { generation: 3, replicas: 2, previousObservedGeneration: 2, clusters: [] }, want: 2 },
  ];
  for (const tc of table) it(tc.name, () => assert.equal(aggregateDeploymentStatus(tc.in).observedGeneration, tc.want));
});

describe('aggregateDeploymentStatus: conditions (pessimistic)', () => {
  type Want = [type: string, status: string, reason: string | undefined, message?: string];
  const table: { name: string; clusters: ClusterWorkloadStatus[]; want: Want[]; replicas?: number }[] = [
    {
      name: 'all healthy: True with the common reason',
      clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), cluster('b', [1, 1, 1, 1, 0], healthy)],
      want: [
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetAvailable'],
      ],
    },
    {
      name: 'one cluster unavailable makes Available False, named in the message',
      clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), cluster('b', [1, 1, 0, 0, 1], [available('False'), progressing('True', 'ReplicaSetUpdated')])],
      want: [
        ['Available', 'False', 'MinimumReplicasUnavailable', 'SyncTarget "b": Deployment does not have minimum availability.'],
        ['Progressing', 'True', 'ReplicaSetUpdated'],
      ],
    },
    {
      name: 'the first False cluster by name explains it',
      clusters: [cluster('z', [0, 0, 0, 0, 1], [available('False', 'Z'), progressing('True', 'ReplicaSetUpdated')]), cluster('m', [0, 0, 0, 0, 1], [available('False', 'M'), progressing('True', 'ReplicaSetUpdated')])],
      want: [
        ['Available', 'False', 'M', 'SyncTarget "m": Deployment does not have minimum availability.'],
        ['Progressing', 'True', 'ReplicaSetUpdated'],
      ],
    },
    {
      name: 'a deadline exceeded anywhere makes Progressing False so rollout status fails',
      clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), cluster('b', [1, 0, 0, 0, 1], [available('True'), progressing('False', 'ProgressDeadlineExceeded')])],
      want: [
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'False', 'ProgressDeadlineExceeded', 'SyncTarget "b": ProgressDeadlineExceeded here'],
      ],
    },
    {
      name: 'a cluster that reported nothing makes the conditions Unknown',
      clusters: [cluster('a', [1, 1, 1, 1, 0], healthy), { target: 'b' }],
      want: [
        ['Available', 'Unknown', 'StatusUnknown', 'SyncTarget "b": no status reported'],
        ['Progressing', 'Unknown', 'StatusUnknown', 'SyncTarget "b": no status reported'],
      ],
    },
    {
      name: 'False outranks Unknown',
      clusters: [{ target: 'a' }, cluster('b', [0, 0, 0, 0, 1], [available('False'), progressing('True', 'ReplicaSetUpdated')])],
      want: [
        ['Available', 'False', 'MinimumReplicasUnavailable', 'SyncTarget "b": Deployment does not have minimum availability.'],
        ['Progressing', 'Unknown', 'StatusUnknown', 'SyncTarget "a": no status reported'],
      ],
    },
    {
      name: 'ReplicaFailure appears when any cluster has it',
      clusters: [
        cluster('a', [1, 1, 1, 1, 0], healthy),
        cluster('b', [0, 0, 0, 0, 1], [...healthy, { type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "x" is forbidden: exceeded quota' }]),
      ],
      want: [
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetAvailable'],
        ['ReplicaFailure', 'True', 'FailedCreate', 'SyncTarget "b": pods "x" is forbidden: exceeded quota'],
      ],
    },
    {
      name: 'ReplicaFailure False everywhere is omitted',
      clusters: [cluster('a', [1, 1, 1, 1, 0], [...healthy, { type: 'ReplicaFailure', status: 'False', reason: 'X' }])],
      want: [
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetAvailable'],
      ],
    },
    { name: 'no cluster while replicas are wanted', clusters: [], replicas: 3, want: [['Available', 'False', 'NoSyncTargets', 'The workload is not assigned to any SyncTarget']] },
    { name: 'no cluster and no replica wanted: no condition', clusters: [], replicas: 0, want: [] },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = aggregateDeploymentStatus({ generation: 2, replicas: tc.replicas, clusters: tc.clusters }).conditions ?? [];
      assert.deepEqual(
        got.map((c) => [c.type, c.status, c.reason, ...(c.type === 'Progressing' && c.status === 'True' ? [] : [c.message])]),
        tc.want,
      );
    });
  }

  it('times: the latest transition among the clusters that decided', () => {
    const got = aggregateDeploymentStatus({
      generation: 2,
      clusters: [
        cluster('a', [1, 1, 1, 1, 0], [available('True', undefined, '2025-01-01T09:00:00Z'), progressing('True', 'NewReplicaSetAvailable')]),
        cluster('b', [1, 1, 1, 1, 0], [available('True', undefined, '2025-01-01T11:30:00Z'), progressing('True', 'NewReplicaSetAvailable')]),
      ],
    });
    assert.equal(got.conditions![0]!.lastTransitionTime, '2025-01-01T11:30:00Z');
    assert.equal(got.conditions![0]!.lastUpdateTime, '2025-01-01T11:30:00Z');
  });

  it('does not depend on the order clusters are listed in', () => {
    const clusters = [cluster('b', [1, 0, 0, 0, 1], [available('False', 'B'), progressing('True', 'ReplicaSetUpdated')]), cluster('a', [1, 0, 0, 0, 1], [available('False', 'A'), progressing('True', 'ReplicaSetUpdated')])];
    assert.deepEqual(aggregateDeploymentStatus({ generation: 2, clusters }), aggregateDeploymentStatus({ generation: 2, clusters: [...clusters].reverse() }));
  });
});

describe('aggregateDeploymentStatus: truth during moves and losses', () => {
  const cond = (type: string, status: 'True' | 'False', reason: string): Condition => ({ type, status, reason, message: reason });
  const healthy = (target: string, n: number): ClusterWorkloadStatus => ({
    target,
    replicas: n,
    syncedGeneration: 1,
    generation: 1,
    status: { observedGeneration: 1, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n, conditions: [cond('Available', 'True', 'MinimumReplicasAvailable'), cond('Progressing', 'True', 'NewReplicaSetAvailable')] },
  });
  const starting = (target: string, n: number, ready: number): ClusterWorkloadStatus => ({
    target,
    replicas: n,
    syncedGeneration: 1,
    generation: 1,
    status: { observedGeneration: 1, replicas: n, updatedReplicas: n, readyReplicas: ready, availableReplicas: ready, unavailableReplicas: n - ready, conditions: [cond('Available', 'False', 'MinimumReplicasUnavailable'), cond('Progressing', 'True', 'ReplicaSetUpdated')] },
  });

  it('Available on the sums: a new cluster still starting does not make a move look unavailable', () => {
    const out = aggregateDeploymentStatus({ generation: 1, replicas: 30, minAvailable: 27, clusters: [healthy('a', 27), starting('b', 9, 3)] });
    assert.equal(out.readyReplicas, 30);
    const available = out.conditions!.find((c) => c.type === 'Available')!;
    assert.equal(available.status, 'True');
  });

  it('Available False names the clusters short of their share', () => {
    const out = aggregateDeploymentStatus({ generation: 1, replicas: 30, minAvailable: 27, clusters: [healthy('a', 15), starting('b', 15, 5)] });
    const available = out.conditions!.find((c) => c.type === 'Available')!;
    assert.equal(available.status, 'False');
    assert.equal(available.reason, 'MinimumReplicasUnavailable');
    assert.match(available.message!, /20 available, 27 required; SyncTarget "b": 5\/15 available/);
  });

  it('an unreachable cluster counts for nothing, and says so', () => {
    const out = aggregateDeploymentStatus({ generation: 1, replicas: 30, minAvailable: 27, clusters: [{ ...healthy('a', 15), reachable: false }, healthy('b', 15)] });
    assert.equal(out.readyReplicas, 15);
    assert.equal(out.availableReplicas, 15);
    assert.equal(out.unavailableReplicas, 15);
    const available = out.conditions!.find((c) => c.type === 'Available')!;
    assert.equal(available.status, 'False');
    assert.equal(available.reason, 'ClusterUnreachable');
    assert.match(available.message!, /SyncTarget "a": 0\/15 available \(unreachable\)/);
    assert.equal(out.conditions!.find((c) => c.type === 'Progressing')!.status, 'False');
  });

  it('a move in progress is the Moving condition; none without a move', () => {
    const moving = aggregateDeploymentStatus({ generation: 1, replicas: 30, minAvailable: 27, clusters: [healthy('a', 18), starting('b', 18, 9)], move: { from: ['a'], to: ['b'], remaining: 18, floor: 27 }, now: '2026-01-01T00:00:00Z' });
    const c = moving.conditions!.find((x) => x.type === 'Moving')!;
    assert.equal(c.status, 'True');
    assert.equal(c.reason, 'MakeBeforeBreak');
    assert.equal(c.message, 'moving off "a" to "b": 18 replicas left to move, 27 ready (at least 27 kept ready)');
    assert.equal(c.lastTransitionTime, '2026-01-01T00:00:00Z');
    const kept = aggregateDeploymentStatus({ generation: 1, replicas: 30, clusters: [healthy('b', 30)], move: { from: ['a'], to: ['b'], remaining: 0, floor: 27, previous: c }, now: '2026-01-01T00:01:00Z' });
    assert.equal(kept.conditions!.find((x) => x.type === 'Moving')!.lastTransitionTime, '2026-01-01T00:00:00Z');
    const lost = aggregateDeploymentStatus({ generation: 1, replicas: 30, clusters: [healthy('b', 30)], move: { from: ['a'], to: ['b'], remaining: 0, floor: 27, lost: ['a'] } });
    assert.equal(lost.conditions!.find((x) => x.type === 'Moving')!.reason, 'FailingOver');
    assert.equal(aggregateDeploymentStatus({ generation: 1, replicas: 30, clusters: [healthy('b', 30)] }).conditions!.find((x) => x.type === 'Moving'), undefined);
  });
});
