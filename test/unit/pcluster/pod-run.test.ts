/**
 * What the simulated kubelet reads from a pod's command (a plain `sleep N` or `exit N`, the annotations first) and the
 * status it reports for a pod stopped by its deletion while finalizers hold the object.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeDeadline, crashLoops, deadlineExceededStatus, exitCodeOf, isPauseImage, killedStatus, PodRunner, runDurationMs } from '../../../src/pcluster/controllers/pod-run.js';
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
    ['a plain script: its sleeps and its exit status', pod(['sh', '-c', 'sleep 1; exit 3']), 1_000, 3],
    ['the website\'s podFailurePolicy example', pod(['bash', '-c', "echo 'Hello world!' && sleep 5 && exit 42"]), 5_000, 42],
    ['a script that only prints: the default run, exit 0', pod(['sh', '-c', 'echo hi']), 2_000, 0],
    ['a script that fails', pod(['sh', '-c', 'echo oops; exit 2']), 2_000, 2],
    ['a script that is not plain', pod(['sh', '-c', 'sleep 1 | cat; exit 3']), 2_000, 0],
    ['no command', pod(undefined), 2_000, 0],
    ['/bin/false', pod(['/bin/false']), 0, 1],
    ['true', pod(['true']), 0, 0],
    ['sh -c false', pod(['sh', '-c', 'false']), 0, 1],
    ['exit 300: the shell exits with 300 & 255', pod(['sh', '-c', 'exit 300']), 2_000, 44],
    ['annotations win', pod(['sleep', '300'], undefined, { 'sim.atrium.io/run-seconds': '1', 'sim.atrium.io/exit-code': '7' }), 1_000, 7],
    ['the pause image as it is never exits', { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } }, Number.POSITIVE_INFINITY, 0],
    ['the pause image with a command runs it', { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', command: ['sleep', '5'] }] } }, 5_000, 0],
    ['agnhost as it is runs its pause', { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53' }] } }, Number.POSITIVE_INFINITY, 0],
    ['agnhost pause', { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', args: ['pause'] }] } }, Number.POSITIVE_INFINITY, 0],
    ['agnhost netexec runs the default', { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', args: ['netexec'] }] } }, 2_000, 0],
    ['an image merely named like pause', { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'example.com/pause-demo-app:1' }] } }, 2_000, 0],
  ];
  for (const [name, p, ms, code] of cases) {
    it(name, () => {
      assert.equal(runDurationMs(p, 2_000), ms);
      assert.equal(exitCodeOf(p), code);
    });
  }
  it('pause images by name, and a pod of one is never looked at again by the runner', () => {
    for (const image of ['registry.k8s.io/pause:3.10', 'k8s.gcr.io/pause', 'gcr.io/google_containers/pause-amd64:3.1', 'pause@sha256:abcd']) assert.ok(isPauseImage(image), image);
    for (const image of ['busybox', 'pause-demo-app', 'example.com/paused:1']) assert.ok(!isPauseImage(image), image);
    const running: KubeObject = { ...pod(undefined), spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'c', restartCount: 0 }] } };
    assert.deepEqual(new PodRunner(2_000).step(running, 0), {});
    assert.deepEqual(new PodRunner(2_000).step(running, 1e12), {});
  });

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

describe('activeDeadlineSeconds', () => {
  const started = (seconds: number | undefined): KubeObject => {
    const p = pod(['sleep', '300'], undefined, {}, 'Always');
    if (seconds !== undefined) (p.spec as Record<string, unknown>).activeDeadlineSeconds = seconds;
    p.status = { phase: 'Running', startTime: '2026-01-01T00:00:00Z', containerStatuses: [{ name: 'c', ready: true, started: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:01Z' } } }] };
    return p;
  };
  it('counts from status.startTime: the time left, then exceeded; nothing without a deadline or a start', () => {
    const now = Date.parse('2026-01-01T00:00:03Z');
    assert.equal(activeDeadline(started(5), now), 2000);
    assert.equal(activeDeadline(started(3), now), 'exceeded');
    assert.equal(activeDeadline(started(1), now), 'exceeded');
    assert.equal(activeDeadline(started(undefined), now), undefined);
    assert.equal(activeDeadline({ ...started(5), status: { phase: 'Pending' } }, now), undefined);
  });
  it('a pod past it is Failed with DeadlineExceeded, its containers killed', () => {
    const s = deadlineExceededStatus(started(1), Date.parse('2026-01-01T00:00:03Z'));
    assert.deepEqual([s.phase, s.reason, s.message], ['Failed', 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline']);
    assert.equal((s.containerStatuses as any[])[0].state.terminated.exitCode, 137);
    assert.deepEqual((s.conditions as any[]).find((c) => c.type === 'Ready')?.status, 'False');
  });
});
