/**
 * Home workspaces over HTTPS, kcp v0.32.3's model: `GET /clusters/root/.../workspaces/~` makes the caller's home on
 * first use (and nothing exists before), a parentless logical cluster named from the user name's SHA-224, answered as
 * a Workspace made from its LogicalCluster; `/clusters/user:<name>[:rest]` reaches it; the owner is its cluster-admin
 * and every other non-admin user stays out; making a home needs `create` on `workspaces/~` in root. The home names
 * below were printed by a Go program running kcp's HomeClusterName.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const LC = '/apis/core.kcp.io/v1alpha1/logicalclusters/cluster';
const OWNER = 'experimental.tenancy.kcp.io/owner';
const ALICE_HOME = 'v1u4alow0iv9';
const BOB_HOME = '2okdry95y5lkv';
const CAROL_HOME = 'naqd6lccmc38';

let ts: TestServer;

const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });
const as = (token: string) => (method: string, path: string, body?: unknown) => ts.request(method, path, body, { token });
const alice = as('alice-token');
const bob = as('bob-token');
const carol = as('carol-token');
const dave = as('dave-token');

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

describe('home workspaces', () => {
  before(async () => {
    ts = await startTestServer({
      tokens: ['alice-token,alice,uid-alice,"devs"', 'bob-token,bob,uid-bob', 'carol-token,carol,uid-carol', 'dave-token,dave,uid-dave', 'erin-token,Erin@example.com,uid-erin'],
    });
  });
  after(async () => {
    await ts?.stop();
  });

  it("creates nothing until somebody goes home, and root has kcp v0.32.3's types", async () => {
    const r = await admin('GET', WS);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.items.map((w: any) => w.metadata.name), []);
    const types = await admin('GET', '/apis/tenancy.kcp.io/v1alpha1/workspacetypes');
    assert.deepEqual(types.json.items.map((t: any) => t.metadata.name).sort(), ['home', 'organization', 'root', 'team', 'universal']);
    const home = types.json.items.find((t: any) => t.metadata.name === 'home');
    assert.deepEqual(home.spec, {
      extend: { with: [{ name: 'universal', path: 'root' }] },
      defaultChildWorkspaceType: { name: 'universal', path: 'root' },
      limitAllowedParents: { none: true },
    });
    assert.equal((await admin('GET', `/clusters/${ALICE_HOME}${LC}`)).status, 404);
  });

  it('GET workspaces/~ in root makes the home and answers the Workspace made from its LogicalCluster', async () => {
    const r = await alice('GET', `/clusters/root${WS}/~`);
    assert.equal(r.status, 200, r.text);
    const lc = (await admin('GET', `/clusters/${ALICE_HOME}${LC}`)).json;
    assert.deepEqual(r.json, {
      kind: 'Workspace',
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      metadata: { name: 'cluster', creationTimestamp: lc.metadata.creationTimestamp },
      spec: { cluster: ALICE_HOME, URL: `${ts.url}/clusters/${ALICE_HOME}` },
      status: { phase: 'Ready' },
    });
    // The LogicalCluster: kcp's annotations (owner, type root:home, path user:<name>), spec.createdBy, the URL by name.
    assert.equal(lc.metadata.annotations['internal.tenancy.kcp.io/type'], 'root:home');
    assert.equal(lc.metadata.annotations['kcp.io/path'], 'user:alice');
    assert.deepEqual(JSON.parse(lc.metadata.annotations[OWNER]), { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] });
    assert.deepEqual(lc.spec.createdBy, { username: 'alice', groups: ['devs', 'system:authenticated'], uid: 'uid-alice' });
    assert.equal(lc.spec.owner, undefined);
    assert.deepEqual(lc.status, { phase: 'Ready', URL: `${ts.url}/clusters/${ALICE_HOME}` });
    // No Workspace object anywhere: root lists none, and there is no users tree.
    assert.deepEqual((await admin('GET', WS)).json.items, []);
    assert.equal((await admin('GET', `/clusters/root:users${WS}`)).status, 404);
    // Asking again finds the same home; like kcp, a subresource does not change the question.
    const again = await alice('GET', `${WS}/~`);
    assert.deepEqual(again.json, r.json);
    assert.deepEqual((await alice('GET', `/clusters/root${WS}/~/status`)).json, r.json);
  });

  it('answers ~ in root only', async () => {
    const elsewhere = await alice('GET', `/clusters/user:alice${WS}/~`);
    assert.equal(elsewhere.status, 404, elsewhere.text);
    assert.equal(elsewhere.json.message, 'workspaces.tenancy.kcp.io "~" not found');
  });

  it('serves the home at /clusters/<name> and /clusters/user:<name>, where the owner is cluster-admin', async () => {
    const binding = await admin('GET', `/clusters/${ALICE_HOME}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/workspace-admin`);
    assert.equal(binding.status, 200, binding.text);
    assert.deepEqual(binding.json.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }]);
    assert.deepEqual(binding.json.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' });
    const created = await alice('POST', '/clusters/user:alice/api/v1/namespaces/default/configmaps', configMap('mine'));
    assert.equal(created.status, 201, created.text);
    const byName = await alice('GET', `/clusters/${ALICE_HOME}/api/v1/namespaces/default/configmaps/mine`);
    assert.equal(byName.status, 200, byName.text);
    const child = await alice('POST', `/clusters/user:alice${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'project' }, spec: {} });
    assert.equal(child.status, 201, child.text);
    assert.deepEqual(child.json.spec.type, { name: 'universal', path: 'root' });
    await eventually('user:alice:project serving', async () => (await alice('GET', '/clusters/user:alice:project/api/v1/namespaces')).status === 200, 5_000, 25);
    assert.equal((await alice('GET', `/clusters/${ALICE_HOME}:project/api/v1/namespaces`)).status, 200);
    const project = await alice('GET', `/clusters/${ALICE_HOME}${WS}/project`);
    // Below a home, canonical paths start from its path, as kcp's scheduler joins them.
    assert.equal(project.json.spec.URL, `${ts.url}/clusters/user:alice:project`);
    const projectLC = await admin('GET', `/clusters/user:alice:project${LC}`);
    assert.equal(projectLC.json.metadata.annotations['kcp.io/path'], 'user:alice:project');
  });

  it('keeps other users out of a home, and gives each their own', async () => {
    for (const path of [`/clusters/${ALICE_HOME}`, '/clusters/user:alice', '/clusters/user:alice:project']) {
      const peek = await bob('GET', `${path}/api/v1/namespaces/default/configmaps/mine`);
      assert.equal(peek.status, 403, path);
      assert.match(peek.json.message, /workspace access not permitted/);
    }
    const own = await bob('GET', `${WS}/~`);
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.spec.cluster, BOB_HOME);
    assert.equal(own.json.spec.URL, `${ts.url}/clusters/${BOB_HOME}`);
    assert.equal((await bob('GET', '/clusters/user:bob/api/v1/namespaces/default/configmaps/mine')).status, 404);
    // A home is a workspace of its own: not even its owner's grants reach into another's.
    assert.equal((await alice('GET', '/clusters/user:bob/api/v1/namespaces')).status, 403);
    // Nobody may make a Workspace of type home: it has no parent.
    const refused = await admin('POST', WS, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'fake-home' }, spec: { type: { name: 'home', path: 'root' } } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'workspaces.tenancy.kcp.io "fake-home" is forbidden: workspace type root:home cannot have any parent');
  });

  it('a user whose name is no path segment (an e-mail address) gets a home whose workspaces are reached by its cluster name', async () => {
    const erin = as('erin-token');
    const home = await erin('GET', `/clusters/root${WS}/~`);
    assert.equal(home.status, 200, home.text);
    const cluster = home.json.spec.cluster as string;
    const lc = (await admin('GET', `/clusters/${cluster}${LC}`)).json;
    assert.equal(lc.metadata.annotations['kcp.io/path'], cluster);
    const created = await erin('POST', `/clusters/${cluster}${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'proj' }, spec: {} });
    assert.equal(created.status, 201, created.text);
    const ready = await eventually('proj ready', async () => {
      const g = await erin('GET', `/clusters/${cluster}${WS}/proj`);
      return g.json?.status?.phase === 'Ready' ? g.json : undefined;
    }, 10_000, 50);
    assert.ok(ready.spec.URL.endsWith(`/clusters/${cluster}:proj`), ready.spec.URL);
    assert.equal((await erin('POST', `/clusters/${cluster}:proj/api/v1/namespaces/default/configmaps`, configMap('inside'))).status, 201);
  });

  it('no longer knows /clusters/~, as kcp v0.32.3', async () => {
    const r = await alice('GET', '/clusters/~/api/v1/namespaces');
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'invalid cluster: "~" does not match the regex');
  });

  it('needs create on workspaces/~ in root to get a new home, but not to use an existing one', async () => {
    const role = await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kcp:home-clusterworkspace-create');
    assert.deepEqual(role.json.rules, [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], resourceNames: ['~'], verbs: ['get', 'create'] }]);
    const del = await admin('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:kcp:configured-group:home-clusterworkspace-create');
    assert.equal(del.status, 200, del.text);
    const refused = await carol('GET', `${WS}/~`);
    assert.equal(refused.status, 403);
    assert.equal(
      refused.json.message,
      'workspaces.tenancy.kcp.io "~" is forbidden: User "carol" cannot create resource "workspaces" in API group "tenancy.kcp.io" at the cluster scope: workspace access not permitted',
    );
    assert.equal((await alice('GET', `${WS}/~`)).status, 200);
    // The refusal left nothing behind for carol.
    assert.equal((await admin('GET', `/clusters/${CAROL_HOME}${LC}`)).status, 404);
    assert.equal((await carol('GET', '/clusters/user:carol/api/v1/namespaces')).status, 403);
  });

  it('answers 429 with Retry-After while a home waits for its type initializers, then Ready', async () => {
    const patch = await admin('PATCH', '/apis/tenancy.kcp.io/v1alpha1/workspacetypes/home', { spec: { initializer: true } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patch.status, 200, patch.text);
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'homes-again' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:home-clusterworkspace-create' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
    });
    const waiting = await dave('GET', `${WS}/~`);
    assert.equal(waiting.status, 429, waiting.text);
    assert.equal(waiting.text, 'Creating the home workspace\n');
    assert.equal(waiting.headers['retry-after'], '1');
    assert.equal(waiting.headers['content-type'], 'text/plain; charset=utf-8');
    const lc = (await admin('GET', `/clusters/user:dave${LC}`)).json;
    assert.deepEqual(lc.spec.initializers, ['root:home']);
    assert.deepEqual(lc.status.initializers, ['root:home']);
    assert.equal(lc.status.phase, 'Initializing');
    // The owner may already work in it; whoever initializes removes its entry, and the home turns Ready by itself.
    assert.equal((await dave('GET', '/clusters/user:dave/api/v1/namespaces/default')).status, 200);
    const done = await admin('PATCH', `/clusters/user:dave${LC}/status`, { status: { initializers: [] } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(done.status, 200, done.text);
    await eventually('dave home Ready', async () => (await admin('GET', `/clusters/user:dave${LC}`)).json.status.phase === 'Ready', 5_000, 25);
    const ready = await dave('GET', `${WS}/~`);
    assert.equal(ready.status, 200, ready.text);
    assert.equal(ready.json.status.phase, 'Ready');
  });

  it('answers the impersonated user\'s home, as kcp\'s filter runs after impersonation, and only to who may impersonate', async () => {
    const r = await admin('GET', `/clusters/root${WS}/~`, undefined, { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:authenticated' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.cluster, BOB_HOME);
    const refused = await ts.request('GET', `/clusters/root${WS}/~`, undefined, { token: 'carol-token', headers: { 'Impersonate-User': 'alice' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'users "alice" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('anonymous requests have no home', async () => {
    const r = await ts.request('GET', `${WS}/~`, undefined, { anonymous: true });
    assert.ok(r.status === 401 || r.status === 403, `status ${r.status}`);
  });
});
