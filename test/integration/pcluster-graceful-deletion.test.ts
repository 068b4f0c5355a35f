/**
 * Graceful pod deletion on the simulated cluster, as on a cluster with kubelets: a DELETE of a running pod marks it
 * (deletionTimestamp = now + the grace period, deletionGracePeriodSeconds) and answers the pod; the kubelet stops its
 * containers and deletes it again with no grace period, so the DELETED event carries the deletionTimestamp; a pod
 * never scheduled goes at once; the real kubectl's `delete pod` returns once the pod is gone.
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

const pod = (name: string, extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...extra },
  spec: { containers: [{ name: 'app', image: 'busybox:1.37', command: ['sleep', '3600'] }], ...spec },
});

const running = (name: string) =>
  eventually(`pod ${name} running`, async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/default/pods/${name}`);
    return r.json?.status?.phase === 'Running' && r.json;
  }, 20_000);

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-graceful-'));
  const cluster = await startPcluster({ name: 'graceful', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 100 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

describe('graceful pod deletion on the simulated cluster', () => {
  it('marks a running pod, lets the kubelet stop and delete it, and the DELETED event carries the deletionTimestamp', async () => {
    // A finalizer holds the pod after the kubelet's delete, so each step can be seen.
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod('held', { finalizers: ['example.com/hold'] }))).status, 201);
    const before = await running('held');
    const watch = ts.request('GET', `/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name%3Dheld&resourceVersion=${before.metadata.resourceVersion}&timeoutSeconds=6`);
    const asked = Date.now();
    const del = await ts.request('DELETE', '/api/v1/namespaces/default/pods/held', { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 30 });
    assert.equal(del.status, 200);
    assert.equal(del.json.kind, 'Pod', 'a graceful delete answers the pod');
    assert.equal(del.json.metadata.deletionGracePeriodSeconds, 30);
    const due = Date.parse(del.json.metadata.deletionTimestamp);
    assert.ok(due >= Math.floor(asked / 1000) * 1000 + 29_000 && due <= asked + 31_000, `deletionTimestamp ${del.json.metadata.deletionTimestamp} is about 30 s ahead`);
    // The kubelet stops the containers and deletes the pod with no grace period: only the finalizer holds it now.
    const stopped = await eventually('the kubelet to stop and delete the pod', async () => {
      const r = await ts.request('GET', '/api/v1/namespaces/default/pods/held');
      return r.json?.metadata?.deletionGracePeriodSeconds === 0 && r.json.status?.phase === 'Failed' && r.json;
    }, 20_000);
    assert.equal(stopped.metadata.deletionTimestamp, del.json.metadata.deletionTimestamp, 'a shorter grace period keeps the mark the kubelet saw');
    assert.equal((await ts.request('PATCH', '/api/v1/namespaces/default/pods/held', { metadata: { finalizers: null } }, { headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const events = (await watch).text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { deletionTimestamp?: string } } });
    const deleted = events.find((e) => e.type === 'DELETED');
    assert.ok(deleted, `a DELETED event: ${events.map((e) => e.type).join(', ')}`);
    assert.ok(deleted.object.metadata.deletionTimestamp, 'the DELETED object carries its deletionTimestamp');
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/pods/held')).status, 404);
  });

  it('a second DELETE may only shorten the grace period', async () => {
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod('twice', { finalizers: ['example.com/hold'] }))).status, 201);
    await running('twice');
    // The kubelet turns the first mark into a 0 s one at once, so ask for the first while the pod is not yet stopped.
    const first = await ts.request('DELETE', '/api/v1/namespaces/default/pods/twice?gracePeriodSeconds=60');
    assert.equal(first.json.metadata.deletionGracePeriodSeconds, 60);
    const again = await ts.request('DELETE', '/api/v1/namespaces/default/pods/twice?gracePeriodSeconds=0');
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.deletionGracePeriodSeconds, 0, 'a 0 s grace period holds only by the finalizer');
    await ts.request('PATCH', '/api/v1/namespaces/default/pods/twice', { metadata: { finalizers: null } }, { headers: { 'content-type': 'application/merge-patch+json' } });
  });

  it('deletes a pod never scheduled at once, and kubectl delete pod returns once a running pod is gone', async () => {
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod('nowhere', {}, { nodeSelector: { 'example.com/none': 'x' } }))).status, 201);
    const gone = await ts.request('DELETE', '/api/v1/namespaces/default/pods/nowhere');
    assert.equal(gone.status, 200);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/pods/nowhere')).status, 404);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/pods', pod('plain'))).status, 201);
    await running('plain');
    const r = await ts.kubectl(['delete', 'pod', 'plain', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pod "plain" deleted/);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/pods/plain')).status, 404);
  });
});
