/**
 * End to end with the real kubectl and the `kubectl ws` / `kubectl create workspace` plugins from bin/: a tree three
 * levels deep, every way of moving around, kcp's messages for bad input, isolation between sibling workspaces, and
 * deleting a workspace with its subtree.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { kubectlPath, startTestServer, type TestServer } from '../helpers/harness.js';

const binDir = resolve(import.meta.dirname, '..', '..', '..', 'bin');

let ts: TestServer;
let kubeconfig: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl the way a user does: KUBECONFIG in the environment, the plugins on PATH. */
function kubectl(args: string[]): Promise<Result> {
  return new Promise((res, rej) => {
    const child = spawn(kubectlPath(), args, {
      env: { ...process.env, KUBECONFIG: kubeconfig, PATH: `${binDir}:${process.env.PATH}`, HOME: join(ts.rootDir, 'home') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}

async function ok(args: string[]): Promise<string> {
  const r = await kubectl(args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

async function fails(args: string[], stderr: string): Promise<void> {
  const r = await kubectl(args);
  assert.equal(r.code, 1, `kubectl ${args.join(' ')} should fail\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.equal(r.stderr.trim(), stderr);
}

function currentServer(): string {
  const kc = YAML.parse(readFileSync(kubeconfig, 'utf8'));
  const ctx = kc.contexts.find((c: any) => c.name === kc['current-context']).context;
  return kc.clusters.find((c: any) => c.name === ctx.cluster).cluster.server;
}

describe('kubectl ws plugin', () => {
  before(async () => {
    ts = await startTestServer();
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
    // A bare `kubectl ws` prints the current workspace (atrium has no home workspaces; kcp would go to `~`).
    assert.equal(await ok(['ws']), "Current workspace is 'root:org'.\n");
    assert.equal(await ok(['ws', '--short']), 'root:org\n');
    await fails(['ws', '~'], 'Error: workspaces.tenancy.kcp.io "~" not found');
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
});
