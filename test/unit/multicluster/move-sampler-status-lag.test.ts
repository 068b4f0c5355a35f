/** The status-truth check the move suites rely on (test/helpers/move-sampler.ts statusLag), on hand-made series. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statusLag, type DownstreamPoint, type MoveSample } from '../../helpers/move-sampler.js';

const point = (t: number, a: number, b: number): DownstreamPoint => ({ t, ready: a + b, clusters: { 'st-a': a, 'st-b': b } });
const sample = (t: number, upstreamReady: number): MoveSample => ({ t, tRead: t + 5, ready: {}, endpoints: {}, upstreamReady, upstreamAvailable: upstreamReady, conditions: '' });

describe('statusLag', () => {
  // st-a 30 → 27 at 100 ms; st-b 0 → 3 at 500 ms, → 9 at 900 ms.
  const series = [point(0, 30, 0), point(100, 27, 0), point(500, 27, 3), point(900, 27, 9)];

  it('accepts readings the clusters reported within the lag, and says how far behind they were', () => {
    const r = statusLag([sample(50, 30), sample(200, 30), sample(600, 30), sample(1000, 36)], series, 1000);
    assert.equal(r.violation, undefined);
    assert.equal(r.checked, 4);
    // 30 at 600 ms: st-a's 27 with st-b's 3 (current); 36 at 1000 ms: current.
    assert.ok(r.maxLagMs >= 100 && r.maxLagMs <= 200, String(r.maxLagMs));
  });

  it('accepts a sum of one cluster\'s newer report and another\'s older one (each travels on its own path)', () => {
    // 33 = st-a's 30 (before 100 ms) + st-b's 3 (from 500 ms): never the sum at one instant, but each term was reported.
    assert.equal(statusLag([sample(600, 33)], series, 1000).violation, undefined);
  });

  it('refuses a reading no cluster reported: more ready than they had', () => {
    const r = statusLag([sample(1000, 40)], series, 1000);
    assert.match(r.violation ?? '', /^upstream 40 ready at 1000–1005 ms/);
  });

  it('refuses a reading older than the lag allows', () => {
    // 30 was st-a's until 100 ms, with st-b at 0; at 1500 ms with a 1000 ms window only 27 + 3 or 27 + 9 are possible.
    assert.match(statusLag([sample(1500, 27)], series, 1000).violation ?? '', /upstream 27 ready/);
    assert.equal(statusLag([sample(1500, 27)], series, 1500).violation, undefined);
  });

  it('skips readings before the series starts', () => {
    assert.equal(statusLag([sample(-10, 99)], series, 1000).checked, 0);
  });
});
