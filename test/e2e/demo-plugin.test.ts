/**
 * The scheduling commands of the real `kubectl-atrium` executable against a server with the multicluster options:
 * `bind compute` (created and waited for until the workspace serves Deployments, then already exists, bad --spread) and `workload cordon|drain|uncordon` (their effect on the
 * SyncTarget spec, and the error for a missing SyncTarget).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { kubectlAtrium } from '../helpers/processes.js';
import type { RestClient } from '../../src/client/rest-client.js';

const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const placementsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };

describe('kubectl atrium bind compute / workload cordon|drain|uncordon', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  const plugin = (args: string[]) => kubectlAtrium(fleet.kubeconfig, args);

  before(async () => {
    // No cluster: the commands only edit objects.
    fleet = await startFleet({ name: 'demo-plugin', clusters: [], register: false });
    up = fleet.up;
    await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'east' }, spec: {} });
  });
  after(async () => {
    await fleet?.stop();
  });

  it('bind compute creates the default Placement, then reports it exists', async () => {
    // It waits until the workspace serves the workload types, so a script may apply a Deployment right after.
    assert.deepEqual(await plugin(['bind', 'compute', 'root']), {
      code: 0,
      stdout: 'placement.scheduling.kcp.io/default created (location workspace root)\n',
      stderr: 'Waiting for the workspace to serve deployments.apps ... done\n',
    });
    assert.equal((await fleet.atrium.request('GET', '/apis/apps/v1/namespaces/default/deployments')).status, 200);
    const p = await up.get(placementsGVR, 'default');
    assert.deepEqual(p.spec, {
      locationWorkspace: 'root',
      locationSelectors: [{}],
      namespaceSelector: {},
      locationResource: { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' },
      clusterSpread: { mode: 'All' },
    });
    assert.equal((await plugin(['bind', 'compute', 'root'])).stdout, 'placement.scheduling.kcp.io/default already exists\n');
  });

  it('rejects a bad --spread', async () => {
    const r = await plugin(['bind', 'compute', 'root', '--spread', 'many']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: --spread must be All, One or a positive number of clusters, got "many"\n');
  });

  it('cordon, drain and uncordon change the SyncTarget spec', async () => {
    const spec = async () => (await up.get(syncTargetsGVR, 'east')).spec as { unschedulable?: boolean; evictAfter?: string };
    assert.equal((await plugin(['workload', 'cordon', 'east'])).stdout, 'synctarget.workload.kcp.io/east cordoned\n');
    assert.deepEqual(await spec(), { unschedulable: true });
    assert.equal((await plugin(['workload', 'drain', 'east'])).stdout, 'synctarget.workload.kcp.io/east drained\n');
    const drained = await spec();
    assert.equal(drained.unschedulable, true);
    assert.ok(Math.abs(Date.parse(drained.evictAfter!) - Date.now()) < 60_000, `evictAfter is now: ${drained.evictAfter}`);
    assert.equal((await plugin(['workload', 'uncordon', 'east'])).stdout, 'synctarget.workload.kcp.io/east uncordoned\n');
    assert.deepEqual(await spec(), {});
  });

  it('fails for a missing SyncTarget', async () => {
    const r = await plugin(['workload', 'cordon', 'west']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: synctargets.workload.kcp.io "west" not found\n');
  });
});
