/**
 * Identities made up by impersonation count only where they were made up (kcp's impersonation scoping): a workspace
 * owner is cluster-admin of their workspace and so may impersonate anyone there, but the permission checks admission
 * makes in other workspaces (WorkspaceType `use`, `bind` on another workspace's Locations) must see through it. Also:
 * extras the server sets (scopes, a ServiceAccount token's logical cluster) cannot be asserted by impersonation, and
 * ServiceAccounts get no home workspace.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const WST = '/apis/tenancy.kcp.io/v1alpha1/workspacetypes';
const PLACEMENTS = '/apis/scheduling.kcp.io/v1alpha1/placements';

describe('impersonation is scoped to the workspace it happens in', () => {
  let ts: TestServer;
  const admin = (m: string, p: string, b?: unknown) => ts.request(m, p, b);
  const alice = (m: string, p: string, b?: unknown, headers?: Record<string, string>) => ts.request(m, p, b, { token: 'alice-token', headers });
  const ok = async (p: Promise<HttpResponse>) => {
    const r = await p;
    assert.ok(r.status === 201 || r.status === 200, `${r.status} ${r.text}`);
    return r;
  };
  const placement = (name: string) => ({
    apiVersion: 'scheduling.kcp.io/v1alpha1',
    kind: 'Placement',
    metadata: { name },
    spec: { locationSelectors: [{}], namespaceSelector: {}, locationResource: { group: 'workload.kcp.io', resource: 'synctargets', version: 'v1alpha1' }, locationWorkspace: 'root:compute' },
  });
  const premium = (name: string) => ({ apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: { type: { name: 'premium', path: 'root:types' } } });
  const binding = (name: string, role: string, subjects: unknown[]) => ({ metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects });
  const group = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });

  before(async () => {
    ts = await startTestServer({ tokens: ['alice-token,alice,uid-alice,"tenants"'], server: multiclusterServerOptions({}) });
    await ok(admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'ws-creator' }, rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['create', 'get'] }, { nonResourceURLs: ['/'], verbs: ['access'] }] }));
    await ok(admin('POST', `${RBAC}/clusterrolebindings`, binding('tenants-ws', 'ws-creator', [group('tenants')])));
    for (const name of ['compute', 'types']) await ok(admin('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name } }));
    await ok(alice('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'team-a' } }));
    for (const name of ['compute', 'types', 'team-a']) await waitForWorkspace(ts, 'root', name, { timeoutMs: 30_000, intervalMs: 20 });
    // root:compute lets group compute-users bind its Locations; root:types lets group premium-customers use `premium`.
    const c = `/clusters/root:compute${RBAC}`;
    await ok(admin('POST', `${c}/clusterroles`, { metadata: { name: 'compute-user' }, rules: [{ apiGroups: ['scheduling.kcp.io'], resources: ['locations'], verbs: ['bind'] }, { nonResourceURLs: ['/'], verbs: ['access'] }] }));
    await ok(admin('POST', `${c}/clusterrolebindings`, binding('cu', 'compute-user', [group('compute-users')])));
    const t = '/clusters/root:types';
    await ok(admin('POST', `${t}${WST}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType', metadata: { name: 'premium' }, spec: {} }));
    await ok(admin('POST', `${t}${RBAC}/clusterroles`, { metadata: { name: 'premium-use' }, rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], resourceNames: ['premium'], verbs: ['use'] }, { nonResourceURLs: ['/'], verbs: ['access'] }] }));
    await ok(admin('POST', `${t}${RBAC}/clusterrolebindings`, binding('pu', 'premium-use', [group('premium-customers')])));
  });
  after(async () => {
    await ts?.stop();
  });

  it("an impersonated group does not pass another workspace's `use` check on a WorkspaceType", async () => {
    const team = '/clusters/root:team-a';
    const plain = await alice('POST', `${team}${WS}`, premium('prem0'));
    assert.equal(plain.status, 403, plain.text);
    const impersonated = await alice('POST', `${team}${WS}`, premium('prem1'), { 'Impersonate-User': 'alice', 'Impersonate-Group': 'premium-customers' });
    assert.equal(impersonated.status, 403, impersonated.text);
    assert.match(impersonated.json.message, /use/);
  });

  it("an impersonated group does not pass another workspace's `bind` check on Locations", async () => {
    const team = '/clusters/root:team-a';
    assert.equal((await alice('POST', `${team}${PLACEMENTS}`, placement('p0'))).status, 403);
    const impersonated = await alice('POST', `${team}${PLACEMENTS}`, placement('p1'), { 'Impersonate-User': 'alice', 'Impersonate-Group': 'compute-users' });
    assert.equal(impersonated.status, 403, impersonated.text);
  });

  it('impersonation keeps working inside the workspace, where the identity is scoped', async () => {
    const team = '/clusters/root:team-a';
    const review = await alice('POST', `${team}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { 'Impersonate-User': 'alice', 'Impersonate-Group': 'some-group' });
    assert.equal(review.status, 201, review.text);
    const cluster = (await admin('GET', `${WS}/team-a`)).json.spec.cluster as string;
    assert.deepEqual(review.json.status.userInfo.extra['authentication.kcp.io/scopes'], [`cluster:${cluster}`]);
    assert.equal((await alice('GET', `${team}/api/v1/namespaces`, undefined, { 'Impersonate-User': 'alice', 'Impersonate-Group': 'some-group' })).status, 200, 'alice owns team-a');
    assert.equal((await alice('GET', `${team}/api/v1/namespaces`, undefined, { 'Impersonate-User': 'carol' })).status, 403, 'carol has no rights here');
  });

  it('extras the server sets cannot be impersonated', async () => {
    const team = '/clusters/root:team-a';
    const compute = (await admin('GET', `${WS}/compute`)).json.spec.cluster as string;
    for (const [key, value] of [
      ['authentication.kubernetes.io%2Fcluster-name', compute],
      ['authentication.kcp.io%2Fscopes', `cluster:${compute}`],
      ['authorization.kcp.io%2Fwarrant', '{"user":"admin"}'],
    ]) {
      const r = await alice('POST', `${team}${PLACEMENTS}`, placement(`x-${key.length}`), { 'Impersonate-User': 'alice', [`Impersonate-Extra-${key}`]: value! });
      assert.equal(r.status, 403, `${key}: ${r.text}`);
      assert.equal(r.json.message, `forbidden: impersonating the extra key ${JSON.stringify(decodeURIComponent(key!))} is not allowed for the requestor`);
    }
  });

  it('a ServiceAccount token gets no home workspace (and creates none)', async () => {
    const team = '/clusters/root:team-a';
    await ok(alice('POST', `${team}/api/v1/namespaces/default/serviceaccounts`, { metadata: { name: 'robot' } }));
    const token = (await ok(alice('POST', `${team}/api/v1/namespaces/default/serviceaccounts/robot/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }))).json.status.token as string;
    const home = await ts.request('GET', `/clusters/root${WS}/~`, undefined, { token });
    assert.ok(home.status === 401 || home.status === 403, `${home.status} ${home.text}`);
    const homes = await admin('GET', '/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters');
    const paths = homes.json.items.map((lc: any) => String(lc.metadata.annotations?.['kcp.io/path']));
    assert.ok(!paths.some((p: string) => p.startsWith('user:system:serviceaccount:')), `no home was created for the ServiceAccount: ${paths}`);
  });
});
