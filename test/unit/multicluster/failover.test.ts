import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideEvacuations, planMoves, type HealthVerdict, type MovePlanInput } from '../../../src/multicluster/decisions/failover.js';
import type { SyncTargetLike } from '../../../src/multicluster/decisions/types.js';

const NOW = new Date('2025-01-01T12:00:00Z');
const at = (minutesBeforeNow: number) => new Date(NOW.getTime() - minutesBeforeNow * 60_000).toISOString().replace('.000Z', 'Z');

function target(name: string, o: { ready?: 'True' | 'False' | 'Unknown' | 'missing'; since?: string; heartbeat?: string; evictAfter?: string; cordoned?: boolean } = {}): SyncTargetLike {
  const conditions = o.ready === 'missing' ? [] : [{ type: 'Ready', status: o.ready ?? ('True' as const), ...(o.since ? { lastTransitionTime: o.since } : {}) }];
  return {
    metadata: { name },
    spec: { unschedulable: o.cordoned, evictAfter: o.evictAfter },
    status: { conditions, lastSyncerHeartbeatTime: o.heartbeat ?? at(0.25) },
  };
}

describe('decideEvacuations (tolerance 5m, heartbeat threshold 1m)', () => {
  const policy = { tolerationSeconds: 300, heartbeatThresholdSeconds: 60 };
  const table: { name: string; target: SyncTargetLike; want: Omit<HealthVerdict, 'name'> }[] = [
    { name: 'Ready with a fresh heartbeat', target: target('t'), want: { state: 'Healthy' } },
    { name: 'cordoned moves nothing', target: target('t', { cordoned: true }), want: { state: 'Healthy' } },
    { name: 'NotReady for 2m: tolerated', target: target('t', { ready: 'False', since: at(2) }), want: { state: 'Tolerating', reason: 'NotReady', unhealthySince: at(2), evacuateAt: at(-3) } },
    { name: 'NotReady for exactly the tolerance: evacuate', target: target('t', { ready: 'False', since: at(5) }), want: { state: 'Evacuate', reason: 'NotReady', unhealthySince: at(5) } },
    { name: 'Ready Unknown counts as not ready', target: target('t', { ready: 'Unknown', since: at(10) }), want: { state: 'Evacuate', reason: 'NotReady', unhealthySince: at(10) } },
    { name: 'heartbeat 3m old: unhealthy since 2m, tolerated', target: target('t', { heartbeat: at(3) }), want: { state: 'Tolerating', reason: 'HeartbeatStale', unhealthySince: at(2), evacuateAt: at(-3) } },
    { name: 'heartbeat 7m old: evacuate', target: target('t', { heartbeat: at(7) }), want: { state: 'Evacuate', reason: 'HeartbeatStale', unhealthySince: at(6) } },
    { name: 'heartbeat 59s old is fine', target: target('t', { heartbeat: new Date(NOW.getTime() - 59_000).toISOString() }), want: { state: 'Healthy' } },
    {
      name: 'the earlier of NotReady and a stale heartbeat counts',
      target: target('t', { ready: 'False', since: at(1), heartbeat: at(8) }),
      want: { state: 'Evacuate', reason: 'HeartbeatStale', unhealthySince: at(7) },
    },
    { name: 'NotReady without transition time falls back to the heartbeat', target: target('t', { ready: 'False', heartbeat: at(0.5) }), want: { state: 'Tolerating', reason: 'NotReady', unhealthySince: at(0.5), evacuateAt: at(-4.5) } },
    { name: 'never Ready and never heard from: evacuate', target: { metadata: { name: 't' } }, want: { state: 'Evacuate', reason: 'NotReady' } },
    { name: 'drained (evictAfter passed) while healthy: evacuate now', target: target('t', { evictAfter: at(1) }), want: { state: 'Evacuate', reason: 'Draining' } },
    { name: 'evictAfter in the future: still healthy', target: target('t', { evictAfter: at(-1) }), want: { state: 'Healthy' } },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = decideEvacuations([tc.target], policy, NOW);
      assert.deepEqual(got.verdicts, [{ name: 't', ...tc.want }]);
      assert.deepEqual(got.evacuate, tc.want.state === 'Evacuate' ? ['t'] : []);
    });
  }

  it('lists evacuations sorted and reports when to look again', () => {
    const got = decideEvacuations(
      [target('c', { ready: 'False', since: at(1) }), target('b', { ready: 'False', since: at(9) }), target('a', { ready: 'False', since: at(3) }), target('d')],
      policy,
      NOW,
    );
    assert.deepEqual(got.evacuate, ['b']);
    assert.equal(got.nextCheckAt, at(-2));
    assert.deepEqual(got.verdicts.map((v) => v.name), ['a', 'b', 'c', 'd']);
  });

  it('a zero tolerance evacuates on the first unhealthy observation', () => {
    assert.deepEqual(decideEvacuations([target('t', { ready: 'False', since: at(0) })], { tolerationSeconds: 0 }, NOW).evacuate, ['t']);
  });
});

describe('planMoves', () => {
  const table: { name: string; in: MovePlanInput; want: Record<string, number>; added: number; removed: number; release: string[]; complete: boolean }[] = [
    {
      name: 'nothing evacuating: desired as is, without rate limit',
      in: { current: { a: 2, b: 2 }, desired: { a: 5, b: 5 }, ready: {}, evacuating: [], maxInFlight: 1 },
      want: { a: 5, b: 5 },
      added: 6,
      removed: 0,
      release: [],
      complete: true,
    },
    {
      name: 'first step: replacements requested up to the in-flight limit, old kept whole',
      in: { current: { a: 4, b: 2, c: 2 }, desired: { b: 4, c: 4 }, ready: { b: 2, c: 2 }, evacuating: ['a'], maxInFlight: 2 },
      want: { a: 4, b: 3, c: 3 },
      added: 2,
      removed: 0,
      release: [],
      complete: false,
    },
    {
      name: 'replacements not ready yet: nothing more requested, nothing removed',
      in: { current: { a: 4, b: 3, c: 3 }, desired: { b: 4, c: 4 }, ready: { b: 2, c: 2 }, evacuating: ['a'], maxInFlight: 2 },
      want: { a: 4, b: 3, c: 3 },
      added: 0,
      removed: 0,
      release: [],
      complete: false,
    },
    {
      name: 'replacements ready: as many old ones go, and the next batch is requested',
      in: { current: { a: 4, b: 3, c: 3 }, desired: { b: 4, c: 4 }, ready: { b: 3, c: 3 }, evacuating: ['a'], maxInFlight: 2 },
      want: { a: 2, b: 4, c: 4 },
      added: 2,
      removed: 2,
      release: [],
      complete: false,
    },
    {
      name: 'all replacements ready: the evacuated cluster goes to 0 and is released',
      in: { current: { a: 2, b: 4, c: 4 }, desired: { b: 4, c: 4 }, ready: { b: 4, c: 4 }, evacuating: ['a'], maxInFlight: 2 },
      want: { a: 0, b: 4, c: 4 },
      added: 0,
      removed: 2,
      release: ['a'],
      complete: true,
    },
    {
      name: 'an unreachable evacuated cluster is never released',
      in: { current: { a: 2, b: 4 }, desired: { b: 4 }, ready: { b: 4 }, evacuating: ['a'], unreachable: ['a'], maxInFlight: 2 },
      want: { a: 0, b: 4 },
      added: 0,
      removed: 2,
      release: [],
      complete: true,
    },
    {
      name: 'several evacuated clusters shrink in proportion to what they hold',
      in: { current: { a: 6, b: 2, c: 0 }, desired: { c: 8 }, ready: { c: 0 }, evacuating: ['a', 'b'], maxInFlight: 100 },
      want: { a: 6, b: 2, c: 8 },
      added: 8,
      removed: 0,
      release: [],
      complete: false,
    },
    {
      name: 'half the replacements ready: the old shrink by as many, proportionally',
      in: { current: { a: 6, b: 2, c: 8 }, desired: { c: 8 }, ready: { c: 4 }, evacuating: ['a', 'b'], maxInFlight: 100 },
      want: { a: 3, b: 1, c: 8 },
      added: 0,
      removed: 4,
      release: [],
      complete: false,
    },
    {
      name: 'survivors that should shrink do so at once',
      in: { current: { a: 2, b: 6 }, desired: { b: 3 }, ready: { b: 6 }, evacuating: ['a'], maxInFlight: 1 },
      want: { a: 0, b: 3 },
      added: 0,
      removed: 2,
      release: ['a'],
      complete: true,
    },
    {
      name: 'a limit below 1 still lets one replacement through',
      in: { current: { a: 2, b: 0 }, desired: { b: 2 }, ready: {}, evacuating: ['a'], maxInFlight: 0 },
      want: { a: 2, b: 1 },
      added: 1,
      removed: 0,
      release: [],
      complete: false,
    },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      const got = planMoves(tc.in);
      assert.deepEqual(got.replicas, tc.want);
      assert.equal(got.added, tc.added);
      assert.equal(got.removed, tc.removed);
      assert.deepEqual(got.release, tc.release);
      assert.equal(got.complete, tc.complete);
    });
  }

  it('converges when replacements become ready step by step, never serving fewer than desired', () => {
    const desired = { b: 5, c: 5 };
    let current: Record<string, number> = { a: 6, b: 2, c: 2 };
    const ready: Record<string, number> = { b: 2, c: 2 };
    for (let step = 0; step < 50; step++) {
      const plan = planMoves({ current, desired, ready, evacuating: ['a'], maxInFlight: 2 });
      const newlyRequested = Object.values(plan.replicas).reduce((a, b) => a + b, 0) - Object.values(current).reduce((a, b) => a + b, 0) + plan.removed;
      assert.ok(newlyRequested <= 2, `step ${step}: ${newlyRequested} requested at once`);
      // The old cluster still counts as serving: survivors' ready + old kept covers the desired total.
      assert.ok((ready.b ?? 0) + (ready.c ?? 0) + plan.replicas.a! >= 10, `step ${step}: capacity dropped`);
      current = plan.replicas;
      if (plan.complete) {
        assert.deepEqual(current, { a: 0, b: 5, c: 5 });
        return;
      }
      // The pclusters start what was asked: one more replica becomes ready on each cluster per step.
      for (const n of ['b', 'c']) ready[n] = Math.min(current[n]!, (ready[n] ?? 0) + 1);
    }
    assert.fail('did not converge');
  });
});
