/**
 * Workspace ownership with non-admin users (a static token and a client certificate): the creator is recorded in
 * `experimental.tenancy.kcp.io/owner`, becomes cluster-admin of the new workspace through the `workspace-admin`
 * binding, and can enter it and create objects; another user gets kcp's 403 ("workspace access not permitted") and
 * cannot read it. Creating a workspace of a type needs `use` on that type (and on the types it extends) in the
 * workspace defining it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { doRequest, startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { issueClientCertificate } from '../../src/apiserver/certs/certificates.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const OWNER = 'experimental.tenancy.kcp.io/owner';

let ts: TestServer;
let carol: Agent;

const admin = (method: string, path: string, body?: unknown) => ts.request(method, path, body);
const asBob = (method: string, path: string, body?: unknown) => ts.request(method, path, body, { token: 'bob-token' });
const asCarol = (method: string, path: string, body?: unknown): Promise<HttpResponse> => doRequest(carol, ts.url, method, path, body);

const workspace = (name: string, type?: { name: string; path?: string }) => ({
  apiVersion: 'tenancy.kcp.io/v1alpha1',
  kind: 'Workspace',
  metadata: { name },
  spec: type ? { type } : {},
});
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

const waitReady = (parentPath: string, name: string): Promise<any> => waitForWorkspace(ts, parentPath, name, { timeoutMs: 3_000, intervalMs: 10 });

/** In `cluster`: a role to create/get workspaces and enter, bound to the given users. */
async function grantWorkspaceCreation(cluster: string, users: string[]): Promise<void> {
  const role = await admin('POST', `/clusters/${cluster}${RBAC}/clusterroles`, {
    metadata: { name: 'workspace-creator' },
    rules: [
      { apiGroups: ['tenancy.kcp.io'], resources: ['workspaces'], verbs: ['create', 'get'] },
      { nonResourceURLs: ['/'], verbs: ['access'] },
    ],
  });
  assert.equal(role.status, 201, role.text);
  const binding = await admin('POST', `/clusters/${cluster}${RBAC}/clusterrolebindings`, {
    metadata: { name: 'workspace-creators' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'workspace-creator' },
    subjects: users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
  });
  assert.equal(binding.status, 201, binding.text);
}

describe('workspace owners (non-admin users)', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['bob-token,bob,uid-bob,"devs"'] });
    const pki = join(ts.rootDir, 'pki');
    const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
    const pair = await issueClientCertificate(ca, { cn: 'carol', groups: ['testers'], days: 1 });
    carol = new Agent({ ca: ca.certPem, cert: pair.certPem, key: pair.keyPem, keepAlive: true });
    const org = await admin('POST', `/clusters/root${WS}`, workspace('acme'));
    assert.equal(org.status, 201, org.text);
    await waitReady('root', 'acme');
    await grantWorkspaceCreation('root:acme', ['bob', 'carol']);
  });
  after(async () => {
    carol?.destroy();
    await ts?.stop();
  });

  it('a user without rights in the parent cannot create a workspace there', async () => {
    const r = await asBob('POST', `/clusters/root${WS}`, workspace('nope'));
    assert.equal(r.status, 403);
    assert.equal(
      r.json.message,
      'workspaces.tenancy.kcp.io is forbidden: User "bob" cannot create resource "workspaces" in API group "tenancy.kcp.io" at the cluster scope',
    );
  });

  it('records the creator, makes it cluster-admin of the new workspace and lets it in (token user)', async () => {
    const created = await asBob('POST', `/clusters/root:acme${WS}`, workspace('bobs'));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(JSON.parse(created.json.metadata.annotations[OWNER]), { username: 'bob', uid: 'uid-bob', groups: ['devs', 'system:authenticated'] });
    const ws = await waitReady('root:acme', 'bobs');
    assert.equal(ws.metadata.annotations[OWNER], created.json.metadata.annotations[OWNER]);

    const lc = await admin('GET', `/clusters/root:acme:bobs/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`);
    assert.equal(lc.json.metadata.annotations[OWNER], created.json.metadata.annotations[OWNER]);
    const binding = await admin('GET', `/clusters/root:acme:bobs${RBAC}/clusterrolebindings/workspace-admin`);
    assert.equal(binding.status, 200, binding.text);
    assert.deepEqual(binding.json.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' });
    assert.deepEqual(binding.json.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }]);
    // The bootstrap policy is there too (bootstrapRbac ran as an initializer).
    const roles = await admin('GET', `/clusters/root:acme:bobs${RBAC}/clusterroles`);
    assert.ok(roles.json.items.some((r: any) => r.metadata.name === 'cluster-admin'));
    const adminRole = roles.json.items.find((r: any) => r.metadata.name === 'admin');
    assert.ok(adminRole.rules.some((r: any) => r.resources?.includes('rolebindings')), 'admin is aggregated at creation');
    assert.ok(adminRole.rules.some((r: any) => r.resources?.includes('configmaps') && r.verbs.includes('get')), 'admin includes view through edit');

    // Bob enters and works there.
    assert.equal((await asBob('GET', '/clusters/root:acme:bobs/api')).status, 200);
    const cm = await asBob('POST', '/clusters/root:acme:bobs/api/v1/namespaces/default/configmaps', configMap('mine'));
    assert.equal(cm.status, 201, cm.text);
    const ns = await asBob('POST', '/clusters/root:acme:bobs/api/v1/namespaces', { metadata: { name: 'bobs-team' } });
    assert.equal(ns.status, 201, ns.text);
    assert.equal((await asBob('GET', '/clusters/root:acme:bobs/api/v1/namespaces/default/configmaps/mine')).status, 200);
  });

  it('another user gets the workspace-access 403 and cannot read or list anything in it', async () => {
    const get = await asCarol('GET', '/clusters/root:acme:bobs/api/v1/namespaces/default/configmaps/mine');
    assert.equal(get.status, 403);
    assert.equal(
      get.json.message,
      'configmaps "mine" is forbidden: User "carol" cannot get resource "configmaps" in API group "" in the namespace "default": workspace access not permitted',
    );
    const list = await asCarol('GET', '/clusters/root:acme:bobs/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 403);
    assert.match(list.json.message, /workspace access not permitted$/);
    const discovery = await asCarol('GET', '/clusters/root:acme:bobs/apis');
    assert.equal(discovery.status, 403);
    assert.equal(discovery.json.message, 'forbidden: User "carol" cannot get path "/apis": workspace access not permitted');
    // Carol may create in acme but not list there, so she does not learn bob's workspace from the parent either.
    assert.equal((await asCarol('GET', `/clusters/root:acme${WS}`)).status, 403);
  });

  it('works the same for a client-certificate user, and owners are isolated from each other', async () => {
    const created = await asCarol('POST', `/clusters/root:acme${WS}`, workspace('carols'));
    assert.equal(created.status, 201, created.text);
    assert.equal(JSON.parse(created.json.metadata.annotations[OWNER]).username, 'carol');
    await waitReady('root:acme', 'carols');
    assert.equal((await asCarol('POST', '/clusters/root:acme:carols/api/v1/namespaces/default/configmaps', configMap('hers'))).status, 201);
    assert.equal((await asCarol('GET', '/clusters/root:acme:carols/api/v1/namespaces/default/configmaps')).json.items.length, 1);
    const bobThere = await asBob('GET', '/clusters/root:acme:carols/api/v1/namespaces/default/configmaps/hers');
    assert.equal(bobThere.status, 403);
    assert.match(bobThere.json.message, /User "bob" cannot get .*: workspace access not permitted$/);
    // The owner may nest workspaces inside its own workspace (cluster-admin there).
    const nested = await asCarol('POST', `/clusters/root:acme:carols${WS}`, workspace('inner'));
    assert.equal(nested.status, 201, nested.text);
    await waitReady('root:acme:carols', 'inner');
    assert.equal((await asCarol('GET', '/clusters/root:acme:carols:inner/api/v1/namespaces')).status, 200);
  });

  it('requires `use` on the WorkspaceType (in the workspace defining it) to create a workspace of that type', async () => {
    const type = await admin('POST', '/clusters/root:acme/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: 'private' },
      spec: { extend: { with: [{ name: 'universal', path: 'root' }] } },
    });
    assert.equal(type.status, 201, type.text);
    const refused = await asBob('POST', `/clusters/root:acme${WS}`, workspace('typed', { name: 'private', path: 'root:acme' }));
    assert.equal(refused.status, 403, refused.text);
    assert.equal(
      refused.json.message,
      `workspaces.tenancy.kcp.io "typed" is forbidden: unable to use workspace type root:acme:private: missing verb='use' permission on workspacetype`,
    );
    const role = await admin('POST', `/clusters/root:acme${RBAC}/clusterroles`, {
      metadata: { name: 'use-private' },
      rules: [{ apiGroups: ['tenancy.kcp.io'], resources: ['workspacetypes'], resourceNames: ['private'], verbs: ['use'] }],
    });
    assert.equal(role.status, 201, role.text);
    const grant = await admin('POST', `/clusters/root:acme${RBAC}/clusterrolebindings`, {
      metadata: { name: 'bob-use-private' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'use-private' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    });
    assert.equal(grant.status, 201, grant.text);
    const allowed = await asBob('POST', `/clusters/root:acme${WS}`, workspace('typed', { name: 'private', path: 'root:acme' }));
    assert.equal(allowed.status, 201, allowed.text);
    assert.deepEqual(allowed.json.spec.type, { name: 'private', path: 'root:acme' });
    // The root types are usable by every authenticated user (kcp's universal-workspacetype-use binding).
    const universal = await asCarol('POST', `/clusters/root:acme${WS}`, workspace('plain', { name: 'universal', path: 'root' }));
    assert.equal(universal.status, 201, universal.text);
  });
});
