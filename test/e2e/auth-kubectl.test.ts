/**
 * The real kubectl against atrium as a non-admin: `kubectl auth can-i` (yes/no, exit codes, --list),
 * `kubectl auth whoami`, `kubectl create token` and the token it prints, and Forbidden errors as kubectl shows them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl, startTestServer, writeTokenKubeconfig, type TestServer } from '../helpers/harness.js';

let ts: TestServer;

/** A kubeconfig for the server that authenticates with a bearer token only (no client certificate). */
function tokenKubeconfig(name: string, token: string): string {
  return writeTokenKubeconfig(ts, ts.rootDir, name, token);
}

describe('kubectl auth and tokens', () => {
  let bob: string;
  before(async () => {
    ts = await startTestServer({ tokens: ['bob-token,bob,uid-bob,"devs"'] });
    bob = tokenKubeconfig('bob', 'bob-token');
    assert.equal((await ts.kubectl(['create', 'namespace', 'team'])).code, 0);
  });
  after(async () => {
    await ts?.stop();
  });

  it('kubectl get as a user without permission shows the upstream Forbidden error', async () => {
    const r = await runKubectl(bob, ['get', 'configmaps', '-n', 'team']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team"');
  });

  it('kubectl auth can-i answers no (exit 1), then yes (exit 0) after a RoleBinding', async () => {
    const no = await runKubectl(bob, ['auth', 'can-i', 'list', 'configmaps', '-n', 'team']);
    assert.equal(no.code, 1);
    assert.equal(no.stdout.trim(), 'no');
    const bind = await ts.kubectl(['create', 'rolebinding', 'bob-edit', '--clusterrole=edit', '--user=bob', '-n', 'team']);
    assert.equal(bind.code, 0, bind.stderr);
    const yes = await runKubectl(bob, ['auth', 'can-i', 'list', 'configmaps', '-n', 'team']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(yes.stdout.trim(), 'yes');
    const otherNs = await runKubectl(bob, ['auth', 'can-i', 'create', 'configmaps', '-n', 'default']);
    assert.equal(otherNs.stdout.trim(), 'no');
    const admin = await ts.kubectl(['auth', 'can-i', '*', '*']);
    assert.equal(admin.stdout.trim(), 'yes');
    const asBob = await ts.kubectl(['auth', 'can-i', 'delete', 'secrets', '-n', 'team', '--as', 'bob']);
    assert.equal(asBob.stdout.trim(), 'yes');
    const url = await runKubectl(bob, ['auth', 'can-i', 'get', '/apis']);
    assert.equal(url.stdout.trim(), 'yes');
  });

  it('kubectl auth can-i --list shows the rules that apply in the namespace', async () => {
    const r = await runKubectl(bob, ['auth', 'can-i', '--list', '-n', 'team']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    const cm = lines.find((l) => l.startsWith('configmaps '));
    assert.ok(cm, r.stdout);
    assert.match(cm!, /\[create delete deletecollection patch update get list watch\]|\[get list watch\]/);
    assert.ok(lines.some((l) => /^\s+\[\/apis\]\s+\[\]\s+\[get\]/.test(l)), r.stdout);
  });

  it('kubectl auth whoami (table and -o json)', async () => {
    const r = await runKubectl(bob, ['auth', 'whoami']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Username\s+bob/);
    assert.match(r.stdout, /UID\s+uid-bob/);
    assert.match(r.stdout, /Groups\s+\[devs system:authenticated\]/);
    const j = JSON.parse((await ts.kubectl(['auth', 'whoami', '-o', 'json'])).stdout);
    assert.equal(j.kind, 'SelfSubjectReview');
    assert.equal(j.status.userInfo.username, 'admin');
  });

  it('kubectl create token prints a ServiceAccount token that kubectl can use', async () => {
    assert.equal((await ts.kubectl(['create', 'serviceaccount', 'robot', '-n', 'team'])).code, 0);
    const t = await ts.kubectl(['create', 'token', 'robot', '-n', 'team', '--duration', '20m']);
    assert.equal(t.code, 0, t.stderr);
    const token = t.stdout.trim();
    assert.equal(token.split('.').length, 3);
    const robot = tokenKubeconfig('robot', token);
    const who = await runKubectl(robot, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(who.stdout, 'system:serviceaccount:team:robot', who.stderr);
    const can = await runKubectl(robot, ['auth', 'can-i', 'get', 'configmaps', '-n', 'team']);
    assert.equal(can.stdout.trim(), 'no');
    const bad = await ts.kubectl(['create', 'token', 'ghost', '-n', 'team']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /serviceaccounts "ghost" not found/);
  });

  it('escalation through kubectl is refused with the upstream text', async () => {
    assert.equal((await ts.kubectl(['create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob', '-n', 'team'])).code, 0);
    const ok = await runKubectl(bob, ['create', 'role', 'reader', '--verb=get', '--resource=configmaps', '-n', 'team']);
    assert.equal(ok.code, 0, ok.stderr);
    const r = await runKubectl(bob, ['create', 'role', 'deleter', '--verb=delete', '--resource=namespaces', '-n', 'team']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /roles\.rbac\.authorization\.k8s\.io "deleter" is forbidden: user "bob" \(groups=\["devs" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["namespaces"\], Verbs:\["delete"\]\}/);
  });
});
