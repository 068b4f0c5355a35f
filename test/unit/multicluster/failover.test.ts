import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideEvacuations, type HealthVerdict } from '../../../src/multicluster/decisions/failover.js';
import type { SyncTargetLike } from '../../../src/multicluster/decisions/types.js';

const NOW = new Date('2025-01-01T12:00:00Z');
const at = (minutesBeforeNow: number) => new Date(NOW.getTime() - minutesBeforeNow * 60_000).toISOString().replace('.000Z', 'Z');

function target(name: string, o: { ready?: 'True' | 'False' | 'Unknown' | 'missing'; reason?: string; since?: string; heartbeat?: string; evictAfter?: string; cordoned?: boolean } = {}): SyncTargetLike {
  const conditions = o.ready === 'missing' ? [] : [{ type: 'Ready', status: o.ready ?? ('True' as const), ...(o.reason ? { reason: o.reason } : {}), ...(o.since ? { lastTransitionTime: o.since } : {}) }];
  return {
    metadata: { name },
    spec: { unschedulable: o.cordoned, evictAfter: o.evictAfter },
    status: { conditions, lastSyncerHeartbeatTime: o.heartbeat ?? at(0.25) },
  };
}

describe('decideEvacuations (tolerance 5m)', () => {
  const policy = { tolerationSeconds: 300 };
  const table: { name: string; target: SyncTargetLike; want: Omit<HealthVerdict, 'name'> }[] = [
    { name: 'Ready with a fresh heartbeat', target: target('t'), want: { state: 'Healthy' } },
    { name: 'cordoned moves nothing', target: target('t', { cordoned: true }), want: { state: 'Healthy' } },
    { name: 'NotReady for 2m: tolerated', target: target('t', { ready: 'False', since: at(2) }), want: { state: 'Tolerating', reason: 'NotReady', unhealthySince: at(2), evacuateAt: at(-3) } },
    // Condition times have whole seconds: the tolerance is spent only once the transition's second is over.
    { name: 'NotReady for exactly the tolerance: tolerated to the end of that second', target: target('t', { ready: 'False', since: at(5) }), want: { state: 'Tolerating', reason: 'NotReady', unhealthySince: at(5), evacuateAt: at(0) } },
    { name: 'NotReady for the tolerance and a second: evacuate', target: target('t', { ready: 'False', since: at(5 + 1 / 60) }), want: { state: 'Evacuate', reason: 'NotReady', unhealthySince: at(5 + 1 / 60) } },
    { name: 'Ready Unknown counts as not ready', target: target('t', { ready: 'Unknown', since: at(10) }), want: { state: 'Evacuate', reason: 'NotReady', unhealthySince: at(10) } },
    { name: 'Ready False for a late heartbeat 2m ago: tolerated', target: target('t', { ready: 'False', reason: 'ErrorHeartbeat', since: at(2), heartbeat: at(3) }), want: { state: 'Tolerating', reason: 'HeartbeatStale', unhealthySince: at(2), evacuateAt: at(-3) } },
    { name: 'Ready False for a late heartbeat 6m ago: evacuate', target: target('t', { ready: 'False', reason: 'ErrorHeartbeat', since: at(6), heartbeat: at(7) }), want: { state: 'Evacuate', reason: 'HeartbeatStale', unhealthySince: at(6) } },
    // The SyncTarget controller judges heartbeats (it turns Ready False when it sees one late); an old heartbeat on a
    // target still Ready is not timed here, so a control plane that stalled does not wake up to spent tolerances.
    { name: 'an old heartbeat on a target still Ready moves nothing', target: target('t', { heartbeat: at(7) }), want: { state: 'Healthy' } },
    {
      name: 'Ready\'s transition time counts, not the heartbeat',
      target: target('t', { ready: 'False', reason: 'ErrorHeartbeat', since: at(1), heartbeat: at(8) }),
      want: { state: 'Tolerating', reason: 'HeartbeatStale', unhealthySince: at(1), evacuateAt: at(-4) },
    },
    { name: 'NotReady without transition time falls back to the heartbeat', target: target('t', { ready: 'False', heartbeat: at(0.5) }), want: { state: 'Tolerating', reason: 'NotReady', unhealthySince: at(0.5), evacuateAt: at(-4.5) } },
    { name: 'never Ready and never heard from: evacuate', target: { metadata: { name: 't' } }, want: { state: 'Evacuate', reason: 'NotReady' } },
    { name: 'drained (evictAfter passed) while healthy: evacuate now', target: target('t', { evictAfter: at(1) }), want: { state: 'Evacuate', reason: 'Draining' } },
    { name: 'evictAfter in the future: still healthy', target: target('t', { evictAfter: at(-1) }), want: { state: 'Healthy' } },
  ];
  for (const tc of table) {
    it(tc.name, () => {
      // Beside a healthy target, so that an evacuation has somewhere to go (see the held cases below).
      const got = decideEvacuations([tc.target, target('z')], policy, NOW);
      assert.deepEqual(got.verdicts, [{ name: 't', ...tc.want }, { name: 'z', state: 'Healthy' }]);
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
    assert.equal(got.nextCheckAt, at(-2 - 1 / 60), 'a\'s tolerance, spent once its transition second is over');
    assert.deepEqual(got.verdicts.map((v) => v.name), ['a', 'b', 'c', 'd']);
  });

  it('a zero tolerance evacuates on the first unhealthy observation', () => {
    assert.deepEqual(decideEvacuations([target('t', { ready: 'False', since: at(0) }), target('u')], { tolerationSeconds: 0 }, NOW).evacuate, ['t']);
  });

  it('holds health-based evacuations while no target is healthy: the work would have nowhere to go', () => {
    // Every heartbeat late at once (the observer stalled, or every cluster is gone): nothing moves.
    const got = decideEvacuations([target('a', { ready: 'False', reason: 'ErrorHeartbeat', since: at(6) }), target('b', { ready: 'False', since: at(9) })], policy, NOW);
    assert.deepEqual(got.evacuate, []);
    assert.deepEqual(got.verdicts, [
      { name: 'a', state: 'Tolerating', reason: 'HeartbeatStale', unhealthySince: at(6), held: 'NoHealthyTarget' },
      { name: 'b', state: 'Tolerating', reason: 'NotReady', unhealthySince: at(9), held: 'NoHealthyTarget' },
    ]);
    assert.equal(got.nextCheckAt, undefined, 'held verdicts set no timer: the next heartbeat wakes the caller');
    // A lone target that fails is held too; one still within its tolerance keeps its timer.
    assert.deepEqual(decideEvacuations([target('t', { ready: 'False', since: at(7) })], policy, NOW).evacuate, []);
    const tolerating = decideEvacuations([target('a', { ready: 'False', since: at(7) }), target('b', { ready: 'False', since: at(1) })], policy, NOW);
    assert.deepEqual(tolerating.evacuate, []);
    assert.equal(tolerating.nextCheckAt, at(-4 - 1 / 60));
  });

  it('releases the held evacuations as soon as one target is healthy again', () => {
    const got = decideEvacuations([target('a', { ready: 'False', reason: 'ErrorHeartbeat', since: at(7) }), target('b', { ready: 'False', since: at(9) }), target('c')], policy, NOW);
    assert.deepEqual(got.evacuate, ['a', 'b']);
  });

  it('drains still apply while no target is healthy: they are explicit requests', () => {
    const got = decideEvacuations([target('a', { ready: 'False', since: at(7), evictAfter: at(1) }), target('b', { ready: 'False', since: at(7) })], policy, NOW);
    assert.deepEqual(got.evacuate, ['a']);
    assert.equal(got.verdicts[1]!.held, 'NoHealthyTarget');
  });
});
