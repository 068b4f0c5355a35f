/**
 * Authentication and authorization parity with kube-apiserver 1.32, against one real server with static-token users
 * (and the real kubectl where a user would use it): escalation prevention on every kind of update, the escalation
 * rule comparator, impersonation headers, access reviews and their texts.
 *
 * carol holds create/update/get/patch on clusterroles and clusterrolebindings, and admin in namespace x.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKubectl, startTestServer, writeTokenKubeconfig, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { Agent } from 'node:https';
import { services } from '../../src/registry/builtin/workloads/resources.js';
import { createCertificateAuthority, issueClientCertificate } from '../../src/apiserver/certs/certificates.js';
import { doRequest } from '../helpers/harness.js';
import { sleep } from './support.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

let ts: TestServer;
const kubeconfigs: Record<string, string> = {};

const as = (token: string) => (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse> =>
  ts.request(method, path, body, { token, headers });
const asCarol = as('carol-token');
const asBob = as('bob-token');
const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });
const kubectlAs = (who: string, args: string[]) => runKubectl(kubeconfigs[who]!, args);

const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

/** A kubeconfig that authenticates with a bearer token only. */
function tokenKubeconfig(name: string, token: string): string {
  return writeTokenKubeconfig(ts, ts.rootDir, name, token);
}

async function created(r: Promise<HttpResponse>): Promise<HttpResponse> {
  const res = await r;
  assert.ok(res.status === 201 || res.status === 200, `${res.status} ${res.text}`);
  return res;
}

async function ensureNamespace(name: string): Promise<void> {
  const r = await admin('POST', '/api/v1/namespaces', { metadata: { name } });
  assert.ok(r.status === 201 || r.status === 409, r.text);
}

async function clusterRole(name: string, rules: object[], extra: object = {}): Promise<void> {
  await created(admin('POST', `${RBAC}/clusterroles`, { metadata: { name }, rules, ...extra }));
}

async function clusterRoleBinding(name: string, role: string, subjects: object[]): Promise<void> {
  await created(admin('POST', `${RBAC}/clusterrolebindings`, { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects }));
}

async function roleBinding(namespace: string, name: string, kind: 'Role' | 'ClusterRole', role: string, subjects: object[]): Promise<void> {
  await created(admin('POST', `${RBAC}/namespaces/${namespace}/rolebindings`, { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role }, subjects }));
}

const escalationText = (username: string, kindPlural: string, name: string, missing: string[], groups = '["system:authenticated"]') =>
  `${kindPlural}.rbac.authorization.k8s.io "${name}" is forbidden: user "${username}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`;

const CLUSTER_ADMIN_MISSING = ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}', '{NonResourceURLs:["*"], Verbs:["*"]}'];

describe('auth parity with kube-apiserver', () => {
  before(async () => {
    // Core Services as `atrium start` serves them (without the multi-cluster controllers); --anonymous-auth.
    ts = await startTestServer({ tokens: ['carol-token,carol,uid-carol', 'bob-token,bob,uid-bob', 'dave-token,dave,uid-dave', 'erin-token,erin,uid-erin'], server: { plugins: [{ name: 'services', resources: [services] }], anonymous: true } });
    for (const [who, token] of [['carol', 'carol-token'], ['bob', 'bob-token'], ['dave', 'dave-token']] as const) kubeconfigs[who] = tokenKubeconfig(who, token);
    await ensureNamespace('x');
    await clusterRole('rbac-writer', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings'], verbs: ['create', 'update', 'get', 'patch'] }]);
    await clusterRoleBinding('carol-rbac-writer', 'rbac-writer', [user('carol')]);
    await roleBinding('x', 'carol-admin', 'ClusterRole', 'admin', [user('carol')]);
  });
  after(async () => {
    await ts?.stop();
  });

  describe('escalation checks on updates (clusterrole/role policybased storage Update)', () => {
    it('relabelling cluster-admin into an aggregation is refused: kubectl label as carol', async () => {
      const r = await kubectlAs('carol', ['label', 'clusterrole', 'cluster-admin', 'rbac.authorization.k8s.io/aggregate-to-view=true']);
      assert.equal(r.code, 1, r.stdout);
      assert.equal(r.stderr.trim(), `Error from server (Forbidden): ${escalationText('carol', 'clusterroles', 'cluster-admin', CLUSTER_ADMIN_MISSING)}`);
      await sleep(200);
      const cur = (await admin('GET', `${RBAC}/clusterroles/cluster-admin`)).json;
      assert.equal(cur.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-view'], undefined);
      const view = (await admin('GET', `${RBAC}/clusterroles/view`)).json;
      assert.ok(!view.rules.some((r: { resources?: string[] }) => r.resources?.includes('*')), 'view did not aggregate cluster-admin');
    });

    it('annotation-only patches and relabelling PUTs are checked too; a no-op update and a role one holds pass', async () => {
      const patch = await asCarol('PATCH', `${RBAC}/clusterroles/cluster-admin`, { metadata: { annotations: { a: 'b' } } }, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(patch.status, 403, patch.text);
      assert.equal(patch.json.message, escalationText('carol', 'clusterroles', 'cluster-admin', CLUSTER_ADMIN_MISSING));
      assert.deepEqual(patch.json.details, { name: 'cluster-admin', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' });

      const cur = (await asCarol('GET', `${RBAC}/clusterroles/cluster-admin`)).json;
      const put = await asCarol('PUT', `${RBAC}/clusterroles/cluster-admin`, { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } } });
      assert.equal(put.status, 403, put.text);
      assert.equal(put.json.message, escalationText('carol', 'clusterroles', 'cluster-admin', CLUSTER_ADMIN_MISSING));
      // Changing nothing is not an escalation.
      const same = await asCarol('PUT', `${RBAC}/clusterroles/cluster-admin`, cur);
      assert.equal(same.status, 200, same.text);

      // A role whose rules carol holds may be relabelled.
      await clusterRole('rbac-reader', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get'] }]);
      const ok = await kubectlAs('carol', ['label', 'clusterrole', 'rbac-reader', 'team=a']);
      assert.equal(ok.code, 0, ok.stderr);
    });

    it('a namespaced Role beyond the updater is checked on a relabel; bindings are checked on every update', async () => {
      await created(admin('POST', `${RBAC}/namespaces/x/roles`, { metadata: { name: 'everything' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }));
      const r = await kubectlAs('carol', ['label', 'role', 'everything', '-n', 'x', 'team=a']);
      assert.equal(r.code, 1, r.stdout);
      assert.equal(r.stderr.trim(), `Error from server (Forbidden): ${escalationText('carol', 'roles', 'everything', ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}'])}`);

      const b = await kubectlAs('carol', ['label', 'clusterrolebinding', 'cluster-admin', 'team=a']);
      assert.equal(b.code, 1, b.stdout);
      assert.equal(b.stderr.trim(), `Error from server (Forbidden): ${escalationText('carol', 'clusterrolebindings', 'cluster-admin', CLUSTER_ADMIN_MISSING)}`);
    });
  });

  describe('aggregationRule needs full authority (clusterrole/policybased)', () => {
    const aggregation = { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'parity.example.com/agg': 'true' } }] } };
    const mustBeAdmin = (name: string) => `clusterroles.rbac.authorization.k8s.io "${name}" is forbidden: must have cluster-admin privileges to use the aggregationRule`;

    it('creating an aggregating ClusterRole as a non-cluster-admin: upstream text', async () => {
      const r = await asCarol('POST', `${RBAC}/clusterroles`, { metadata: { name: 'agg1' }, ...aggregation });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.message, mustBeAdmin('agg1'));
      assert.deepEqual(r.json.details, { name: 'agg1', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' });
      // The role's own rules are checked first.
      const rules = await asCarol('POST', `${RBAC}/clusterroles`, { metadata: { name: 'agg1' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }], ...aggregation });
      assert.equal(rules.status, 403, rules.text);
      assert.equal(rules.json.message, escalationText('carol', 'clusterroles', 'agg1', ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}']));
    });

    it('removing or keeping an aggregationRule is checked on the old object too', async () => {
      await clusterRole('agg2', [], aggregation);
      const removed = await asCarol('PATCH', `${RBAC}/clusterroles/agg2`, { aggregationRule: null }, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(removed.status, 403, removed.text);
      assert.equal(removed.json.message, mustBeAdmin('agg2'));
      const cur = (await admin('GET', `${RBAC}/clusterroles/agg2`)).json;
      delete cur.aggregationRule;
      const put = await asCarol('PUT', `${RBAC}/clusterroles/agg2`, cur);
      assert.equal(put.status, 403, put.text);
      assert.equal(put.json.message, mustBeAdmin('agg2'));
      const relabel = await kubectlAs('carol', ['label', 'clusterrole', 'agg2', 'team=a']);
      assert.equal(relabel.code, 1, relabel.stdout);
      assert.equal(relabel.stderr.trim(), `Error from server (Forbidden): ${mustBeAdmin('agg2')}`);
      assert.ok((await admin('GET', `${RBAC}/clusterroles/agg2`)).json.aggregationRule, 'the aggregationRule is still there');
    });
  });

  describe('escalation coverage agrees with the authorizer on subresource wildcards (policy_comparator)', () => {
    const ssar = async (resourceAttributes: object): Promise<boolean> => {
      const r = await asBob('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } });
      assert.equal(r.status, 201, r.text);
      return r.json.status.allowed;
    };
    const role = (name: string, rule: object) => asBob('POST', `${RBAC}/namespaces/yy/roles`, { metadata: { name }, rules: [rule] });

    before(async () => {
      await ensureNamespace('yy');
      await created(
        admin('POST', `${RBAC}/namespaces/yy/roles`, {
          metadata: { name: 'sub-wildcards' },
          rules: [
            { apiGroups: ['', 'apps'], resources: ['*/status', 'configmaps/*'], verbs: ['get'] },
            { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create'] },
          ],
        }),
      );
      await roleBinding('yy', 'bob-sub-wildcards', 'Role', 'sub-wildcards', [user('bob')]);
    });

    it('*/status covers deployments/status: a Role granting what an SSAR allows is created', async () => {
      assert.equal(await ssar({ namespace: 'yy', verb: 'get', group: 'apps', resource: 'deployments', subresource: 'status' }), true);
      const r = await role('deploy-status', { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['get'] });
      assert.equal(r.status, 201, r.text);
    });

    it('configmaps/* is no wildcard: a Role granting configmaps/finalize, which an SSAR refuses, is forbidden', async () => {
      assert.equal(await ssar({ namespace: 'yy', verb: 'get', resource: 'configmaps', subresource: 'finalize' }), false);
      const r = await role('cm-finalize', { apiGroups: [''], resources: ['configmaps/finalize'], verbs: ['get'] });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.message, escalationText('bob', 'roles', 'cm-finalize', ['{APIGroups:[""], Resources:["configmaps/finalize"], Verbs:["get"]}']));
      // The literal rules bob holds are his to grant.
      const same = await role('literal', { apiGroups: [''], resources: ['configmaps/*', '*/status'], verbs: ['get'] });
      assert.equal(same.status, 201, same.text);
    });
  });

  describe('escalation errors and the escalate verb (ConfirmNoEscalation, CompactRules, GetRoleReferenceRules)', () => {
    const asDave = as('dave-token');
    const asErin = as('erin-token');

    it('missing rules naming one resource are compacted by verb like any simple rule', async () => {
      const r = await asBob('POST', `${RBAC}/namespaces/yy/roles`, {
        metadata: { name: 'named-secrets' },
        rules: [
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['get', 'update'] },
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'], verbs: ['delete'] },
        ],
      });
      assert.equal(r.status, 403, r.text);
      assert.equal(
        r.json.message,
        escalationText('bob', 'roles', 'named-secrets', [
          '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["delete"]}',
          '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["delete"]}',
          '{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get" "update"]}',
        ]),
      );
    });

    it('binding a missing role: the registry\'s 404 for the role', async () => {
      const crb = await asCarol('POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'to-nope' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nope' }, subjects: [user('carol')] });
      assert.equal(crb.status, 404, crb.text);
      assert.deepEqual(crb.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'clusterroles.rbac.authorization.k8s.io "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
        code: 404,
      });
      const rb = await asCarol('POST', `${RBAC}/namespaces/x/rolebindings`, { metadata: { name: 'to-nope' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nope' }, subjects: [user('carol')] });
      assert.equal(rb.status, 404, rb.text);
      assert.equal(rb.json.message, 'roles.rbac.authorization.k8s.io "nope" not found');
    });

    it('resolution errors in the escalation text name roles as the registry does', async () => {
      await ensureNamespace('dz');
      await roleBinding('dz', 'erin-admin', 'ClusterRole', 'admin', [user('erin')]);
      await roleBinding('dz', 'erin-dangling', 'Role', 'missing-role', [user('erin')]);
      const r = await asErin('POST', `${RBAC}/namespaces/dz/roles`, { metadata: { name: 'nodes' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
      assert.equal(r.status, 403, r.text);
      assert.equal(
        r.json.message,
        escalationText('erin', 'roles', 'nodes', ['{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}']) + '; resolution errors: [roles.rbac.authorization.k8s.io "missing-role" not found]',
      );
    });

    it('escalate restricted by resourceNames allows updating that role, never a create', async () => {
      await created(
        admin('POST', `${RBAC}/namespaces/yy/roles`, {
          metadata: { name: 'escalate-named' },
          rules: [
            { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create', 'update', 'get'] },
            { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], resourceNames: ['named'], verbs: ['escalate'] },
          ],
        }),
      );
      await roleBinding('yy', 'dave-escalate-named', 'Role', 'escalate-named', [user('dave')]);
      const secrets = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];
      const create = await asDave('POST', `${RBAC}/namespaces/yy/roles`, { metadata: { name: 'named' }, rules: secrets });
      assert.equal(create.status, 403, create.text);
      assert.equal(create.json.message, escalationText('dave', 'roles', 'named', ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}']));
      await created(admin('POST', `${RBAC}/namespaces/yy/roles`, { metadata: { name: 'named' }, rules: [] }));
      const cur = (await asDave('GET', `${RBAC}/namespaces/yy/roles/named`)).json;
      const update = await asDave('PUT', `${RBAC}/namespaces/yy/roles/named`, { ...cur, rules: secrets });
      assert.equal(update.status, 200, update.text);
    });
  });

  describe('access reviews (subjectaccessreview, selfsubjectrulesreview, tokenreview REST)', () => {
    const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });

    before(async () => {
      await clusterRoleBinding('ghost-dangling', 'ghost-missing', [user('ghost')]);
      await ensureNamespace('rz');
      await roleBinding('rz', 'erin-gone', 'Role', 'gone', [user('erin')]);
    });

    it('a SAR for a user bound to a missing role: the reason only, no evaluationError', async () => {
      const r = await admin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'ghost', groups: ['system:authenticated'], resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } },
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.status, { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "ghost-missing" not found' });
    });

    it('a SAR allowed by a ServiceAccount subject names it name/namespace', async () => {
      await roleBinding('x', 'robot-view', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'robot', namespace: 'x' }]);
      await roleBinding('x', 'robot2-view', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'robot2' }]);
      const sar = (name: string) =>
        admin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: `system:serviceaccount:x:${name}`,
            groups: ['system:serviceaccounts', 'system:serviceaccounts:x', 'system:authenticated'],
            resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'x' },
          },
        });
      const r = await sar('robot');
      assert.deepEqual(r.json.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "robot-view/x" of ClusterRole "view" to ServiceAccount "robot/x"' });
      const defaulted = await sar('robot2');
      assert.deepEqual(defaulted.json.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "robot2-view/x" of ClusterRole "view" to ServiceAccount "robot2/x"' });
    });

    it('SSRR: a missing role is an evaluationError, not incomplete; the answer carries only the status', async () => {
      const r = await as('erin-token')('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: { name: 'x' }, spec: { namespace: 'rz' } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.status.incomplete, false);
      assert.equal(r.json.status.evaluationError, 'role.rbac.authorization.k8s.io "gone" not found');
      assert.deepEqual(r.json.metadata, { creationTimestamp: null });
      assert.deepEqual(r.json.spec, {});
    });

    it('SSRR without spec.namespace: 400 no namespace on request', async () => {
      const r = await asBob('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} });
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.json, badRequest('no namespace on request'));
    });

    it('TokenReview without a token: 400 token is required', async () => {
      const r = await admin('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} });
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.json, badRequest('token is required for TokenReview in authentication'));
    });
  });

  describe('bootstrap roles cover core Services (bootstrappolicy aggregate-to-view/edit)', () => {
    it('edit writes services and events; view reads services and services/status', async () => {
      const svc = await kubectlAs('carol', ['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', 'x']);
      assert.equal(svc.code, 0, svc.stderr);
      const event = await asCarol('POST', '/api/v1/namespaces/x/events', { metadata: { name: 'e1' }, involvedObject: { kind: 'Service', name: 'web', namespace: 'x' }, reason: 'Test', message: 'm' });
      assert.equal(event.status, 201, event.text);
      await roleBinding('x', 'bob-view', 'ClusterRole', 'view', [user('bob')]);
      const list = await kubectlAs('bob', ['get', 'services', '-n', 'x', '-o', 'name']);
      assert.equal(list.code, 0, list.stderr);
      assert.equal(list.stdout.trim(), 'service/web');
      assert.equal((await asBob('GET', '/api/v1/namespaces/x/services/web/status')).status, 200);
      const del = await asBob('DELETE', '/api/v1/namespaces/x/services/web');
      assert.equal(del.status, 403, del.text);
    });
  });

  describe('impersonation headers (filters/impersonation.go buildImpersonationRequests)', () => {
    const ssr = (headers: Record<string, string | string[]>, token?: string) =>
      ts.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { token, headers: headers as Record<string, string> });

    it('repeated Impersonate-Group lines are separate groups: kubectl auth whoami --as-group twice', async () => {
      const r = await ts.kubectl(['auth', 'whoami', '--as=dave', '--as-group=g1', '--as-group=g2', '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout).status.userInfo, { username: 'dave', groups: ['g1', 'g2', 'system:authenticated'] });
    });

    it('a header line is one value, never split on commas (groups and extras)', async () => {
      const r = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Group': ['a, b', 'c'], 'Impersonate-Extra-Foo': ['a,b', 'c'], 'Impersonate-Extra-Bar': 'x' });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.status.userInfo, { username: 'dave', groups: ['a, b', 'c', 'system:authenticated'], extra: { foo: ['a,b', 'c'], bar: ['x'] } });
    });

    it('a non-master impersonator: each value is checked alone and the identity is scoped to the workspace', async () => {
      await clusterRole('impersonator', [
        { apiGroups: [''], resources: ['users'], resourceNames: ['dave'], verbs: ['impersonate'] },
        { apiGroups: [''], resources: ['groups'], resourceNames: ['g1', 'g2'], verbs: ['impersonate'] },
        { apiGroups: ['authentication.k8s.io'], resources: ['userextras/foo'], resourceNames: ['a,b', 'c'], verbs: ['impersonate'] },
      ]);
      await clusterRoleBinding('erin-impersonator', 'impersonator', [user('erin')]);
      const ok = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Group': ['g1', 'g2'], 'Impersonate-Extra-Foo': ['a,b', 'c'] }, 'erin-token');
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(ok.json.status.userInfo, { username: 'dave', groups: ['g1', 'g2', 'system:authenticated'], extra: { foo: ['a,b', 'c'], 'authentication.kcp.io/scopes': ['cluster:root'] } });
      // "g1,g2" on one line is a group of its own, which erin may not impersonate.
      const joined = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Group': 'g1,g2' }, 'erin-token');
      assert.equal(joined.status, 403, joined.text);
      assert.equal(joined.json.message, 'groups "g1,g2" is forbidden: User "erin" cannot impersonate resource "groups" in API group "" at the cluster scope');
      // The server's scopes stay reserved.
      const scoped = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Extra-Authentication.kcp.io%2fscopes': ['cluster:root', 'cluster:other'] }, 'erin-token');
      assert.equal(scoped.status, 403, scoped.text);
    });

    it('impersonating system:unauthenticated adds no system:authenticated', async () => {
      // Root lets system:authenticated in; dave as system:unauthenticated alone is not let in.
      const denied = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Group': 'system:unauthenticated' });
      assert.equal(denied.status, 403, denied.text);
      assert.match(denied.json.message, /: workspace access not permitted$/);
      await clusterRoleBinding('dave-access', 'system:kcp:workspace:access', [user('dave')]);
      await clusterRoleBinding('dave-basic-user', 'system:basic-user', [user('dave')]);
      const r = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Group': 'system:unauthenticated' });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.status.userInfo, { username: 'dave', groups: ['system:unauthenticated'] });
      const both = await ssr({ 'Impersonate-User': 'dave', 'Impersonate-Group': ['x', 'system:authenticated'] });
      assert.deepEqual(both.json.status.userInfo, { username: 'dave', groups: ['x', 'system:authenticated'] });
    });

    it('groups or extras without a user: upstream 400 naming the requests', async () => {
      const r = await ssr({ 'Impersonate-Group': 'g1' });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.message, 'requested [{Group  g1    }] without impersonating a user');
    });
  });

  describe('authentication with --anonymous-auth (union.NewFailOnError, bearertoken)', () => {
    const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
    const ssrPath = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
    const ssrBody = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    let foreign: Agent;
    let plain: Agent;

    before(async () => {
      const ca = await createCertificateAuthority('someone-else', 1);
      const pair = await issueClientCertificate(ca, { cn: 'mallory', groups: ['system:masters'], days: 1 });
      const serverCa = readFileSync(join(ts.rootDir, 'pki', 'ca.crt'));
      foreign = new Agent({ ca: serverCa, cert: pair.certPem, key: pair.keyPem });
      plain = new Agent({ ca: serverCa });
    });
    after(() => {
      foreign?.destroy();
      plain?.destroy();
    });

    it('a client certificate from an unknown CA is 401, not anonymous', async () => {
      const r = await doRequest(foreign, ts.url, 'POST', ssrPath, ssrBody);
      assert.equal(r.status, 401, r.text);
      assert.deepEqual(r.json, unauthorized);
      assert.equal((await doRequest(foreign, ts.url, 'GET', '/version')).status, 401);
      // Another credential on the same request still authenticates it.
      const withToken = await doRequest(foreign, ts.url, 'POST', ssrPath, ssrBody, { token: 'bob-token' });
      assert.equal(withToken.status, 201, withToken.text);
      assert.equal(withToken.json.status.userInfo.username, 'bob');
    });

    it('an Authorization header that is not Bearer is no credential: anonymous', async () => {
      const r = await doRequest(plain, ts.url, 'POST', ssrPath, ssrBody, { headers: { Authorization: 'Basic Ym9iOnNlY3JldA==' } });
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.message, /^selfsubjectreviews\.authentication\.k8s\.io is forbidden: User "system:anonymous" cannot create resource/);
      assert.equal((await doRequest(plain, ts.url, 'GET', '/version', undefined, { headers: { Authorization: 'Basic Ym9iOnNlY3JldA==' } })).status, 200);
      // An invalid bearer token stays 401; extra parts after the token are ignored as upstream splits them off.
      assert.deepEqual((await doRequest(plain, ts.url, 'GET', '/version', undefined, { headers: { Authorization: 'Bearer nope' } })).json, unauthorized);
      const extra = await doRequest(plain, ts.url, 'POST', ssrPath, ssrBody, { headers: { Authorization: 'bearer bob-token trailing' } });
      assert.equal(extra.status, 201, extra.text);
      assert.equal(extra.json.status.userInfo.username, 'bob');
    });
  });
});
