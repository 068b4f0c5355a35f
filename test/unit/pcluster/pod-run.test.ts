/**
 * What the simulated kubelet reads from a pod's command (a plain `sleep N` or `exit N`, the annotations first) and the
 * status it reports for a pod stopped by its deletion while finalizers hold the object.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crashLoops, exitCodeOf, killedStatus, runDurationMs } from '../../../src/pcluster/controllers/pod-run.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const pod = (command: string[] | undefined, args?: string[], annotations: Record<string, string> = {}, restartPolicy = 'Never'): KubeObject => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u1', annotations },
  spec: { restartPolicy, containers: [{ name: 'c', image: 'busybox', ...(command ? { command } : {}), ...(args ? { args } : {}) }] },
});

describe('plain commands', () => {
  const cases: [string, KubeObject, number, number][] = [
    ['sleep 300', pod(['sleep', '300']), 300_000, 0],
    ['/bin/sleep 2.5', pod(['/bin/sleep'], ['2.5']), 2_500, 0],
    ['sh -c "sleep 10"', pod(['/bin/sh', '-c', 'sleep 10']), 10_000, 0],
    ['sh -c "exit 42"', pod(['sh', '-c', 'exit 42']), 0, 42],
    ['bash -c " exit 1 "', pod(['bash', '-c', ' exit 1 ']), 0, 1],
    ['a script', pod(['sh', '-c', 'sleep 1; exit 3']), 2_000, 0],
    ['no command', pod(undefined), 2_000, 0],
    ['exit 300 (not an exit code)', pod(['sh', '-c', 'exit 300']), 2_000, 0],
    ['annotations win', pod(['sleep', '300'], undefined, { 'sim.atrium.io/run-seconds': '1', 'sim.atrium.io/exit-code': '7' }), 1_000, 7],
  ];
  for (const [name, p, ms, code] of cases) {
    it(name, () => {
      assert.equal(runDurationMs(p, 2_000), ms);
      assert.equal(exitCodeOf(p), code);
    });
  }
  it('a restartPolicy Always pod whose command exits non-zero crash-loops', () => {
    assert.equal(crashLoops(pod(['sh', '-c', 'exit 1'], undefined, {}, 'Always')), true);
    assert.equal(crashLoops(pod(['sleep', '3600'], undefined, {}, 'Always')), false);
  });
});

describe('killedStatus', () => {
  it('terminates running containers with 137, never-started ones as ContainerStatusUnknown, and fails the pod', () => {
    const running: KubeObject = {
      ...pod(['sleep', '300']),
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }],
        containerStatuses: [
          { name: 'c', ready: true, started: true, restartCount: 0, containerID: 'containerd://abc', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } },
          { name: 'd', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
        ],
      },
    };
    const s = killedStatus(running, Date.parse('2026-01-01T00:01:00Z'));
    assert.equal(s.phase, 'Failed');
    const [c, d] = s.containerStatuses as any[];
    assert.deepEqual(c.state, { terminated: { exitCode: 137, reason: 'Error', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:01:00Z', containerID: 'containerd://abc' } });
    assert.deepEqual([c.ready, c.started], [false, false]);
    assert.equal(d.state.terminated.reason, 'ContainerStatusUnknown');
    assert.equal(d.state.terminated.exitCode, 137);
    const conds = Object.fromEntries((s.conditions as any[]).map((x) => [x.type, [x.status, x.reason]]));
    assert.deepEqual(conds.Ready, ['False', 'PodFailed']);
    assert.deepEqual(conds.ContainersReady, ['False', 'PodFailed']);
    assert.deepEqual(conds.DisruptionTarget, ['True', 'EvictionByEvictionAPI'], 'conditions set by others are kept');
  });
});
