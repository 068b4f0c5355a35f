/** The pure parts of the simulated cluster, table-driven: quantities, flags, rollout arithmetic, fit and hashing. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { integerValue, isQuantity, milliValue } from '../../src/apimachinery/quantity.js';
import { defaultImagePullPolicy } from '../../src/registry/builtin/workloads/defaults.js';
import { podQOSClass } from '../../src/registry/builtin/workloads/qos.js';
import { podStatusReason, podSummary } from '../../src/registry/builtin/workloads/printers.js';
import { parseFlagDuration as parseDuration } from '../../src/apimachinery/go-duration.js';
import { parseNodeCapacity } from '../../src/pcluster/options.js';
import { type ScalableReplicaSet, isScalingEvent, newReplicaSetReplicas, oldReplicaSetTargets, proportionalScale, resolveFenceposts } from '../../src/pcluster/controllers/deployment/rollout-math.js';
import { computeTemplateHash } from '../../src/registry/builtin/workloads/pod-template-hash.js';
import { templateMatches } from '../../src/pcluster/controllers/deployment/controller.js';
import { insufficientResources, podRequests, unschedulableMessage } from '../../src/pcluster/controllers/scheduling-fit.js';

describe('quantities', () => {
  const cases: [string, number, number][] = [
    ['100m', 100, 1],
    ['1', 1000, 1],
    ['1.5', 1500, 2],
    ['16Gi', 16 * 2 ** 30 * 1000, 16 * 2 ** 30],
    ['64Mi', 64 * 2 ** 20 * 1000, 64 * 2 ** 20],
    ['1k', 1_000_000, 1000],
    ['1e3', 1_000_000, 1000],
  ];
  for (const [q, milli, value] of cases) {
    it(`${q} → ${milli}m, ${value}`, () => {
      assert.equal(milliValue(q), milli);
      assert.equal(integerValue(q), value);
    });
  }
  for (const bad of ['', 'abc', '1Gb', '--1', '1 Gi']) it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(isQuantity(bad), false));
});

describe('pcluster flags', () => {
  it('parses --node-capacity with defaults for what is missing', () => {
    assert.deepEqual(parseNodeCapacity('cpu=8'), { cpu: '8', memory: '16Gi', pods: '110' });
    assert.deepEqual(parseNodeCapacity('cpu=2,memory=4Gi,pods=10,nvidia.com/gpu=1'), { cpu: '2', memory: '4Gi', pods: '10', 'nvidia.com/gpu': '1' });
    assert.throws(() => parseNodeCapacity('cpu'), /expected name=quantity/);
    assert.throws(() => parseNodeCapacity('cpu=lots'), /"lots" is not a quantity/);
  });
  const durations: [string, number][] = [['1s', 1000], ['500ms', 500], ['1m30s', 90_000], ['0', 0], ['2h', 7_200_000], ['1.5s', 1500]];
  for (const [text, ms] of durations) it(`--ready-delay ${text} = ${ms}ms`, () => assert.equal(parseDuration(text), ms));
  for (const bad of ['1', 'soon', '1s2', '']) it(`rejects --ready-delay ${JSON.stringify(bad)}`, () => assert.throws(() => parseDuration(bad)));
});

describe('rolling update arithmetic', () => {
  it('resolves maxSurge up and maxUnavailable down, never both zero', () => {
    assert.deepEqual(resolveFenceposts('25%', '25%', 3), { surge: 1, unavailable: 0 });
    assert.deepEqual(resolveFenceposts('25%', '25%', 10), { surge: 3, unavailable: 2 });
    assert.deepEqual(resolveFenceposts(0, 0, 5), { surge: 0, unavailable: 1 });
    assert.deepEqual(resolveFenceposts(2, '50%', 5), { surge: 2, unavailable: 2 });
  });
  const grow: [string, number, number, number, number, number][] = [
    ['fresh deployment grows to desired', 3, 1, 0, 0, 3],
    ['rollout surges one above desired', 3, 1, 3, 0, 1],
    ['at the surge limit nothing changes', 3, 1, 4, 1, 1],
    ['stable scale-up', 5, 2, 3, 3, 5],
  ];
  for (const [name, desired, surge, total, current, want] of grow) it(name, () => assert.equal(newReplicaSetReplicas(desired, surge, total, current), want));
  const shrink: [string, { spec: number; available: number }[], Parameters<typeof oldReplicaSetTargets>[1], number[]][] = [
    ['waits while the new pods are not available', [{ spec: 3, available: 3 }], { desired: 3, unavailable: 0, newRSSpecReplicas: 1, newRSAvailable: 0 }, [3]],
    ['removes one old pod per available new one', [{ spec: 3, available: 3 }], { desired: 3, unavailable: 0, newRSSpecReplicas: 1, newRSAvailable: 1 }, [2]],
    ['removes unhealthy old pods first', [{ spec: 3, available: 0 }], { desired: 3, unavailable: 1, newRSSpecReplicas: 1, newRSAvailable: 0 }, [2]],
    // Rollover: an adopted healthy ReplicaSet (oldest) and a stuck one (an image that cannot be pulled); the stuck
    // one goes first and the healthy pod stays until a new one is available.
    ['scales down the unhealthy ReplicaSet, not the older healthy one', [{ spec: 1, available: 1 }, { spec: 1, available: 0 }], { desired: 1, unavailable: 0, newRSSpecReplicas: 0, newRSAvailable: 0 }, [1, 0]],
    ['then the healthy one once a new pod is available', [{ spec: 1, available: 1 }, { spec: 0, available: 0 }], { desired: 1, unavailable: 0, newRSSpecReplicas: 1, newRSAvailable: 1 }, [0, 0]],
  ];
  for (const [name, old, input, want] of shrink) it(name, () => assert.deepEqual(oldReplicaSetTargets(old, input), want));
  const rs = (name: string, spec: number, created: number, extra: Partial<ScalableReplicaSet> = {}): ScalableReplicaSet => ({ name, spec, available: spec, created, desired: 10, maxReplicas: 13, ...extra });
  it('a scaling event is an active set sized for another Deployment size', () => {
    assert.equal(isScalingEvent([rs('a', 8, 1), rs('b', 0, 2, { desired: 3 })], 10), false);
    assert.equal(isScalingEvent([rs('a', 8, 1)], 30), true);
  });
  it('scales a rollout in proportion (upstream e2e: 8 + 5 of 10 with maxSurge 3, scaled to 30 → 20 + 13)', () => {
    const targets = proportionalScale({ replicas: 30, maxSurge: 3, statusReplicas: 13, rollingUpdate: true }, rs('second', 5, 2, { available: 0 }), [rs('first', 8, 1)]);
    assert.deepEqual(Object.fromEntries(targets), { first: 20, second: 13 });
  });
  it('scales down in proportion, leftovers to the largest, and to zero entirely', () => {
    assert.deepEqual(Object.fromEntries(proportionalScale({ replicas: 5, maxSurge: 1, statusReplicas: 13, rollingUpdate: true }, rs('new', 5, 2, { available: 0 }), [rs('old', 8, 1)])), { old: 4, new: 2 });
    assert.deepEqual(Object.fromEntries(proportionalScale({ replicas: 0, maxSurge: 1, statusReplicas: 13, rollingUpdate: true }, rs('new', 5, 2, { available: 0 }), [rs('old', 8, 1)])), { old: 0, new: 0 });
  });
  it('gives a single active set the whole size, and a saturated new set all of it', () => {
    assert.deepEqual(Object.fromEntries(proportionalScale({ replicas: 4, maxSurge: 1, statusReplicas: 3, rollingUpdate: true }, rs('new', 3, 2), [rs('old', 0, 1)])), { new: 4 });
    assert.deepEqual(Object.fromEntries(proportionalScale({ replicas: 4, maxSurge: 1, statusReplicas: 5, rollingUpdate: true }, rs('new', 4, 2, { desired: 4 }), [rs('old', 1, 1)])), { old: 0 });
  });
});

describe('pod templates', () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  it('hashes equal templates equally and differently otherwise, in the safe alphabet', () => {
    const h = computeTemplateHash(template);
    assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(computeTemplateHash(JSON.parse(JSON.stringify(template))), h);
    assert.notEqual(computeTemplateHash({ ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }), h);
    assert.notEqual(computeTemplateHash(template, 1), h);
  });
  it('matches a ReplicaSet template ignoring only pod-template-hash', () => {
    assert.equal(templateMatches({ ...template, metadata: { labels: { app: 'web', 'pod-template-hash': 'x' } } }, template), true);
    assert.equal(templateMatches({ ...template, metadata: { labels: { app: 'api', 'pod-template-hash': 'x' } } }, template), false);
  });
  const pulls: [string, string][] = [['nginx', 'Always'], ['nginx:latest', 'Always'], ['nginx:1.27', 'IfNotPresent'], ['localhost:5000/app', 'Always'], ['repo/app@sha256:abc', 'IfNotPresent']];
  for (const [image, policy] of pulls) it(`imagePullPolicy of ${image} is ${policy}`, () => assert.equal(defaultImagePullPolicy(image), policy));
});

describe('scheduling fit', () => {
  const pod = (cpu?: string, memory?: string) => ({ spec: { containers: [{ name: 'c', resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } }] } });
  it('sums container requests and counts scoring defaults only when asked', () => {
    assert.deepEqual(podRequests(pod('250m', '1Gi')), { cpu: 250, memory: 2 ** 30, pods: 1 });
    assert.deepEqual(podRequests(pod()), { cpu: 0, memory: 0, pods: 1 });
    assert.deepEqual(podRequests(pod(), true), { cpu: 100, memory: 200 * 2 ** 20, pods: 1 });
  });
  it('names every insufficient resource', () => {
    const alloc = { cpu: 2000, memory: 2 ** 30, pods: 2 };
    assert.deepEqual(insufficientResources({ cpu: 3000, memory: 2 ** 31, pods: 1 }, { cpu: 0, memory: 0, pods: 2 }, alloc), ['Too many pods', 'Insufficient cpu', 'Insufficient memory']);
    assert.deepEqual(insufficientResources({ cpu: 1000, memory: 0, pods: 1 }, { cpu: 1000, memory: 0, pods: 1 }, alloc), []);
  });
  it('formats the FitError message as upstream', () => {
    assert.equal(unschedulableMessage(2, [['Insufficient cpu'], ['Insufficient cpu']]), '0/2 nodes are available: 2 Insufficient cpu.');
    assert.equal(unschedulableMessage(3, [['Insufficient cpu'], ['Insufficient memory', 'Insufficient cpu'], ['Insufficient cpu']]), '0/3 nodes are available: 1 Insufficient memory, 3 Insufficient cpu.');
    assert.equal(unschedulableMessage(0, []), 'no nodes available to schedule pods');
  });
  it('classifies QoS', () => {
    assert.equal(podQOSClass(pod().spec), 'BestEffort');
    assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] }), 'Guaranteed');
    assert.equal(podQOSClass(pod('1').spec), 'Burstable');
  });
});

describe('pod STATUS column', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['pending without statuses', { status: { phase: 'Pending' } }, 'Pending'],
    ['creating', { status: { phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] } }, 'ContainerCreating'],
    ['running', { status: { phase: 'Running', containerStatuses: [{ ready: true, state: { running: {} } }] } }, 'Running'],
    ['crash', { status: { phase: 'Running', containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] } }, 'CrashLoopBackOff'],
    ['exit code', { status: { phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 2 } } }] } }, 'ExitCode:2'],
    ['terminating', { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, status: { phase: 'Running' } }, 'Terminating'],
  ];
  for (const [name, pod, want] of cases) it(name, () => assert.equal(podStatusReason(pod), want));
});

describe('pod READY, STATUS and RESTARTS with init containers and sidecars (printPod)', () => {
  const running = { ready: true, started: true, state: { running: { startedAt: '2024-01-01T00:00:00Z' } } };
  const done = { ready: true, started: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } };
  const spec = { initContainers: [{ name: 'setup' }, { name: 'shipper', restartPolicy: 'Always' }], containers: [{ name: 'app' }] };
  const initialized = [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }];
  const at = Date.parse('2024-01-01T00:10:00Z');
  const cases: [string, Record<string, unknown>, { ready: number; total: number; reason: string; restarts: string }][] = [
    ['a ready sidecar counts among the containers', { spec, status: { phase: 'Running', conditions: initialized, initContainerStatuses: [{ name: 'setup', ...done }, { name: 'shipper', ...running }], containerStatuses: [{ name: 'app', ...running }] } }, { ready: 2, total: 2, reason: 'Running', restarts: '0' }],
    ['init containers still to run', { spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'setup', state: { waiting: { reason: 'PodInitializing' } } }, { name: 'shipper', state: { waiting: { reason: 'PodInitializing' } } }], containerStatuses: [{ name: 'app', state: { waiting: { reason: 'PodInitializing' } } }] } }, { ready: 0, total: 2, reason: 'Init:0/2', restarts: '0' }],
    ['the second of two init containers running', { spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'setup', ...done }, { name: 'shipper', started: false, state: { waiting: { reason: 'PodInitializing' } } }] } }, { ready: 0, total: 2, reason: 'Init:1/2', restarts: '0' }],
    ['a failing init container', { spec, status: { phase: 'Pending', initContainerStatuses: [{ name: 'setup', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: '2024-01-01T00:08:00Z' } } }] } }, { ready: 0, total: 2, reason: 'Init:CrashLoopBackOff', restarts: '3 (2m ago)' }],
    ['an init container that exited non-zero without a reason', { spec, status: { phase: 'Failed', initContainerStatuses: [{ name: 'setup', state: { terminated: { exitCode: 7 } } }] } }, { ready: 0, total: 2, reason: 'Init:ExitCode:7', restarts: '0' }],
    ['once initialized, only the sidecars\' restarts count of the init containers', { spec, status: { phase: 'Running', conditions: initialized, initContainerStatuses: [{ name: 'setup', ...done, restartCount: 4 }, { name: 'shipper', ...running, restartCount: 1 }], containerStatuses: [{ name: 'app', ...running, restartCount: 2, lastState: { terminated: { exitCode: 1, finishedAt: '2024-01-01T00:09:00Z' } } }] } }, { ready: 2, total: 2, reason: 'Running', restarts: '3 (60s ago)' }],
    ['a finished pod being deleted keeps its reason', { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' }, spec: { containers: [{ name: 'app' }] }, status: { phase: 'Succeeded', containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } }, { ready: 0, total: 1, reason: 'Completed', restarts: '0' }],
    ['scheduling gated', { spec: { containers: [{ name: 'app' }] }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } }, { ready: 0, total: 1, reason: 'SchedulingGated', restarts: '0' }],
  ];
  for (const [name, pod, want] of cases) it(name, () => assert.deepEqual(podSummary(pod, at), want));
});
