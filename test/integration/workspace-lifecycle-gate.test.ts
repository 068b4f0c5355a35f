/**
 * The workspace lifecycle under leader election, driven directly on a real server's registry (its own tenancy
 * controller stopped, so only the lifecycles made here act): a closed gate stops reconciles, the retries of a failing
 * one included; and two lifecycles racing on the same new Workspaces (a replica that just lost the lease and the new
 * leader) leave exactly one LogicalCluster per Workspace, the loser removing what it created.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { ControllerGate } from '../../src/controllers/controller-gate.js';
import { WorkspaceIndex } from '../../src/tenancy/workspace-index.js';
import { WorkspaceLifecycle } from '../../src/tenancy/workspace-lifecycle.js';
import { sleep } from './support.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';

describe('workspace lifecycle and the controller gate', () => {
  let ts: TestServer;
  const lifecycles: WorkspaceLifecycle[] = [];
  const lifecycle = (gate: ControllerGate) => {
    const registry = ts.server.registry;
    const l = new WorkspaceLifecycle(
      registry,
      new WorkspaceIndex(),
      registry.lookup('root', 'tenancy.kcp.io', 'v1alpha1', 'workspaces')!,
      registry.lookup('root', 'core.kcp.io', 'v1alpha1', 'logicalclusters')!,
      () => ts.url,
      gate,
    );
    lifecycles.push(l);
    return l;
  };
  const createWorkspace = async (name: string) => {
    const r = await ts.request('POST', `/clusters/root${WS}`, { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} });
    assert.equal(r.status, 201, r.text);
  };

  before(async () => {
    ts = await startTestServer();
    ts.server.tenancy.stop();
  });
  after(async () => {
    for (const l of lifecycles) l.stop();
    await ts?.stop();
  });

  it('a closed gate stops reconciles, retries of a failing one included', async () => {
    const gate = new ControllerGate(true);
    const l = lifecycle(gate);
    let calls = 0;
    l.initializers.push(async () => {
      calls++;
      throw new Error('initializer fails on purpose');
    });
    await createWorkspace('flaky');
    l.enqueue('root', 'flaky');
    await eventually('a retry while the gate was open', () => calls >= 2, 3_000, 10);
    gate.set(false);
    l.clearPending();
    await sleep(100); // a reconcile already running may still finish
    const closedAt = calls;
    await sleep(2500); // over two retry periods
    assert.equal(calls, closedAt, 'no reconcile after the gate closed');
    l.stop();
  });

  it('two lifecycles scheduling the same new Workspaces leave one LogicalCluster each, and every Workspace Ready', async () => {
    const names = ['race-a', 'race-b', 'race-c', 'race-d', 'race-e'];
    for (const n of names) await createWorkspace(n);
    const [one, two] = [lifecycle(new ControllerGate(true)), lifecycle(new ControllerGate(true))];
    for (const n of names) {
      one.enqueue('root', n);
      two.enqueue('root', n);
    }
    await Promise.all([one.idle(), two.idle()]);
    const lcs = (await ts.request('GET', '/clusters/*/apis/core.kcp.io/v1alpha1/logicalclusters')).json.items as any[];
    for (const n of names) {
      const ws = (await ts.request('GET', `/clusters/root${WS}/${n}`)).json;
      assert.equal(ws.status?.phase, 'Ready', `${n}: ${JSON.stringify(ws.status)}`);
      const mine = lcs.filter((lc) => lc.metadata.annotations?.['kcp.io/path'] === `root:${n}`);
      assert.deepEqual(mine.map((lc) => lc.metadata.annotations['kcp.io/cluster']), [ws.spec.cluster], `${n}: one LogicalCluster, the one spec.cluster names`);
      assert.equal((await ts.request('GET', `/clusters/${ws.spec.cluster}/api/v1/namespaces/default`)).status, 200);
    }
  });
});
