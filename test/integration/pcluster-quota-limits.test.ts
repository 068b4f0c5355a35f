/**
 * ResourceQuota and LimitRange where Pods are served (a simulated cluster): the LimitRanger's defaults and refusals
 * with upstream's messages, quotas on compute resources ("must specify", requests.cpu/limits.memory charged and
 * refused), and upstream's "capture the life of a service" conformance steps (services, node ports, a refused
 * LoadBalancer, release on delete).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { assertStatus, createNamespace } from './support.js';

let ts: TestServer;

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-quota-'));
  const cluster = await startPcluster({ name: 'quota', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 200 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

const pod = (name: string, resources?: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', ...(resources ? { resources } : {}) }] },
});

async function waitForUsed(ns: string, name: string, used: Record<string, string>): Promise<any> {
  return eventually(`quota ${name} to report ${JSON.stringify(used)}`, async () => {
    const q = (await ts.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).json;
    return Object.entries(used).every(([k, v]) => q?.status?.used?.[k] === v) ? q : undefined;
  }, 30_000);
}

describe('LimitRange', () => {
  it('validates with upstream messages and defaults container requests and limits', async () => {
    const ns = await createNamespace(ts, 'lr');
    const lr = (name: string, limits: unknown[]) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
    let r = await ts.request('POST', `/api/v1/namespaces/${ns}/limitranges`, lr('bad', [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }, { type: 'Pod', default: { cpu: '1' } }]));
    assertStatus(r, 422, 'Invalid', 'LimitRange "bad" is invalid: [spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1, spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1, spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1, spec.limits[1].default: Forbidden: may not be specified when `type` is \'Pod\']');
    r = await ts.request('POST', `/api/v1/namespaces/${ns}/limitranges`, lr('limits', [{ type: 'Container', max: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '100m' } }]));
    assert.equal(r.status, 201, r.text);
    // SetDefaults_LimitRangeItem: the default limit falls back to max, the default request to the default.
    assert.deepEqual(r.json.spec.limits[0].default, { cpu: '1', memory: '1Gi' });
    assert.deepEqual(r.json.spec.limits[0].defaultRequest, { cpu: '100m', memory: '1Gi' });
    r = await ts.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('defaulted'));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.containers[0].resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } });
    assert.equal(r.json.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');
    r = await ts.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('big', { limits: { cpu: '2' } }));
    assertStatus(r, 403, 'Forbidden', 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});

describe('ResourceQuota on compute resources', () => {
  it('requires requests where a quota limits them, charges them and refuses what exceeds', async () => {
    const ns = await createNamespace(ts, 'rq-pods');
    let r = await ts.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute' }, spec: { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi', pods: '2' } } });
    assert.equal(r.status, 201, r.text);
    await waitForUsed(ns, 'compute', { pods: '0', 'requests.cpu': '0', 'limits.memory': '0' });
    r = await ts.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('bare'));
    assertStatus(r, 403, 'Forbidden', 'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: app; requests.cpu for: app');
    r = await ts.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('p1', { requests: { cpu: '600m' }, limits: { memory: '512Mi' } }));
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', `/api/v1/namespaces/${ns}/pods`, pod('p2', { requests: { cpu: '500m' }, limits: { memory: '256Mi' } }));
    assertStatus(r, 403, 'Forbidden', 'pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
    const q = await waitForUsed(ns, 'compute', { pods: '1', 'requests.cpu': '600m', 'limits.memory': '512Mi' });
    assert.deepEqual(q.status.hard, { 'limits.memory': '1Gi', pods: '2', 'requests.cpu': '1' });
  });

  it('captures the life of a service (upstream conformance steps)', async () => {
    const ns = await createNamespace(ts, 'rq-svc');
    const hard = { resourcequotas: '1', services: '3', 'services.nodeports': '1', 'services.loadbalancers': '1' };
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'test-quota' }, spec: { hard } })).status, 201);
    await waitForUsed(ns, 'test-quota', { resourcequotas: '1' });
    const svc = (name: string, type: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type, ports: [{ port: 80, targetPort: 80 }] } });
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/services`, svc('test-service', 'ClusterIP'))).status, 201);
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/services`, svc('test-service-np', 'NodePort'))).status, 201);
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/services`, svc('test-service-lb', 'LoadBalancer'));
    assertStatus(r, 403, 'Forbidden', 'services "test-service-lb" is forbidden: exceeded quota: test-quota, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1');
    await waitForUsed(ns, 'test-quota', { resourcequotas: '1', services: '2', 'services.nodeports': '1' });
    for (const name of ['test-service', 'test-service-np']) assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/services/${name}`)).status, 200);
    await waitForUsed(ns, 'test-quota', { services: '0', 'services.nodeports': '0' });
  });
});

describe('ReplicaFailure', () => {
  it('a ReplicaSet the quota refuses pods reports ReplicaFailure FailedCreate with the refusal, until it fits', async () => {
    const ns = 'rs-failure';
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods' }, spec: { hard: { pods: '1' } } })).status, 201);
    await waitForUsed(ns, 'pods', { pods: '0' });
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'two' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'two' } }, template: { metadata: { labels: { app: 'two' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    };
    assert.equal((await ts.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, rs)).status, 201);
    const failing = await eventually('ReplicaFailure True', async () => {
      const r = (await ts.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/two`)).json;
      return r.status?.conditions?.find((c: any) => c.type === 'ReplicaFailure') && r;
    }, 20_000);
    const cond = failing.status.conditions.find((c: any) => c.type === 'ReplicaFailure');
    assert.deepEqual([cond.status, cond.reason], ['True', 'FailedCreate']);
    assert.match(cond.message, /^pods "two-[a-z0-9]*" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1$/);
    const events = (await ts.request('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dtwo`)).json.items;
    assert.ok(events.some((e: any) => e.reason === 'FailedCreate' && e.type === 'Warning' && e.message.startsWith('Error creating: pods "two-')), JSON.stringify(events.map((e: any) => e.reason)));
    assert.equal((await ts.request('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/two/scale`, { spec: { replicas: 1 } }, { headers: { 'Content-Type': 'application/merge-patch+json' } })).status, 200);
    await eventually('ReplicaFailure removed', async () => {
      const r = (await ts.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/two`)).json;
      return r.status?.observedGeneration === r.metadata.generation && !r.status?.conditions && r.status.replicas === 1;
    }, 20_000);
  });
});
