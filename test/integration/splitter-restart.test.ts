/**
 * The deployment splitter after a restart: a namespace released while the splitter was not running (here: edited
 * through an atrium started without controllers, as happens during a controller failover between replicas) still
 * has its split children cleaned up once the splitter runs again. The splitter finds that workspace through the
 * namespace it marked before creating children (scheduling.atrium.io/split-children), since Deployments cannot be
 * listed across workspaces; it unmarks the namespace when no child is left, and marks again one holding children
 * without the mark.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';
import { syncTargetKey } from '../../src/multicluster/api/keys.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const placementsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };
const MARK = 'scheduling.atrium.io/split-children';

describe('deployment splitter across a restart', () => {
  let fleet: InProcessFleet;
  let up: RestClient | undefined;
  let down: RestClient[] = [];

  const start = async (withControllers: boolean) => {
    await fleet.startAtrium({ controllers: withControllers });
    return (up = fleet.up);
  };
  const stop = async () => {
    await fleet.stopAtrium();
    up = undefined;
  };

  before(async () => {
    fleet = await startFleet({ name: 'splitter-restart', clusters: ['st-a', 'st-b'], multicluster: fastScheduling() });
    up = fleet.up;
    down = fleet.clusters.map((c) => c.client);
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  });

  after(async () => {
    await fleet?.stop();
  });

  it('marks the namespace before it creates children', async () => {
    const client = up!;
    await fleet.bindCompute();
    await eventually('apps split', async () => (await client.get(namespacesGVR, 'apps')).metadata?.annotations?.['scheduling.atrium.io/split-workloads'] === 'true');
    // Both clusters on the namespace before the Deployment: split over one, it would stay there (a cluster joining
    // later takes no replicas that need not move), and a cluster with no share gets no child.
    await eventually('apps placed on both clusters', async () => {
      const labels = (await client.get(namespacesGVR, 'apps')).metadata?.labels ?? {};
      return ['st-a', 'st-b'].every((t) => labels[`state.workload.kcp.io/${syncTargetKey('root', t)}`] === 'Sync');
    });
    await eventually('deployments served', async () => (await client.list(deploymentsGVR, { namespace: 'apps' })) && true);
    const app = { app: 'web' };
    await client.create(deploymentsGVR, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: app }, spec: { replicas: 4, selector: { matchLabels: app }, template: { metadata: { labels: app }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, { namespace: 'apps' });
    await eventually('children running on both clusters', async () => {
      for (const [i, c] of down.entries()) {
        if (!(await c.list(deploymentsGVR)).items.some((d) => d.metadata?.name === `web--${['st-a', 'st-b'][i]}`)) return false;
      }
      return true;
    });
    assert.equal((await client.get(namespacesGVR, 'apps')).metadata?.annotations?.[MARK], 'true');
    // A namespace holding children without the mark (children from before it existed, a mark lost to a stale view)
    // is marked again by the next pass.
    await client.patch(namespacesGVR, 'apps', 'merge', { metadata: { annotations: { [MARK]: null } } });
    await eventually('apps marked again', async () => (await client.get(namespacesGVR, 'apps')).metadata?.annotations?.[MARK] === 'true', 10_000);
  });

  it('cleans up the children of a namespace released while it was not running, then unmarks the namespace', async () => {
    await stop();
    // Released without the controllers: the Placement goes, and the namespace loses what the scheduler had written
    // (state labels, placement and split annotations), as the scheduler does when a Placement goes away.
    const bare = await start(false);
    await bare.delete(placementsGVR, 'default');
    // Every namespace the Placement had selected (default too): a workspace left without any split namespace.
    for (const ns of (await bare.list(namespacesGVR)).items) {
      const labels = Object.fromEntries(Object.entries(ns.metadata?.labels ?? {}).filter(([k]) => !k.startsWith('state.workload.kcp.io/')));
      const annotations = { ...(ns.metadata?.annotations ?? {}) };
      delete annotations['scheduling.kcp.io/placement'];
      delete annotations['scheduling.atrium.io/split-workloads'];
      await bare.update(namespacesGVR, { ...ns, metadata: { ...ns.metadata, labels, annotations } } as KubeObject);
    }
    const kids = (await bare.list(deploymentsGVR, { namespace: 'apps' })).items.filter((d) => d.metadata?.labels?.['scheduling.atrium.io/split-from'] === 'web');
    assert.equal(kids.length, 2, 'the children are still there while nothing runs');
    await stop();

    const client = await start(true);
    await eventually('children gone upstream', async () => !(await client.list(deploymentsGVR, { namespace: 'apps' })).items.some((d) => d.metadata?.labels?.['scheduling.atrium.io/split-from'] !== undefined), 20_000);
    await eventually('children gone from both clusters', async () => {
      for (const c of down) if ((await c.list(deploymentsGVR)).items.some((d) => d.metadata?.name?.startsWith('web--'))) return false;
      return true;
    }, 20_000);
    await eventually('namespace unmarked', async () => (await client.get(namespacesGVR, 'apps')).metadata?.annotations?.[MARK] === undefined);
    assert.ok((await client.get(deploymentsGVR, 'web', { namespace: 'apps' })).metadata?.name, 'the root itself stays');
  });
});
