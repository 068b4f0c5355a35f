/**
 * Init containers that fail (init-containers.ts): which one fails, the Failed pod of restartPolicy Never, and the
 * crash-looping init container of a restarting pod with kubelet's back-off.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failingInitContainer, initFailureStatus, restartsAfter } from '../../../src/pcluster/controllers/init-containers.js';
import type { JsonObject, KubeObject } from '../../../src/apimachinery/object.js';

const pod = (restartPolicy: string, inits: JsonObject[]): KubeObject => ({
  metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
  spec: { restartPolicy, initContainers: inits, containers: [{ name: 'run1', image: 'busybox', command: ['/bin/true'] }] },
});
const init = (name: string, command: string[], extra: JsonObject = {}): JsonObject => ({ name, image: 'busybox', command, ...extra });
const waiting = (name: string): JsonObject => ({ name, image: 'busybox', imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'PodInitializing' } }, lastState: {} });
const pending = (inits: string[]): JsonObject => ({
  phase: 'Pending',
  conditions: [
    { type: 'PodReadyToStartContainers', status: 'False' },
    { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized' },
    { type: 'Ready', status: 'False' },
    { type: 'ContainersReady', status: 'False' },
    { type: 'PodScheduled', status: 'True' },
  ],
  initContainerStatuses: inits.map(waiting),
  containerStatuses: [waiting('run1')],
});
const id = (name: string, restart: number) => `containerd://${name}-${restart}`;
const condition = (s: JsonObject, type: string) => (s.conditions as JsonObject[]).find((c) => c.type === type)!;

describe('failing init containers', () => {
  it('finds the first init container whose command plainly fails, skipping sidecars', () => {
    assert.equal(failingInitContainer(pod('Never', [init('a', ['/bin/true']), init('b', ['sleep', '1'])])), undefined);
    assert.deepEqual(failingInitContainer(pod('Never', [init('a', ['/bin/true']), init('b', ['/bin/false']), init('c', ['sh', '-c', 'exit 3'])])), { index: 1, name: 'b', exitCode: 1 });
    assert.deepEqual(failingInitContainer(pod('Always', [init('side', ['/bin/false'], { restartPolicy: 'Always' }), init('b', ['sh', '-c', 'exit 3'])])), { index: 1, name: 'b', exitCode: 3 });
  });

  it('fails a restartPolicy Never pod: the failed init container terminated, the rest waiting in PodInitializing', () => {
    const p = pod('Never', [init('init1', ['/bin/true']), init('init2', ['/bin/false']), init('init3', ['/bin/true'])]);
    const { status, requeueAfterMs } = initFailureStatus(p, pending(['init1', 'init2', 'init3']), failingInitContainer(p)!, 1_000, 1_000, id);
    assert.equal(requeueAfterMs, undefined);
    assert.equal(status.phase, 'Failed');
    const [i1, i2, i3] = status.initContainerStatuses as JsonObject[];
    assert.deepEqual((i1!.state as JsonObject).terminated && [((i1!.state as JsonObject).terminated as JsonObject).exitCode, i1!.ready], [0, true]);
    assert.deepEqual((i2!.state as JsonObject).terminated, { exitCode: 1, reason: 'Error', startedAt: '1970-01-01T00:00:01Z', finishedAt: '1970-01-01T00:00:01Z', containerID: 'containerd://init2-0' });
    assert.deepEqual(i3!.state, { waiting: { reason: 'PodInitializing' } });
    assert.deepEqual((status.containerStatuses as JsonObject[])[0]!.state, { waiting: { reason: 'PodInitializing' } });
    assert.deepEqual([condition(status, 'Initialized').status, condition(status, 'Initialized').reason, condition(status, 'Initialized').message], ['False', 'ContainersNotInitialized', 'containers with incomplete status: [init2 init3]']);
    assert.deepEqual([condition(status, 'Ready').reason, condition(status, 'ContainersReady').reason, condition(status, 'PodReadyToStartContainers').status], ['PodFailed', 'PodFailed', 'False']);
  });

  it('restarts the failing init container of a restarting pod after the back-off, keeping the pod Pending', () => {
    assert.deepEqual(restartsAfter(0), { restarts: 0, nextInMs: 10_000 });
    assert.deepEqual(restartsAfter(10_000), { restarts: 1, nextInMs: 20_000 });
    assert.deepEqual(restartsAfter(75_000), { restarts: 3, nextInMs: 75_000 });
    const p = pod('Always', [init('init1', ['/bin/false']), init('init2', ['/bin/true'])]);
    const { status, requeueAfterMs } = initFailureStatus(p, pending(['init1', 'init2']), failingInitContainer(p)!, 0, 35_000, id);
    assert.equal(status.phase, 'Pending');
    assert.equal(requeueAfterMs, 35_000);
    const [i1, i2] = status.initContainerStatuses as JsonObject[];
    assert.equal(i1!.restartCount, 2);
    assert.deepEqual(i1!.state, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=init1 pod=p_ns(u1)' } });
    assert.deepEqual(((i1!.lastState as JsonObject).terminated as JsonObject).startedAt, '1970-01-01T00:00:30Z');
    assert.deepEqual(i2!.state, { waiting: { reason: 'PodInitializing' } });
    assert.deepEqual([condition(status, 'Ready').reason, condition(status, 'Ready').message, condition(status, 'PodReadyToStartContainers').status], ['ContainersNotReady', 'containers with unready status: [run1]', 'True']);
  });
});

describe('a sidecar before a failing init container', () => {
  it('runs, started and ready, while the failing one crash-loops, and is not listed as unready', () => {
    const p = pod('Always', [init('proxy', ['sleep', '3600'], { restartPolicy: 'Always' }), init('migrate', ['/bin/false'])]);
    const { status } = initFailureStatus(p, pending(['proxy', 'migrate']), failingInitContainer(p)!, 0, 1_000, id);
    const [proxy] = status.initContainerStatuses as JsonObject[];
    assert.deepEqual([proxy!.started, proxy!.ready, Object.keys(proxy!.state as JsonObject)], [true, true, ['running']]);
    assert.equal(condition(status, 'ContainersReady').message, 'containers with unready status: [run1]');
  });
});
