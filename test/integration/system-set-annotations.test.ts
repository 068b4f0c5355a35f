/**
 * Annotations the system sets and other components trust may be written by system:masters only:
 *
 * - a LogicalCluster's `kcp.io/path` (the workspace index, the scheduler and the compute-apis controller map paths to
 *   logical clusters by it) and its workspace type annotation. A workspace owner is cluster-admin of the workspace and
 *   may otherwise edit its LogicalCluster; claiming `root:compute` there would hijack that path.
 * - a SyncTarget's consumer-clusters annotation, which tells its syncer which other workspaces to sync.
 *
 * Every write route (create, PUT, merge and JSON patch, server-side apply, dry run, /status) is tried against a real
 * server over HTTPS with a bearer-token workspace owner.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { multiclusterPlugin } from '../../src/multicluster/server-options.js';

const PATH = 'kcp.io/path';
const TYPE = 'internal.tenancy.kcp.io/type';
const CONSUMERS = 'scheduling.atrium.io/consumer-clusters';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const TEAM = '/clusters/root:team-a';
const LC = `${TEAM}/apis/core.kcp.io/v1alpha1/logicalclusters`;
const ST = `${TEAM}/apis/workload.kcp.io/v1alpha1/synctargets`;
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

let ts: TestServer;
const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });
/** alice owns root:team-a and so is its cluster-admin. */
const asAlice = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { token: 'alice-token', headers });

function assertRefused(r: HttpResponse, resource: string, name: string, annotation: string, what: string): void {
  assert.equal(r.status, 403, `${what}: expected 403, got ${r.status}: ${r.text}`);
  assert.equal(r.json?.reason, 'Forbidden', what);
  assert.equal(r.json?.details?.name, name, what);
  assert.ok(r.json.message.startsWith(`${resource} "${name}" is forbidden: `), `${what}: ${r.json.message}`);
  assert.ok(r.json.message.includes(`the annotation "${annotation}" is set by the system`), `${what}: ${r.json.message}`);
  assert.ok(r.json.message.includes('system:masters'), `${what}: ${r.json.message}`);
}

async function get(path: string): Promise<Record<string, any>> {
  const r = await admin('GET', path);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

const syncTarget = (name: string, annotations?: Record<string, string>) => ({
  apiVersion: 'workload.kcp.io/v1alpha1',
  kind: 'SyncTarget',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: {},
});

describe('annotations set by the system are written by system:masters only', () => {
  let computeCluster: string;
  let teamPath: string;
  let teamType: string;

  before(async () => {
    // The multi-cluster resources and admission without its controllers: the scheduler would rewrite the annotation.
    ts = await startTestServer({ tokens: ['alice-token,alice,uid-alice,"tenants"'], server: { plugins: [{ ...multiclusterPlugin(), controllers: undefined }] } });
    const created = async (p: Promise<HttpResponse>) => {
      const r = await p;
      assert.equal(r.status, 201, r.text);
    };
    await created(admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'ws-creator' }, rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['create', 'get'] }, { nonResourceURLs: ['/'], verbs: ['access'] }] }));
    await created(admin('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'alice-ws' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ws-creator' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }] }));
    await created(admin('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'compute' } }));
    await created(asAlice('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'team-a' } }));
    for (const name of ['compute', 'team-a']) await waitForWorkspace(ts, 'root', name, { timeoutMs: 30_000, intervalMs: 20 });
    computeCluster = (await get(`${WS}/compute`)).spec.cluster;
    const lc = await get(`${LC}/cluster`);
    teamPath = lc.metadata.annotations[PATH];
    teamType = lc.metadata.annotations[TYPE];
    // What the scheduler writes: alice's SyncTarget "edge" serves another workspace; "plain" serves none.
    await created(asAlice('POST', ST, syncTarget('edge')));
    await created(asAlice('POST', ST, syncTarget('plain')));
    const set = await admin('PATCH', `${ST}/edge`, { metadata: { annotations: { [CONSUMERS]: '["victim"]' } } }, MERGE);
    assert.equal(set.status, 200, set.text);
  });
  after(async () => {
    await ts?.stop();
  });

  it('the setup is real: the workspace controller wrote the annotations, and alice may edit her LogicalCluster and SyncTargets', async () => {
    assert.equal(teamPath, 'root:team-a');
    assert.equal(teamType, 'root:organization');
    const lc = await asAlice('PATCH', `${LC}/cluster`, { metadata: { annotations: { 'example.com/owner': 'alice' } } }, MERGE);
    assert.equal(lc.status, 200, lc.text);
    const st = await asAlice('PATCH', `${ST}/edge`, { metadata: { labels: { region: 'eu' } } }, MERGE);
    assert.equal(st.status, 200, st.text);
    // A read-modify-write PUT that keeps the annotations as stored is an ordinary edit.
    const cur = (await asAlice('GET', `${LC}/cluster`)).json;
    cur.metadata.labels = { team: 'a' };
    assert.equal((await asAlice('PUT', `${LC}/cluster`, cur)).status, 200);
    const target = (await asAlice('GET', `${ST}/edge`)).json;
    target.metadata.labels = { region: 'us' };
    assert.equal((await asAlice('PUT', `${ST}/edge`, target)).status, 200);
  });

  const lcCases: { what: string; annotation: string; send: () => Promise<HttpResponse> }[] = [
    { what: 'merge patch claiming root:compute', annotation: PATH, send: () => asAlice('PATCH', `${LC}/cluster`, { metadata: { annotations: { [PATH]: 'root:compute' } } }, MERGE) },
    { what: 'dry-run merge patch', annotation: PATH, send: () => asAlice('PATCH', `${LC}/cluster?dryRun=All`, { metadata: { annotations: { [PATH]: 'root:compute' } } }, MERGE) },
    { what: 'JSON patch', annotation: PATH, send: () => asAlice('PATCH', `${LC}/cluster`, [{ op: 'replace', path: '/metadata/annotations/kcp.io~1path', value: 'root:compute' }], JSON_PATCH) },
    { what: 'removal by merge patch', annotation: PATH, send: () => asAlice('PATCH', `${LC}/cluster`, { metadata: { annotations: { [PATH]: null } } }, MERGE) },
    {
      what: 'PUT',
      annotation: PATH,
      send: async () => {
        const cur = (await asAlice('GET', `${LC}/cluster`)).json;
        cur.metadata.annotations[PATH] = 'root:compute';
        return asAlice('PUT', `${LC}/cluster`, cur);
      },
    },
    {
      what: 'removal by PUT',
      annotation: PATH,
      send: async () => {
        const cur = (await asAlice('GET', `${LC}/cluster`)).json;
        delete cur.metadata.annotations[PATH];
        return asAlice('PUT', `${LC}/cluster`, cur);
      },
    },
    {
      what: 'server-side apply',
      annotation: PATH,
      send: () => asAlice('PATCH', `${LC}/cluster?fieldManager=alice&force=true`, { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name: 'cluster', annotations: { [PATH]: 'root:compute' } } }, APPLY),
    },
    { what: 'changing the workspace type', annotation: TYPE, send: () => asAlice('PATCH', `${LC}/cluster`, { metadata: { annotations: { [TYPE]: 'root:root' } } }, MERGE) },
  ];
  for (const c of lcCases) {
    it(`alice may not rewrite her LogicalCluster's ${c.annotation} by ${c.what}`, async () => {
      const before = await get(`${LC}/cluster`);
      assertRefused(await c.send(), 'logicalclusters.core.kcp.io', 'cluster', c.annotation, c.what);
      const now = await get(`${LC}/cluster`);
      assert.equal(now.metadata.resourceVersion, before.metadata.resourceVersion, `${c.what}: nothing was written`);
      assert.equal(now.metadata.annotations[PATH], teamPath);
      assert.equal(now.metadata.annotations[TYPE], teamType);
    });
  }

  it('nor create another LogicalCluster carrying a path, by POST or by apply', async () => {
    const lc = (name: string) => ({ apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster', metadata: { name, annotations: { [PATH]: 'root:compute' } } });
    assertRefused(await asAlice('POST', LC, lc('forged')), 'logicalclusters.core.kcp.io', 'forged', PATH, 'POST');
    assertRefused(await asAlice('PATCH', `${LC}/forged?fieldManager=alice`, lc('forged'), APPLY), 'logicalclusters.core.kcp.io', 'forged', PATH, 'apply');
    assert.equal((await admin('GET', `${LC}/forged`)).status, 404);
  });

  it('nor through /status, which keeps the stored metadata', async () => {
    const r = await asAlice('PATCH', `${LC}/cluster/status`, { metadata: { annotations: { [PATH]: 'root:compute' } } }, MERGE);
    assert.ok(r.status === 200 || r.status === 403, r.text);
    assert.equal((await get(`${LC}/cluster`)).metadata.annotations[PATH], teamPath);
  });

  it('root:compute still names the compute workspace', async () => {
    const byPath = await get('/clusters/root:compute/apis/core.kcp.io/v1alpha1/logicalclusters/cluster');
    const byName = await get(`/clusters/${computeCluster}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
    assert.equal(byPath.metadata.uid, byName.metadata.uid);
    assert.equal(byPath.metadata.annotations[PATH], 'root:compute');
  });

  const stCases: { what: string; name: string; send: () => Promise<HttpResponse> }[] = [
    { what: 'create', name: 'forged', send: () => asAlice('POST', ST, syncTarget('forged', { [CONSUMERS]: '["victim"]' })) },
    { what: 'create by server-side apply', name: 'forged', send: () => asAlice('PATCH', `${ST}/forged?fieldManager=alice`, syncTarget('forged', { [CONSUMERS]: '["victim"]' }), APPLY) },
    { what: 'a dry-run create', name: 'forged', send: () => asAlice('POST', `${ST}?dryRun=All`, syncTarget('forged', { [CONSUMERS]: '["victim"]' })) },
    { what: 'adding it by merge patch', name: 'plain', send: () => asAlice('PATCH', `${ST}/plain`, { metadata: { annotations: { [CONSUMERS]: '["victim"]' } } }, MERGE) },
    { what: 'adding it by JSON patch', name: 'plain', send: () => asAlice('PATCH', `${ST}/plain`, [{ op: 'add', path: '/metadata/annotations', value: { [CONSUMERS]: '["victim"]' } }], JSON_PATCH) },
    {
      what: 'adding it by PUT',
      name: 'plain',
      send: async () => {
        const cur = (await asAlice('GET', `${ST}/plain`)).json;
        cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), [CONSUMERS]: '["victim"]' };
        return asAlice('PUT', `${ST}/plain`, cur);
      },
    },
    { what: 'adding it by server-side apply', name: 'plain', send: () => asAlice('PATCH', `${ST}/plain?fieldManager=alice&force=true`, syncTarget('plain', { [CONSUMERS]: '["victim"]' }), APPLY) },
    { what: 'changing it by merge patch', name: 'edge', send: () => asAlice('PATCH', `${ST}/edge`, { metadata: { annotations: { [CONSUMERS]: '["victim","other"]' } } }, MERGE) },
    { what: 'removing it by merge patch', name: 'edge', send: () => asAlice('PATCH', `${ST}/edge`, { metadata: { annotations: { [CONSUMERS]: null } } }, MERGE) },
    { what: 'removing it by JSON patch', name: 'edge', send: () => asAlice('PATCH', `${ST}/edge`, [{ op: 'remove', path: '/metadata/annotations/scheduling.atrium.io~1consumer-clusters' }], JSON_PATCH) },
    {
      what: 'removing it by PUT',
      name: 'edge',
      send: async () => {
        const cur = (await asAlice('GET', `${ST}/edge`)).json;
        delete cur.metadata.annotations[CONSUMERS];
        return asAlice('PUT', `${ST}/edge`, cur);
      },
    },
  ];
  for (const c of stCases) {
    it(`alice may not write a SyncTarget's consumer clusters: ${c.what}`, async () => {
      const before = await admin('GET', `${ST}/${c.name}`);
      assertRefused(await c.send(), 'synctargets.workload.kcp.io', c.name, CONSUMERS, c.what);
      const now = await admin('GET', `${ST}/${c.name}`);
      if (before.status === 404) assert.equal(now.status, 404, `${c.what}: nothing was created`);
      else assert.equal(now.json.metadata.resourceVersion, before.json.metadata.resourceVersion, `${c.what}: nothing was written`);
    });
  }

  it('nor through the SyncTarget status subresource, which keeps the stored metadata', async () => {
    const add = await asAlice('PATCH', `${ST}/plain/status`, { metadata: { annotations: { [CONSUMERS]: '["victim"]' } }, status: { x: 1 } }, MERGE);
    assert.ok(add.status === 200 || add.status === 403, add.text);
    assert.equal((await get(`${ST}/plain`)).metadata.annotations?.[CONSUMERS], undefined);
    const cur = (await asAlice('GET', `${ST}/edge`)).json;
    delete cur.metadata.annotations[CONSUMERS];
    cur.status = { x: 2 };
    const drop = await asAlice('PUT', `${ST}/edge/status`, cur);
    assert.ok(drop.status === 200 || drop.status === 403, drop.text);
    assert.equal((await get(`${ST}/edge`)).metadata.annotations[CONSUMERS], '["victim"]');
  });

  it('system:masters (the scheduler, the workspace controller) may still write them', async () => {
    const st = await admin('PATCH', `${ST}/plain`, { metadata: { annotations: { [CONSUMERS]: '["c1"]' } } }, MERGE);
    assert.equal(st.status, 200, st.text);
    const dropped = await admin('PATCH', `${ST}/edge`, { metadata: { annotations: { [CONSUMERS]: null } } }, MERGE);
    assert.equal(dropped.status, 200, dropped.text);
    assert.equal((await admin('POST', ST, syncTarget('by-admin', { [CONSUMERS]: '["c2"]' }))).status, 201);
    // A workspace of its own, so that moving its path disturbs nothing else.
    assert.equal((await admin('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'scratch' } })).status, 201);
    await waitForWorkspace(ts, 'root', 'scratch', { timeoutMs: 30_000, intervalMs: 20 });
    const lc = await admin('PATCH', '/clusters/root:scratch/apis/core.kcp.io/v1alpha1/logicalclusters/cluster', { metadata: { annotations: { [PATH]: 'root:scratch-moved' } } }, MERGE);
    assert.equal(lc.status, 200, lc.text);
  });
});
