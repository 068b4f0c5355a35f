/**
 * Shards and scheduling by location, as kcp v0.32.3: root serves core.kcp.io/v1alpha1 Shards (and no other workspace
 * does), the server registers its own Shard `root` with its URL, and a Workspace's spec.location.selector picks the
 * Shards it may land on. With none fitting, the workspace stays in Scheduling with WorkspaceScheduled False
 * (Unschedulable, kcp's messages) until a Shard appears or changes to fit.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { assertStatus } from './support.js';

const WS = '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces';
const SHARDS = '/clusters/root/apis/core.kcp.io/v1alpha1/shards';
const MERGE = { headers: { 'Content-Type': 'application/merge-patch+json' } };
const TABLE = { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };

let ts: TestServer;

async function createWorkspace(name: string, spec: Record<string, unknown> = {}): Promise<void> {
  const r = await ts.request('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec });
  assert.equal(r.status, 201, r.text);
}

/** Waits until the workspace reports WorkspaceScheduled False, then checks it stays unscheduled. */
async function waitUnschedulable(name: string, message: string): Promise<any> {
  const ws = await eventually(`workspace ${name} unschedulable`, async () => {
    const r = await ts.request('GET', `${WS}/${name}`);
    return r.json?.status?.conditions?.length ? r.json : undefined;
  }, 10_000, 20);
  await ts.server.tenancy.idle();
  const again = (await ts.request('GET', `${WS}/${name}`)).json;
  assert.equal(again.status.phase, 'Scheduling', JSON.stringify(again.status));
  assert.equal(again.spec.cluster, undefined);
  assert.equal(again.spec.URL, undefined);
  assert.equal(again.status.conditions.length, 1, JSON.stringify(again.status));
  const { lastTransitionTime, ...cond } = again.status.conditions[0];
  assert.match(lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(cond, { type: 'WorkspaceScheduled', status: 'False', reason: 'Unschedulable', severity: 'Error', message });
  return ws;
}

const patchRootShard = (patch: unknown) => ts.request('PATCH', `${SHARDS}/root`, patch, MERGE);

describe('shards and scheduling by location', () => {
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts.stop();
  });

  it('registers the root Shard with the server URL, as kcp registers itself', async () => {
    const r = await ts.request('GET', SHARDS);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'ShardList');
    assert.deepEqual(r.json.items.map((s: any) => s.metadata.name), ['root']);
    const shard = r.json.items[0];
    assert.deepEqual(shard.spec, { baseURL: ts.url, externalURL: ts.url, virtualWorkspaceURL: ts.url });
    assert.deepEqual(shard.metadata.labels, { name: 'root' });
    assert.deepEqual(shard.metadata.annotations, { 'kcp.io/cluster': 'root' });
    assert.equal(shard.metadata.generation, 1);
    assert.equal(shard.status, undefined);
  });

  it('serves Shards in root only, with kcp CRD names and printer columns', async () => {
    const discovery = await ts.request('GET', '/clusters/root/apis/core.kcp.io/v1alpha1');
    const res = discovery.json.resources.find((x: any) => x.name === 'shards');
    assert.deepEqual(
      { kind: res.kind, namespaced: res.namespaced, singularName: res.singularName, categories: res.categories, shortNames: res.shortNames, verbs: res.verbs },
      { kind: 'Shard', namespaced: false, singularName: 'shard', categories: ['kcp'], shortNames: undefined, verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'] },
    );
    assert.ok(discovery.json.resources.some((x: any) => x.name === 'shards/status'));
    await createWorkspace('plain');
    await waitForWorkspace(ts, 'root', 'plain');
    assert.equal((await ts.request('GET', '/clusters/root:plain/apis/core.kcp.io/v1alpha1/shards')).status, 404);
    const inPlain = await ts.request('GET', '/clusters/root:plain/apis/core.kcp.io/v1alpha1');
    assert.ok(!inPlain.json.resources.some((x: any) => x.name === 'shards'), 'no shards outside root');
    const systemShard = await ts.request('GET', '/clusters/system:shard/apis/core.kcp.io/v1alpha1/shards');
    assert.equal(systemShard.status, 200, systemShard.text);
    assert.deepEqual(systemShard.json.items, []);

    const table = await ts.request('GET', SHARDS, undefined, TABLE);
    assert.deepEqual(table.json.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Region', 'string'], ['URL', 'string'], ['External URL', 'string'], ['Age', 'date']]);
    assert.deepEqual(table.json.rows[0].cells.slice(0, 4), ['root', null, ts.url, ts.url]);
    const out = await ts.kubectl(['get', 'shards']);
    assert.equal(out.code, 0, out.stderr);
    const [header, row] = out.stdout.trim().split('\n');
    assert.match(header!, /^NAME\s+REGION\s+URL\s+EXTERNAL URL\s+AGE$/);
    assert.match(row!, new RegExp(`^root\\s+${ts.url.replace(/[.]/g, '\\.')}\\s+${ts.url.replace(/[.]/g, '\\.')}\\s+\\d+s$`));
    const elsewhere = await ts.kubectl(['--server', `${ts.url}/clusters/root:plain`, 'get', 'shards']);
    assert.notEqual(elsewhere.code, 0);
    assert.match(elsewhere.stderr, /the server doesn't have a resource type "shards"/);
  });

  it('validates Shards as kcp: baseURL required (its admission plugin), URLs defaulted from it, format uri', async () => {
    const shard = (name: string, spec?: unknown) => ({ apiVersion: 'core.kcp.io/v1alpha1', kind: 'Shard', metadata: { name }, ...(spec === undefined ? {} : { spec }) });
    for (const body of [shard('nobase'), shard('nobase', {}), shard('nobase', { baseURL: '' })]) {
      const r = await ts.request('POST', SHARDS, body);
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.message, 'spec.baseURL is required');
      assert.equal(r.json.reason, undefined);
    }
    const bad = await ts.request('POST', SHARDS, shard('bad', { baseURL: 'foo', externalURL: 'https://ok.example' }));
    assertStatus(bad, 422, 'Invalid');
    assert.equal(
      bad.json.message,
      'Shard.core.kcp.io "bad" is invalid: [spec.baseURL: Invalid value: "foo": spec.baseURL in body must be of type uri: "foo", spec.virtualWorkspaceURL: Invalid value: "foo": spec.virtualWorkspaceURL in body must be of type uri: "foo"]',
    );
    const ok = await ts.request('POST', SHARDS, shard('other', { baseURL: 'https://other.example.test:6443' }));
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.json.spec, { baseURL: 'https://other.example.test:6443', externalURL: 'https://other.example.test:6443', virtualWorkspaceURL: 'https://other.example.test:6443' });
    // An update must name the resourceVersion it replaces, as for any custom resource.
    const put = await ts.request('PUT', `${SHARDS}/other`, shard('other', { baseURL: 'https://other.example.test:7443' }));
    assertStatus(put, 422, 'Invalid');
    assert.equal((await ts.request('DELETE', `${SHARDS}/other`)).status, 200);
  });

  it('leaves a workspace whose selector matches no Shard in Scheduling, and schedules it once the root Shard is labelled to match', async () => {
    await createWorkspace('locsel', { location: { selector: { matchLabels: { name: 'doesnotexist' } } } });
    await waitUnschedulable('locsel', 'No available shards to schedule the workspace');

    const labelled = await patchRootShard({ metadata: { labels: { name: 'doesnotexist' } } });
    assert.equal(labelled.status, 200, labelled.text);
    const ws = await waitForWorkspace(ts, 'root', 'locsel', { timeoutMs: 10_000, intervalMs: 20 });
    assert.equal(ws.spec.URL, `${ts.url}/clusters/root:locsel`);
    assert.match(ws.spec.cluster, /^[a-z][a-z0-9]{15}$/);
    assert.deepEqual(ws.metadata.annotations, {
      'core.kcp.io/shard': 'root',
      // kcp's base36(sha224("root"))[:8]
      'internal.tenancy.kcp.io/shard': '1pfxsevk',
      'internal.tenancy.kcp.io/cluster': ws.spec.cluster,
    });
    const scheduled = ws.status.conditions.find((c: any) => c.type === 'WorkspaceScheduled');
    assert.deepEqual({ status: scheduled.status, reason: scheduled.reason, message: scheduled.message }, { status: 'True', reason: undefined, message: undefined });
    const lc = await ts.request('GET', '/clusters/root:locsel/apis/core.kcp.io/v1alpha1/logicalclusters/cluster');
    assert.equal(lc.status, 200, lc.text);
    assert.equal(lc.json.metadata.annotations['core.kcp.io/shard'], 'root');
    assert.equal((await patchRootShard({ metadata: { labels: { name: 'root' } } })).status, 200);
  });

  it('reports an invalid selector with kcp\'s message, and schedules the workspace once the selector is fixed', async () => {
    await createWorkspace('badsel', { location: { selector: { matchExpressions: [{ key: 'name', operator: 'Foo' }] } } });
    await waitUnschedulable('badsel', 'spec.location.selector is invalid: "Foo" is not a valid label selector operator');
    await createWorkspace('novalues', { location: { selector: { matchExpressions: [{ key: 'name', operator: 'In' }] } } });
    await waitUnschedulable('novalues', "spec.location.selector is invalid: values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
    // kcp's schema: each expression needs a key and an operator.
    const noOperator = await ts.request('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'nooperator' }, spec: { location: { selector: { matchExpressions: [{ key: 'name' }] } } } });
    assertStatus(noOperator, 422, 'Invalid', 'Workspace.tenancy.kcp.io "nooperator" is invalid: spec.location.selector.matchExpressions[0].operator: Required value');
    // spec.location stays mutable, as in kcp: a fixed selector is scheduled.
    const fixed = await ts.request('PATCH', `${WS}/badsel`, { spec: { location: { selector: { matchExpressions: [{ key: 'name', operator: 'In', values: ['root'] }] } } } }, MERGE);
    assert.equal(fixed.status, 200, fixed.text);
    await waitForWorkspace(ts, 'root', 'badsel', { timeoutMs: 10_000, intervalMs: 20 });
  });

  it('skips a Shard annotated unschedulable, selector or not, and schedules once the annotation goes', async () => {
    assert.equal((await patchRootShard({ metadata: { annotations: { 'experimental.core.kcp.io/unschedulable': 'true' } } })).status, 200);
    await createWorkspace('held');
    await waitUnschedulable('held', 'No available shards to schedule the workspace');
    assert.equal((await patchRootShard({ metadata: { annotations: { 'experimental.core.kcp.io/unschedulable': null } } })).status, 200);
    const ws = await waitForWorkspace(ts, 'root', 'held', { timeoutMs: 10_000, intervalMs: 20 });
    assert.equal(ws.metadata.annotations['core.kcp.io/shard'], 'root');
  });

  it('schedules onto a Shard that appears later: its externalURL in spec.URL, its region label on the workspace', async () => {
    await createWorkspace('edgy', { location: { selector: { matchLabels: { tier: 'edge' } } } });
    await waitUnschedulable('edgy', 'No available shards to schedule the workspace');
    const created = await ts.request('POST', SHARDS, {
      apiVersion: 'core.kcp.io/v1alpha1',
      kind: 'Shard',
      metadata: { name: 'edge', labels: { tier: 'edge', region: 'eu-west' } },
      spec: { baseURL: 'https://edge-direct.example.test:6443', externalURL: 'https://edge.example.test/prefix/' },
    });
    assert.equal(created.status, 201, created.text);
    const ws = await waitForWorkspace(ts, 'root', 'edgy', { timeoutMs: 10_000, intervalMs: 20 });
    assert.equal(ws.spec.URL, 'https://edge.example.test/prefix/clusters/root:edgy');
    assert.deepEqual(ws.metadata.labels, { region: 'eu-west' });
    assert.equal(ws.metadata.annotations['core.kcp.io/shard'], 'edge');
    // atrium is one server: the logical cluster is served here whichever Shard was chosen.
    const ns = await ts.request('GET', '/clusters/root:edgy/api/v1/namespaces/default');
    assert.equal(ns.status, 200, ns.text);
    const table = await ts.request('GET', WS, undefined, TABLE);
    const row = table.json.rows.find((x: any) => x.cells[0] === 'edgy');
    assert.equal(row.cells[2], 'eu-west', 'the Region column');
    assert.equal((await ts.request('DELETE', `${SHARDS}/edge`)).status, 200);
  });
});

describe('the root Shard across restarts', () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-shards-'));
  after(() => rmSync(rootDir, { recursive: true, force: true }));

  it('follows the server URL to a new port and keeps the labels an administrator gave it', async () => {
    const first = await startTestServer({ rootDir });
    let firstURL: string;
    try {
      firstURL = first.url;
      const r = await first.request('PATCH', `${SHARDS}/root`, { metadata: { labels: { region: 'home' } } }, MERGE);
      assert.equal(r.status, 200, r.text);
    } finally {
      await first.stop();
    }
    const second = await startTestServer({ rootDir });
    try {
      assert.notEqual(second.url, firstURL);
      const shard = (await second.request('GET', `${SHARDS}/root`)).json;
      assert.deepEqual(shard.spec, { baseURL: second.url, externalURL: second.url, virtualWorkspaceURL: second.url });
      assert.deepEqual(shard.metadata.labels, { name: 'root', region: 'home' });
      assert.equal(shard.metadata.generation, 2);
    } finally {
      await second.stop();
    }
  });
});
