/** podGracePeriod (graceful-pods.ts): the grace period of a pod deletion, as the pod strategy's CheckGracefulDelete decides it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { podGracePeriod } from '../../../src/pcluster/graceful-pods.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const pod = (spec: Record<string, unknown>, phase = 'Running'): KubeObject => ({ metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [], ...spec }, status: { phase } });

describe('podGracePeriod', () => {
  it('takes the grace period asked for, else the pod\'s terminationGracePeriodSeconds', () => {
    assert.equal(podGracePeriod(pod({ terminationGracePeriodSeconds: 30 }), undefined), 30);
    assert.equal(podGracePeriod(pod({ terminationGracePeriodSeconds: 30 }), 5), 5);
    assert.equal(podGracePeriod(pod({ terminationGracePeriodSeconds: 30 }), 0), 0);
    assert.equal(podGracePeriod(pod({}), undefined), 0);
  });

  it('deletes a pod never scheduled or already finished at once, and counts a negative period as 1 s', () => {
    assert.equal(podGracePeriod(pod({ nodeName: '', terminationGracePeriodSeconds: 30 }), undefined), 0);
    assert.equal(podGracePeriod(pod({ terminationGracePeriodSeconds: 30 }, 'Succeeded'), 10), 0);
    assert.equal(podGracePeriod(pod({ terminationGracePeriodSeconds: 30 }, 'Failed'), undefined), 0);
    assert.equal(podGracePeriod(pod({ terminationGracePeriodSeconds: -5 }), undefined), 1);
  });
});
