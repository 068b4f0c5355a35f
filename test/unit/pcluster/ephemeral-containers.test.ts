/**
 * The simulated kubelet's ephemeral containers (src/pcluster/controllers/ephemeral-containers.ts) at given instants:
 * waiting (ContainerCreating, PodInitializing with init containers) until the pod runs and the start-up delay has
 * passed, then started once and kept as they are; and when an attach session ends with the client's stdin
 * (src/pcluster/debug/pod-stream.ts detachesOnStdinEnd, containerd's rule).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EphemeralContainerStarter, withEphemeralStatuses } from '../../../src/pcluster/controllers/ephemeral-containers.js';
import { detachesOnStdinEnd } from '../../../src/pcluster/debug/pod-stream.js';
import type { JsonObject, KubeObject } from '../../../src/apimachinery/object.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const ids = { containerID: (name: string) => `containerd://${name}-id`, imageID: (image: string) => `${image}@sha256:x` };
const pod = (ephemeral: string[], status: JsonObject = {}, initContainers: JsonObject[] = []): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-1' },
  spec: { initContainers, containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: ephemeral.map((name) => ({ name, image: 'busybox' })) },
  status: { phase: 'Running', ...status },
});

describe('ephemeral containers of the simulated kubelet', () => {
  it('waits for the start-up delay, then starts the container once', () => {
    const starter = new EphemeralContainerStarter(1000);
    const first = starter.step(pod(['dbg']), true, ids, T0);
    assert.deepEqual(first.statuses, [{ name: 'dbg', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} }]);
    assert.deepEqual([first.started, first.requeueAfterMs], [[], 1000]);
    assert.equal(starter.step(pod(['dbg']), true, ids, T0 + 400).requeueAfterMs, 600, 'the delay counts from when it was first seen');

    const due = starter.step(pod(['dbg']), true, ids, T0 + 1000);
    assert.deepEqual(due.started, [{ name: 'dbg', image: 'busybox' }]);
    const [started] = due.statuses;
    assert.deepEqual({ ...started, state: undefined }, { name: 'dbg', image: 'busybox', imageID: 'busybox@sha256:x', containerID: 'containerd://dbg-id', ready: false, restartCount: 0, lastState: {}, state: undefined });
    assert.equal(typeof (started!.state as any).running.startedAt, 'string');
    assert.equal('started' in started!, false, 'the prober manager sets started for regular and init containers only');

    // Once started it is never started again, whatever its state.
    const terminated = { ...started, state: { terminated: { exitCode: 0, reason: 'Completed' } } };
    const later = starter.step(pod(['dbg'], { ephemeralContainerStatuses: [terminated] }), true, ids, T0 + 60_000);
    assert.deepEqual([later.statuses, later.started, later.requeueAfterMs], [[terminated], [], undefined]);
  });

  it('waits in PodInitializing while a pod with init containers starts, and starts with the pod', () => {
    const starter = new EphemeralContainerStarter(1000);
    const p = pod(['dbg'], { phase: 'Pending' }, [{ name: 'setup', image: 'busybox' }]);
    const pending = starter.step(p, false, ids, T0);
    assert.deepEqual(pending.statuses[0]!.state, { waiting: { reason: 'PodInitializing' } });
    assert.equal(pending.requeueAfterMs, undefined, 'the pod start brings it back');
    assert.deepEqual(starter.step(p, false, ids, T0 + 5000).started, [], 'not before the pod runs');
    assert.deepEqual(starter.step(p, true, ids, T0 + 5000).started.map((c) => c.name), ['dbg']);
  });

  it('sorts the statuses by name, keeps started ones as they are, forgets a deleted pod', () => {
    const starter = new EphemeralContainerStarter(0);
    const a = starter.step(pod(['zeta']), true, ids, T0).statuses;
    const both = starter.step(pod(['zeta', 'alpha'], { ephemeralContainerStatuses: a }), true, ids, T0 + 10);
    assert.deepEqual(both.statuses.map((s) => s.name), ['alpha', 'zeta']);
    assert.deepEqual(both.statuses[1], a[0]);
    assert.deepEqual(both.started.map((c) => c.name), ['alpha']);

    const slow = new EphemeralContainerStarter(1000);
    slow.step(pod(['dbg']), true, ids, T0);
    slow.forget('u-1');
    assert.equal(slow.step(pod(['dbg']), true, ids, T0 + 900).requeueAfterMs, 1000, 'a new pod with the same uid would wait afresh');
  });

  it('leaves the field out when there is no ephemeral container', () => {
    assert.deepEqual(withEphemeralStatuses({ phase: 'Running', ephemeralContainerStatuses: [] }, []), { phase: 'Running' });
    assert.deepEqual(withEphemeralStatuses({ phase: 'Running' }, [{ name: 'x' }]), { phase: 'Running', ephemeralContainerStatuses: [{ name: 'x' }] });
  });

  it('an attach session ends with the client\'s stdin only for a container with stdin that is not stdinOnce without a TTY', () => {
    assert.equal(detachesOnStdinEnd({ name: 'c' }), false, 'no stdin: the client\'s is ignored');
    assert.equal(detachesOnStdinEnd({ name: 'c', stdin: true }), true, 'kubectl debug -i');
    assert.equal(detachesOnStdinEnd({ name: 'c', stdin: true, tty: true }), true);
    assert.equal(detachesOnStdinEnd({ name: 'c', stdin: true, stdinOnce: true }), false, 'kubectl run -i: the container\'s stdin closes instead');
    assert.equal(detachesOnStdinEnd({ name: 'c', stdin: true, stdinOnce: true, tty: true }), true);
  });
});
