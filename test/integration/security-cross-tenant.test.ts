/**
 * Cross-tenant security: tenant B tries to read tenant A's workspace by every route a client has — object GET, LIST,
 * WATCH, the /clusters/* wildcard, the logical-cluster name instead of the path, discovery, OpenAPI, CRD-defined types,
 * ServiceAccount tokens minted in A, impersonation — and must learn nothing: every attempt is refused before any object is
 * read, with the same answer whether or not the object (or the workspace) exists.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

let ts: TestServer;
let clusterA = '';

const admin = (method: string, path: string, body?: unknown) => ts.request(method, path, body);
const asAlice = (method: string, path: string, body?: unknown) => ts.request(method, path, body, { token: 'alice-token' });
const asBob = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  ts.request(method, path, body, { token: 'bob-token', headers });

const waitReady = (name: string): Promise<any> => waitForWorkspace(ts, 'root', name, { timeoutMs: 3_000, intervalMs: 10 });

/** A refusal that reveals nothing: 403 Forbidden, and no object data in the body. */
function assertRefused(r: HttpResponse, what: string): void {
  assert.equal(r.status, 403, `${what}: expected 403, got ${r.status}: ${r.text}`);
  assert.equal(r.json?.kind, 'Status', what);
  assert.equal(r.json?.reason, 'Forbidden', what);
  assert.ok(!r.text.includes('secret-value'), `${what}: the body leaks object data`);
}

describe('cross-tenant isolation', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['alice-token,alice,uid-alice,"tenant-a"', 'bob-token,bob,uid-bob,"tenant-b"', 'mallory-token,mallory,uid-mallory,"outsiders"'] });
    // Both tenants may create workspaces in root; each owns (and so administers) its own.
    assert.equal(
      (await admin('POST', `${RBAC}/clusterroles`, {
        metadata: { name: 'tenant' },
        rules: [
          { apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['create', 'get'] },
          { nonResourceURLs: ['/'], verbs: ['access'] },
        ],
      })).status,
      201,
    );
    assert.equal(
      (await admin('POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'tenants' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tenant' },
        subjects: ['alice', 'bob'].map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
      })).status,
      201,
    );
    for (const [who, name] of [[asAlice, 'team-a'], [asBob, 'team-b']] as const) {
      const r = await who('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } });
      assert.equal(r.status, 201, r.text);
    }
    clusterA = (await waitReady('team-a')).spec.cluster;
    await waitReady('team-b');
    // Tenant A's data: a secret, a configmap, a CRD with one object, and a service account.
    const a = '/clusters/root:team-a';
    assert.equal((await asAlice('POST', `${a}/api/v1/namespaces/default/secrets`, { metadata: { name: 'db' }, stringData: { password: 'secret-value' } })).status, 201);
    assert.equal((await asAlice('POST', `${a}/api/v1/namespaces/default/configmaps`, { metadata: { name: 'cfg' }, data: { k: 'secret-value' } })).status, 201);
    const crd = await asAlice('POST', `${a}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      metadata: { name: 'vaults.a.example.com' },
      spec: {
        group: 'a.example.com',
        names: { plural: 'vaults', singular: 'vault', kind: 'Vault', listKind: 'VaultList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    assert.equal(crd.status, 201, crd.text);
    await eventually('vault v1 created once the CRD serves', async () => (await asAlice('POST', `${a}/apis/a.example.com/v1/namespaces/default/vaults`, { apiVersion: 'a.example.com/v1', kind: 'Vault', metadata: { name: 'v1' }, spec: { key: 'secret-value' } })).status === 201, 4_000, 20);
    assert.equal((await asAlice('POST', `${a}/api/v1/namespaces/default/serviceaccounts`, { metadata: { name: 'robot' } })).status, 201);
  });
  after(async () => {
    await ts?.stop();
  });

  it('tenant A itself can read its own data (the setup is real)', async () => {
    const r = await asAlice('GET', '/clusters/root:team-a/api/v1/namespaces/default/configmaps/cfg');
    assert.equal(r.status, 200);
    assert.equal(r.json.data.k, 'secret-value');
  });

  it('GET, LIST and WATCH of A objects by path and by logical cluster name are refused', async () => {
    for (const base of ['/clusters/root:team-a', `/clusters/${clusterA}`]) {
      assertRefused(await asBob('GET', `${base}/api/v1/namespaces/default/secrets/db`), `${base} get secret`);
      assertRefused(await asBob('GET', `${base}/api/v1/namespaces/default/configmaps`), `${base} list configmaps`);
      assertRefused(await asBob('GET', `${base}/api/v1/secrets`), `${base} list secrets across namespaces`);
      assertRefused(await asBob('GET', `${base}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`), `${base} watch`);
      assertRefused(await asBob('GET', `${base}/apis/a.example.com/v1/namespaces/default/vaults/v1`), `${base} get custom resource`);
    }
  });

  it('writes into A are refused too', async () => {
    assertRefused(await asBob('POST', '/clusters/root:team-a/api/v1/namespaces/default/configmaps', { metadata: { name: 'planted' } }), 'create');
    assertRefused(await asBob('DELETE', '/clusters/root:team-a/api/v1/namespaces/default/configmaps/cfg'), 'delete');
    assertRefused(
      await asBob('PATCH', '/clusters/root:team-a/api/v1/namespaces/default/configmaps/cfg', { data: { k: 'x' } }, { 'Content-Type': 'application/merge-patch+json' }),
      'patch',
    );
  });

  it('an object that does not exist and one that does get the same answer (403 before 404)', async () => {
    const exists = await asBob('GET', '/clusters/root:team-a/api/v1/namespaces/default/configmaps/cfg');
    const missing = await asBob('GET', '/clusters/root:team-a/api/v1/namespaces/default/configmaps/nope');
    assert.equal(exists.status, 403);
    assert.equal(missing.status, 403);
    assert.equal(exists.json.message.replace('"cfg"', '"X"'), missing.json.message.replace('"nope"', '"X"'));
  });

  it('a workspace that does not exist answers like one that exists but is forbidden', async () => {
    const real = await asBob('GET', '/clusters/root:team-a/api/v1/namespaces');
    const ghost = await asBob('GET', '/clusters/root:no-such-team/api/v1/namespaces');
    assert.equal(real.status, 403);
    assert.equal(ghost.status, 403);
    assert.equal(real.json.reason, ghost.json.reason);
  });

  it('the /clusters/* wildcard is refused to tenants, for list and watch', async () => {
    assertRefused(await asBob('GET', '/clusters/*/api/v1/configmaps'), 'wildcard list');
    assertRefused(await asBob('GET', '/clusters/*/api/v1/secrets?watch=true&timeoutSeconds=1'), 'wildcard watch');
    assertRefused(await asBob('GET', '/clusters/*/apis/a.example.com/v1/vaults'), 'wildcard custom resources');
  });

  it("discovery and OpenAPI of A are refused, and B's own discovery does not show A's types", async () => {
    for (const p of ['/api', '/apis', '/api/v1', '/apis/a.example.com/v1', '/openapi/v3', '/openapi/v2', '/openapi/v3/apis/a.example.com/v1']) {
      assertRefused(await asBob('GET', `/clusters/root:team-a${p}`), `discovery ${p}`);
    }
    const own = await asBob('GET', '/clusters/root:team-b/apis');
    assert.equal(own.status, 200);
    assert.ok(!own.text.includes('a.example.com'), "B's discovery lists A's CRD group");
    const ownOpenAPI = await asBob('GET', '/clusters/root:team-b/openapi/v3');
    assert.equal(ownOpenAPI.status, 200);
    assert.ok(!ownOpenAPI.text.includes('a.example.com'));
    assert.equal((await asBob('GET', '/clusters/root:team-b/apis/a.example.com/v1/namespaces/default/vaults')).status, 404);
  });

  it('a user without rights in the parent cannot read or list the workspace objects there (root excepted, as in kcp)', async () => {
    const asMallory = (path: string) => ts.request('GET', path, undefined, { token: 'mallory-token' });
    // root binds kcp's system:kcp:tenancy:reader to every authenticated user: the Workspace objects there are
    // readable (not what is inside the workspaces).
    assert.equal((await asMallory(`/clusters/root${WS}/team-a`)).status, 200);
    assert.equal((await asMallory(`/clusters/root${WS}`)).status, 200);
    // In any other parent, nothing, whether or not the child exists.
    assertRefused(await asMallory(`/clusters/root:team-a${WS}/inner`), 'get workspace object');
    assertRefused(await asMallory(`/clusters/root:team-a${WS}`), 'list workspace objects');
    assertRefused(await asMallory('/clusters/root:team-a/apis/core.kcp.io/v1alpha1/logicalclusters/cluster'), 'get logical cluster');
    assertRefused(await asMallory('/clusters/root:team-a/api/v1/namespaces/default/configmaps/cfg'), 'get configmap');
  });

  it("a ServiceAccount token minted in A is a stranger in B and root: only what every authenticated user may do there", async () => {
    const tr = await asAlice('POST', '/clusters/root:team-a/api/v1/namespaces/default/serviceaccounts/robot/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    });
    assert.equal(tr.status, 201, tr.text);
    const token = tr.json.status.token as string;
    // As kcp: authenticated, but matched by RBAC as system:anonymous in system:authenticated outside A.
    for (const p of ['/clusters/root:team-b/api/v1/namespaces', '/api/v1/namespaces', '/clusters/root:team-b/api/v1/namespaces/default/configmaps/cfg']) {
      assertRefused(await ts.request('GET', p, undefined, { token }), p);
    }
    // root lets every authenticated user in and read its Workspace objects, not what is inside team-a or team-b.
    assert.equal((await ts.request('GET', `/clusters/root${WS}`, undefined, { token })).status, 200);
  });

  it('impersonating tenant A is refused without the impersonate verb', async () => {
    const r = await asBob('GET', '/clusters/root:team-a/api/v1/namespaces/default/configmaps/cfg', undefined, { 'Impersonate-User': 'alice' });
    assert.equal(r.status, 403, r.text);
    assert.ok(!r.text.includes('secret-value'));
  });

  it("access reviews about A, asked from B, do not reveal A's permissions", async () => {
    const r = await asBob('POST', '/clusters/root:team-a/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'configmaps' } },
    });
    assertRefused(r, 'self subject access review in A');
  });
});
