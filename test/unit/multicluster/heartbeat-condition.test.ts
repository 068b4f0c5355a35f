import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { heartbeatCondition } from '../../../src/multicluster/controllers/synctarget.js';

describe('heartbeatCondition (threshold 3 s)', () => {
  const beat = '2026-01-01T00:00:10Z';
  const at = (ms: number) => Date.parse(beat) + ms;

  it('no heartbeat yet: False, ErrorHeartbeat', () => {
    assert.deepEqual(heartbeatCondition(undefined, at(0), 3000).cond, { type: 'HeartbeatHealthy', status: 'False', reason: 'ErrorHeartbeat', message: 'No heartbeat yet seen' });
  });

  it('a whole-second beat counts from the end of its second: healthy until threshold + 999 ms, with a recheck then', () => {
    const fresh = heartbeatCondition(beat, at(3500), 3000);
    assert.equal(fresh.cond.status, 'True');
    assert.equal(fresh.recheckMs, 3999 - 3500 + 10);
    assert.equal(heartbeatCondition(beat, at(3999), 3000).cond.status, 'True');
    assert.deepEqual(heartbeatCondition(beat, at(4000), 3000).cond, { type: 'HeartbeatHealthy', status: 'False', reason: 'ErrorHeartbeat', message: `No heartbeat since ${beat}` });
  });

  it('a beat with fractions counts from itself', () => {
    const precise = '2026-01-01T00:00:10.500Z';
    assert.equal(heartbeatCondition(precise, Date.parse(precise) + 3000, 3000).cond.status, 'True');
    assert.equal(heartbeatCondition(precise, Date.parse(precise) + 3001, 3000).cond.status, 'False');
  });
});
