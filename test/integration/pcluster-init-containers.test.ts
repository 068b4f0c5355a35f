/**
 * Init containers and sidecars (restartable init containers, restartPolicy Always) on the simulated cluster, as the
 * public examples use them (a log-shipping sidecar next to an app, a setup step before it): the kubelet stand-in
 * reports initContainerStatuses as the kubelet does, and the real kubectl 1.32 shows them as on any cluster: READY
 * counts the sidecar, STATUS is `Init:0/<n>` until the init containers ran, `kubectl logs -c <sidecar>` reads the
 * sidecar, and a Job whose main container finished completes although its sidecar ran on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;

const podSpec = (restartPolicy?: string) => ({
  ...(restartPolicy ? { restartPolicy } : {}),
  initContainers: [
    { name: 'setup', image: 'busybox:1.37', command: ['sh', '-c', 'echo ready > /work/state'] },
    { name: 'shipper', image: 'alpine:3.20', restartPolicy: 'Always', command: ['sh', '-c', 'tail -F /work/log'] },
  ],
  containers: [{ name: 'app', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi >> /work/log'] }],
  volumes: [{ name: 'work', emptyDir: {} }],
});

/** kubectl's table rows (header included), split on runs of spaces. */
const rows = (out: string) => out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-init-'));
  // A long start-up delay so the initializing state can be seen before the pod runs.
  const cluster = await startPcluster({ name: 'init', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 3000 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

describe('init containers and sidecars on the simulated cluster', () => {
  it('a Deployment\'s pod: Init:0/2 while initializing, then READY 2/2 Running with the sidecar started and ready', async () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'shipped' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'shipped' } }, template: { metadata: { labels: { app: 'shipped' } }, spec: podSpec() } },
    };
    assert.equal((await ts.request('POST', '/apis/apps/v1/namespaces/default/deployments', deploy)).status, 201);
    const initializing = await eventually('the pod initializing', async () => {
      const r = await ts.kubectl(['get', 'pods', '-l', 'app=shipped']);
      const row = rows(r.stdout)[1];
      return row?.[2] === 'Init:0/2' && row;
    }, 20_000, 100);
    assert.equal(initializing[1], '0/2', 'READY counts the app and the sidecar');
    const pending = (await ts.request('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dshipped')).json.items[0];
    const initialized = pending.status.conditions.find((c: { type: string }) => c.type === 'Initialized');
    assert.deepEqual([initialized.status, initialized.reason, initialized.message], ['False', 'ContainersNotInitialized', 'containers with incomplete status: [setup shipper]']);
    assert.deepEqual(pending.status.containerStatuses[0].state, { waiting: { reason: 'PodInitializing' } });

    const running = await eventually('the pod running', async () => {
      const row = rows((await ts.kubectl(['get', 'pods', '-l', 'app=shipped'])).stdout)[1];
      return row?.[2] === 'Running' && row;
    }, 20_000, 200);
    assert.equal(running[1], '2/2', 'READY counts the ready sidecar as kube does');
    const pod = (await ts.request('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dshipped')).json.items[0];
    const [setup, shipper] = pod.status.initContainerStatuses;
    assert.deepEqual([setup.name, setup.ready, setup.started, setup.state.terminated?.exitCode, setup.state.terminated?.reason], ['setup', true, false, 0, 'Completed']);
    assert.deepEqual([shipper.name, shipper.ready, shipper.started, typeof shipper.state.running?.startedAt], ['shipper', true, true, 'string']);
    assert.match(shipper.containerID, /^containerd:\/\//);
    assert.equal(pod.status.conditions.find((c: { type: string }) => c.type === 'Initialized').status, 'True');

    const logs = await ts.kubectl(['logs', pod.metadata.name, '-c', 'shipper']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /starting container shipper/);
    const describe = await ts.kubectl(['describe', 'pod', pod.metadata.name]);
    assert.match(describe.stdout, /^Init Containers:\n\s+setup:[^]*State:\s+Terminated\n\s+Reason:\s+Completed/m, describe.stdout);
    assert.match(describe.stdout, /Started container shipper/);
  });

  it('a Job whose main container finished completes, its sidecar stopped', async () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'shipped-once' }, spec: { template: { spec: podSpec('Never') } } };
    assert.equal((await ts.request('POST', '/apis/batch/v1/namespaces/default/jobs', job)).status, 201);
    const wait = await ts.kubectl(['wait', '--for=condition=complete', 'job/shipped-once', '--timeout=60s']);
    assert.equal(wait.code, 0, wait.stderr);
    const pod = (await ts.request('GET', '/api/v1/namespaces/default/pods?labelSelector=job-name%3Dshipped-once')).json.items[0];
    assert.equal(pod.status.phase, 'Succeeded');
    const shipper = pod.status.initContainerStatuses.find((c: { name: string }) => c.name === 'shipper');
    assert.deepEqual([shipper.started, shipper.ready, shipper.state.terminated?.exitCode], [false, false, 0], 'the sidecar is stopped with the pod');
    const row = rows((await ts.kubectl(['get', 'pods', '-l', 'job-name=shipped-once'])).stdout)[1];
    assert.deepEqual([row?.[1], row?.[2]], ['0/2', 'Completed']);
  });
});
