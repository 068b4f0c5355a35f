/**
 * Startup and readiness probes on the simulated cluster, as a kubelet's prober reports them (probes.ts): a readiness
 * probe's initial delay keeps a running container unready (READY 0/1 in `kubectl get pods`) for that long after it
 * started, so `kubectl rollout status` waits for it; a probe that plainly fails (`/bin/false`) keeps the pod Running
 * and never Ready, with no restart; a startup probe holds `started` too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.js';
import { useSimulatedCluster } from '../helpers/simulated-cluster.js';

const server = useSimulatedCluster('probes', { readyDelayMs: 100 });

const pod = (name: string, container: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], ...container }] },
});

const getPod = async (name: string) => (await server().request('GET', `/api/v1/namespaces/default/pods/${name}`)).json;
const condition = (p: any, type: string) => p.status.conditions.find((c: { type: string }) => c.type === type);

describe('probes on the simulated cluster', () => {
  it("a readiness probe's initial delay keeps the running container unready that long", async () => {
    assert.equal((await server().request('POST', '/api/v1/namespaces/default/pods', pod('delayed', { readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 3 } }))).status, 201);
    const running = await eventually('the pod running', async () => ((await getPod('delayed'))?.status?.phase === 'Running' ? getPod('delayed') : false), 20_000);
    assert.equal(running.status.containerStatuses[0].ready, false);
    assert.equal(running.status.containerStatuses[0].started, true);
    assert.deepEqual(
      { status: condition(running, 'Ready').status, reason: condition(running, 'Ready').reason, message: condition(running, 'Ready').message },
      { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]' },
    );
    const listed = await server().kubectl(['get', 'pod', 'delayed', '--no-headers']);
    assert.match(listed.stdout, /^delayed\s+0\/1\s+Running\s+0\s/, listed.stdout + listed.stderr);
    const ready = await eventually('the pod ready', async () => {
      const p = await getPod('delayed');
      return condition(p, 'Ready')?.status === 'True' && p;
    }, 20_000, 100);
    const startedAt = Date.parse(ready.status.containerStatuses[0].state.running.startedAt);
    const readyAt = Date.parse(condition(ready, 'Ready').lastTransitionTime);
    assert.ok(readyAt - startedAt >= 3000, `ready ${readyAt - startedAt} ms after the container started`);
    assert.equal(ready.status.containerStatuses[0].ready, true);
    assert.equal(ready.status.containerStatuses[0].restartCount, 0);
    assert.equal(condition(ready, 'ContainersReady').status, 'True');
  });

  it('a readiness probe that plainly fails keeps the pod Running and never ready, without restarts', async () => {
    assert.equal((await server().request('POST', '/api/v1/namespaces/default/pods', pod('failing', { readinessProbe: { exec: { command: ['/bin/false'] } } }))).status, 201);
    await eventually('the pod running', async () => (await getPod('failing'))?.status?.phase === 'Running', 20_000);
    await new Promise((r) => setTimeout(r, 2000));
    const p = await getPod('failing');
    assert.equal(p.status.phase, 'Running');
    assert.equal(condition(p, 'Ready').status, 'False');
    assert.equal(p.status.containerStatuses[0].ready, false);
    assert.equal(p.status.containerStatuses[0].restartCount, 0);
  });

  it('a startup probe holds started and ready for its initial delay', async () => {
    assert.equal((await server().request('POST', '/api/v1/namespaces/default/pods', pod('slow-start', { startupProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 2 } }))).status, 201);
    const running = await eventually('the pod running', async () => ((await getPod('slow-start'))?.status?.phase === 'Running' ? getPod('slow-start') : false), 20_000);
    assert.deepEqual({ started: running.status.containerStatuses[0].started, ready: running.status.containerStatuses[0].ready }, { started: false, ready: false });
    const started = await eventually('the container started', async () => {
      const p = await getPod('slow-start');
      return p.status.containerStatuses[0].started === true && p;
    }, 20_000, 100);
    assert.equal(started.status.containerStatuses[0].ready, true);
    assert.equal(condition(started, 'Ready').status, 'True');
  });

  it('`kubectl rollout status` waits for the readiness delay of a Deployment', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 3 } }] } },
      },
    };
    const created = Date.now();
    assert.equal((await server().request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment)).status, 201);
    const rollout = await server().kubectl(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    assert.equal(rollout.code, 0, rollout.stderr);
    assert.match(rollout.stdout, /successfully rolled out/);
    assert.ok(Date.now() - created >= 3000, `rolled out after ${Date.now() - created} ms`);
  });
});
