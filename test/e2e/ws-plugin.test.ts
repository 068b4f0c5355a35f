/**
 * End to end with the real kubectl and the `kubectl ws` / `kubectl create workspace` plugins from bin/: a tree three
 * levels deep, every way of moving around, kcp's messages for bad input, isolation between sibling workspaces, and
 * deleting a workspace with its subtree.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { runKubectlWithPlugins, startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';


let ts: TestServer;
let kubeconfig: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl the way a user does: KUBECONFIG in the environment, the plugins on PATH. */
function kubectl(args: string[], config = kubeconfig): Promise<Result> {
  return runKubectlWithPlugins(args, config, join(ts.rootDir, 'home'));
}

async function ok(args: string[], config = kubeconfig): Promise<string> {
  const r = await kubectl(args, config);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

async function fails(args: string[], stderr: string, config = kubeconfig): Promise<void> {
  const r = await kubectl(args, config);
  assert.equal(r.code, 1, `kubectl ${args.join(' ')} should fail\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.equal(r.stderr.trim(), stderr);
}

function currentServer(config = kubeconfig): string {
  const kc = YAML.parse(readFileSync(config, 'utf8'));
  const ctx = kc.contexts.find((c: any) => c.name === kc['current-context']).context;
  return kc.clusters.find((c: any) => c.name === ctx.cluster).cluster.server;
}

describe('kubectl ws plugin', () => {
  before(async () => {
    ts = await startTestServer({ tokens: ['alice-token,alice,uid-alice', 'bob-token,bob,uid-bob', 'carol-token,carol,uid-carol'] });
    kubeconfig = join(ts.rootDir, 'user.kubeconfig');
    copyFileSync(ts.kubeconfig, kubeconfig);
  });
  after(async () => {
    await ts.stop();
  });

  it('creates a tree three levels deep with both create spellings', async () => {
    assert.equal(
      await ok(['create', 'workspace', 'org']),
      'Workspace "org" (type root:organization) created. Waiting for it to be ready...\nWorkspace "org" (type root:organization) is ready to use.\n',
    );
    await fails(
      ['create', 'workspace', 'team', '--type', 'team', '--enter'],
      'Error: workspaces.tenancy.kcp.io "team" is forbidden: workspace type root:team only allows [root:organization root:team] parent workspaces, but parent type root:root only implements [root:root root:universal]',
    );
    const r = await kubectl(['ws', 'create', 'sibling']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Command "create" is deprecated/);
    assert.equal(r.stdout, 'Workspace "sibling" (type root:organization) created. Waiting for it to be ready...\nWorkspace "sibling" (type root:organization) is ready to use.\n');
    assert.equal(await ok(['ws', 'org']), "Current workspace is 'root:org' (type root:organization).\n");
    assert.equal(
      await ok(['create', 'workspace', 'team', '--type=root:team', '--enter']),
      "Workspace \"team\" (type root:team) created. Waiting for it to be ready...\nWorkspace \"team\" (type root:team) is ready to use.\nCurrent workspace is 'root:org:team' (type root:team).\n",
    );
    await ok(['create', 'workspace', 'leaf', '--enter']);
    assert.equal(await ok(['ws', '.']), "Current workspace is 'root:org:team:leaf'.\n");
    assert.ok(currentServer().endsWith('/clusters/root:org:team:leaf'), currentServer());
  });

  it('moves around with every form: .., -, :, :absolute, relative, current, use/cd, --short', async () => {
    assert.equal(await ok(['ws', '..']), "Current workspace is 'root:org:team' (type root:team).\n");
    assert.equal(await ok(['ws', '-']), "Current workspace is 'root:org:team:leaf'.\n");
    assert.equal(await ok(['ws', '-']), "Current workspace is 'root:org:team'.\n");
    assert.equal(await ok(['ws', '..:..']), "Current workspace is 'root' (type root).\n");
    assert.equal(await ok(['ws', 'org:team:leaf']), "Current workspace is 'root:org:team:leaf' (type root:universal).\n");
    assert.equal(await ok(['ws', ':']), "Current workspace is 'root'.\n");
    assert.equal(await ok(['ws', ':root:org']), "Current workspace is 'root:org' (type root:organization).\n");
    assert.equal(await ok(['ws', 'current']), "Current workspace is 'root:org'.\n");
    assert.equal(await ok(['ws', 'current', '--short']), 'root:org\n');
    assert.equal(await ok(['ws', 'use', 'team']), "Current workspace is 'root:org:team' (type root:team).\n");
    assert.equal(await ok(['ws', 'cd', '..']), "Current workspace is 'root:org' (type root:organization).\n");
    const legacy = await kubectl(['ws', 'root:sibling']);
    assert.equal(legacy.stdout, "Current workspace is 'root:sibling' (type root:organization).\n");
    assert.match(legacy.stderr, /Note: Using 'root:' to define an absolute path is no longer supported/);
    assert.ok(currentServer().endsWith('/clusters/root:sibling'));
  });

  it('prints the tree', async () => {
    await ok(['ws', ':root']);
    assert.equal(await ok(['ws', 'tree']), '.\n└── root\n    ├── org\n    │   └── team\n    │       └── leaf\n    └── sibling\n\n');
    await ok(['ws', ':root:org']);
    assert.equal(await ok(['ws', 'tree', '--full']), '.\n└── root:org\n    └── root:org:team\n        └── root:org:team:leaf\n\n');
    // --wide: each node's Workspace and LogicalCluster phases, aligned as kcp's tabwriter aligns them.
    assert.equal(
      await ok(['ws', 'tree', '--wide']),
      '.\n└── org           ws=-      lc=Ready\n    └── team      ws=Ready  lc=Ready\n        └── leaf  ws=Ready  lc=Ready\n',
    );
  });

  it('refuses bad input with kcp messages', async () => {
    await ok(['ws', ':root:org']);
    await fails(['ws', 'nope'], 'Error: workspace "root:org:nope" not found');
    await fails(['ws', ':root:org:team:nope:deeper'], 'Error: workspace "root:org:team:nope:deeper" not found');
    await fails(['ws', '..:..:..'], 'Error: cannot go up from root');
    await fails(['ws', 'Bad_Name'], 'Error: invalid workspace path: Bad_Name');
    await fails(['create', 'workspace', 'team'], 'Error: workspaces.tenancy.kcp.io "team" already exists');
    await fails(
      ['create', 'workspace', 'nested', '--type', 'organization'],
      'Error: workspaces.tenancy.kcp.io "nested" is forbidden: workspace type root:organization only allows [root:root] parent workspaces, but parent type root:organization only implements [root:organization root:universal]',
    );
    await fails(['create', 'workspace', 'x', '--type', 'team', '--ignore-existing'], 'Error: --ignore-existing must not be used with non-absolute type path');
    assert.equal(
      await ok(['create', 'workspace', 'team', '--ignore-existing']),
      'Workspace "team" (type root:team) already exists.\nWorkspace "team" (type root:team) is ready to use.\n',
    );
    // Nothing changed the current workspace.
    assert.equal(await ok(['ws', '.']), "Current workspace is 'root:org'.\n");
  });

  it('creates a workspace on the Shards --location-selector selects, as kcp\'s plugin sends it', async () => {
    await ok(['ws', ':root']);
    assert.equal(
      await ok(['create', 'workspace', 'located', '--location-selector', 'name=root']),
      'Workspace "located" (type root:organization) created. Waiting for it to be ready...\nWorkspace "located" (type root:organization) is ready to use.\n',
    );
    const ws = JSON.parse(await ok(['get', 'workspace', 'located', '-o', 'json']));
    assert.deepEqual(ws.spec.location, { selector: { matchLabels: { name: 'root' } } });
    await fails(['create', 'workspace', 'unlocated', '--location-selector', 'name!=root'], 'Error: invalid location selector: "!=" isn\'t supported in label selectors');
    await fails(
      ['create', 'workspace', 'unlocated', '--location-selector', 'bad==selector=='],
      'Error: invalid location selector: couldn\'t parse the selector string "bad==selector==": found \'==\', expected: \',\' or \'end of string\'',
    );
    await ok(['delete', 'workspace', 'located']);
  });

  it('creates kubeconfig contexts for workspaces: ws create-context and create workspace --create-context, as kcp\'s plugin', async () => {
    await ok(['ws', ':root:sibling']);
    assert.equal(await ok(['ws', 'create-context']), 'Created context "root:sibling" and switched to it.\n');
    assert.equal(currentServer(), `${ts.url}/clusters/root:sibling`);
    await fails(['ws', 'create-context', 'root:sibling'], 'Error: context "root:sibling" already exists in kubeconfig, use --overwrite to update it');
    assert.equal(await ok(['ws', 'create-context', 'root:sibling', '--overwrite']), 'Updated context "root:sibling".\n');
    assert.equal(await ok(['create', 'workspace', 'ctxchild', '--create-context', 'childctx']), 'Workspace "ctxchild" (type root:universal) created. Waiting for it to be ready...\nWorkspace "ctxchild" (type root:universal) is ready to use.\nCreated context "childctx".\n');
    // Not entered: the current context stays; the new one points at the child.
    assert.equal(currentServer(), `${ts.url}/clusters/root:sibling`);
    const kc = YAML.parse(readFileSync(kubeconfig, 'utf8'));
    assert.equal(kc.clusters.find((c: any) => c.name === 'childctx').cluster.server, `${ts.url}/clusters/root:sibling:ctxchild`);
    assert.equal(
      await ok(['create', 'workspace', 'ctxchild', '--ignore-existing', '--create-context', 'childctx', '--enter']),
      'Workspace "ctxchild" (type root:universal) already exists.\nWorkspace "ctxchild" (type root:universal) is ready to use.\nUpdated context "childctx" and switched to it.\n',
    );
    assert.equal(currentServer(), `${ts.url}/clusters/root:sibling:ctxchild`);
    await ok(['ws', ':root:sibling']);
    await ok(['delete', 'workspace', 'ctxchild']);
    await ok(['ws', ':root']);
  });

  it('warns on entering a workspace about the permission claims its APIBindings leave unresolved, as kcp\'s plugin', async () => {
    await ok(['ws', ':root']);
    await ok(['create', 'workspace', 'claimer']);
    await ok(['create', 'workspace', 'claimed']);
    const apis = '/apis/apis.kcp.io';
    let r = await ts.request('POST', `/clusters/root:claimer${apis}/v1alpha1/apiresourceschemas`, {
      apiVersion: 'apis.kcp.io/v1alpha1',
      kind: 'APIResourceSchema',
      metadata: { name: 'v1.gadgets.example.io' },
      spec: { group: 'example.io', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }] },
    });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', `/clusters/root:claimer${apis}/v1alpha2/apiexports`, {
      apiVersion: 'apis.kcp.io/v1alpha2',
      kind: 'APIExport',
      metadata: { name: 'gadgets' },
      spec: { resources: [{ name: 'gadgets', group: 'example.io', schema: 'v1.gadgets.example.io', storage: { crd: {} } }], permissionClaims: [{ group: '', resource: 'configmaps', verbs: ['get', 'list'] }] },
    });
    assert.equal(r.status, 201, r.text);
    r = await ts.request('POST', `/clusters/root:claimed${apis}/v1alpha2/apibindings`, {
      apiVersion: 'apis.kcp.io/v1alpha2',
      kind: 'APIBinding',
      metadata: { name: 'gadgets' },
      spec: { reference: { export: { path: 'root:claimer', name: 'gadgets' } } },
    });
    assert.equal(r.status, 201, r.text);
    await eventually('the binding reports the export\'s claims', async () => {
      const b = await ts.request('GET', `/clusters/root:claimed${apis}/v1alpha2/apibindings/gadgets`);
      return (b.json?.status?.exportPermissionClaims ?? []).length > 0;
    }, 10_000, 50);
    const entered = await kubectl(['ws', 'claimed']);
    assert.equal(entered.code, 0, entered.stderr);
    assert.equal(entered.stdout, "Current workspace is 'root:claimed' (type root:organization).\n");
    assert.equal(
      entered.stderr,
      'Warning: claim for configmaps exported but not specified on APIBinding gadgets\nAdd this claim to the APIBinding\'s Spec.\n' +
        'Warning: claim for configmaps specified on APIBinding gadgets but not accepted or rejected.\n' +
        // kcp's plugin compares verbs only against a claim the binding specifies: none here, so both lists are empty.
        'Warning: allowed verbs () on claim for configmaps on APIBinding gadgets do not match expected verbs ().\n',
    );
    await ok(['ws', ':root']);
    await ok(['delete', 'workspace', 'claimed', 'claimer']);
  });

  it('keeps a CRD-free resource (configmaps) of one workspace out of its sibling, and deletes a subtree', async () => {
    await ok(['ws', ':root:org']);
    await ok(['create', 'configmap', 'in-org', '--from-literal=k=v']);
    await ok(['ws', ':root:sibling']);
    const absent = await kubectl(['get', 'configmap', 'in-org']);
    assert.equal(absent.code, 1);
    assert.match(absent.stderr, /configmaps "in-org" not found/);
    await ok(['ws', ':root']);
    assert.match(await ok(['get', 'workspaces']), /org\s+organization\s+Ready\s+https:\/\/.*\/clusters\/root:org/);
    await ok(['delete', 'workspace', 'org', '--wait=true']);
    await fails(['ws', ':root:org:team'], 'Error: workspace "root:org:team" not found');
    assert.equal(await ok(['ws', 'tree']), '.\n└── root\n    └── sibling\n\n');
  });

  it('goes home with a bare `kubectl ws` and with `~`, for the admin and for a token user', async () => {
    const note = "Note: 'kubectl ws' now matches 'cd' semantics: go to home workspace. 'kubectl ws -' to go back. 'kubectl ws .' to print current workspace.";
    // kcp's HomeClusterName of the user names (printed by a Go program running kcp's algorithm).
    const adminHome = '1cjndwvct4w73';
    const aliceHome = 'v1u4alow0iv9';
    await ok(['ws', ':root:sibling']);
    const bare = await kubectl(['ws']);
    assert.equal(bare.code, 0, bare.stderr);
    // A home has no parent to hold a Workspace for it, so no type is printed (as with kcp's plugin).
    assert.equal(bare.stdout, `Current workspace is '${adminHome}'.\n`);
    assert.equal(bare.stderr.trim(), note);
    assert.equal(currentServer(), `${ts.url}/clusters/${adminHome}`);
    assert.equal(await ok(['ws', '-']), "Current workspace is 'root:sibling'.\n");
    assert.equal(await ok(['ws', '~']), `Current workspace is '${adminHome}'.\n`);
    assert.equal(await ok(['ws', '.']), `Current workspace is '${adminHome}'.\n`);
    assert.equal(await ok(['ws', '--short']), `${adminHome}\n`);
    assert.equal(
      await ok(['create', 'workspace', 'lab', '--enter']),
      `Workspace "lab" (type root:universal) created. Waiting for it to be ready...\nWorkspace "lab" (type root:universal) is ready to use.\nCurrent workspace is '${adminHome}:lab' (type root:universal).\n`,
    );
    assert.equal(await ok(['ws', ':root']), "Current workspace is 'root' (type root).\n");
    assert.equal(await ok(['ws', '~:lab']), `Current workspace is '${adminHome}:lab' (type root:universal).\n`);
    // From root, the tree has no users branch: homes are not below root.
    assert.equal(await ok(['ws', ':root']), "Current workspace is 'root' (type root).\n");
    assert.equal(await ok(['ws', 'tree']), '.\n└── root\n    └── sibling\n\n');
    // The user:<name> alias reaches the same home.
    assert.equal(await ok(['ws', ':user:admin']), "Current workspace is 'user:admin'.\n");
    assert.equal(currentServer(), `${ts.url}/clusters/user:admin`);
    assert.equal(await ok(['get', 'workspaces', '-o', 'jsonpath={.items[*].metadata.name}']), 'lab');
    assert.equal(await ok(['ws', 'lab']), "Current workspace is 'user:admin:lab' (type root:universal).\n");
    // An unquoted `kubectl ws ~` / `kubectl ws ~/lab` arrives as the shell expanded it: $HOME, $HOME/lab.
    const shellHome = join(ts.rootDir, 'home');
    assert.equal(await ok(['ws', ':root']), "Current workspace is 'root' (type root).\n");
    assert.equal(await ok(['ws', shellHome]), `Current workspace is '${adminHome}'.\n`);
    assert.equal(await ok(['ws', `${shellHome}/lab`]), `Current workspace is '${adminHome}:lab' (type root:universal).\n`);
    assert.equal(await ok(['ws', 'use', `${shellHome}/`]), `Current workspace is '${adminHome}'.\n`);

    // A user from --token-auth-file: their own home, created on first use, where they are cluster-admin.
    const aliceConfig = join(ts.rootDir, 'alice.kubeconfig');
    const kc = YAML.parse(readFileSync(ts.kubeconfig, 'utf8'));
    kc.users = [{ name: 'alice', user: { token: 'alice-token' } }];
    kc.contexts = kc.contexts.map((c: any) => ({ ...c, context: { ...c.context, user: 'alice' } }));
    writeFileSync(aliceConfig, YAML.stringify(kc));
    const home = await kubectl(['ws'], aliceConfig);
    assert.equal(home.code, 0, home.stderr);
    assert.equal(home.stdout, `Current workspace is '${aliceHome}'.\n`);
    assert.equal(home.stderr.trim(), note);
    await ok(['create', 'configmap', 'notes', '--from-literal=k=v'], aliceConfig);
    assert.equal((await ok(['get', 'configmap', 'notes', '-o', 'jsonpath={.data.k}'], aliceConfig)), 'v');
    assert.equal(await ok(['ws', '~'], aliceConfig), `Current workspace is '${aliceHome}'.\n`);
    assert.equal(await ok(['ws', ':user:alice'], aliceConfig), "Current workspace is 'user:alice'.\n");
    assert.equal((await ok(['get', 'configmap', 'notes', '-o', 'jsonpath={.data.k}'], aliceConfig)), 'v');
    // Somebody else's home is out of reach, by name or by alias, and the admin's home is not hers.
    await fails(['ws', `:${adminHome}`], `Error: access to workspace "${adminHome}" denied`, aliceConfig);
    await fails(['ws', ':user:admin'], 'Error: access to workspace "user:admin" denied', aliceConfig);
    const bobConfig = join(ts.rootDir, 'bob.kubeconfig');
    kc.users = [{ name: 'alice', user: { token: 'bob-token' } }];
    writeFileSync(bobConfig, YAML.stringify(kc));
    await fails(['ws', `:${aliceHome}`], `Error: access to workspace "${aliceHome}" denied`, bobConfig);
    await fails(['ws', ':user:alice'], 'Error: access to workspace "user:alice" denied', bobConfig);
    assert.equal(await ok(['ws', '~', '--short'], bobConfig), '2okdry95y5lkv\n');
  });

  it('waits, as client-go does, while kcp answers 429 Retry-After for a home still initializing', async () => {
    const lc = '/clusters/user:carol/apis/core.kcp.io/v1alpha1/logicalclusters/cluster';
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const patched = await ts.request('PATCH', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspacetypes/home', { spec: { initializer: true } }, { headers: merge });
    assert.equal(patched.status, 200, patched.text);
    const carolConfig = join(ts.rootDir, 'carol.kubeconfig');
    const kc = YAML.parse(readFileSync(ts.kubeconfig, 'utf8'));
    kc.users = [{ name: 'carol', user: { token: 'carol-token' } }];
    kc.contexts = kc.contexts.map((c: any) => ({ ...c, context: { ...c.context, user: 'carol' } }));
    writeFileSync(carolConfig, YAML.stringify(kc));
    const going = kubectl(['ws', '~'], carolConfig);
    await eventually('carol home initializing', async () => (await ts.request('GET', lc)).json?.status?.phase === 'Initializing', 10_000, 50);
    const done = await ts.request('PATCH', `${lc}/status`, { status: { initializers: [] } }, { headers: merge });
    assert.equal(done.status, 200, done.text);
    const went = await going;
    assert.equal(went.code, 0, went.stderr);
    assert.equal(went.stdout, "Current workspace is 'naqd6lccmc38'.\n");
    const restored = await ts.request('PATCH', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspacetypes/home', { spec: { initializer: null } }, { headers: merge });
    assert.equal(restored.status, 200, restored.text);
  });
});
