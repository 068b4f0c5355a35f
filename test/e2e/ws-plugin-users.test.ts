/**
 * End to end with the real kubectl and the `kubectl ws` / `kubectl create workspace` plugins, as a plain signed-in
 * user next to the admin: what root lets every authenticated user read (kcp's system:kcp:tenancy:reader), and that
 * this grants nothing anywhere else.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { runKubectlWithPlugins, startTestServer, type TestServer } from '../helpers/harness.js';


let ts: TestServer;
let adminConfig: string;
let aliceConfig: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl the way a user does: KUBECONFIG in the environment, the plugins on PATH. */
function kubectl(args: string[], config: string): Promise<Result> {
  return runKubectlWithPlugins(args, config, join(ts.rootDir, 'home'));
}

async function ok(args: string[], config: string): Promise<string> {
  const r = await kubectl(args, config);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

async function fails(args: string[], config: string, stderr: string | RegExp): Promise<void> {
  const r = await kubectl(args, config);
  assert.equal(r.code, 1, `kubectl ${args.join(' ')} should fail\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  if (typeof stderr === 'string') assert.equal(r.stderr.trim(), stderr);
  else assert.match(r.stderr, stderr);
}

describe('kubectl ws plugin as a plain user', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['alice-token,alice,uid-alice', 'bob-token,bob,uid-bob'] });
    adminConfig = join(ts.rootDir, 'user.kubeconfig');
    copyFileSync(ts.kubeconfig, adminConfig);
    // alice: the admin's kubeconfig with her token instead of the admin's credentials.
    aliceConfig = join(ts.rootDir, 'alice.kubeconfig');
    const kc = YAML.parse(readFileSync(ts.kubeconfig, 'utf8'));
    kc.users = [{ name: 'alice', user: { token: 'alice-token' } }];
    kc.contexts = kc.contexts.map((c: any) => ({ ...c, context: { ...c.context, user: 'alice' } }));
    writeFileSync(aliceConfig, YAML.stringify(kc));
    // Two workspaces made by the admin; alice is cluster-admin in one of them only.
    await ok(['create', 'workspace', 'team-a'], adminConfig);
    await ok(['create', 'workspace', 'team-b'], adminConfig);
    await ok(['ws', 'team-a'], adminConfig);
    await ok(['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice'], adminConfig);
    await ok(['ws', ':root'], adminConfig);
  });
  after(async () => {
    await ts?.stop();
  });

  it('reads workspaces, workspace types and logical clusters in root (kcp system:kcp:tenancy:reader)', async () => {
    assert.match(await ok(['get', 'workspaces'], aliceConfig), /team-a\s+organization\s+Ready[\s\S]*team-b\s+organization\s+Ready/);
    assert.match(await ok(['get', 'workspacetypes'], aliceConfig), /universal/);
    assert.match(await ok(['get', 'logicalclusters'], aliceConfig), /cluster/);
    const binding = YAML.parse(await ok(['get', 'clusterrolebinding', 'system:kcp:authenticated:tenancy:reader', '-o', 'yaml'], adminConfig));
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kcp:tenancy:reader' });
    assert.deepEqual(binding.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }]);
  });

  it('gives kcp answers in root: not found for a missing child, denied for one she may not enter, the tree below her', async () => {
    await fails(['ws', ':root:nope'], aliceConfig, 'Error: workspace "root:nope" not found');
    await fails(['ws', 'nope'], aliceConfig, 'Error: workspace "root:nope" not found');
    await fails(['ws', ':root:team-b'], aliceConfig, 'Error: access to workspace "root:team-b" denied');
    assert.equal(await ok(['ws', ':root:team-a'], aliceConfig), "Current workspace is 'root:team-a' (type root:organization).\n");
    assert.equal(await ok(['ws', 'tree'], aliceConfig), '.\n└── team-a\n\n');
    assert.equal(await ok(['ws', '..'], aliceConfig), "Current workspace is 'root' (type root).\n");
  });

  it('grants nothing else: not root content, not other workspaces', async () => {
    await fails(['get', 'configmaps', '-n', 'default'], aliceConfig, /forbidden: User "alice" cannot list resource "configmaps"/);
    await fails(['create', 'workspace', 'mine'], aliceConfig, /forbidden: User "alice" cannot create resource "workspaces"/);
    await fails(['delete', 'workspace', 'team-b'], aliceConfig, /forbidden: User "alice" cannot delete resource "workspaces"/);
    await fails(['get', 'clusterroles'], aliceConfig, /forbidden: User "alice" cannot list resource "clusterroles"/);
    // In a workspace she is not a member of, the tenancy objects are as closed as everything else.
    const teamB = YAML.parse(await ok(['get', 'workspace', 'team-b', '-o', 'yaml'], adminConfig)).spec.URL;
    for (const resource of ['workspaces', 'workspacetypes', 'logicalclusters', 'configmaps']) {
      await fails(['--server', teamB, 'get', resource], aliceConfig, /Error from server \(Forbidden\)/);
    }
    for (const path of [
      '/clusters/root:team-b/apis/tenancy.kcp.io/v1alpha1/workspaces',
      '/clusters/root:team-b/apis/tenancy.kcp.io/v1alpha1/workspacetypes',
      '/clusters/root:team-b/apis/core.kcp.io/v1alpha1/logicalclusters/cluster',
    ]) {
      const r = await ts.request('GET', path, undefined, { token: 'alice-token' });
      assert.equal(r.status, 403, `${path}: ${r.text}`);
    }
    // Her own workspace's tenancy objects stay hers to read, as cluster-admin there.
    const own = await ts.request('GET', '/clusters/root:team-a/apis/tenancy.kcp.io/v1alpha1/workspaces', undefined, { token: 'alice-token' });
    assert.equal(own.status, 200, own.text);
  });

  it('draws the tree from root once every child is one she may enter', async () => {
    await ok(['delete', 'workspace', 'team-b', '--wait=true'], adminConfig);
    await ok(['ws', ':root'], aliceConfig);
    assert.equal(await ok(['ws', 'tree'], aliceConfig), '.\n└── root\n    └── team-a\n\n');
  });

  it('takes kubectl connection flags: --context, --user, --token, --server/-s, -w, --insecure-skip-tls-verify', async () => {
    // One kubeconfig with several contexts and users, its current context the admin's at root.
    const multi = join(ts.rootDir, 'multi.kubeconfig');
    const kc = YAML.parse(readFileSync(ts.kubeconfig, 'utf8'));
    const cluster = kc.clusters[0];
    const admin = kc.users[0];
    // admin.kubeconfig points at /clusters/root; the server itself is its origin.
    const rootServer = new URL(cluster.cluster.server).origin;
    writeFileSync(
      multi,
      YAML.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [cluster],
        users: [admin, { name: 'alice', user: { token: 'alice-token' } }, { name: 'nobody', user: {} }],
        contexts: [
          { name: 'admin', context: { cluster: cluster.name, user: admin.name } },
          { name: 'alice', context: { cluster: cluster.name, user: 'alice' } },
        ],
        'current-context': 'admin',
      }),
    );
    const owner = async (parent: string, name: string) =>
      JSON.parse((await ts.request('GET', `/clusters/${parent}/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`)).json.metadata.annotations['experimental.tenancy.kcp.io/owner']).username;

    // --context and -w on create and tree: alice creates below her own workspace without entering it.
    assert.equal(
      await ok(['create', 'workspace', 'by-context', '--context', 'alice', '-w', ':root:team-a'], multi),
      'Workspace "by-context" (type root:universal) created. Waiting for it to be ready...\nWorkspace "by-context" (type root:universal) is ready to use.\n',
    );
    assert.equal(await owner('root:team-a', 'by-context'), 'alice');
    assert.equal(await ok(['ws', 'tree', '--context=alice', '--workspace', 'team-a', '--full'], multi), '.\n└── root:team-a\n    └── root:team-a:by-context\n\n');
    assert.equal(await ok(['ws', 'tree', '-w', ':root:team-a:by-context:..'], multi), '.\n└── team-a\n    └── by-context\n\n');
    await fails(['ws', 'tree', '-w', '..'], multi, 'Error: invalid workspace path: ..');
    await fails(['ws', 'tree', '-w', '..:..'], multi, 'Error: cannot go above the root workspace');
    await fails(['ws', 'tree', '-w', 'Bad_Name'], multi, 'Error: invalid workspace path: Bad_Name');
    // --user picks another user entry, --token replaces the token: the server sees alice, then bob.
    await fails(['create', 'workspace', 'nope', '--user', 'alice'], multi, /forbidden: User "alice" cannot create resource "workspaces"/);
    await fails(['create', 'workspace', 'nope', '--user', 'nobody', '--token', 'bob-token'], multi, /forbidden: User "bob" cannot create resource "workspaces"/);
    // --server/-s points at another workspace (and --insecure-skip-tls-verify[=true] drops the CA check).
    assert.match(await ok(['create', 'workspace', 'by-server', '--server', `${rootServer}/clusters/root:team-a`], multi), /Workspace "by-server" \(type root:universal\) is ready to use/);
    assert.equal((await ts.request('GET', '/clusters/root:team-a/apis/tenancy.kcp.io/v1alpha1/workspaces/by-server')).status, 200);
    assert.equal(
      await ok(['ws', 'tree', '-s', `${rootServer}/clusters/root:team-a`, '--insecure-skip-tls-verify=true'], multi),
      '.\n└── team-a\n    ├── by-context\n    └── by-server\n\n',
    );
    // Unknown names fail as clientcmd's do.
    await fails(['ws', 'tree', '--context', 'nope'], multi, 'Error: context "nope" does not exist');
    await fails(['ws', '.', '--user', 'nope'], multi, 'Error: auth info "nope" does not exist');
    // -w is for tree and create only, as in kcp.
    const w = await kubectl(['ws', '-w', ':root'], multi);
    assert.notEqual(w.code, 0);
    assert.match(w.stderr, /unknown option '-w'/);

    // `kubectl ws <path> --context alice` moves from alice's context: the new current context is hers.
    assert.equal(await ok(['ws', ':root:team-a:by-context', '--context', 'alice'], multi), "Current workspace is 'root:team-a:by-context' (type root:universal).\n");
    const after = YAML.parse(readFileSync(multi, 'utf8'));
    assert.equal(after['current-context'], 'workspace.kcp.io/current');
    const current = after.contexts.find((c: any) => c.name === 'workspace.kcp.io/current').context;
    assert.equal(current.user, 'alice');
    assert.equal(after.clusters.find((c: any) => c.name === current.cluster).cluster.server, `${rootServer}/clusters/root:team-a:by-context`);
    assert.equal(await ok(['ws', 'current', '--short', '-n', 'default'], multi), 'root:team-a:by-context\n');
    // --context admin starts from the admin context (at root), whatever the current one is.
    assert.equal(await ok(['ws', 'use', 'team-a', '--short', '--context', 'admin'], multi), 'root:team-a\n');
    const again = YAML.parse(readFileSync(multi, 'utf8'));
    assert.equal(again.contexts.find((c: any) => c.name === 'workspace.kcp.io/current').context.user, admin.name);
  });
});
