import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideEvacuations, type HealthVerdict } from '../../../src/multicluster/decisions/failover.js';
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
