/**
 * The splitter's and scheduler's capacity inputs: the per-workload replica estimate from SyncTarget allocatable,
 * pod requests of a template, the unschedulable tracker's grace period, and which resources the scheduler requires.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { estimateAvailableReplicas, podRequestsOf } from '../../../src/multicluster/decisions/capacity-estimate.js';
import { UnschedulableTracker, isUnscheduled, mirrorPlaceKeys, unschedulableReplicas } from '../../../src/multicluster/splitter/unschedulable.js';
import { podRoomOf, requiredResourcesOf } from '../../../src/multicluster/scheduling/controller.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const template = (...requests: Record<string, string>[]) => ({ spec: { containers: requests.map((r, i) => ({ name: `c${i}`, resources: { requests: r } })) } });

describe('podRequestsOf', () => {
  it('sums containers and falls back to limits', () => {
    assert.deepEqual(podRequestsOf(template({ cpu: '500m', memory: '1Gi' }, { cpu: '0.25' })), { cpuMilli: 750, memory: 2 ** 30 });
    assert.deepEqual(podRequestsOf({ spec: { containers: [{ name: 'c', resources: { limits: { cpu: '2' } } }] } }), { cpuMilli: 2000, memory: 0 });
    assert.deepEqual(podRequestsOf(undefined), { cpuMilli: 0, memory: 0 });
    assert.deepEqual(podRequestsOf(template({ cpu: 'lots' })), { cpuMilli: 0, memory: 0 });
  });
});

describe('estimateAvailableReplicas', () => {
  const cases: { name: string; allocatable?: Record<string, string>; requests: { cpuMilli: number; memory: number }; others?: { requests: { cpuMilli: number; memory: number }; replicas: number }[]; want: number | undefined }[] = [
    { name: 'no allocatable reported: unknown', requests: { cpuMilli: 100, memory: 0 }, want: undefined },
    { name: 'pods only', allocatable: { pods: '10' }, requests: { cpuMilli: 0, memory: 0 }, want: 10 },
    { name: 'cpu limits', allocatable: { cpu: '2', pods: '110' }, requests: { cpuMilli: 600, memory: 0 }, want: 3 },
    { name: 'memory limits', allocatable: { memory: '4Gi', cpu: '8' }, requests: { cpuMilli: 100, memory: 2 ** 30 * 1.5 }, want: 2 },
    { name: 'others use room', allocatable: { cpu: '4', pods: '5' }, requests: { cpuMilli: 500, memory: 0 }, others: [{ requests: { cpuMilli: 1000, memory: 0 }, replicas: 2 }], want: 3 },
    { name: 'full: never negative', allocatable: { cpu: '1' }, requests: { cpuMilli: 500, memory: 0 }, others: [{ requests: { cpuMilli: 800, memory: 0 }, replicas: 2 }], want: 0 },
    { name: 'no request for a reported resource: not limited by it', allocatable: { cpu: '1' }, requests: { cpuMilli: 0, memory: 0 }, want: undefined },
  ];
  for (const c of cases) it(c.name, () => assert.equal(estimateAvailableReplicas(c.allocatable, c.requests, c.others ?? []), c.want));
});

describe('UnschedulableTracker', () => {
  const child = (replicas: number, ready: number): KubeObject => ({ metadata: { name: 'web--a', namespace: 'default', uid: 'u1' }, spec: { replicas }, status: { readyReplicas: ready } });

  it('counts the missing replicas only after the grace period, and restarts it when spec.replicas changes', () => {
    const t = new UnschedulableTracker(1000);
    assert.equal(t.observe(child(3, 2), true, 0), 0);
    assert.equal(t.observe(child(3, 2), true, 999), 0);
    assert.equal(t.observe(child(3, 2), true, 1000), 1);
    assert.equal(t.observe(child(4, 2), true, 1500), 0);
    assert.equal(t.observe(child(4, 2), true, 2500), 2);
  });

  it('forgets a child that caught up, whose target is not Ready, or that was removed', () => {
    const t = new UnschedulableTracker(1000);
    t.observe(child(3, 1), true, 0);
    assert.equal(t.observe(child(3, 3), true, 5000), 0);
    assert.equal(t.observe(child(3, 1), true, 5001), 0, 'grace restarts after catching up');
    assert.equal(t.observe(child(3, 1), false, 9000), 0, 'an unreachable cluster is not unschedulable');
    t.observe(child(3, 1), true, 10_000);
    t.retain([]);
    assert.equal(t.observe(child(3, 1), true, 20_000), 0, 'retain dropped it');
  });
});

describe('unscheduled pods of a split child', () => {
  const pod = (name: string, opts: { app?: string; mirror?: boolean; nodeName?: string; scheduled?: { status: string; reason?: string }; deleting?: boolean; cluster?: string } = {}): KubeObject => ({
    metadata: {
      name,
      namespace: 'shop',
      annotations: { 'kcp.io/cluster': 'root:apps' },
      labels: { app: opts.app ?? 'web', 'pod-template-hash': '6d4b9c7f8', ...(opts.mirror === false ? {} : { 'scheduling.atrium.io/mirror': 'true', 'scheduling.atrium.io/cluster': opts.cluster ?? 'pc-1' }) },
      ...(opts.deleting ? { deletionTimestamp: '2026-11-28T00:00:00Z' } : {}),
    },
    spec: opts.nodeName ? { nodeName: opts.nodeName } : {},
    status: { phase: opts.nodeName ? 'Running' : 'Pending', conditions: opts.scheduled ? [{ type: 'PodScheduled', ...opts.scheduled }] : [] },
  });
  const turnedAway = { status: 'False', reason: 'Unschedulable' };
  const running = (name: string) => pod(name, { scheduled: { status: 'True' }, nodeName: 'pc-1--n1' });
  const child = (replicas: number): KubeObject => ({ metadata: { name: 'web--pc-1', namespace: 'shop' }, spec: { replicas, selector: { matchLabels: { app: 'web' } } } });

  it('counts only pods the scheduler turned away, not pods that run unready or are going', () => {
    assert.equal(isUnscheduled(pod('p', { scheduled: turnedAway })), true);
    assert.equal(isUnscheduled(running('p')), false, 'scheduled (running, maybe not ready)');
    assert.equal(isUnscheduled(pod('p')), false, 'not yet looked at by the scheduler');
    assert.equal(isUnscheduled(pod('p', { scheduled: { status: 'False', reason: 'SchedulingGated' } })), false, 'gated, not turned away');
    assert.equal(isUnscheduled(pod('p', { scheduled: turnedAway, deleting: true })), false);
    assert.equal(isUnscheduled(pod('p', { scheduled: turnedAway, nodeName: 'n1' })), false, 'bound since');
  });

  it('indexes pod mirrors under their workspace, namespace and cluster', () => {
    assert.deepEqual(mirrorPlaceKeys(pod('web--pc-1-6d4b9c7f8-x2k9q')), ['root:apps|shop|pc-1']);
    assert.deepEqual(mirrorPlaceKeys(pod('web-1', { mirror: false })), [], 'a workspace pod of its own');
  });

  it('moves the replicas turned away or never made, not those running unready; with no mirror at all, the whole shortfall', () => {
    // 3 wanted, 1 ready: 2 short. One runs unready, one was turned away.
    assert.equal(unschedulableReplicas(child(3), 2, [running('a'), running('b'), pod('c', { scheduled: turnedAway })]), 1);
    // Running but not ready yet (a readiness probe's initial delay): nothing moves.
    assert.equal(unschedulableReplicas(child(1), 1, [running('a')]), 0);
    // Only 1 of 3 pods made (a quota refused the others): the 2 never made move.
    assert.equal(unschedulableReplicas(child(3), 2, [running('a')]), 2);
    // Another Deployment's pods (not selected) and going pods do not count.
    assert.equal(unschedulableReplicas(child(2), 2, [pod('x', { app: 'other', scheduled: turnedAway }), running('a'), pod('b', { deleting: true, scheduled: turnedAway })]), 1);
    // No mirror of the child (its SyncTarget does not sync pods up): the shortfall as the status says.
    assert.equal(unschedulableReplicas(child(3), 2, []), 2);
    assert.equal(unschedulableReplicas(child(3), 0, [pod('c', { scheduled: turnedAway })]), 0, 'not short: nothing');
  });
});

describe('scheduler inputs', () => {
  const target = (name: string, ready: boolean, synced?: { group: string; resource: string; state: 'Accepted' | 'Incompatible' | 'Pending' }[], allocatable?: Record<string, string>) => ({
    metadata: { name },
    status: { conditions: [{ type: 'Ready', status: ready ? ('True' as const) : ('False' as const) }], ...(synced ? { syncedResources: synced } : {}), ...(allocatable ? { allocatable } : {}) },
  });
  const deployments = { group: 'apps', resource: 'deployments' };

  it('requires Deployments once every Ready target reported them', () => {
    assert.deepEqual(requiredResourcesOf([]), []);
    assert.deepEqual(requiredResourcesOf([target('a', true, [{ ...deployments, state: 'Accepted' }]), target('b', true)]), []);
    assert.deepEqual(requiredResourcesOf([target('a', true, [{ ...deployments, state: 'Accepted' }]), target('b', true, [{ ...deployments, state: 'Pending' }])]), [], 'still negotiating');
    assert.deepEqual(requiredResourcesOf([target('a', true, [{ ...deployments, state: 'Accepted' }]), target('b', true, [{ ...deployments, state: 'Incompatible' }])]), [deployments]);
    assert.deepEqual(requiredResourcesOf([target('a', true, [{ ...deployments, state: 'Accepted' }]), target('b', false)]), [deployments], 'a not-Ready target does not hold it back');
  });

  it('reports pod room only for targets with allocatable', () => {
    assert.deepEqual(podRoomOf([target('a', true, undefined, { pods: '110', cpu: '4' }), target('b', true), target('c', true, undefined, { pods: '0' })] as never), { a: 110, c: 0 });
  });
});
