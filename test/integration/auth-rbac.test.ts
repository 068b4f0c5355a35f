/**
 * Authorization over real HTTPS with non-admin users identified by a client certificate and by static tokens:
 * RBAC allow/deny with upstream's exact 403 texts, 403 before 404, resourceNames, nonResourceURLs, escalation
 * prevention, aggregation of admin/edit/view, impersonation, the access reviews, and per-workspace policy.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { doRequest, startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { issueClientCertificate } from '../../src/apiserver/certs/certificates.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

let ts: TestServer;
let carol: Agent;

const asBob = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { token: 'bob-token', headers });
const asDev = (method: string, path: string, body?: unknown) => ts.request(method, path, body, { token: 'dave-token' });
const asCarol = (method: string, path: string, body?: unknown): Promise<HttpResponse> => doRequest(carol, ts.url, method, path, body);
const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });

function roleBinding(name: string, namespace: string, roleKind: 'Role' | 'ClusterRole', role: string, subjects: object[]): object {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
    subjects,
  };
}
const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });
const group = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name });

async function ensureNamespace(name: string): Promise<void> {
  const r = await admin('POST', '/api/v1/namespaces', { metadata: { name } });
  assert.ok(r.status === 201 || r.status === 409, r.text);
}

function forbidden(message: string, details: object): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

describe('authorization (RBAC per logical cluster)', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['bob-token,bob,uid-bob', '', 'dave-token,dave,uid-dave,"devs,qa"'] });
    const pki = join(ts.rootDir, 'pki');
    const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
    const pair = await issueClientCertificate(ca, { cn: 'carol', groups: ['testers'], days: 1 });
    carol = new Agent({ ca: ca.certPem, cert: pair.certPem, key: pair.keyPem, keepAlive: true });
    await ensureNamespace('team-a');
  });
  after(async () => {
    carol?.destroy();
    await ts?.stop();
  });

  it('a user without bindings gets the exact upstream 403, before the object is looked up', async () => {
    const r = await asBob('GET', '/api/v1/namespaces/default/configmaps/does-not-exist');
    assert.equal(r.status, 403);
    assert.deepEqual(
      r.json,
      forbidden('configmaps "does-not-exist" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"', {
        name: 'does-not-exist',
        kind: 'configmaps',
      }),
    );
    const list = await asBob('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles');
    assert.equal(list.status, 403);
    assert.equal(list.json.message, 'clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope');
    const watch = await asBob('GET', '/api/v1/namespaces/default/configmaps?watch=true');
    assert.equal(watch.status, 403);
    assert.match(watch.json.message, /cannot watch resource "configmaps"/);
  });

  it('non-resource URLs: discovery is allowed to everyone authenticated, other paths are refused before 404', async () => {
    assert.equal((await asBob('GET', '/apis')).status, 200);
    assert.equal((await asBob('GET', '/version')).status, 200);
    const r = await asBob('GET', '/metrics');
    assert.equal(r.status, 403);
    assert.deepEqual(r.json, forbidden('forbidden: User "bob" cannot get path "/metrics"', {}));
  });

  it('a RoleBinding to view grants reads in its namespace only; writes stay forbidden', async () => {
    const b = await admin('POST', `${RBAC}/namespaces/team-a/rolebindings`, roleBinding('bob-view', 'team-a', 'ClusterRole', 'view', [user('bob')]));
    assert.equal(b.status, 201, b.text);
    const missing = await asBob('GET', '/api/v1/namespaces/team-a/configmaps/nope');
    assert.equal(missing.status, 404, missing.text);
    assert.equal((await asBob('GET', '/api/v1/namespaces/team-a/configmaps')).status, 200);
    const elsewhere = await asBob('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(elsewhere.status, 403);
    const create = await asBob('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: 'x' } });
    assert.equal(create.status, 403);
    assert.equal(create.json.message, 'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "team-a"');
    // view does not include secrets.
    assert.equal((await asBob('GET', '/api/v1/namespaces/team-a/secrets')).status, 403);
  });

  it('a Group subject (token groups) and edit allow writes', async () => {
    const b = await admin('POST', `${RBAC}/namespaces/team-a/rolebindings`, roleBinding('devs-edit', 'team-a', 'ClusterRole', 'edit', [group('devs')]));
    assert.equal(b.status, 201, b.text);
    const c = await asDev('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: 'by-dave' }, data: { a: 'b' } });
    assert.equal(c.status, 201, c.text);
    assert.equal((await asDev('DELETE', '/api/v1/namespaces/team-a/configmaps/by-dave')).status, 200);
    // edit grants no RBAC writes.
    const r = await asDev('POST', `${RBAC}/namespaces/team-a/roles`, { metadata: { name: 'r' }, rules: [] });
    assert.equal(r.status, 403);
  });

  it('a client-certificate user is matched by CN and O; resourceNames restrict to named objects', async () => {
    for (const name of ['allowed', 'hidden']) {
      assert.equal((await admin('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name } })).status, 201);
    }
    const role = await admin('POST', `${RBAC}/namespaces/team-a/roles`, {
      metadata: { name: 'one-cm' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'], verbs: ['get'] }],
    });
    assert.equal(role.status, 201, role.text);
    assert.equal((await asCarol('GET', '/api/v1/namespaces/team-a/configmaps/allowed')).status, 403);
    const b = await admin('POST', `${RBAC}/namespaces/team-a/rolebindings`, roleBinding('testers-one', 'team-a', 'Role', 'one-cm', [group('testers')]));
    assert.equal(b.status, 201, b.text);
    assert.equal((await asCarol('GET', '/api/v1/namespaces/team-a/configmaps/allowed')).status, 200);
    const hidden = await asCarol('GET', '/api/v1/namespaces/team-a/configmaps/hidden');
    assert.equal(hidden.status, 403);
    assert.equal(hidden.json.message, 'configmaps "hidden" is forbidden: User "carol" cannot get resource "configmaps" in API group "" in the namespace "team-a"');
    // A list never matches a rule restricted by name.
    assert.equal((await asCarol('GET', '/api/v1/namespaces/team-a/configmaps')).status, 403);
  });

  it('escalation prevention: roles and bindings beyond what the user holds are refused with upstream text', async () => {
    await ensureNamespace('esc');
    const mgr = await admin('POST', `${RBAC}/namespaces/esc/roles`, {
      metadata: { name: 'rbac-manager' },
      rules: [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get', 'list'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ],
    });
    assert.equal(mgr.status, 201, mgr.text);
    assert.equal((await admin('POST', `${RBAC}/namespaces/esc/rolebindings`, roleBinding('bob-mgr', 'esc', 'Role', 'rbac-manager', [user('bob')]))).status, 201);

    const ok = await asBob('POST', `${RBAC}/namespaces/esc/roles`, { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    assert.equal(ok.status, 201, ok.text);

    const bad = await asBob('POST', `${RBAC}/namespaces/esc/roles`, {
      metadata: { name: 'r' },
      rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] }],
    });
    assert.equal(bad.status, 403);
    assert.equal(
      bad.json.message,
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
    assert.deepEqual(bad.json.details, { name: 'r', group: 'rbac.authorization.k8s.io', kind: 'roles' });

    const bind = await asBob('POST', `${RBAC}/namespaces/esc/rolebindings`, roleBinding('grab-admin', 'esc', 'ClusterRole', 'admin', [user('bob')]));
    assert.equal(bind.status, 403);
    assert.match(bind.json.message, /^rolebindings\.rbac\.authorization\.k8s\.io "grab-admin" is forbidden: user "bob" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);

    // Binding a role whose rules bob holds is fine; with `bind` on admin, so is binding admin.
    assert.equal((await asBob('POST', `${RBAC}/namespaces/esc/rolebindings`, roleBinding('reader', 'esc', 'Role', 'reader', [user('bob')]))).status, 201);
    await admin('POST', `${RBAC}/namespaces/esc/roles`, { metadata: { name: 'binder' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['admin'], verbs: ['bind'] }] });
    await admin('POST', `${RBAC}/namespaces/esc/rolebindings`, roleBinding('bob-binder', 'esc', 'Role', 'binder', [user('bob')]));
    const bound = await asBob('POST', `${RBAC}/namespaces/esc/rolebindings`, roleBinding('grab-admin', 'esc', 'ClusterRole', 'admin', [user('bob')]));
    assert.equal(bound.status, 201, bound.text);
    // Now bob holds admin in esc, so the role that was refused is within his permissions.
    const now = await asBob('POST', `${RBAC}/namespaces/esc/roles`, { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] }] });
    assert.equal(now.status, 201, now.text);
  });

  it('roleRef is immutable', async () => {
    const cur = await admin('GET', `${RBAC}/namespaces/team-a/rolebindings/bob-view`);
    const r = await admin('PUT', `${RBAC}/namespaces/team-a/rolebindings/bob-view`, { ...cur.json, roleRef: { ...cur.json.roleRef, name: 'edit' } });
    assert.equal(r.status, 422);
    assert.equal(
      r.json.message,
      'RoleBinding.rbac.authorization.k8s.io "bob-view" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    );
  });

  it('bootstrap roles exist and admin/edit/view are aggregated, following new labelled roles', async () => {
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer']) {
      assert.equal((await admin('GET', `${RBAC}/clusterroles/${name}`)).status, 200, name);
    }
    for (const name of ['cluster-admin', 'system:discovery', 'system:basic-user', 'system:public-info-viewer']) {
      assert.equal((await admin('GET', `${RBAC}/clusterrolebindings/${name}`)).status, 200, name);
    }
    const view = (await admin('GET', `${RBAC}/clusterroles/view`)).json;
    const edit = (await admin('GET', `${RBAC}/clusterroles/edit`)).json;
    const adm = (await admin('GET', `${RBAC}/clusterroles/admin`)).json;
    const has = (role: any, res: string, verb: string) => role.rules.some((r: any) => r.resources?.includes(res) && r.verbs.includes(verb));
    assert.ok(has(view, 'configmaps', 'get') && !has(view, 'configmaps', 'create'));
    assert.ok(has(edit, 'configmaps', 'get') && has(edit, 'configmaps', 'create'), 'edit includes view');
    assert.ok(has(adm, 'configmaps', 'create') && has(adm, 'rolebindings', 'create'), 'admin includes edit');

    const extra = await admin('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }],
    });
    assert.equal(extra.status, 201, extra.text);
    for (const role of ['view', 'edit', 'admin']) {
      await eventually(`${role} aggregating widgets-view`, async () => has((await admin('GET', `${RBAC}/clusterroles/${role}`)).json, 'widgets', 'get'), 2_000, 20);
    }
  });

  it('impersonation needs the impersonate verb and then acts as the impersonated user', async () => {
    const asBobViaAdmin = await admin('GET', '/api/v1/namespaces/default/configmaps', undefined, { 'Impersonate-User': 'bob' });
    assert.equal(asBobViaAdmin.status, 403);
    assert.match(asBobViaAdmin.json.message, /User "bob" cannot list resource "configmaps"/);
    const denied = await asBob('GET', '/api/v1/namespaces/default/configmaps', undefined, { 'Impersonate-User': 'alice' });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
    const groupDenied = await admin('GET', '/api/v1/namespaces/default/configmaps', undefined, { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' });
    assert.equal(groupDenied.status, 200, 'an admin may impersonate system:masters');
    const ssr = await admin('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { 'Impersonate-User': 'bob', 'Impersonate-Group': 'devs' });
    assert.equal(ssr.status, 201, ssr.text);
    assert.deepEqual(ssr.json.status.userInfo, { username: 'bob', groups: ['devs', 'system:authenticated'] });
  });

  it('SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview', async () => {
    const ssar = (spec: object) => asBob('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec });
    const yes = await ssar({ resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'configmaps' } });
    assert.equal(yes.status, 201, yes.text);
    assert.equal(yes.json.status.allowed, true);
    assert.equal(yes.json.status.reason, 'RBAC: allowed by RoleBinding "bob-view/team-a" of ClusterRole "view" to User "bob"');
    const no = await ssar({ resourceAttributes: { namespace: 'team-a', verb: 'delete', resource: 'configmaps' } });
    assert.deepEqual(no.json.status, { allowed: false });
    const url = await ssar({ nonResourceAttributes: { path: '/apis', verb: 'get' } });
    assert.equal(url.json.status.allowed, true);
    const invalid = await ssar({});
    assert.equal(invalid.status, 422);
    assert.match(invalid.json.message, /exactly one of nonResourceAttributes or resourceAttributes must be specified/);

    const sar = await admin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'dave', groups: ['devs', 'system:authenticated'], resourceAttributes: { namespace: 'team-a', verb: 'create', resource: 'configmaps' } },
    });
    assert.equal(sar.json.status.allowed, true, sar.text);
    assert.equal((await asBob('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'pods' } } })).status, 403);

    const lsar = await admin('POST', '/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews', {
      spec: { user: 'bob', groups: ['system:authenticated'], resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'configmaps' } },
    });
    assert.equal(lsar.status, 201, lsar.text);
    assert.equal(lsar.json.status.allowed, true);

    const rules = await asBob('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'team-a' } });
    assert.equal(rules.status, 201, rules.text);
    assert.equal(rules.json.status.incomplete, false);
    assert.ok(rules.json.status.resourceRules.some((r: any) => r.resources?.includes('configmaps') && r.verbs.includes('watch')));
    assert.ok(rules.json.status.nonResourceRules.some((r: any) => r.nonResourceURLs.includes('/apis')));
  });

  it('per workspace: RBAC of root does not apply in a child workspace, which needs `access` first', async () => {
    const ws = await admin('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'tenant' }, spec: {} });
    assert.equal(ws.status, 201, ws.text);
    await waitForWorkspace(ts, 'root', 'tenant', { timeoutMs: 2_000, intervalMs: 10 });
    const base = '/clusters/root:tenant';
    // The child has its own bootstrap policy, without root's everyone-may-enter binding.
    assert.equal((await admin('GET', `${base}${RBAC}/clusterroles/view`)).status, 200);
    assert.equal((await admin('GET', `${base}${RBAC}/clusterrolebindings/system:kcp:workspace:access:authenticated`)).status, 404);
    const denied = await asBob('GET', `${base}/api/v1/namespaces/team-a/configmaps`);
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team-a": workspace access not permitted');

    await admin('POST', `${base}/api/v1/namespaces`, { metadata: { name: 'team-a' } });
    const access = await admin('POST', `${base}${RBAC}/clusterrolebindings`, {
      metadata: { name: 'bob-access' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:workspace:access' },
      subjects: [user('bob')],
    });
    assert.equal(access.status, 201, access.text);
    const noRbac = await asBob('GET', `${base}/api/v1/namespaces/team-a/configmaps`);
    assert.equal(noRbac.status, 403, 'root\'s bob-view binding does not apply here');
    assert.equal(noRbac.json.message, 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team-a"');
    await admin('POST', `${base}${RBAC}/namespaces/team-a/rolebindings`, roleBinding('bob-view', 'team-a', 'ClusterRole', 'view', [user('bob')]));
    assert.equal((await asBob('GET', `${base}/api/v1/namespaces/team-a/configmaps`)).status, 200);
  });
  it('bindings default an empty roleRef.apiGroup and User/Group subject apiGroup (rbac/v1 defaulting)', async () => {
    const rb = await ts.request('POST', `${RBAC}/namespaces/team-a/rolebindings`, {
      metadata: { name: 'defaulted' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'bob' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'robot', namespace: 'team-a' }],
    });
    assert.equal(rb.status, 201, rb.text);
    assert.equal(rb.json.roleRef.apiGroup, 'rbac.authorization.k8s.io');
    assert.deepEqual(rb.json.subjects.map((x: { apiGroup?: string }) => x.apiGroup), ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', undefined]);
    assert.ok(!('apiGroup' in rb.json.subjects[2]), 'a ServiceAccount subject\'s empty apiGroup is left out, as upstream serializes it (omitempty)');
    const crb = await ts.request('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'defaulted' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'bob' }] });
    assert.equal(crb.status, 201, crb.text);
    assert.equal(crb.json.roleRef.apiGroup, 'rbac.authorization.k8s.io');
    // A wrong group stays an error.
    const bad = await ts.request('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'bad' }, roleRef: { apiGroup: 'example.com', kind: 'ClusterRole', name: 'view' } });
    assert.equal(bad.status, 422);
  });
});
