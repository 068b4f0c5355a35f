/**
 * ResourceQuota over HTTP on a real server with the quota controller: validation messages as upstream's
 * ValidateResourceQuota, the status the controller computes promptly (status.hard = spec.hard, status.used counted,
 * released on delete, a hand-edited status.hard put back), the ResourceQuota admission plugin's exact 403s and its
 * atomic charging (concurrent creates never pass the last unit), custom resources counted as `count/<plural>.<group>`,
 * and quotas of one workspace never counting another's objects.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/harness.js';
import { waitForWorkspace } from '../../helpers/workspaces.js';
import { assertStatus, createNamespace } from '../support.js';
import { installCRD } from '../crd-support.js';
import { eventually } from './support.js';

let ts: TestServer;
const quotasPath = (ns: string, prefix = '') => `${prefix}/api/v1/namespaces/${ns}/resourcequotas`;
const quota = (name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...spec } });

async function createQuota(ns: string, body: unknown, prefix = ''): Promise<any> {
  const r = await ts.request('POST', quotasPath(ns, prefix), body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}

/** Waits until the quota's status.used holds these values (and status.hard equals spec.hard). */
async function waitForUsed(ns: string, name: string, used: Record<string, string>, prefix = ''): Promise<any> {
  return eventually(`quota ${name} to report ${JSON.stringify(used)}`, async () => {
    const r = await ts.request('GET', `${quotasPath(ns, prefix)}/${name}`);
    const q = r.json;
    if (JSON.stringify(q?.status?.hard) !== JSON.stringify(q?.spec?.hard)) return undefined;
    return Object.entries(used).every(([k, v]) => q.status?.used?.[k] === v) ? q : undefined;
  });
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

before(async () => {
  ts = await startTestServer({ server: { builtinControllers: ['resourcequota'] } });
});

after(async () => {
  await ts?.stop();
});

describe('ResourceQuota validation', () => {
  it('refuses bad names, negative and fractional counts, bad scopes with upstream messages', async () => {
    const ns = await createNamespace(ts, 'rq-valid');
    let r = await ts.request('POST', quotasPath(ns), quota('bad', { pods: '1.5', cpu: '-1', foo: '1', 'count/x.y': '1' }));
    assertStatus(
      r,
      422,
      'Invalid',
      'ResourceQuota "bad" is invalid: [spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0, spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified, spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota, spec.hard[pods]: Invalid value: "1500m": must be an integer]',
    );
    r = await ts.request('POST', quotasPath(ns), quota('scoped', { configmaps: '1' }, { scopes: ['BestEffort', 'NotBestEffort'] }));
    assertStatus(r, 422, 'Invalid', 'ResourceQuota "scoped" is invalid: [spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: unsupported scope applied to resource, spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes]');
    r = await ts.request('POST', quotasPath(ns), quota('sel', { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: ['x'] }] } }));
    assertStatus(
      r,
      422,
      'Invalid',
      `ResourceQuota "sel" is invalid: spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity`,
    );
    await createQuota(ns, quota('scopes', { pods: '1' }, { scopes: ['Terminating'] }));
    r = await ts.request('PATCH', `${quotasPath(ns)}/scopes`, { spec: { scopes: ['NotTerminating'] } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assertStatus(r, 422, 'Invalid', 'ResourceQuota "scopes" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotTerminating"}: field is immutable');
  });

  it('stores quantities in canonical form and serves the quota short name and columns', async () => {
    const ns = await createNamespace(ts, 'rq-canon');
    const q = await createQuota(ns, quota('canon', { 'requests.cpu': '1000m', 'requests.memory': '1024Mi', secrets: '10' }));
    assert.deepEqual(q.spec.hard, { 'requests.cpu': '1', 'requests.memory': '1Gi', secrets: '10' });
    // Go writes the unset status struct as {}, as kube-apiserver answers a new quota.
    assert.deepEqual(q.status, {});
    const disco = await ts.request('GET', '/api/v1');
    const rq = disco.json.resources.find((x: any) => x.name === 'resourcequotas');
    assert.deepEqual(rq.shortNames, ['quota']);
    assert.ok(disco.json.resources.some((x: any) => x.name === 'resourcequotas/status'));
    await waitForUsed(ns, 'canon', { secrets: '0' });
    const table = await ts.request('GET', `${quotasPath(ns)}/canon`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.deepEqual(table.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Age', 'Request', 'Limit']);
    assert.equal(table.json.rows[0].cells[2], 'requests.cpu: 0/1, requests.memory: 0/1Gi, secrets: 0/10');
    assert.equal(table.json.rows[0].cells[3], '');
  });
});

describe('ResourceQuota status and admission', () => {
  it('computes status promptly, refuses what exceeds it with upstream\'s message and releases on delete', async () => {
    const ns = await createNamespace(ts, 'rq-life');
    await createQuota(ns, quota('test-quota', { configmaps: '2', 'count/configmaps': '2', resourcequotas: '1' }));
    await waitForUsed(ns, 'test-quota', { configmaps: '0', 'count/configmaps': '0', resourcequotas: '1' });
    for (const n of ['a', 'b']) assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(n))).status, 201);
    // Charged by admission before the controller looks again.
    const charged = await ts.request('GET', `${quotasPath(ns)}/test-quota`);
    assert.equal(charged.json.status.used.configmaps, '2');
    let r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('c'));
    assertStatus(r, 403, 'Forbidden', 'configmaps "c" is forbidden: exceeded quota: test-quota, requested: configmaps=1,count/configmaps=1, used: configmaps=2,count/configmaps=2, limited: configmaps=2,count/configmaps=2');
    r = await ts.request('POST', quotasPath(ns), quota('second', { secrets: '1' }));
    assertStatus(r, 403, 'Forbidden', 'resourcequotas "second" is forbidden: exceeded quota: test-quota, requested: resourcequotas=1, used: resourcequotas=1, limited: resourcequotas=1');
    // A dry run is checked but never charged.
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`)).status, 200);
    await waitForUsed(ns, 'test-quota', { configmaps: '1' });
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap('d'))).status, 201);
    assert.equal((await ts.request('GET', `${quotasPath(ns)}/test-quota`)).json.status.used.configmaps, '1');
  });

  it('refuses a create while the quota has no status yet, as upstream', async () => {
    const ns = await createNamespace(ts, 'rq-unknown');
    // The controller may be quicker than the second request; the check is on what the first answer shows.
    await createQuota(ns, quota('fresh', { secrets: '5' }));
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    if (r.status === 403) assertStatus(r, 403, 'Forbidden', 'secrets "s" is forbidden: status unknown for quota: fresh, resources: secrets');
    else assert.equal(r.status, 201, r.text);
  });

  it('lets exactly as many concurrent creates through as the quota has room for', async () => {
    const ns = await createNamespace(ts, 'rq-race');
    await createQuota(ns, quota('room', { 'count/configmaps': '5' }));
    await waitForUsed(ns, 'room', { 'count/configmaps': '0' });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(`c${i}`))));
    assert.equal(results.filter((r) => r.status === 201).length, 5, results.map((r) => r.status).join(','));
    for (const r of results.filter((x) => x.status !== 201)) assert.match(r.json.message, /exceeded quota: room, requested: count\/configmaps=1, used: count\/configmaps=5, limited: count\/configmaps=5$/);
    const list = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(list.json.items.length, 5);
    await waitForUsed(ns, 'room', { 'count/configmaps': '5' });
  });

  it('puts back a hand-edited status and follows spec changes', async () => {
    const ns = await createNamespace(ts, 'rq-status');
    await createQuota(ns, quota('st', { cpu: '500m', memory: '500Mi' }));
    await waitForUsed(ns, 'st', { cpu: '0', memory: '0' });
    const merge = { headers: { 'Content-Type': 'application/merge-patch+json' } };
    let r = await ts.request('PATCH', `${quotasPath(ns)}/st/status`, { status: { hard: { cpu: '2', memory: '2Gi' } } }, merge);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.status.hard, { cpu: '2', memory: '2Gi' });
    assert.deepEqual(r.json.spec.hard, { cpu: '500m', memory: '500Mi' });
    await waitForUsed(ns, 'st', {});
    r = await ts.request('PATCH', `${quotasPath(ns)}/st`, { spec: { hard: { cpu: '1', memory: '1Gi' } } }, merge);
    assert.equal(r.status, 200, r.text);
    const q = await waitForUsed(ns, 'st', { cpu: '0' });
    assert.deepEqual(q.status.hard, { cpu: '1', memory: '1Gi' });
  });

  it('counts custom resources as count/<plural>.<group>', async () => {
    const ns = await createNamespace(ts, 'rq-crd');
    await installCRD(ts, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.quota.example.com' },
      spec: {
        group: 'quota.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const gadgets = `/apis/quota.example.com/v1/namespaces/${ns}/gadgets`;
    const gadget = (name: string) => ({ apiVersion: 'quota.example.com/v1', kind: 'Gadget', metadata: { name } });
    assert.equal((await ts.request('POST', gadgets, gadget('before'))).status, 201);
    await createQuota(ns, quota('crs', { 'count/gadgets.quota.example.com': '2' }));
    await waitForUsed(ns, 'crs', { 'count/gadgets.quota.example.com': '1' });
    assert.equal((await ts.request('POST', gadgets, gadget('g1'))).status, 201);
    const r = await ts.request('POST', gadgets, gadget('g2'));
    assertStatus(r, 403, 'Forbidden', 'gadgets.quota.example.com "g2" is forbidden: exceeded quota: crs, requested: count/gadgets.quota.example.com=1, used: count/gadgets.quota.example.com=2, limited: count/gadgets.quota.example.com=2');
    assert.equal((await ts.request('DELETE', `${gadgets}/before`)).status, 200);
    await waitForUsed(ns, 'crs', { 'count/gadgets.quota.example.com': '1' });
  });

  it('keeps workspaces apart: a quota counts and limits only its own logical cluster', async () => {
    for (const name of ['rq-a', 'rq-b']) {
      const r = await ts.request('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
      assert.equal(r.status, 201, r.text);
      await waitForWorkspace(ts, 'root', name);
    }
    const a = '/clusters/root:rq-a';
    const b = '/clusters/root:rq-b';
    for (const p of [a, b]) assert.equal((await ts.request('POST', `${p}/api/v1/namespaces`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })).status, 201);
    for (const n of ['x', 'y', 'z']) assert.equal((await ts.request('POST', `${b}/api/v1/namespaces/team/configmaps`, configMap(n))).status, 201);
    await createQuota('team', quota('q', { configmaps: '1' }), a);
    await waitForUsed('team', 'q', { configmaps: '0' }, a);
    assert.equal((await ts.request('POST', `${a}/api/v1/namespaces/team/configmaps`, configMap('one'))).status, 201);
    assert.equal((await ts.request('POST', `${a}/api/v1/namespaces/team/configmaps`, configMap('two'))).status, 403);
    assert.equal((await ts.request('POST', `${b}/api/v1/namespaces/team/configmaps`, configMap('w'))).status, 201);
    await waitForUsed('team', 'q', { configmaps: '1' }, a);
  });
});
