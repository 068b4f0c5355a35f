/**
 * WorkspaceType initializers (kcp's subset): every type in a workspace's type chain with `initializer: true` puts
 * `<logical cluster of the type>:<type name>` on the new LogicalCluster's spec.initializers and status.initializers;
 * the Workspace stays Initializing (status.initializers mirrored, WorkspaceInitialized False) until whoever
 * initializes has removed every entry from the LogicalCluster's status, then turns Ready. Types without the flag,
 * root's built-in ones included, go straight to Ready as before.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runKubectlWithPlugins, startTestServer, type TestServer } from '../helpers/harness.js';
import { sleep } from './support.js';
import { eventually } from '../helpers/eventually.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const WST = '/apis/tenancy.kcp.io/v1alpha1/workspacetypes';
const LC = '/apis/core.kcp.io/v1alpha1/logicalclusters/cluster';

let ts: TestServer;

/** kubectl as a user runs it: KUBECONFIG in the environment and the plugins from bin/ on PATH. */
function runKubectl(args: string[], kubeconfig: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runKubectlWithPlugins(args, kubeconfig, join(ts.rootDir, 'home'));
}
/** The logical cluster name of root:org2, where the initializing types live. */
let org2: string;

async function createWorkspace(parent: string, name: string, type?: { name: string; path: string }): Promise<void> {
  const r = await ts.request('POST', `/clusters/${parent}${WS}`, {
    apiVersion: 'tenancy.kcp.io/v1alpha1',
    kind: 'Workspace',
    metadata: { name },
    spec: type ? { type } : {},
  });
  assert.equal(r.status, 201, r.text);
}

const waitPhase = (parent: string, name: string, phase: string): Promise<any> => waitForWorkspace(ts, parent, name, { phase, timeoutMs: 5_000, intervalMs: 10 });

/** What an initializing controller does when done: drops its entry from the LogicalCluster's status.initializers. */
async function removeInitializer(path: string, initializer: string): Promise<void> {
  const lc = (await ts.request('GET', `/clusters/${path}${LC}`)).json;
  const rest = (lc.status.initializers as string[]).filter((i) => i !== initializer);
  const r = await ts.request('PATCH', `/clusters/${path}${LC}/status`, { status: { initializers: rest } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(r.status, 200, r.text);
}

describe('WorkspaceType initializers', () => {
  before(async () => {
    // The root dir outlives the first server: the last test restarts on it.
    ts = await startTestServer({ keepRootDir: true });
    await createWorkspace('root', 'org2');
    org2 = (await waitPhase('root', 'org2', 'Ready')).spec.cluster;
    for (const [name, extend] of [
      ['slow', { name: 'universal', path: 'root' }],
      ['slower', { name: 'slow', path: 'root:org2' }],
    ] as const) {
      const r = await ts.request('POST', `/clusters/root:org2${WST}`, {
        apiVersion: 'tenancy.kcp.io/v1alpha1',
        kind: 'WorkspaceType',
        metadata: { name },
        spec: { initializer: true, extend: { with: [extend] } },
      });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    await ts?.stop();
    if (ts) rmSync(ts.rootDir, { recursive: true, force: true });
  });

  it('keeps a workspace of an initializing type Initializing until its initializer is removed from the LogicalCluster', async () => {
    await createWorkspace('root:org2', 'a', { name: 'slow', path: 'root:org2' });
    const initializer = `${org2}:slow`;
    let ws = await waitPhase('root:org2', 'a', 'Initializing');
    await ts.server.tenancy.idle();
    await sleep(200);
    ws = (await ts.request('GET', `/clusters/root:org2${WS}/a`)).json;
    assert.equal(ws.status.phase, 'Initializing');
    assert.deepEqual(ws.status.initializers, [initializer]);
    const initialized = ws.status.conditions.find((c: any) => c.type === 'WorkspaceInitialized');
    assert.equal(initialized.status, 'False');
    assert.equal(initialized.reason, 'InitializerExists');
    assert.equal(initialized.message, `Initializers still exist: [${initializer}]`);
    assert.equal(ws.status.conditions.find((c: any) => c.type === 'WorkspaceScheduled').status, 'True');

    const lc = (await ts.request('GET', `/clusters/root:org2:a${LC}`)).json;
    assert.equal(lc.status.phase, 'Initializing');
    assert.deepEqual(lc.spec.initializers, [initializer]);
    assert.deepEqual(lc.status.initializers, [initializer]);
    // The workspace is there to be initialized (by a privileged controller here).
    assert.equal((await ts.request('GET', '/clusters/root:org2:a/api/v1/namespaces/default')).status, 200);

    await removeInitializer('root:org2:a', initializer);
    ws = await waitPhase('root:org2', 'a', 'Ready');
    assert.equal(ws.status.initializers, undefined);
    assert.deepEqual(ws.status.conditions.map((c: any) => `${c.type}=${c.status}`).sort(), ['WorkspaceInitialized=True', 'WorkspaceScheduled=True']);
    const done = (await ts.request('GET', `/clusters/root:org2:a${LC}`)).json;
    assert.equal(done.status.phase, 'Ready');
    assert.deepEqual(done.status.initializers, []);
    assert.deepEqual(done.spec.initializers, [initializer]);
  });

  it('collects the initializers of the whole type chain, bases first, and waits for all of them', async () => {
    await createWorkspace('root:org2', 'b', { name: 'slower', path: 'root:org2' });
    const initializing = await waitPhase('root:org2', 'b', 'Initializing');
    assert.deepEqual(initializing.status.initializers, [`${org2}:slow`, `${org2}:slower`]);
    await removeInitializer('root:org2:b', `${org2}:slower`);
    const ws = await eventually('root:org2:b down to one initializer', async () => {
      const w = (await ts.request('GET', `/clusters/root:org2${WS}/b`)).json;
      return w.status.initializers.length === 1 && w;
    }, 2_000, 10);
    assert.equal(ws.status.phase, 'Initializing');
    assert.deepEqual(ws.status.initializers, [`${org2}:slow`]);
    assert.equal(ws.status.conditions.find((c: any) => c.type === 'WorkspaceInitialized').message, `Initializers still exist: [${org2}:slow]`);
    await removeInitializer('root:org2:b', `${org2}:slow`);
    await waitPhase('root:org2', 'b', 'Ready');
  });

  it('leaves types without initializer (root:universal, root:organization) as they were: straight to Ready', async () => {
    await createWorkspace('root:org2', 'plain');
    const ws = await waitPhase('root:org2', 'plain', 'Ready');
    assert.deepEqual(ws.spec.type, { name: 'universal', path: 'root' });
    assert.equal(ws.status.initializers, undefined);
    const lc = (await ts.request('GET', `/clusters/root:org2:plain${LC}`)).json;
    assert.equal(lc.spec.initializers, undefined);
    assert.equal(lc.status.initializers, undefined);
  });

  it('`kubectl create workspace` waits through Initializing until the initializer is gone', async () => {
    const kubeconfig = join(ts.rootDir, 'plugin.kubeconfig');
    copyFileSync(ts.kubeconfig, kubeconfig);
    const kubectl = (args: string[]) => runKubectl(args, kubeconfig);
    assert.equal((await kubectl(['ws', ':root:org2'])).code, 0);
    const create = kubectl(['create', 'workspace', 'c', '--type', 'root:org2:slow']);
    await waitPhase('root:org2', 'c', 'Initializing');
    const table = await kubectl(['get', 'workspaces', 'c']);
    assert.match(table.stdout, /c\s+slow\s+Initializing/, table.stderr);
    await sleep(300);
    await removeInitializer('root:org2:c', `${org2}:slow`);
    const r = await create;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Workspace "c" (type root:org2:slow) created. Waiting for it to be ready...\nWorkspace "c" (type root:org2:slow) is ready to use.\n');
  });

  it('still waits after a restart, and finishes once the initializer is removed then', async () => {
    await createWorkspace('root:org2', 'd', { name: 'slow', path: 'root:org2' });
    await waitPhase('root:org2', 'd', 'Initializing');
    await ts.server.tenancy.idle();
    const rootDir = ts.rootDir;
    await ts.stop();
    ts = await startTestServer({ rootDir });
    await ts.server.tenancy.idle();
    await sleep(200);
    const ws = (await ts.request('GET', `/clusters/root:org2${WS}/d`)).json;
    assert.equal(ws.status.phase, 'Initializing');
    assert.deepEqual(ws.status.initializers, [`${org2}:slow`]);
    await removeInitializer('root:org2:d', `${org2}:slow`);
    await waitPhase('root:org2', 'd', 'Ready');
  });
});
