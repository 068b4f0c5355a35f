/**
 * The workspace lifecycle's recovery path: a Workspace whose scheduling was interrupted after spec.cluster was
 * written (the LogicalCluster and bootstrap content of the same round lost) is finished on the next reconcile: its
 * LogicalCluster, namespaces, bootstrap RBAC and owner binding are created and it turns Ready, reachable by path.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

const WS = '/apis/tenancy.kcp.io/v1alpha1/workspaces';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

describe('workspace lifecycle recovery', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('finishes a workspace left with spec.cluster but no LogicalCluster, as after a crash mid-schedule', async () => {
    const cluster = 'zrecovered0000001';
    // A privileged client may set spec.cluster itself (kcp allows it for system:masters): the controller then finds
    // exactly the state a crash between the round's writes leaves behind.
    const r = await ts.request('POST', `/clusters/root${WS}`, {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'Workspace',
      metadata: { name: 'resumed', annotations: { 'experimental.tenancy.kcp.io/owner': '{"username":"erin"}' } },
      spec: { cluster },
    });
    assert.equal(r.status, 201, r.text);
    const ws = await waitForWorkspace(ts, 'root', 'resumed', { timeoutMs: 3_000, intervalMs: 10 });
    assert.equal(ws.spec.cluster, cluster);
    assert.deepEqual(ws.status.conditions.map((c: any) => [c.type, c.status]).sort(), [['WorkspaceInitialized', 'True'], ['WorkspaceScheduled', 'True']]);

    const lc = await ts.request('GET', '/clusters/root:resumed/apis/core.kcp.io/v1alpha1/logicalclusters/cluster');
    assert.equal(lc.status, 200, lc.text);
    assert.equal(lc.json.status.phase, 'Ready');
    assert.equal(lc.json.metadata.annotations['kcp.io/path'], 'root:resumed');
    const namespaces = (await ts.request('GET', `/clusters/${cluster}/api/v1/namespaces`)).json.items.map((n: any) => n.metadata.name).sort();
    assert.deepEqual(namespaces, ['default', 'kube-public', 'kube-system']);
    assert.equal((await ts.request('GET', `/clusters/root:resumed${RBAC}/clusterroles/cluster-admin`)).status, 200);
    const binding = await ts.request('GET', `/clusters/root:resumed${RBAC}/clusterrolebindings/workspace-admin`);
    assert.equal(binding.status, 200, binding.text);
    assert.equal(binding.json.subjects[0].name, 'erin');
  });
});
