/**
 * TokenRequest's boundObjectRef against a real server (pkg/registry/core/serviceaccount/storage/token.go and the
 * validator in pkg/serviceaccount/claims.go): the bound object must exist (404), be a core Pod, Secret or Node (400),
 * have the UID the reference names (409); the token carries the object's real name and UID and stops authenticating
 * (401) once the object is deleted or replaced. Pods and Nodes exist only where a cluster serves them (`atrium
 * pcluster`'s workload resources); the control plane answers 404 for them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { workloadResources } from '../../src/registry/builtin/workloads/resources.js';

const NS = 'r8';
const TOKEN_PATH = `/api/v1/namespaces/${NS}/serviceaccounts/bot/token`;
const REVIEW = '/apis/authentication.k8s.io/v1/tokenreviews';

function claimsOf(token: string): any {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

function tokenRequest(boundObjectRef: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { boundObjectRef, ...extra } };
}

async function setUp(ts: TestServer): Promise<void> {
  assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  assert.equal((await ts.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { metadata: { name: 'bot' } })).status, 201);
  // The ServiceAccount may list configmaps in r8, so a request with its token answers 200 while the token is valid.
  const rb = await ts.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    metadata: { name: 'bot-view' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: NS }],
  });
  assert.equal(rb.status, 201, rb.text);
}

async function listWith(ts: TestServer, token: string): Promise<number> {
  return (await ts.request('GET', `/api/v1/namespaces/${NS}/configmaps`, undefined, { token })).status;
}

describe('TokenRequest boundObjectRef (control plane)', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
    await setUp(ts);
  });
  after(async () => {
    await ts?.stop();
  });

  it('kubectl create token bound to a missing Secret fails with 404 and issues nothing', async () => {
    const r = await ts.kubectl(['-n', NS, 'create', 'token', 'bot', '--bound-object-kind', 'Secret', '--bound-object-name', 'nosuch']);
    assert.notEqual(r.code, 0, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /secrets "nosuch" not found/);
    const raw = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Secret', apiVersion: 'v1', name: 'nosuch' }));
    assert.equal(raw.status, 404, raw.text);
    assert.equal(raw.json.reason, 'NotFound');
    assert.equal(raw.json.message, 'secrets "nosuch" not found');
    assert.deepEqual(raw.json.details, { name: 'nosuch', kind: 'secrets' });
    assert.equal(raw.json.status?.token, undefined);
  });

  it('an unsupported kind, or a supported kind of another group, is 400', async () => {
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'cm' } })).status, 201);
    const cm = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'ConfigMap', apiVersion: 'v1', name: 'cm' }));
    assert.equal(cm.status, 400, cm.text);
    assert.equal(cm.json.reason, 'BadRequest');
    assert.equal(cm.json.message, 'cannot bind token to object of type /v1, Kind=ConfigMap');
    const apps = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Secret', apiVersion: 'apps/v1', name: 's1' }));
    assert.equal(apps.status, 400, apps.text);
    assert.equal(apps.json.message, 'cannot bind token to object of type apps/v1, Kind=Secret');
    const empty = await ts.request('POST', TOKEN_PATH, tokenRequest({}));
    assert.equal(empty.status, 400, empty.text);
    assert.equal(empty.json.message, 'cannot bind token to object of type /, Kind=');
  });

  it('Pods and Nodes: the control plane serves none, so binding to one is 404', async () => {
    const pod = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Pod', apiVersion: 'v1', name: 'p1' }));
    assert.equal(pod.status, 404, pod.text);
    assert.equal(pod.json.message, 'pods "p1" not found');
    const node = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Node', apiVersion: 'v1', name: 'n1' }));
    assert.equal(node.status, 404, node.text);
    assert.equal(node.json.message, 'nodes "n1" not found');
    const k = await ts.kubectl(['-n', NS, 'create', 'token', 'bot', '--bound-object-kind', 'Pod', '--bound-object-name', 'p1']);
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, /pods "p1" not found/);
  });

  it('a UID that is not the bound object\'s is 409 Conflict', async () => {
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'uidcheck' } })).status, 201);
    const r = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Secret', apiVersion: 'v1', name: 'uidcheck', uid: 'not-the-uid' }));
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.reason, 'Conflict');
    assert.equal(
      r.json.message,
      'Operation cannot be fulfilled on Secret "uidcheck": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated',
    );
    assert.deepEqual(r.json.details, { name: 'uidcheck', kind: 'Secret' });
    const k = await ts.kubectl(['-n', NS, 'create', 'token', 'bot', '--bound-object-kind', 'Secret', '--bound-object-name', 'uidcheck', '--bound-object-uid', 'not-the-uid']);
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, /does not match the UID in record/);
  });

  it('a token bound to a Secret carries its real UID, works while it exists and is 401 once it is deleted', async () => {
    const s1 = await ts.request('POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 's1' } });
    assert.equal(s1.status, 201, s1.text);
    const uid = s1.json.metadata.uid as string;

    const k = await ts.kubectl(['-n', NS, 'create', 'token', 'bot', '--bound-object-kind', 'Secret', '--bound-object-name', 's1']);
    assert.equal(k.code, 0, k.stderr);
    const token = k.stdout.trim();
    const claims = claimsOf(token)['kubernetes.io'];
    assert.deepEqual(claims.secret, { name: 's1', uid });
    assert.equal(claims.pod, undefined);

    // The raw answer: the reference comes back as sent (no UID filled in), the claims hold the real one.
    const raw = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Secret', apiVersion: 'v1', name: 's1', uid }, { expirationSeconds: 1200 }));
    assert.equal(raw.status, 201, raw.text);
    assert.deepEqual(raw.json.spec, { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 1200, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's1', uid } });
    assert.deepEqual(raw.json.metadata.name, 'bot');
    assert.deepEqual(raw.json.metadata.namespace, NS);
    assert.deepEqual(claimsOf(raw.json.status.token)['kubernetes.io'].secret, { name: 's1', uid });

    assert.equal(await listWith(ts, token), 200);
    const ok = await ts.request('POST', REVIEW, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    assert.equal(ok.json.status.authenticated, true, ok.text);

    assert.equal((await ts.kubectl(['-n', NS, 'delete', 'secret', 's1'])).code, 0);
    assert.equal(await listWith(ts, token), 401);
    assert.equal(await listWith(ts, raw.json.status.token), 401);
    const gone = await ts.request('POST', REVIEW, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    assert.equal(gone.json.status.authenticated, undefined);
    assert.match(gone.json.status.error, /service account token has been invalidated/);

    // A new Secret of the same name is another object: the old token stays invalid.
    const again = await ts.request('POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 's1' } });
    assert.equal(again.status, 201);
    assert.equal(await listWith(ts, token), 401);
    const replaced = await ts.request('POST', REVIEW, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    assert.match(replaced.json.status.error, new RegExp(`secret UID \\(${again.json.metadata.uid}\\) does not match service account secret ref claim \\(${uid}\\)`));
  });

  it('a TokenRequest that cannot name its ServiceAccount or has a bad lifetime fails before the bound object is looked at', async () => {
    const bad = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Secret', apiVersion: 'v1', name: 'nosuch' }, { expirationSeconds: 10 }));
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.json.message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes');
    const ghost = await ts.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/ghost/token`, tokenRequest({ kind: 'ConfigMap', name: 'x' }, { expirationSeconds: 10 }));
    assert.equal(ghost.status, 404, ghost.text);
    assert.equal(ghost.json.message, 'serviceaccounts "ghost" not found');
    const named = await ts.request('POST', TOKEN_PATH, { ...tokenRequest({ kind: 'Secret', name: 'x' }), metadata: { name: 'other' } });
    assert.equal(named.status, 422, named.text);
    assert.equal(named.json.message, 'TokenRequest.authentication.k8s.io "bot" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified');
  });
});

describe('TokenRequest boundObjectRef (a cluster that serves Pods and Nodes)', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ server: { plugins: [{ name: 'workloads', resources: workloadResources }] } });
    await setUp(ts);
    assert.equal((await ts.request('POST', '/api/v1/nodes', { metadata: { name: 'n1' } })).status, 201);
  });
  after(async () => {
    await ts?.stop();
  });

  const podOf = (name: string, serviceAccountName: string, nodeName: string) => ({
    metadata: { name },
    spec: { serviceAccountName, nodeName, containers: [{ name: 'c', image: 'nginx' }] },
  });

  it('a Pod-bound token names the pod and its node, authenticates with their extras and dies with the pod', async () => {
    const pod = await ts.request('POST', `/api/v1/namespaces/${NS}/pods`, podOf('p1', 'bot', 'n1'));
    assert.equal(pod.status, 201, pod.text);
    const node = await ts.request('GET', '/api/v1/nodes/n1');
    const k = await ts.kubectl(['-n', NS, 'create', 'token', 'bot', '--bound-object-kind', 'Pod', '--bound-object-name', 'p1']);
    assert.equal(k.code, 0, k.stderr);
    const token = k.stdout.trim();
    const claims = claimsOf(token)['kubernetes.io'];
    assert.deepEqual(claims.pod, { name: 'p1', uid: pod.json.metadata.uid });
    assert.deepEqual(claims.node, { name: 'n1', uid: node.json.metadata.uid });
    assert.equal(await listWith(ts, token), 200);
    const who = await ts.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { token });
    assert.equal(who.status, 201, who.text);
    const extra = who.json.status.userInfo.extra;
    assert.deepEqual(extra['authentication.kubernetes.io/pod-name'], ['p1']);
    assert.deepEqual(extra['authentication.kubernetes.io/pod-uid'], [pod.json.metadata.uid]);
    assert.deepEqual(extra['authentication.kubernetes.io/node-name'], ['n1']);
    assert.deepEqual(extra['authentication.kubernetes.io/node-uid'], [node.json.metadata.uid]);

    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${NS}/pods/p1?gracePeriodSeconds=0`)).status, 200);
    assert.equal(await listWith(ts, token), 401);
  });

  it('a pod of another ServiceAccount is 400', async () => {
    assert.equal((await ts.request('POST', `/api/v1/namespaces/${NS}/pods`, podOf('p2', 'other', 'n1'))).status, 201);
    const r = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Pod', apiVersion: 'v1', name: 'p2' }));
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.');
  });

  it('a Node-bound token works while the Node exists and is 401 once it is deleted', async () => {
    assert.equal((await ts.request('POST', '/api/v1/nodes', { metadata: { name: 'n2' } })).status, 201);
    const r = await ts.request('POST', TOKEN_PATH, tokenRequest({ kind: 'Node', apiVersion: 'v1', name: 'n2' }));
    assert.equal(r.status, 201, r.text);
    const token = r.json.status.token as string;
    assert.equal(claimsOf(token)['kubernetes.io'].node.name, 'n2');
    assert.equal(await listWith(ts, token), 200);
    assert.equal((await ts.request('DELETE', '/api/v1/nodes/n2')).status, 200);
    assert.equal(await listWith(ts, token), 401);
  });
});
