/**
 * Home workspaces over HTTPS: `GET workspaces/~` in root and `/clusters/~` create the caller's home under
 * root:users:<bucket>:<bucket>:<user> on first use (and nothing before), make the caller its cluster-admin, and keep
 * every other non-admin user out; creating a home needs `create` on `workspaces/~` in root.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const OWNER = 'experimental.tenancy.kcp.io/owner';
const ALICE_HOME = 'root:users:ss:xx:alice';

let ts: TestServer;

const admin = (method: string, path: string, body?: unknown) => ts.request(method, path, body);
const as = (token: string) => (method: string, path: string, body?: unknown) => ts.request(method, path, body, { token });
const alice = as('alice-token');
const bob = as('bob-token');
const carol = as('carol-token');

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

describe('home workspaces', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['alice-token,alice,uid-alice,"devs"', 'bob-token,bob,uid-bob', 'carol-token,carol,uid-carol'] });
  });
  after(async () => {
    await ts?.stop();
  });

  it('creates nothing until somebody goes home', async () => {
    const r = await admin('GET', WS);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.items.map((w: any) => w.metadata.name), []);
    const types = await admin('GET', '/apis/tenancy.kcp.io/v1alpha1/workspacetypes');
    assert.deepEqual(types.json.items.map((t: any) => t.metadata.name).sort(), ['home', 'homebucket', 'homeroot', 'organization', 'root', 'team', 'universal']);
  });

  it('GET workspaces/~ creates the home and its buckets and answers with the home Workspace', async () => {
    const r = await alice('GET', `${WS}/~`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Workspace');
    assert.equal(r.json.metadata.name, 'alice');
    assert.deepEqual(r.json.spec.type, { name: 'home', path: 'root' });
    assert.equal(r.json.status.phase, 'Ready');
    assert.ok(r.json.spec.URL.endsWith(`/clusters/${ALICE_HOME}`), r.json.spec.URL);
    assert.equal(JSON.parse(r.json.metadata.annotations[OWNER]).username, 'alice');
    // The parents exist with kcp's types.
    const users = await admin('GET', `${WS}/users`);
    assert.deepEqual(users.json.spec.type, { name: 'homeroot', path: 'root' });
    const bucket = await admin('GET', `/clusters/root:users:ss${WS}/xx`);
    assert.deepEqual(bucket.json.spec.type, { name: 'homebucket', path: 'root' });
    // A second call finds the same home.
    const again = await alice('GET', `/clusters/root${WS}/~`);
    assert.equal(again.json.metadata.uid, r.json.metadata.uid);
  });

  it('serves /clusters/~ from the home, where the owner is cluster-admin', async () => {
    const created = await alice('POST', '/clusters/~/api/v1/namespaces/default/configmaps', configMap('mine'));
    assert.equal(created.status, 201, created.text);
    const byPath = await alice('GET', `/clusters/${ALICE_HOME}/api/v1/namespaces/default/configmaps/mine`);
    assert.equal(byPath.status, 200, byPath.text);
    const child = await alice('POST', `/clusters/~${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'project' }, spec: {} });
    assert.equal(child.status, 201, child.text);
    assert.deepEqual(child.json.spec.type, { name: 'universal', path: 'root' });
    await eventually('~:project serving', async () => (await alice('GET', '/clusters/~:project/api/v1/namespaces')).status === 200, 5_000, 25);
  });

  it("keeps other users out of a home, and gives each their own", async () => {
    const peek = await bob('GET', `/clusters/${ALICE_HOME}/api/v1/namespaces/default/configmaps/mine`);
    assert.equal(peek.status, 403);
    assert.match(peek.json.message, /workspace access not permitted/);
    const own = await bob('GET', `${WS}/~`);
    assert.equal(own.status, 200, own.text);
    assert.ok(own.json.spec.URL.endsWith('/clusters/root:users:lh:sc:bob'), own.json.spec.URL);
    const theirs = await bob('GET', '/clusters/~/api/v1/namespaces/default/configmaps/mine');
    assert.equal(theirs.status, 404);
    // Bob may not look into the buckets either (they have no RBAC for users).
    assert.equal((await bob('GET', `/clusters/root:users:ss:xx${WS}/alice`)).status, 403);
  });

  it('needs create on workspaces/~ in root to get a new home, but not to use an existing one', async () => {
    const del = await admin('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:kcp:authenticated:home-workspace-creator');
    assert.equal(del.status, 200, del.text);
    const refused = await carol('GET', `${WS}/~`);
    assert.equal(refused.status, 403);
    assert.equal(
      refused.json.message,
      'workspaces.tenancy.kcp.io "~" is forbidden: User "carol" cannot create resource "workspaces" in API group "tenancy.kcp.io" at the cluster scope: workspace access not permitted',
    );
    assert.equal((await carol('GET', '/clusters/~/api/v1/namespaces')).status, 403);
    assert.equal((await alice('GET', `${WS}/~`)).status, 200);
    // Refusals left nothing behind for carol.
    assert.equal((await admin('GET', `/clusters/root:users${WS}`)).json.items.length, 2);
  });

  it('anonymous requests have no home', async () => {
    const r = await ts.request('GET', `${WS}/~`, undefined, { anonymous: true });
    assert.ok(r.status === 401 || r.status === 403, `status ${r.status}`);
  });
});
