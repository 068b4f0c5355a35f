/**
 * Authentication over real HTTPS beyond the admin credentials: the token file, ServiceAccount tokens from
 * TokenRequest (valid only in their own workspace, and only while the ServiceAccount exists), TokenReview,
 * anonymous requests when enabled, and the noisy-tenant limits (object quota 403, per-user rate limit 429).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';
import { eventually } from '../helpers/eventually.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const TOKENS = ['bob-token,bob,uid-bob,"devs,qa"', 'flood-token,flood,uid-flood'];

describe('authentication: tokens, ServiceAccounts, anonymous, object quota', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ tokens: TOKENS, server: { anonymous: true, maxObjectsPerWorkspace: 80 } });
  });
  after(async () => {
    await ts?.stop();
  });

  it('a token-file user is who the file says, plus system:authenticated', async () => {
    const r = await ts.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { token: 'bob-token' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.kind, 'SelfSubjectReview');
    assert.deepEqual(r.json.status.userInfo, { username: 'bob', uid: 'uid-bob', groups: ['devs', 'qa', 'system:authenticated'] });
  });

  it('anonymous requests (when enabled) reach health checks but nothing else; a bad token is still 401', async () => {
    assert.equal((await ts.request('GET', '/healthz', undefined, { anonymous: true })).status, 200);
    const r = await ts.request('GET', '/api/v1/namespaces', undefined, { anonymous: true });
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope: workspace access not permitted');
    assert.equal((await ts.request('GET', '/healthz', undefined, { token: 'wrong' })).status, 401);
  });

  it('TokenRequest issues a ServiceAccount token that authenticates as the ServiceAccount', async () => {
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } })).status, 201);
    const tr = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    assert.equal(tr.status, 201, tr.text);
    assert.equal(tr.json.kind, 'TokenRequest');
    assert.equal(tr.json.spec.expirationSeconds, 3600);
    const token = tr.json.status.token as string;
    assert.equal(token.split('.').length, 3);

    const who = await ts.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' }, { token });
    assert.equal(who.status, 201, who.text);
    assert.equal(who.json.status.userInfo.username, 'system:serviceaccount:default:robot');
    assert.deepEqual(who.json.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.deepEqual(who.json.status.userInfo.extra['authentication.kubernetes.io/cluster-name'], ['root']);

    const cm = await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { token });
    assert.equal(cm.status, 403);
    assert.equal(cm.json.message, 'configmaps is forbidden: User "system:serviceaccount:default:robot" cannot list resource "configmaps" in API group "" in the namespace "default"');
    const bind = await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'robot-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
    });
    assert.equal(bind.status, 201, bind.text);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { token })).status, 200);

    const review = await ts.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    assert.equal(review.status, 201, review.text);
    assert.equal(review.json.status.authenticated, true);
    assert.equal(review.json.status.user.username, 'system:serviceaccount:default:robot');
    const bogus = await ts.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: `${token.slice(0, -4)}AAAA` } });
    assert.equal(bogus.json.status.authenticated, undefined);
    assert.ok(bogus.json.status.error);

    // In another workspace the token still authenticates (kcp), but its ServiceAccount is a stranger there: RBAC
    // matches it as system:anonymous in system:authenticated, never as itself, and it has no access until the
    // workspace grants that to every authenticated user.
    const ws = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'elsewhere' }, spec: {} });
    assert.equal(ws.status, 201, ws.text);
    await waitForWorkspace(ts, 'root', 'elsewhere', { timeoutMs: 2_000, intervalMs: 10 });
    const elsewhere = '/clusters/root:elsewhere';
    const foreign = await ts.request('GET', `${elsewhere}/api/v1/namespaces/default/configmaps`, undefined, { token });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.json.message, 'configmaps is forbidden: User "system:serviceaccount:default:robot" cannot list resource "configmaps" in API group "" in the namespace "default": workspace access not permitted');
    // A binding naming the ServiceAccount itself in the other workspace grants it nothing there.
    const sameName = await ts.request('POST', `${elsewhere}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
      metadata: { name: 'robot-by-name' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }],
    });
    assert.equal(sameName.status, 201, sameName.text);
    assert.equal((await ts.request('GET', `${elsewhere}/api/v1/namespaces/default/configmaps`, undefined, { token })).status, 403);
    const role = await ts.request('POST', `${elsewhere}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
      metadata: { name: 'authenticated-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }, { nonResourceURLs: ['/'], verbs: ['access'] }],
    });
    assert.equal(role.status, 201, role.text);
    const toAll = await ts.request('POST', `${elsewhere}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
      metadata: { name: 'authenticated-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'authenticated-reader' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }],
    });
    assert.equal(toAll.status, 201, toAll.text);
    await eventually('the stranger reads configmaps as an authenticated user', async () => (await ts.request('GET', `${elsewhere}/api/v1/namespaces/default/configmaps`, undefined, { token })).status === 200, 5_000, 20);
    // Only what every authenticated user has: not the cluster-admin bound to its name.
    const write = await ts.request('POST', `${elsewhere}/api/v1/namespaces/default/configmaps`, { metadata: { name: 'nope' } }, { token });
    assert.equal(write.status, 403, write.text);
    // kcp's global ServiceAccount name grants this one account of root, wherever it is.
    const byGlobalName = await ts.request('POST', `${elsewhere}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
      metadata: { name: 'robot-by-global-name' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'system:kcp:serviceaccount:root:default:robot' }],
    });
    assert.equal(byGlobalName.status, 201, byGlobalName.text);
    await eventually('the global name grants the write', async () => (await ts.request('POST', `${elsewhere}/api/v1/namespaces/default/configmaps`, { metadata: { name: 'by-robot' } }, { token })).status === 201, 5_000, 20);
    // Who it is stays itself, its own workspace named.
    const whoThere = await ts.request('POST', `${elsewhere}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' }, { token });
    assert.equal(whoThere.json.status.userInfo.username, 'system:serviceaccount:default:robot');
    assert.deepEqual(whoThere.json.status.userInfo.extra['authentication.kubernetes.io/cluster-name'], ['root']);
    // A TokenReview asked in the other workspace authenticates it too (the server's authenticator, as kcp's).
    const reviewThere = await ts.request('POST', `${elsewhere}/apis/authentication.k8s.io/v1/tokenreviews`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    assert.equal(reviewThere.json.status.authenticated, true, reviewThere.text);
    assert.equal(reviewThere.json.status.user.username, 'system:serviceaccount:default:robot');

    // Deleting the ServiceAccount revokes its tokens.
    assert.equal((await ts.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot')).status, 200);
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { token })).status, 401);
  });

  it('TokenRequest validation and a missing ServiceAccount', async () => {
    // As upstream, the ServiceAccount is looked up before the request is validated (a missing one is 404 first).
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'default' } })).status, 201);
    const short = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { expirationSeconds: 10 } });
    assert.equal(short.status, 422, short.text);
    assert.equal(short.json.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes');
    const missing = await ts.request('POST', '/api/v1/namespaces/default/serviceaccounts/ghost/token', { spec: {} });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'serviceaccounts "ghost" not found');
  });

  it('the object quota refuses creates beyond --max-objects-per-workspace with 403 (admins are exempt)', async () => {
    const b = await ts.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'bob-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }],
    });
    assert.equal(b.status, 201, b.text);
    let refused;
    for (let i = 0; i < 81 && !refused; i++) {
      const r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `fill-${i}` } }, { token: 'bob-token' });
      if (r.status === 403) refused = r;
      else assert.equal(r.status, 201, r.text);
    }
    assert.ok(refused, 'the quota was never reached');
    assert.equal(refused.json.reason, 'Forbidden');
    assert.equal(refused.json.message, 'configmaps is forbidden: exceeded quota: max-objects-per-workspace, requested: objects=1, used: objects=80, limited: objects=80 (workspace "root")');
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'by-admin' } })).status, 201);
  });
});

describe('per-user rate limit', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ tokens: TOKENS, server: { maxRequestsPerSecondPerUser: 3 } });
  });
  after(async () => {
    await ts?.stop();
  });

  it('a flood from one user gets 429 with Retry-After; other users and admins are unaffected', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => ts.request('GET', '/version', undefined, { token: 'flood-token' })));
    const limited = results.filter((r) => r.status === 429);
    assert.ok(limited.length >= 5, `expected most of 10 requests to be limited, got ${limited.length}`);
    assert.ok(results.some((r) => r.status === 200));
    const r = limited[0]!;
    assert.equal(r.headers['retry-after'], '1');
    // APF's reject path: plain text, not a Status.
    assert.equal(r.text, 'Too many requests, please try again later.\n');
    assert.equal((await ts.request('GET', '/version', undefined, { token: 'bob-token' })).status, 200);
    for (let i = 0; i < 10; i++) assert.equal((await ts.request('GET', '/version')).status, 200);
  });
});
