import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { noExecuteTaints, planEviction, sameTaints, tolerationTime } from '../../../src/pcluster/controllers/taint-eviction/decisions.js';

const taint = { key: 'k', value: 'v', effect: 'NoExecute' };
const other = { key: 'o', effect: 'NoExecute' };

describe('taint eviction decisions', () => {
  it('reads only the NoExecute taints of a node', () => {
    const node = { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' }, { key: 'o', effect: 'NoExecute' }] } };
    assert.deepEqual(noExecuteTaints(node), [taint, other]);
    assert.deepEqual(noExecuteTaints({ spec: {} }), []);
    assert.ok(sameTaints(noExecuteTaints(node), [taint, other]));
    assert.ok(!sameTaints([taint], [{ ...taint, value: 'w' }]));
  });

  it('an untolerated taint evicts now, even when others are tolerated', () => {
    assert.equal(tolerationTime([taint], []), 'now');
    assert.equal(tolerationTime([taint, other], [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }]), 'now');
    assert.equal(tolerationTime([taint], [{ key: 'k', value: 'w', effect: 'NoExecute' }]), 'now', 'Equal compares the value');
  });

  it('the shortest tolerationSeconds among the matched tolerations counts; none means forever; zero or less means now', () => {
    assert.equal(tolerationTime([taint], [{ operator: 'Exists' }]), 'forever');
    assert.equal(tolerationTime([taint, other], [{ key: 'k', operator: 'Exists', tolerationSeconds: 30 }, { key: 'o', operator: 'Exists', tolerationSeconds: 10 }]), 10_000);
    // The first toleration that matches a taint is the one used (GetMatchingTolerations).
    assert.equal(tolerationTime([taint], [{ key: 'k', operator: 'Exists' }, { operator: 'Exists', tolerationSeconds: 5 }]), 'forever');
    assert.equal(tolerationTime([taint], [{ key: 'k', operator: 'Exists', tolerationSeconds: 0 }]), 0);
    assert.equal(tolerationTime([taint], [{ key: 'k', operator: 'Exists', tolerationSeconds: -3 }]), 0);
  });

  it('plans: cancel without taints or when tolerated forever; schedule now, or after the toleration time', () => {
    assert.deepEqual(planEviction([], [], undefined, 1000), { action: 'cancel' });
    assert.deepEqual(planEviction([taint], [{ operator: 'Exists' }], { createdAt: 0, fireAt: 5000 }, 1000), { action: 'cancel' });
    assert.deepEqual(planEviction([taint], [], undefined, 1000), { action: 'schedule', eviction: { createdAt: 1000, fireAt: 1000 }, cancelFirst: true });
    assert.deepEqual(planEviction([taint], [{ operator: 'Exists', tolerationSeconds: 5 }], undefined, 1000), { action: 'schedule', eviction: { createdAt: 1000, fireAt: 6000 }, cancelFirst: false });
  });

  it('a waiting eviction stands when the tolerations change, as upstream keeps it (scheduled before now)', () => {
    const scheduled = { createdAt: 1000, fireAt: 6000 };
    assert.deepEqual(planEviction([taint], [{ operator: 'Exists', tolerationSeconds: 60 }], scheduled, 2000), { action: 'keep' });
    assert.deepEqual(planEviction([taint], [{ operator: 'Exists', tolerationSeconds: 1 }], scheduled, 2000), { action: 'keep' });
    // Scheduled this very millisecond: replaced, counted from the same start.
    assert.deepEqual(planEviction([taint], [{ operator: 'Exists', tolerationSeconds: 2 }], scheduled, 1000), { action: 'schedule', eviction: { createdAt: 1000, fireAt: 3000 }, cancelFirst: true });
    // An untolerated taint replaces it with one due now.
    assert.deepEqual(planEviction([taint, other], [{ key: 'k', operator: 'Exists', tolerationSeconds: 5 }], scheduled, 2000), { action: 'schedule', eviction: { createdAt: 2000, fireAt: 2000 }, cancelFirst: true });
  });
});
