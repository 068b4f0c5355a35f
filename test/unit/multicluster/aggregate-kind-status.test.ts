import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateKindStatus } from '../../../src/multicluster/decisions/aggregate-kind-status.js';

const now = '2026-11-27T10:00:00Z';
const ds = (observedGeneration: number, n: number) => ({ observedGeneration, desiredNumberScheduled: n, currentNumberScheduled: n, numberReady: n, updatedNumberScheduled: n, numberAvailable: n, numberMisscheduled: 0 });

describe('aggregateKindStatus: one status from several clusters, as the kind\'s controller would write it', () => {
  it('DaemonSet: counters summed, observedGeneration once every cluster observed the generation', () => {
    const got = aggregateKindStatus({ kind: 'DaemonSet', generation: 3, clusters: [{ cluster: 'b', status: ds(3, 2) }, { cluster: 'a', status: { ...ds(3, 1), numberUnavailable: 1, numberAvailable: 0 } }], now });
    assert.deepEqual(got, { observedGeneration: 3, currentNumberScheduled: 3, numberMisscheduled: 0, desiredNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 3, numberAvailable: 2, numberUnavailable: 1 });
  });

  it('DaemonSet: a cluster behind or not reported keeps observedGeneration below the generation', () => {
    const behind = aggregateKindStatus({ kind: 'DaemonSet', generation: 3, clusters: [{ cluster: 'a', status: ds(3, 1) }, { cluster: 'b', status: ds(2, 1) }], previous: { observedGeneration: 2 }, now });
    assert.equal(behind.observedGeneration, 2);
    const missing = aggregateKindStatus({ kind: 'DaemonSet', generation: 1, clusters: [{ cluster: 'a', status: ds(1, 1) }, { cluster: 'b' }], now });
    assert.equal(missing.observedGeneration, undefined);
    assert.equal(missing.numberReady, 1, 'an unreported cluster counts as zeros');
    const lowered = aggregateKindStatus({ kind: 'DaemonSet', generation: 4, clusters: [{ cluster: 'a' }], previous: { observedGeneration: 4 }, now });
    assert.equal(lowered.observedGeneration, 3, 'a new generation nobody observed yet lowers what the object showed');
  });

  it('Service: load balancer addresses are the union, in cluster order, without duplicates', () => {
    const got = aggregateKindStatus({
      kind: 'Service',
      clusters: [
        { cluster: 'b', status: { loadBalancer: { ingress: [{ ip: '2.2.2.2' }, { ip: '1.1.1.1' }] } } },
        { cluster: 'a', status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] }, conditions: [{ type: 'LoadBalancerPortsError', status: 'False' }] } },
        { cluster: 'c', status: { loadBalancer: {} } },
      ],
      now,
    });
    assert.deepEqual(got, { loadBalancer: { ingress: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }] }, conditions: [{ type: 'LoadBalancerPortsError', status: 'False' }] });
  });

  it('Ingress: addresses and host names of every cluster; none yet is an empty loadBalancer', () => {
    assert.deepEqual(aggregateKindStatus({ kind: 'Ingress', clusters: [{ cluster: 'a', status: { loadBalancer: { ingress: [{ hostname: 'a.example' }] } } }, { cluster: 'b', status: { loadBalancer: { ingress: [{ ip: '10.0.0.2', ports: [{ port: 443, protocol: 'TCP' }] }] } } }], now }), {
      loadBalancer: { ingress: [{ hostname: 'a.example' }, { ip: '10.0.0.2', ports: [{ port: 443, protocol: 'TCP' }] }] },
    });
    assert.deepEqual(aggregateKindStatus({ kind: 'Ingress', clusters: [{ cluster: 'a' }], now }), { loadBalancer: {} });
  });

  it('PodDisruptionBudget: counts summed, DisruptionAllowed while some cluster allows one', () => {
    const pdb = (healthy: number, desired: number, allowed: number) => ({ observedGeneration: 1, currentHealthy: healthy, desiredHealthy: desired, expectedPods: healthy, disruptionsAllowed: allowed, conditions: [{ type: 'DisruptionAllowed', status: allowed > 0 ? 'True' : 'False', reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods', message: '' }] });
    const got = aggregateKindStatus({ kind: 'PodDisruptionBudget', generation: 1, clusters: [{ cluster: 'a', status: pdb(2, 2, 0) }, { cluster: 'b', status: pdb(2, 1, 1) }], now });
    assert.deepEqual(got, { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 4, desiredHealthy: 3, expectedPods: 4, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: now, observedGeneration: 1 }] });
    const blocked = aggregateKindStatus({ kind: 'PodDisruptionBudget', generation: 1, clusters: [{ cluster: 'a', status: pdb(1, 2, 0) }], previous: { conditions: [{ type: 'DisruptionAllowed', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }] }, now });
    assert.deepEqual((blocked.conditions as unknown[])[0], { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 });
  });

  it('PersistentVolumeClaim: Bound only when Bound everywhere', () => {
    const bound = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
    assert.deepEqual(aggregateKindStatus({ kind: 'PersistentVolumeClaim', clusters: [{ cluster: 'a', status: bound }, { cluster: 'b', status: bound }], now }), bound);
    assert.equal(aggregateKindStatus({ kind: 'PersistentVolumeClaim', clusters: [{ cluster: 'a', status: bound }, { cluster: 'b', status: { phase: 'Pending' } }], now }).phase, 'Pending');
    assert.equal(aggregateKindStatus({ kind: 'PersistentVolumeClaim', clusters: [{ cluster: 'a', status: bound }, { cluster: 'b' }], now }).phase, 'Pending');
  });

  it('any other kind: the first reporting cluster\'s status', () => {
    assert.deepEqual(aggregateKindStatus({ kind: 'Pod', clusters: [{ cluster: 'b', status: { phase: 'Running' } }, { cluster: 'a' }], now }), { phase: 'Running' });
  });
});
