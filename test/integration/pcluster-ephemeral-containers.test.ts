/**
 * Ephemeral containers on the simulated cluster (what `kubectl debug` adds): the kubelet stand-in starts each one
 * once, after a ContainerCreating (or PodInitializing) wait, and reports it in status.ephemeralContainerStatuses as
 * kube 1.32's kubelet does (never ready, no `started`, sorted by name) without touching the pod's conditions or its
 * other containers; it records Pulled/Created/Started under spec.ephemeralContainers{<name>}; the container runtime
 * gives it a log (pods/log) and a working directory for exec (the real kubectl); it stops with its pod.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';
import { eventually } from '../helpers/eventually.js';

// A start-up delay long enough to see the waiting states between polls.
const server = useSimulatedCluster('ephemeral', { readyDelayMs: 1500 });
const NS = '/api/v1/namespaces/default';
const STRATEGIC = { headers: { 'content-type': 'application/strategic-merge-patch+json' } };

async function createPod(name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}): Promise<void> {
  const r = await server().request('POST', `${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec });
  assert.equal(r.status, 201, r.text);
}

const getPod = async (name: string) => (await server().request('GET', `${NS}/pods/${name}`)).json;

async function addDebugContainer(pod: string, container: Record<string, unknown>): Promise<void> {
  const r = await server().request('PATCH', `${NS}/pods/${pod}/ephemeralcontainers`, { spec: { ephemeralContainers: [container] } }, STRATEGIC);
  assert.equal(r.status, 200, r.text);
}

const ephemeralStatus = (pod: any, name: string) => (pod.status?.ephemeralContainerStatuses ?? []).find((s: any) => s.name === name);

async function running(pod: string): Promise<any> {
  return eventually(`${pod} running`, async () => {
    const p = await getPod(pod);
    return p.status?.phase === 'Running' && p;
  }, 20_000, 100);
}

describe('ephemeral containers on the simulated cluster', () => {
  it('starts a debug container added to a running pod and reports it as the kubelet does, leaving the pod as it was', async () => {
    await createPod('web', { containers: [{ name: 'app', image: 'nginx:1.27' }] });
    const before = await running('web');
    assert.equal(before.status.ephemeralContainerStatuses, undefined, 'no ephemeral container, no statuses');

    await addDebugContainer('web', { name: 'dbg', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true });
    const waiting = await eventually('dbg waiting', async () => ephemeralStatus(await getPod('web'), 'dbg'), 10_000, 50);
    assert.deepEqual(waiting, { name: 'dbg', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} });

    const pod = await eventually('dbg running', async () => {
      const p = await getPod('web');
      return ephemeralStatus(p, 'dbg')?.state?.running && p;
    }, 10_000, 50);
    const dbg = ephemeralStatus(pod, 'dbg');
    assert.deepEqual(Object.keys(dbg).sort(), ['containerID', 'image', 'imageID', 'lastState', 'name', 'ready', 'restartCount', 'state']);
    assert.deepEqual([dbg.ready, dbg.restartCount, dbg.lastState, dbg.started], [false, 0, {}, undefined], 'never ready, never restarted, no started field');
    assert.match(dbg.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.match(dbg.imageID, /^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/);
    assert.ok(Date.parse(dbg.state.running.startedAt) >= Date.parse(before.status.startTime));
    assert.deepEqual(pod.status.containerStatuses, before.status.containerStatuses, 'the regular containers are not touched');
    assert.deepEqual(pod.status.conditions, before.status.conditions, 'the conditions (Ready included) are not touched');

    const events = await eventually('the start events', async () => {
      const items = (await server().request('GET', `${NS}/events`)).json.items.filter((e: any) => e.involvedObject.name === 'web' && e.involvedObject.fieldPath === 'spec.ephemeralContainers{dbg}');
      return items.length === 3 && items;
    }, 10_000, 100);
    assert.deepEqual(events.map((e: any) => [e.reason, e.message, e.source.component]).sort(), [
      ['Created', 'Created container: dbg', 'kubelet'],
      ['Pulled', 'Container image "busybox" already present on machine', 'kubelet'],
      ['Started', 'Started container dbg', 'kubelet'],
    ]);

    const log = await eventually('the debug container log', async () => {
      const r = await server().request('GET', `${NS}/pods/web/log?container=dbg`);
      return r.status === 200 && r.text;
    }, 10_000, 100);
    assert.match(log, /^\[atrium-sim\] starting container dbg \(image busybox\) of pod default\/web on node /);
    assert.match(log, /\[atrium-sim\] ephemeral container targeting container app: running\n/);
    assert.doesNotMatch(log, /\[atrium-sim\] ready/);
    const appLog = (await server().request('GET', `${NS}/pods/web/log?container=app`)).text;
    assert.doesNotMatch(appLog, /container dbg/, 'each container has its own log');

    // exec runs in the debug container's own working directory, with the pod's hostname.
    const exec = await server().kubectl(['exec', 'web', '-c', 'dbg', '--', 'sh', '-c', 'basename "$PWD"; echo "$HOSTNAME"; echo probe > mark']);
    assert.equal(exec.code, 0, exec.stderr);
    assert.equal(exec.stdout, 'dbg\nweb\n');
    const again = await server().kubectl(['exec', 'web', '-c', 'app', '--', 'sh', '-c', 'cat mark 2>/dev/null || echo none']);
    assert.equal(again.stdout, 'none\n', 'app has a directory of its own');
  });

  it('starts a second one without restarting the first, statuses sorted by name', async () => {
    const first = ephemeralStatus(await getPod('web'), 'dbg');
    assert.ok(first?.state?.running, 'dbg runs (previous test)');
    await addDebugContainer('web', { name: 'another', image: 'alpine:3.20' });
    const pod = await eventually('another running', async () => {
      const p = await getPod('web');
      return ephemeralStatus(p, 'another')?.state?.running && p;
    }, 10_000, 50);
    assert.deepEqual(pod.status.ephemeralContainerStatuses.map((s: any) => s.name), ['another', 'dbg']);
    assert.deepEqual(ephemeralStatus(pod, 'dbg'), first, 'the first one is left as it was');
  });

  it('waits in PodInitializing when added to a pod still initializing, and starts with it', async () => {
    await createPod('starting', {
      initContainers: [{ name: 'setup', image: 'busybox' }],
      containers: [{ name: 'app', image: 'nginx:1.27' }],
    });
    await addDebugContainer('starting', { name: 'early', image: 'busybox' });
    const pending = await eventually('early waiting', async () => {
      const p = await getPod('starting');
      return p.status?.phase === 'Pending' && ephemeralStatus(p, 'early') && p;
    }, 10_000, 50);
    assert.deepEqual(ephemeralStatus(pending, 'early').state, { waiting: { reason: 'PodInitializing' } });
    const pod = await eventually('early running', async () => {
      const p = await getPod('starting');
      return ephemeralStatus(p, 'early')?.state?.running && p;
    }, 20_000, 50);
    assert.equal(pod.status.phase, 'Running');
    assert.equal(typeof ephemeralStatus(pod, 'early').state.running.startedAt, 'string');
    assert.equal(pod.status.conditions.find((c: any) => c.type === 'Ready').status, 'True', 'the never-ready debug container does not hold the pod back');
  });

  it('stops with its pod: a pod that runs to completion ends its debug container too', async () => {
    await createPod('job', { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] }, { 'sim.atrium.io/run-seconds': '4' });
    await running('job');
    await addDebugContainer('job', { name: 'dbg', image: 'busybox' });
    await eventually('dbg running in job', async () => ephemeralStatus(await getPod('job'), 'dbg')?.state?.running, 10_000, 50);
    const done = await eventually('job succeeded', async () => {
      const p = await getPod('job');
      return p.status?.phase === 'Succeeded' && p;
    }, 20_000, 100);
    const dbg = ephemeralStatus(done, 'dbg');
    assert.equal(dbg.state.terminated?.exitCode, 0);
    assert.equal(dbg.state.terminated?.reason, 'Completed');
    assert.equal(dbg.state.terminated?.containerID, dbg.containerID);
    const log = await eventually('the ended log', async () => {
      const r = await server().request('GET', `${NS}/pods/job/log?container=dbg`);
      return r.status === 200 && /exited with code 0/.test(r.text) && r.text;
    }, 10_000, 100);
    assert.match(log, /\[atrium-sim\] container dbg exited with code 0 \(Completed\)\n$/);
  });
});
