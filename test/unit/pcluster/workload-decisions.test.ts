/**
 * The pure decisions of the simulated cluster's workload controllers, table-driven: cron next times, CronJob
 * schedule accounting, StatefulSet ordering and rollout steps, claim retention, DaemonSet placement and rollouts,
 * taints and node affinity, Job accounting, HPA arithmetic, disruption budgets, the simulated pod run, and
 * ControllerRevision history.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCronSchedule } from '../../../src/registry/builtin/workloads/cron.js';
import { formatInZone, jobNameFor, jobsBeyondLimit, mostRecentScheduleTime, SimClock, untilNextSchedule } from '../../../src/pcluster/controllers/cronjob/schedule.js';
import { claimOwnerReferences, planStatefulSet, revisionForNewPod, statefulSetStatus, type SetPod } from '../../../src/pcluster/controllers/statefulset/decisions.js';
import { nodeShouldRunDaemonPod, podsShouldBeOnNode, rollingUpdate, surgeAndUnavailable } from '../../../src/pcluster/controllers/daemonset/decisions.js';
import { nodeFilterReason, targetNodeName, toleratesTaint, withNodeNameAffinity } from '../../../src/pcluster/controllers/node-affinity.js';
import {
  classifyPods,
  ensureCondition,
  failureBackoffRemaining,
  failureReason,
  firstPendingIndexes,
  formatIndexes,
  isComplete,
  parseIndexes,
  pastBackoffLimitOnFailure,
  wantActive,
  type Job,
  type JobCondition,
} from '../../../src/pcluster/controllers/job/accounting.js';
import { ttlRemaining } from '../../../src/pcluster/controllers/job/ttl-after-finished.js';
import { limitByBehaviorRate, limitWithRules, rawResourceReplicas, resourceReplicas, stabilizeRecommendation, stabilizeWithBehaviors } from '../../../src/pcluster/controllers/hpa/math.js';
import { formatMilliQuantity, podRequest, podUsage } from '../../../src/pcluster/controllers/hpa/metrics.js';
import { countHealthy, disruptedPodsOf, DISRUPTION_DELETION_TIMEOUT_MS, expectedPodCount, pdbStatus } from '../../../src/pcluster/controllers/disruption/budget.js';
import { completedStatus } from '../../../src/pcluster/controllers/pod-run.js';
import { equalRevisions, revisionsToPrune, templatePatch } from '../../../src/pcluster/controllers/controller-history.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('cron schedules: next activation', () => {
  const cases: [string, string | undefined, string, string | undefined][] = [
    ['* * * * *', undefined, '2025-03-10T10:00:30Z', '2025-03-10T10:01:00.000Z'],
    ['* * * * *', undefined, '2025-03-10T10:01:00Z', '2025-03-10T10:02:00.000Z'],
    ['*/15 * * * *', undefined, '2025-03-10T10:16:00Z', '2025-03-10T10:30:00.000Z'],
    ['0 0 * * 0', undefined, '2025-03-10T10:00:00Z', '2025-03-16T00:00:00.000Z'],
    ['30 6 1 * 1', undefined, '2025-03-10T10:00:00Z', '2025-03-17T06:30:00.000Z'], // day of month OR day of week
    ['0 12 * * */2', undefined, '2025-03-10T13:00:00Z', '2025-03-11T12:00:00.000Z'], // */2 is not a star: Tuesday
    ['0 0 1 1 *', undefined, '2025-03-10T10:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['@hourly', undefined, '2025-03-10T10:20:00Z', '2025-03-10T11:00:00.000Z'],
    ['@every 90s', undefined, '2025-03-10T10:20:00.500Z', '2025-03-10T10:21:30.000Z'],
    ['59 23 31 2 *', undefined, '2025-03-10T10:00:00Z', undefined], // never
    ['0 9 * * *', 'Europe/Berlin', '2025-03-10T10:00:00Z', '2025-03-11T08:00:00.000Z'], // CET: UTC+1
    ['0 9 * * *', 'Europe/Berlin', '2025-03-30T06:00:00Z', '2025-03-30T07:00:00.000Z'], // CEST from that day: UTC+2
    ['30 2 * * *', 'Europe/Berlin', '2025-03-29T12:00:00Z', '2025-03-31T00:30:00.000Z'], // 02:30 does not exist that night: skipped
    ['30 2 * * *', 'Europe/Berlin', '2025-10-25T12:00:00Z', '2025-10-26T00:30:00.000Z'], // it exists twice: the first
    ['TZ=Asia/Tokyo 0 0 * * *', undefined, '2025-03-10T10:00:00Z', '2025-03-10T15:00:00.000Z'],
  ];
  for (const [spec, zone, after, want] of cases) {
    it(`${spec}${zone ? ` in ${zone}` : ''} after ${after} → ${want ?? 'never'}`, () => {
      assert.equal(iso(parseCronSchedule(spec, zone).next(new Date(after))?.getTime()), want);
    });
  }
});

describe('CronJob schedule accounting', () => {
  const cj = (extra: Record<string, unknown> = {}, status: Record<string, unknown> = {}) => ({ metadata: { name: 'tick' }, spec: { schedule: '*/5 * * * *', ...extra }, status });
  const sched = parseCronSchedule('*/5 * * * *');
  const created = at('2025-03-10T10:01:00Z');
  it('nothing is due before the first time', () => {
    assert.deepEqual(mostRecentScheduleTime(cj(), at('2025-03-10T10:04:00Z'), sched, true, created), { earliest: created, missed: 'none' });
  });
  it('the one time due', () => {
    assert.equal(iso(mostRecentScheduleTime(cj(), at('2025-03-10T10:07:00Z'), sched, true, created).mostRecent), '2025-03-10T10:05:00.000Z');
  });
  it('the latest of several missed times', () => {
    const r = mostRecentScheduleTime(cj(), at('2025-03-10T10:31:00Z'), sched, true, created);
    assert.deepEqual([iso(r.mostRecent), r.missed], ['2025-03-10T10:30:00.000Z', 'few']);
  });
  it('counts from lastScheduleTime', () => {
    const r = mostRecentScheduleTime(cj({}, { lastScheduleTime: '2025-03-10T10:30:00Z' }), at('2025-03-10T10:34:00Z'), sched, true, created);
    assert.equal(r.mostRecent, undefined);
  });
  it('more than 100 missed times is "many"', () => {
    assert.equal(mostRecentScheduleTime(cj(), at('2025-03-11T10:00:00Z'), sched, true, created).missed, 'many');
  });
  it('startingDeadlineSeconds moves the earliest time up', () => {
    const r = mostRecentScheduleTime(cj({ startingDeadlineSeconds: 120 }), at('2025-03-11T10:01:00Z'), sched, true, created);
    assert.deepEqual([iso(r.mostRecent), r.missed], ['2025-03-11T10:00:00.000Z', 'none']);
  });
  it('looks again 100 ms after the next time', () => {
    assert.equal(untilNextSchedule(cj({}, { lastScheduleTime: '2025-03-10T10:30:00Z' }), at('2025-03-10T10:31:00Z'), sched, created), 4 * 60_000 + 100);
  });
  it('names Jobs by the scheduled minute and stamps the time in the zone', () => {
    assert.equal(jobNameFor('tick', at('2025-03-10T10:05:00Z')), `tick-${at('2025-03-10T10:05:00Z') / 60_000}`);
    assert.equal(formatInZone(at('2025-03-10T10:05:00Z'), 'UTC'), '2025-03-10T10:05:00Z');
    assert.equal(formatInZone(at('2025-03-10T10:05:00Z'), 'Asia/Kolkata'), '2025-03-10T15:35:00+05:30');
    assert.equal(formatInZone(at('2025-03-10T10:05:00Z'), 'America/New_York'), '2025-03-10T06:05:00-04:00');
  });
  it('removes the oldest finished Jobs beyond the limit (never-started ones last)', () => {
    const j = (name: string, start?: string) => ({ metadata: { name }, status: start ? { startTime: start } : {} });
    const jobs = [j('c', '2025-01-01T00:03:00Z'), j('a', '2025-01-01T00:01:00Z'), j('x'), j('b', '2025-01-01T00:02:00Z')];
    assert.deepEqual(jobsBeyondLimit(jobs, 2).map((x) => x.metadata?.name), ['a', 'b']);
    assert.deepEqual(jobsBeyondLimit(jobs, 4), []);
  });
  it('a sped-up clock runs from its origin', () => {
    const clock = new SimClock(60, 1_000_000);
    assert.equal(clock.toSim(1_001_000), 1_060_000);
    assert.equal(clock.realDuration(60_000), 1000);
  });
});

const pod = (name: string, ordinal: number, revision: string, state: 'ready' | 'pending' | 'failed' | 'terminating' = 'ready'): SetPod => ({
  name,
  ordinal,
  revision,
  phase: state === 'failed' ? 'Failed' : state === 'pending' ? 'Pending' : 'Running',
  runningAndReady: state === 'ready' || state === 'terminating',
  available: state === 'ready' || state === 'terminating',
  terminating: state === 'terminating',
});

describe('StatefulSet plan', () => {
  const base = { replicas: 3, startOrdinal: 0, monotonic: true, strategy: 'RollingUpdate' as const, partition: 0, updateRevision: 'r2' };
  const cases: [string, Partial<typeof base>, SetPod[], string[]][] = [
    ['creates ordinal 0 first', {}, [], ['create 0']],
    ['waits for a pending predecessor', {}, [pod('s-0', 0, 'r2', 'pending')], []],
    ['creates the next once the previous is ready', {}, [pod('s-0', 0, 'r2')], ['create 1']],
    ['fills a gap before anything else', {}, [pod('s-0', 0, 'r2'), pod('s-2', 2, 'r2')], ['create 1']],
    ['Parallel creates every missing pod at once', { monotonic: false }, [pod('s-1', 1, 'r2', 'pending')], ['create 0', 'create 2']],
    ['deletes a failed pod to recreate it', {}, [pod('s-0', 0, 'r2', 'failed'), pod('s-1', 1, 'r2')], ['delete s-0 finished']],
    ['scales down from the highest ordinal, one at a time', { replicas: 1 }, [pod('s-0', 0, 'r2'), pod('s-1', 1, 'r2'), pod('s-2', 2, 'r2')], ['delete s-2 condemned']],
    ['waits for a terminating pod before the next deletion', { replicas: 1 }, [pod('s-0', 0, 'r2'), pod('s-1', 1, 'r2'), pod('s-2', 2, 'r2', 'terminating')], []],
    ['does not scale down while a predecessor is unhealthy', { replicas: 1 }, [pod('s-0', 0, 'r2', 'pending'), pod('s-1', 1, 'r2')], []],
    ['Parallel scales down every condemned pod at once', { replicas: 1, monotonic: false }, [pod('s-0', 0, 'r2'), pod('s-1', 1, 'r2'), pod('s-2', 2, 'r2')], ['delete s-2 condemned', 'delete s-1 condemned']],
    ['updates the highest ordinal first', {}, [pod('s-0', 0, 'r1'), pod('s-1', 1, 'r1'), pod('s-2', 2, 'r1')], ['delete s-2 update']],
    ['waits for the updated pod to be healthy', {}, [pod('s-0', 0, 'r1'), pod('s-1', 1, 'r1'), pod('s-2', 2, 'r2', 'pending')], []],
    ['continues down once it is', {}, [pod('s-0', 0, 'r1'), pod('s-1', 1, 'r1'), pod('s-2', 2, 'r2')], ['delete s-1 update']],
    ['stops at the partition', { partition: 2 }, [pod('s-0', 0, 'r1'), pod('s-1', 1, 'r1'), pod('s-2', 2, 'r2')], []],
    ['OnDelete never deletes for an update', { strategy: 'OnDelete' as never }, [pod('s-0', 0, 'r1'), pod('s-1', 1, 'r1'), pod('s-2', 2, 'r1')], []],
    ['honors spec.ordinals.start', { startOrdinal: 5, replicas: 2 }, [pod('s-5', 5, 'r2')], ['create 6']],
  ];
  for (const [name, over, pods, want] of cases) {
    it(name, () => {
      const plan = planStatefulSet({ ...base, ...over, pods });
      assert.deepEqual(plan.actions.map((a) => (a.kind === 'create' ? `create ${a.ordinal}` : `delete ${a.name} ${a.why}`)), want);
    });
  }
  it('gives pods below the partition the current revision', () => {
    const input = { strategy: 'RollingUpdate', partition: 2, startOrdinal: 0 };
    assert.deepEqual([0, 1, 2, 3].map((o) => revisionForNewPod(o, input, 'r1', 'r2')), ['r1', 'r1', 'r2', 'r2']);
    assert.equal(revisionForNewPod(0, { ...input, strategy: 'OnDelete' }, 'r1', 'r2'), 'r2');
  });
  it('computes status and completes a rolling update', () => {
    const p = (rev: string, ready = true) => ({
      metadata: { labels: { 'controller-revision-hash': rev } },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2025-01-01T00:00:00Z' }] },
    });
    const input = { generation: 4, updateStrategy: 'RollingUpdate', currentRevision: 'r1', updateRevision: 'r2', collisionCount: 0, minReadySeconds: 0, now: Date.now() };
    assert.deepEqual(statefulSetStatus({ ...input, pods: [p('r1'), p('r2'), p('r2', false)] }), {
      observedGeneration: 4, replicas: 3, readyReplicas: 2, currentReplicas: 1, updatedReplicas: 2, currentRevision: 'r1', updateRevision: 'r2', collisionCount: 0, availableReplicas: 2,
    });
    assert.deepEqual(statefulSetStatus({ ...input, pods: [p('r2'), p('r2')] }), {
      observedGeneration: 4, replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, currentRevision: 'r2', updateRevision: 'r2', collisionCount: 0, availableReplicas: 2,
    });
  });
  it('sets claim owners per retention policy', () => {
    const set = { name: 'web', uid: 's' };
    const p = { name: 'web-2', uid: 'p' };
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x' };
    const uids = (policy: Record<string, string>, scaledDown: boolean) => claimOwnerReferences([other, { uid: 's', kind: 'StatefulSet' }], set, p, policy, scaledDown).map((r) => r.uid);
    assert.deepEqual(uids({ whenDeleted: 'Retain', whenScaled: 'Retain' }, true), ['x']);
    assert.deepEqual(uids({ whenDeleted: 'Delete', whenScaled: 'Retain' }, true), ['x', 's']);
    assert.deepEqual(uids({ whenDeleted: 'Retain', whenScaled: 'Delete' }, true), ['x', 'p']);
    assert.deepEqual(uids({ whenDeleted: 'Retain', whenScaled: 'Delete' }, false), ['x']);
    assert.deepEqual(uids({ whenDeleted: 'Delete', whenScaled: 'Delete' }, true), ['x', 'p']);
    assert.deepEqual(uids({ whenDeleted: 'Delete', whenScaled: 'Delete' }, false), ['x', 's']);
  });
});

const node = (name: string, extra: { labels?: Record<string, string>; taints?: unknown[]; unschedulable?: boolean; ready?: boolean } = {}) => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(extra.labels ?? {}) } },
  spec: { ...(extra.taints ? { taints: extra.taints } : {}), ...(extra.unschedulable ? { unschedulable: true } : {}) },
  status: { conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }] },
});

describe('taints, tolerations and node affinity', () => {
  const cases: [Record<string, unknown>, Record<string, unknown>, boolean][] = [
    [{ key: 'k', operator: 'Exists' }, { key: 'k', value: 'v', effect: 'NoSchedule' }, true],
    [{ key: 'k', value: 'v' }, { key: 'k', value: 'v', effect: 'NoSchedule' }, true],
    [{ key: 'k', value: 'w' }, { key: 'k', value: 'v', effect: 'NoSchedule' }, false],
    [{ key: 'k', operator: 'Exists', effect: 'NoExecute' }, { key: 'k', effect: 'NoSchedule' }, false],
    [{ operator: 'Exists' }, { key: 'anything', effect: 'NoExecute' }, true],
  ];
  for (const [t, taint, want] of cases) it(`${JSON.stringify(t)} tolerates ${JSON.stringify(taint)}: ${want}`, () => assert.equal(toleratesTaint(t as never, taint as never), want));

  const p = (spec: Record<string, unknown>) => ({ spec: { containers: [], ...spec } });
  const reasons: [string, Record<string, unknown>, ReturnType<typeof node>, string | undefined][] = [
    ['fits', {}, node('n1'), undefined],
    ['nodeSelector', { nodeSelector: { disk: 'ssd' } }, node('n1'), "node(s) didn't match Pod's node affinity/selector"],
    ['nodeSelector matches', { nodeSelector: { disk: 'ssd' } }, node('n1', { labels: { disk: 'ssd' } }), undefined],
    ['matchFields', { affinity: withNodeNameAffinity(undefined, 'n2') }, node('n1'), "node(s) didn't match Pod's node affinity/selector"],
    ['matchExpressions Gt', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['3'] }] }] } } } }, node('n1', { labels: { gen: '4' } }), undefined],
    ['taint', {}, node('n1', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }), 'node(s) had untolerated taint {dedicated: db}'],
    ['PreferNoSchedule is no filter', {}, node('n1', { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }] }), undefined],
    ['not ready', {}, node('n1', { ready: false }), 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
    ['cordoned', {}, node('n1', { unschedulable: true }), 'node(s) were unschedulable'],
    ['cordoned, tolerated', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }, node('n1', { unschedulable: true }), undefined],
  ];
  for (const [name, spec, n, want] of reasons) it(`scheduler filter: ${name}`, () => assert.equal(nodeFilterReason(p(spec), n), want));
  it('finds the node a daemon pod targets', () => {
    assert.equal(targetNodeName(p({ affinity: withNodeNameAffinity({ podAffinity: {} }, 'n3') })), 'n3');
    assert.equal(targetNodeName(p({ nodeName: 'n1' })), 'n1');
    assert.equal(targetNodeName(p({})), undefined);
  });
});

describe('DaemonSet decisions', () => {
  const template = (spec: Record<string, unknown> = {}) => ({ metadata: { labels: { app: 'a' } }, spec: { containers: [], ...spec } });
  const cases: [string, Record<string, unknown>, ReturnType<typeof node>, [boolean, boolean]][] = [
    ['any node', {}, node('n1'), [true, true]],
    ['nodeSelector mismatch', { nodeSelector: { disk: 'ssd' } }, node('n1'), [false, false]],
    ['NoSchedule taint: no new pod, the old one stays', {}, node('n1', { taints: [{ key: 'x', effect: 'NoSchedule' }] }), [false, true]],
    ['NoExecute taint: evicted', {}, node('n1', { taints: [{ key: 'x', effect: 'NoExecute' }] }), [false, false]],
    ['tolerated taint', { tolerations: [{ key: 'x', operator: 'Exists' }] }, node('n1', { taints: [{ key: 'x', effect: 'NoExecute' }] }), [true, true]],
    ['cordoned: daemon pods tolerate it', {}, node('n1', { unschedulable: true }), [true, true]],
    ['not ready: no new pod, the old one stays', {}, node('n1', { ready: false }), [false, true]],
    ['template nodeName elsewhere', { nodeName: 'n2' }, node('n1'), [false, false]],
  ];
  for (const [name, spec, n, [run, keep]] of cases) {
    it(`should run: ${name}`, () => assert.deepEqual(nodeShouldRunDaemonPod(n, template(spec)), { shouldRun: run, shouldContinueRunning: keep }));
  }
  const dpod = (name: string, hash: string, opts: { ready?: boolean; phase?: string; created?: string } = {}) => ({
    metadata: { name, creationTimestamp: opts.created ?? '2025-01-01T00:00:00Z', labels: { 'controller-revision-hash': hash } },
    spec: { nodeName: 'n1' },
    status: { phase: opts.phase ?? 'Running', conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True', lastTransitionTime: '2025-01-01T00:00:00Z' }] },
  });
  const now = Date.now();
  it('per node: creates, replaces failed pods, keeps the oldest of duplicates', () => {
    const o = { surge: false, hash: 'h2', minReadySeconds: 0, now };
    assert.deepEqual(podsShouldBeOnNode(node('n1'), template(), [], o), { create: true, delete: [] });
    assert.deepEqual(podsShouldBeOnNode(node('n1'), template(), [dpod('a', 'h2', { phase: 'Failed' })], o), { create: false, delete: ['a'] });
    assert.deepEqual(podsShouldBeOnNode(node('n1'), template(), [dpod('b', 'h2', { created: '2025-01-02T00:00:00Z' }), dpod('a', 'h2')], o), { create: false, delete: ['b'] });
    assert.deepEqual(podsShouldBeOnNode(node('n1', { taints: [{ key: 'x', effect: 'NoExecute' }] }), template(), [dpod('a', 'h2')], o), { create: false, delete: ['a'] });
    // With surge, an old ready pod stays beside a new one until the new one is available.
    assert.deepEqual(podsShouldBeOnNode(node('n1'), template(), [dpod('old', 'h1'), dpod('new', 'h2', { ready: false })], { ...o, surge: true }), { create: false, delete: [] });
    assert.deepEqual(podsShouldBeOnNode(node('n1'), template(), [dpod('old', 'h1'), dpod('new', 'h2')], { ...o, surge: true }), { create: false, delete: ['old'] });
  });
  it('resolves maxSurge and maxUnavailable against the desired count', () => {
    assert.deepEqual(surgeAndUnavailable({ maxUnavailable: 1, maxSurge: 0 }, 10), { maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(surgeAndUnavailable({ maxUnavailable: '25%', maxSurge: 0 }, 10), { maxSurge: 0, maxUnavailable: 3 });
    assert.deepEqual(surgeAndUnavailable({ maxUnavailable: 0, maxSurge: '10%' }, 10), { maxSurge: 1, maxUnavailable: 0 });
    assert.deepEqual(surgeAndUnavailable({ maxUnavailable: 0, maxSurge: 0 }, 10), { maxSurge: 0, maxUnavailable: 1 });
  });
  it('rolls old pods within maxUnavailable, and surges within maxSurge', () => {
    const byNode = (entries: [string, ReturnType<typeof dpod>[]][]) => new Map(entries);
    const base = { shouldRun: () => true, desired: 3, hash: 'h2', generation: undefined, minReadySeconds: 0, now };
    const three = byNode([['n1', [dpod('p1', 'h1')]], ['n2', [dpod('p2', 'h1')]], ['n3', [dpod('p3', 'h1')]]]);
    assert.deepEqual(rollingUpdate({ ...base, podsByNode: three, maxSurge: 0, maxUnavailable: 1 }), { deletePods: ['p1'], createOnNodes: [] });
    assert.deepEqual(rollingUpdate({ ...base, podsByNode: three, maxSurge: 0, maxUnavailable: 2 }), { deletePods: ['p1', 'p2'], createOnNodes: [] });
    // A node still coming up with the new pod uses the budget.
    const oneNew = byNode([['n1', [dpod('q1', 'h2', { ready: false })]], ['n2', [dpod('p2', 'h1')]], ['n3', [dpod('p3', 'h1')]]]);
    assert.deepEqual(rollingUpdate({ ...base, podsByNode: oneNew, maxSurge: 0, maxUnavailable: 1 }), { deletePods: [], createOnNodes: [] });
    // Unavailable old pods are replaced regardless.
    const broken = byNode([['n1', [dpod('p1', 'h1', { ready: false })]], ['n2', [dpod('p2', 'h1')]]]);
    assert.deepEqual(rollingUpdate({ ...base, desired: 2, podsByNode: broken, maxSurge: 0, maxUnavailable: 1 }), { deletePods: ['p1'], createOnNodes: [] });
    assert.deepEqual(rollingUpdate({ ...base, podsByNode: three, maxSurge: 1, maxUnavailable: 0 }), { deletePods: [], createOnNodes: ['n1'] });
    const surged = byNode([['n1', [dpod('p1', 'h1'), dpod('q1', 'h2')]], ['n2', [dpod('p2', 'h1')]], ['n3', [dpod('p3', 'h1')]]]);
    assert.deepEqual(rollingUpdate({ ...base, podsByNode: surged, maxSurge: 1, maxUnavailable: 0 }), { deletePods: ['p1'], createOnNodes: ['n2'] });
  });
});

describe('Job accounting', () => {
  const job = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): Job => ({ metadata: { name: 'j', uid: 'u' }, spec: { parallelism: 2, completions: 5, backoffLimit: 3, ...spec } as never, status: status as never });
  it('wants min(parallelism, remaining completions) active', () => {
    assert.equal(wantActive(job({}), 0, 0), 2);
    assert.equal(wantActive(job({}), 4, 1), 1);
    assert.equal(wantActive(job({}), 5, 0), 0);
    // Without completions: parallelism until one succeeds, then whatever still runs.
    assert.equal(wantActive(job({ completions: null }), 0, 0), 2);
    assert.equal(wantActive(job({ completions: null }), 1, 1), 1);
  });
  it('is complete with enough successes and nothing running', () => {
    assert.equal(isComplete(job({}), 5, 0), true);
    assert.equal(isComplete(job({}), 5, 1), false);
    assert.equal(isComplete(job({ completions: null }), 1, 0), true);
  });
  it('formats and parses completed indexes', () => {
    assert.equal(formatIndexes([5, 1, 3, 4, 7, 3]), '1,3-5,7');
    assert.deepEqual(parseIndexes('1,3-5,7'), [1, 3, 4, 5, 7]);
    assert.deepEqual(firstPendingIndexes(5, [0, 2], [1], 2), [3, 4]);
  });
  const p = (uid: string, phase: string, opts: { finalizer?: boolean; deleted?: boolean; index?: number; restarts?: number; finishedAt?: string } = {}) => ({
    metadata: {
      name: uid,
      uid,
      ...(opts.finalizer === false ? {} : { finalizers: ['batch.kubernetes.io/job-tracking'] }),
      ...(opts.deleted ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
      ...(opts.index !== undefined ? { annotations: { 'batch.kubernetes.io/job-completion-index': String(opts.index) } } : {}),
    },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }],
      containerStatuses: [{ restartCount: opts.restarts ?? 0, state: opts.finishedAt ? { terminated: { finishedAt: opts.finishedAt } } : {} }],
    },
  });
  it('classifies pods: active, ready, newly finished, already counted, deleted as failed', () => {
    const c = classifyPods(job({}, { uncountedTerminatedPods: { succeeded: ['s0'] } }), [
      p('r', 'Running'),
      p('s0', 'Succeeded'),
      p('s1', 'Succeeded'),
      p('s2', 'Succeeded', { finalizer: false }),
      p('f', 'Failed'),
      p('d', 'Running', { deleted: true }),
    ], false);
    assert.deepEqual([c.active.map((x) => x.metadata?.name), c.ready, c.terminating, c.newSucceeded, c.newFailed], [['r'], 1, 1, ['s1'], ['f', 'd']]);
    assert.deepEqual(c.releasable.map((x) => x.metadata?.name), ['s0', 's1', 'f', 'd']);
    // A failing Job counts its running pods as failed.
    assert.deepEqual(classifyPods(job({}), [p('r', 'Running')], true).newFailed, ['r']);
  });
  it('counts Indexed successes by index, once', () => {
    const c = classifyPods(job({ completionMode: 'Indexed', completions: 3 }, { completedIndexes: '0' }), [p('a', 'Succeeded', { index: 0 }), p('b', 'Succeeded', { index: 2, finalizer: false }), p('c', 'Succeeded', { index: 2 })], false);
    assert.deepEqual([c.newSucceededIndexes, c.newSucceeded], [[2], []]);
  });
  it('backs off 10 s doubling per failure since the last success', () => {
    const now = at('2025-01-01T00:01:00Z');
    const pods = [p('a', 'Succeeded', { finishedAt: '2025-01-01T00:00:00Z' }), p('b', 'Failed', { finishedAt: '2025-01-01T00:00:50Z' }), p('c', 'Failed', { finishedAt: '2025-01-01T00:00:55Z' })];
    assert.equal(failureBackoffRemaining(pods, job({}), now, 10_000, 360_000), 15_000);
    assert.equal(failureBackoffRemaining(pods.slice(0, 1), job({}), now, 10_000, 360_000), 0);
  });
  it('fails past backoffLimit, on OnFailure restarts, or past the deadline', () => {
    assert.equal(failureReason(job({}), 3, [], 0), undefined);
    assert.equal(failureReason(job({}), 4, [], 0)?.reason, 'BackoffLimitExceeded');
    const onFailure = job({ template: { spec: { restartPolicy: 'OnFailure' } } });
    assert.equal(pastBackoffLimitOnFailure(onFailure, [p('r', 'Running', { restarts: 2 })]), false);
    assert.equal(pastBackoffLimitOnFailure(onFailure, [p('r', 'Running', { restarts: 3 })]), true);
    assert.equal(pastBackoffLimitOnFailure(job({ backoffLimit: 0, template: { spec: { restartPolicy: 'OnFailure' } } }), [p('r', 'Running', { restarts: 1 })]), true);
    const started = job({ activeDeadlineSeconds: 10 }, { startTime: '2025-01-01T00:00:00Z' });
    assert.equal(failureReason(started, 0, [], at('2025-01-01T00:00:09Z')), undefined);
    assert.equal(failureReason(started, 0, [], at('2025-01-01T00:00:10Z'))?.reason, 'DeadlineExceeded');
  });
  it('sets conditions as ensureJobConditionStatus does', () => {
    const conds: JobCondition[] = [];
    assert.equal(ensureCondition(conds, 'Suspended', 'False', 'JobResumed', 'Job resumed', 0), false, 'a new False condition is not added');
    assert.equal(ensureCondition(conds, 'Suspended', 'True', 'JobSuspended', 'Job suspended', 0), true);
    assert.equal(ensureCondition(conds, 'Suspended', 'True', 'JobSuspended', 'Job suspended', 5000), false);
    assert.equal(ensureCondition(conds, 'Suspended', 'False', 'JobResumed', 'Job resumed', 5000), true);
    assert.deepEqual(conds, [{ type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed', lastProbeTime: '1970-01-01T00:00:05Z', lastTransitionTime: '1970-01-01T00:00:05Z' }]);
  });
  it('expires finished Jobs after ttlSecondsAfterFinished', () => {
    const done = job({ ttlSecondsAfterFinished: 30 }, { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' }] });
    // The stamp has whole seconds: the Job may have finished as late as 00:00:00.999, and lives 30 s from then.
    assert.equal(ttlRemaining(done, at('2025-01-01T00:00:10Z')), 20_999);
    assert.equal(ttlRemaining(job({ ttlSecondsAfterFinished: 30 }), 0), undefined);
    const stamped = (ttl: number, stamp: string) => job({ ttlSecondsAfterFinished: ttl }, { conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: stamp }] });
    // Finished at 00:00:00.990, seen 0.5 s later: a 1 s TTL has not run out.
    assert.ok(ttlRemaining(stamped(1, '2025-01-01T00:00:00Z'), at('2025-01-01T00:00:01.490Z'))! > 0);
    assert.ok(ttlRemaining(stamped(1, '2025-01-01T00:00:00Z'), at('2025-01-01T00:00:02Z'))! <= 0);
    // Finer stamps are taken at their precision; a TTL of 0 means right away.
    assert.equal(ttlRemaining(stamped(1, '2025-01-01T00:00:00.25Z'), at('2025-01-01T00:00:01Z')), 259);
    assert.equal(ttlRemaining(stamped(1, '2025-01-01T00:00:00.250Z'), at('2025-01-01T00:00:01Z')), 250);
    assert.equal(ttlRemaining(stamped(0, '2025-01-01T00:00:00Z'), at('2025-01-01T00:00:00.500Z')), -500);
  });
});

describe('HPA arithmetic', () => {
  const pods = (n: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
    Array.from({ length: n }, (_, i) => ({ metadata: { name: `p${i}` }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }, ...extra(i) }));
  const m = (values: number[]) => new Map(values.map((v, i) => [`p${i}`, v]));
  it('desired = ceil(ready × current/target)', () => {
    const r = resourceReplicas({ currentReplicas: 2, targetUtilization: 80, pods: pods(2), metrics: m([150, 150]), requests: m([100, 100]), resource: 'cpu' });
    assert.deepEqual(r, { replicas: 4, utilization: 150, rawUsage: 150 });
  });
  it('stays within the 10 % tolerance', () => {
    assert.equal(resourceReplicas({ currentReplicas: 3, targetUtilization: 80, pods: pods(3), metrics: m([85, 85, 85]), requests: m([100, 100, 100]), resource: 'cpu' }).replicas, 3);
  });
  it('counts unready pods as 0 % on a scale-up', () => {
    const ps = pods(4, (i) => (i >= 2 ? { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } } : {}));
    // Two ready pods at 200 % of an 80 % target; with the two unready ones at 0 % the average is 100 %: 4 × 1.25.
    assert.equal(resourceReplicas({ currentReplicas: 4, targetUtilization: 80, pods: ps, metrics: m([200, 200, 200, 200]), requests: m([100, 100, 100, 100]), resource: 'cpu' }).replicas, 5);
    // At 160 % the unready pods bring the average to the target: no change.
    assert.equal(resourceReplicas({ currentReplicas: 4, targetUtilization: 80, pods: ps, metrics: m([160, 160, 160, 160]), requests: m([100, 100, 100, 100]), resource: 'cpu' }).replicas, 4);
  });
  it('counts pods without metrics as 100 % on a scale-down', () => {
    // (10 + 10 + 100 + 100) / 400 = 55 % of an 80 % target: ceil(4 × 0.6875).
    const r = resourceReplicas({ currentReplicas: 4, targetUtilization: 80, pods: pods(4), metrics: m([10, 10]), requests: m([100, 100, 100, 100]), resource: 'cpu' });
    assert.equal(r.replicas, 3);
    // Never the other way round: against a 50 % target the fallback would turn a scale-down into a scale-up.
    assert.equal(resourceReplicas({ currentReplicas: 4, targetUtilization: 50, pods: pods(4), metrics: m([10, 10]), requests: m([100, 100, 100, 100]), resource: 'cpu' }).replicas, 4);
  });
  it('scales on average values', () => {
    assert.equal(rawResourceReplicas({ currentReplicas: 2, targetAverage: 100, pods: pods(2), metrics: m([300, 300]), resource: 'memory' }).replicas, 6);
    assert.throws(() => rawResourceReplicas({ currentReplicas: 1, targetAverage: 100, pods: [], metrics: m([]), resource: 'cpu' }), /no pods returned by selector/);
  });
  it('limits without behavior: min, max, and at most doubling (or 4)', () => {
    assert.deepEqual(limitWithRules(2, 10, 1, 20), { replicas: 4, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    assert.equal(limitWithRules(5, 10, 1, 8).reason, 'TooManyReplicas');
    assert.deepEqual(limitWithRules(5, 0, 2, 8).replicas, 2);
    assert.equal(limitWithRules(5, 6, 1, 8).reason, 'DesiredWithinRange');
  });
  it('keeps the highest recommendation of the downscale window', () => {
    const h = [{ replicas: 6, at: 1000 }, { replicas: 3, at: 200_000 }];
    assert.equal(stabilizeRecommendation(h, 2, 300_000, 250_000).replicas, 6);
    assert.equal(stabilizeRecommendation(h, 2, 300_000, 302_000).replicas, 3);
  });
  it('applies behavior: windows and policies', () => {
    const up = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }, { type: 'Pods', value: 4, periodSeconds: 15 }] };
    const down = { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
    assert.equal(stabilizeWithBehaviors([{ replicas: 8, at: 0 }], 5, 2, up, down, 100_000).replicas, 5);
    assert.deepEqual(limitByBehaviorRate({ current: 3, desired: 20, min: 1, max: 10, up, down }, [], [], 0), { replicas: 7, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    // Replicas added within the period count against it.
    assert.equal(limitByBehaviorRate({ current: 7, desired: 20, min: 1, max: 10, up, down }, [{ change: 4, at: 0 }], [], 5000).replicas, 7);
    assert.equal(limitByBehaviorRate({ current: 7, desired: 20, min: 1, max: 10, up: { ...up, selectPolicy: 'Disabled' }, down }, [], [], 0).replicas, 7);
  });
  it('simulates usage from requests and the annotation', () => {
    const p = { metadata: { name: 'p', annotations: { 'sim.atrium.io/cpu-utilization': '150' } }, spec: { containers: [{ name: 'a', resources: { requests: { cpu: '200m', memory: '1Gi' } } }, { name: 'b' }] }, status: { phase: 'Running' } };
    assert.equal(podUsage(p, 'cpu'), 300 + 150);
    assert.equal(podUsage(p, 'cpu', 'a'), 300);
    assert.equal(podUsage(p, 'memory', 'a'), Math.round(2 ** 30 * 1000 * 0.3));
    assert.equal(podUsage({ ...p, status: { phase: 'Pending' } }, 'cpu'), undefined);
    assert.equal(podRequest(p, 'cpu', 'a'), 200);
    assert.throws(() => podRequest(p, 'cpu'), /missing request for cpu in container b/);
    assert.deepEqual(['150m', '2', '52428800', '1M', '0'], [150, 2000, 52_428_800_000, 1_000_000_000, 0].map(formatMilliQuantity));
  });
});

describe('disruption budgets', () => {
  const owned = (name: string, uid: string, ready = true) => ({
    metadata: { name, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }] },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  const pods = [owned('a', 'rs1'), owned('b', 'rs1'), owned('c', 'rs1', false)];
  const scale = () => ({ uid: 'd1', scale: 4 });
  const budget = (spec: Record<string, unknown>) => ({ metadata: { generation: 2 }, spec });
  const cases: [Record<string, unknown>, number, number][] = [
    [{ minAvailable: 2 }, 3, 2],
    [{ minAvailable: '50%' }, 4, 2],
    [{ minAvailable: '30%' }, 4, 2],
    [{ maxUnavailable: 1 }, 4, 3],
    [{ maxUnavailable: '30%' }, 4, 2],
  ];
  for (const [spec, expected, desired] of cases) {
    it(`${JSON.stringify(spec)}: expected ${expected}, desired healthy ${desired}`, () => {
      const r = expectedPodCount(budget(spec), pods, scale);
      assert.deepEqual([r.expected, r.desiredHealthy], [expected, desired]);
    });
  }
  it('allows current - desired disruptions, with the condition', () => {
    const s = pdbStatus(budget({}), { currentHealthy: countHealthy(pods), desiredHealthy: 1, expected: 3 }, 0);
    assert.equal(s.disruptionsAllowed, 1);
    assert.deepEqual((s.conditions as any[])[0], { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: 2, lastTransitionTime: '1970-01-01T00:00:00Z' });
    assert.equal(pdbStatus(budget({}), { currentHealthy: 2, desiredHealthy: 2, expected: 3 }, 0).disruptionsAllowed, 0);
    assert.equal(pdbStatus(budget({}), { currentHealthy: 2, desiredHealthy: 0, expected: 0 }, 0).disruptionsAllowed, 0, 'nothing expected: nothing allowed');
  });
  it('counts pods an eviction recorded as disrupted out until their deadline, and forgets gone or overdue ones', () => {
    const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const now = Date.parse('2026-01-01T00:10:00Z');
    const recorded = { a: at(now - 60_000), b: at(now - 3 * 60_000), gone: at(now - 1000) };
    const withRecord = { metadata: { generation: 2 }, spec: {}, status: { disruptedPods: recorded } };
    const { disrupted, recheckAtMs } = disruptedPodsOf(withRecord, pods, now);
    assert.deepEqual(disrupted, { a: recorded.a }, 'b is overdue (over 2 minutes), gone is not among the pods');
    assert.equal(recheckAtMs, now - 60_000 + DISRUPTION_DELETION_TIMEOUT_MS);
    assert.equal(countHealthy(pods, disrupted), countHealthy(pods) - 1, 'a disrupted pod is not healthy');
    const s = pdbStatus(withRecord, { currentHealthy: 1, desiredHealthy: 1, expected: 3, disrupted }, now);
    assert.deepEqual(s.disruptedPods, { a: recorded.a });
    assert.equal(pdbStatus(withRecord, { currentHealthy: 1, desiredHealthy: 1, expected: 3, disrupted: {} }, now).disruptedPods, undefined, 'an empty map is left out');
  });
  it('cannot scale pods of an unknown controller', () => {
    assert.throws(() => expectedPodCount(budget({ maxUnavailable: 1 }), pods, () => undefined), /found no controllers for pod "a"/);
  });
});

describe('the simulated pod run', () => {
  const running = (annotations: Record<string, string>, restartPolicy: string) => ({
    metadata: { uid: 'u', annotations },
    spec: { restartPolicy },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'c', restartCount: 0, containerID: 'containerd://x', state: { running: {} } }] },
  });
  it('runs for the duration, then succeeds', () => {
    assert.equal(completedStatus(running({}, 'Never'), 0, 1999, 2000), undefined);
    const s = completedStatus(running({}, 'Never'), 0, 2000, 2000)!;
    assert.equal(s.phase, 'Succeeded');
    assert.deepEqual((s.containerStatuses as any)[0].state.terminated, { exitCode: 0, reason: 'Completed', startedAt: '1970-01-01T00:00:00Z', finishedAt: '1970-01-01T00:00:02Z', containerID: 'containerd://x' });
  });
  it('honors run-seconds and exit-code', () => {
    assert.equal(completedStatus(running({ 'sim.atrium.io/run-seconds': '5' }, 'Never'), 0, 4000, 2000), undefined);
    const s = completedStatus(running({ 'sim.atrium.io/run-seconds': '5', 'sim.atrium.io/exit-code': '2' }, 'Never'), 0, 5000, 2000)!;
    assert.deepEqual([s.phase, (s.containerStatuses as any)[0].state.terminated.exitCode, (s.containerStatuses as any)[0].state.terminated.reason], ['Failed', 2, 'Error']);
  });
  it('restarts in place with OnFailure', () => {
    const s = completedStatus(running({ 'sim.atrium.io/exit-code': '1' }, 'OnFailure'), 0, 2000, 2000)!;
    const cs = (s.containerStatuses as any)[0];
    assert.deepEqual([s.phase, cs.restartCount, cs.lastState.terminated.exitCode, Object.keys(cs.state)], ['Running', 1, 1, ['running']]);
  });
});

describe('ControllerRevision history', () => {
  const rev = (name: string, revision: number, image = 'a') => ({ metadata: { name }, revision, data: templatePatch({ spec: { template: { spec: { containers: [{ image }] } } } }) });
  it('finds equal revisions, newest first', () => {
    assert.deepEqual(equalRevisions([rev('r1', 1), rev('r2', 2, 'b'), rev('r3', 3)], templatePatch({ spec: { template: { spec: { containers: [{ image: 'a' }] } } } })).map((r) => r.metadata?.name), ['r3', 'r1']);
  });
  it("writes the patch with every key sorted, byte for byte what upstream's getPatch marshals (daemon.Match compares bytes)", () => {
    const patch = templatePatch({ spec: { template: { spec: { containers: [{ name: 'c', image: 'a', args: ['z', 'y'] }], restartPolicy: 'Always' }, metadata: { labels: { b: '1', a: '2' }, creationTimestamp: null } } } });
    assert.equal(
      JSON.stringify(patch),
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"a":"2","b":"1"}},"spec":{"containers":[{"args":["z","y"],"image":"a","name":"c"}],"restartPolicy":"Always"}}}}',
    );
  });
  it('prunes the oldest unused revisions beyond the limit', () => {
    const revs = [rev('r1', 1), rev('r2', 2), rev('r3', 3), rev('r4', 4), rev('r5', 5)];
    assert.deepEqual(revisionsToPrune(revs, new Set(['r5', 'r1']), 2).map((r) => r.metadata?.name), ['r2']);
    assert.deepEqual(revisionsToPrune(revs, new Set(['r5']), 0).map((r) => r.metadata?.name), ['r1', 'r2', 'r3', 'r4']);
  });
});
