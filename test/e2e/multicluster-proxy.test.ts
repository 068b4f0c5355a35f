/**
 * pods/proxy and services/proxy in a workspace with compute reach the pod on its simulated cluster — in push mode
 * (atrium dials the cluster) and in none mode (the syncer runs as its own process and the request goes through its
 * tunnel): any method, the path below proxy and the query arrive at the simulated container's HTTP responder,
 * through the project's client and `kubectl get --raw`. A Service synced to both clusters is answered by the one
 * whose copy has a ready endpoint. RBAC is the workspace's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { runKubectl, writeTokenKubeconfig } from '../helpers/harness.js';
import { STATE_LABEL_PREFIX, SYNC_TARGET_KEY_LABEL } from '../../src/multicluster/api/types.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const servicesGVR = { group: '', version: 'v1', resource: 'services' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const modes = [
  { mode: 'push', cluster: 'px-push' },
  { mode: 'none', cluster: 'px-none' },
] as const;
const ns = '/api/v1/namespaces/default';

/** The simulated responder's answer; the pod's namespace on its cluster is the syncer's (hashed) one. */
const said = (pod: string, cluster: string, request: string) => new RegExp(`^pod [a-z0-9-]+/${pod} container web cluster ${cluster} port 8080: ${request.replace(/[?()]/g, '\\$&')}\\n$`);

describe('pods/proxy and services/proxy in a workspace reach the pod on its cluster', () => {
  let fleet: InProcessFleet;
  let dir: string;
  let bob: string;
  const kubectl = (args: string[]) => runKubectl(fleet.kubeconfig, args);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atrium-proxy-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'bob-token,bob,bob-uid,""\n');
    fleet = await startFleet({
      name: 'proxy',
      clusters: modes.map((m) => m.cluster),
      register: false,
      server: { tokenAuthFile: tokens },
      multicluster: { heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } },
      syncer: { heartbeatInterval: '500ms', importPollInterval: '500ms' },
    });
    for (const m of modes) await fleet.register(m.cluster, { mode: m.mode });
    await fleet.waitReady(undefined, { resources: ['pods', 'services'], timeoutMs: 60_000 });
    bob = writeTokenKubeconfig(fleet.atrium, dir, 'bob', 'bob-token');
    for (const m of modes) {
      const labels = { 'workload.kcp.io/cluster': m.cluster, app: 'web', where: m.mode };
      await fleet.up.create(podsGVR, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${m.mode}`, namespace: 'default', labels }, spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }] }] } }, { namespace: 'default' });
    }
    // Synced to both clusters (a state label per SyncTarget); only px-push runs a pod it selects.
    const keys: Record<string, string> = {};
    for (const m of modes) keys[m.cluster] = ((await fleet.up.get(syncTargetsGVR, m.cluster)) as { metadata: { labels: Record<string, string> } }).metadata.labels[SYNC_TARGET_KEY_LABEL]!;
    const both = Object.fromEntries(Object.values(keys).map((k) => [`${STATE_LABEL_PREFIX}${k}`, 'Sync']));
    const svc = (name: string, labels: Record<string, string>, selector: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', labels }, spec: { selector, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
    await fleet.up.create(servicesGVR, svc('web', both, { where: 'push' }), { namespace: 'default' });
    await fleet.up.create(servicesGVR, svc('lonely', { 'workload.kcp.io/cluster': 'px-none' }, { where: 'nobody' }), { namespace: 'default' });
    await fleet.up.create(servicesGVR, svc('unsynced', { 'workload.kcp.io/cluster': 'no-such-cluster' }, { where: 'push' }), { namespace: 'default' });
    for (const m of modes) {
      await eventually(`web-${m.mode} running upstream`, async () => ((await fleet.up.get(podsGVR, `web-${m.mode}`, { namespace: 'default' })) as { status?: { phase?: string } }).status?.phase === 'Running', 60_000);
    }
    await eventually('the Services synced', async () => {
      const web = (await fleet.up.get(servicesGVR, 'web', { namespace: 'default' })) as { metadata: { finalizers?: string[] } };
      const lonely = (await fleet.up.get(servicesGVR, 'lonely', { namespace: 'default' })) as { metadata: { finalizers?: string[] } };
      return (web.metadata.finalizers ?? []).length === 2 && (lonely.metadata.finalizers ?? []).length === 1;
    }, 60_000);
  });

  after(async () => {
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const m of modes) {
    it(`pods/proxy (${m.mode} mode): any method, path and query, with the client and kubectl get --raw`, async () => {
      const pod = `web-${m.mode}`;
      const got = await fleet.up.raw('GET', `${ns}/pods/${pod}:8080/proxy/hello/there?x=1&y=2`);
      assert.equal(got.status, 200, got.text);
      assert.match(got.text, said(pod, m.cluster, 'GET /hello/there?x=1&y=2'));
      assert.match((await fleet.up.raw('GET', `${ns}/pods/${pod}/proxy/`)).text, said(pod, m.cluster, 'GET /'));
      assert.match((await fleet.up.raw('POST', `${ns}/pods/${pod}/proxy/submit`, { a: 1 })).text, said(pod, m.cluster, 'POST /submit (7-byte body)'));
      assert.match((await fleet.up.raw('DELETE', `${ns}/pods/http:${pod}:8080/proxy/x`)).text, said(pod, m.cluster, 'DELETE /x'));
      const raw = await kubectl(['get', '--raw', `${ns}/pods/${pod}:8080/proxy/raw?k=v`]);
      assert.equal(raw.code, 0, raw.stderr);
      assert.match(raw.stdout, said(pod, m.cluster, 'GET /raw?k=v'));
      // The cluster's refusal of a port nothing listens on comes back as it answered it.
      const refused = await fleet.up.raw('GET', `${ns}/pods/${pod}:8081/proxy/`);
      assert.equal(refused.status, 503, refused.text);
      assert.match((refused.body as { message: string }).message, /^error trying to reach service: dial tcp [0-9.]+:8081: connect: connection refused$/);
    });
  }

  it('redirects the bare proxy path in the workspace, and answers a pod that runs nowhere as kube-apiserver', async () => {
    const redirect = await fleet.up.raw('GET', `/clusters/root${ns}/pods/web-push/proxy`);
    assert.equal(redirect.status, 301);
    await fleet.up.create(podsGVR, { metadata: { name: 'nowhere', namespace: 'default', labels: { 'workload.kcp.io/cluster': 'no-such-cluster' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, { namespace: 'default' });
    const nowhere = await fleet.up.raw('GET', `${ns}/pods/nowhere/proxy/`);
    assert.equal(nowhere.status, 400);
    assert.equal((nowhere.body as { message: string }).message, 'pod nowhere does not have a host assigned');
    const missing = await fleet.up.raw('GET', `${ns}/pods/ghost/proxy/`);
    assert.equal(missing.status, 404);
  });

  it('services/proxy: the cluster whose copy has a ready endpoint answers, the port mapped there', async () => {
    // The clusters' endpoints controllers fill the copies' Endpoints once the pod is ready there.
    await eventually('web answers', async () => (await fleet.up.raw('GET', `${ns}/services/web:http/proxy/`)).status === 200, 30_000);
    for (const id of ['web:80', 'web:http', 'http:web:http']) {
      const r = await fleet.up.raw('GET', `${ns}/services/${id}/proxy/svc?q=1`);
      assert.equal(r.status, 200, `${id}: ${r.text}`);
      assert.match(r.text, said('web-push', 'px-push', 'GET /svc?q=1'));
    }
    assert.match((await fleet.up.raw('PUT', `${ns}/services/web:http/proxy/p`, [1])).text, said('web-push', 'px-push', 'PUT /p (3-byte body)'));
    const raw = await kubectl(['get', '--raw', `${ns}/services/web:http/proxy/`]);
    assert.match(raw.stdout, said('web-push', 'px-push', 'GET /'));
    // The cluster's own answers: a port the Service does not have, no port named (its one port has a name).
    const unnamed = await fleet.up.raw('GET', `${ns}/services/web/proxy/`);
    assert.equal(unnamed.status, 503);
    assert.equal((unnamed.body as { message: string }).message, 'no endpoints available for service "web"');
    const noPort = await fleet.up.raw('GET', `${ns}/services/web:81/proxy/`);
    assert.equal(noPort.status, 503);
    assert.equal((noPort.body as { message: string }).message, 'no service port 81 found for service "web"');
    for (const name of ['lonely', 'unsynced']) {
      const r = await fleet.up.raw('GET', `${ns}/services/${name}/proxy/`);
      assert.equal(r.status, 503, `${name}: ${r.text}`);
      assert.equal((r.body as { message: string }).message, `no endpoints available for service "${name}"`);
    }
    assert.equal((await fleet.up.raw('GET', `${ns}/services/ghost/proxy/`)).status, 404);
  });

  it("checks RBAC in the workspace: the proxy subresources' verbs by HTTP method", async () => {
    await kubectl(['create', 'role', 'proxy-getter', '--verb=get', '--resource=pods/proxy,services/proxy']);
    await kubectl(['create', 'rolebinding', 'bob-proxy-getter', '--role=proxy-getter', '--user=bob']);
    await eventually('bob may get pods/proxy', async () => (await runKubectl(bob, ['get', '--raw', `${ns}/pods/web-push:8080/proxy/`])).code === 0);
    const svc = await runKubectl(bob, ['get', '--raw', `${ns}/services/web:http/proxy/`]);
    assert.equal(svc.code, 0, svc.stderr);
    const post = await runKubectl(bob, ['create', '--raw', `${ns}/pods/web-push:8080/proxy/`, '-f', '-']);
    assert.notEqual(post.code, 0);
    assert.match(post.stderr, /User "bob" cannot create resource "pods\/proxy" in API group "" in the namespace "default"/);
  });

  it('lists pods/proxy and services/proxy in the workspace discovery', async () => {
    const r = await fleet.up.raw('GET', '/api/v1');
    const names = (r.body as { resources: { name: string }[] }).resources.map((x) => x.name);
    assert.ok(names.includes('pods/proxy') && names.includes('services/proxy'), names.join(' '));
  });
});
