/**
 * The simulated kubelet's crash loop (src/pcluster/controllers/pod-run.ts crashLoopStep): a restartPolicy Always pod
 * with a non-zero `sim.atrium.io/exit-code` runs, exits into CrashLoopBackOff (kube's 10 s back-off, doubling, at most
 * 5 min), restarts with restartCount + 1, from its status alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crashLoopBackOffMs, crashLoopStep, crashLoops, podDesc } from '../../../src/pcluster/controllers/pod-run.js';
import type { JsonObject, KubeObject } from '../../../src/apimachinery/object.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const pod = (status: JsonObject, annotations: Record<string, string> = { 'sim.atrium.io/exit-code': '2', 'sim.atrium.io/run-seconds': '5' }, restartPolicy?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'ns', uid: 'u-1', annotations },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], ...status },
});
const running = (startedAt: string, restartCount = 0): JsonObject => ({ containerStatuses: [{ name: 'c', ready: true, started: true, restartCount, state: { running: { startedAt } }, containerID: 'containerd://x' }] });

describe('crash loop of a restartPolicy Always pod with a non-zero simulated exit code', () => {
  it('only such pods crash-loop', () => {
    assert.equal(crashLoops(pod({})), true);
    assert.equal(crashLoops(pod({}, {})), false, 'no exit code: runs until deleted');
    assert.equal(crashLoops(pod({}, { 'sim.atrium.io/exit-code': '0' })), false);
    assert.equal(crashLoops(pod({}, undefined, 'OnFailure')), false, 'OnFailure/Never: pod-run\'s run to completion');
    assert.equal(podDesc(pod({})), 'web-1_ns(u-1)');
  });

  it('back-off: 10 s doubling, at most 5 min', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map(crashLoopBackOffMs), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('runs for run-seconds, exits into CrashLoopBackOff (not ready, last state Error), restarts after the back-off', () => {
    const p = pod(running('2025-01-01T00:00:00Z'));
    assert.deepEqual(crashLoopStep(p, T0 + 2000, 1000), { requeueAfterMs: 3000 }, 'still running');
    const crashed = crashLoopStep(p, T0 + 5000, 1000);
    assert.equal(crashed.transition, 'crashed');
    assert.equal(crashed.requeueAfterMs, 10_000);
    const cs = (crashed.status!.containerStatuses as JsonObject[])[0]!;
    assert.deepEqual(cs.state, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=c pod=web-1_ns(u-1)' } });
    assert.deepEqual((cs.lastState as { terminated: JsonObject }).terminated.exitCode, 2);
    assert.equal((cs.lastState as { terminated: JsonObject }).terminated.reason, 'Error');
    assert.equal(cs.ready, false);
    assert.equal(cs.restartCount, 0, 'counted when it restarts');
    assert.equal(crashed.status!.phase, 'Running');
    assert.equal((crashed.status!.conditions as { type: string; status: string }[]).find((c) => c.type === 'Ready')?.status, 'False');

    const waiting = pod(crashed.status!);
    assert.deepEqual(crashLoopStep(waiting, T0 + 9000, 1000), { requeueAfterMs: 6000 }, 'backing off');
    const restarted = crashLoopStep(waiting, T0 + 15_000, 1000);
    assert.equal(restarted.transition, 'restarted');
    const rs = (restarted.status!.containerStatuses as JsonObject[])[0]!;
    assert.equal(rs.restartCount, 1);
    assert.equal(rs.ready, true);
    assert.ok((rs.state as { running?: JsonObject }).running);
    assert.equal((rs.lastState as { terminated: JsonObject }).terminated.exitCode, 2, 'the last termination stays');
    // The second crash backs off twice as long.
    const again = crashLoopStep(pod(restarted.status!), T0 + 21_000, 1000);
    assert.equal(again.transition, 'crashed');
    assert.equal(again.requeueAfterMs, 20_000);
  });
});
