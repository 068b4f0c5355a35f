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
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { startPcluster, type RunningPcluster } from '../../src/pcluster/pcluster.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';
import { RestClient } from '../../src/client/rest-client.js';
import { bindCompute } from '../../src/multicluster/scheduling/bind-compute.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually as eventuallyPoll } from '../helpers/eventually.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const placementsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };
const MARK = 'scheduling.atrium.io/split-children';

const eventually = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> => eventuallyPoll(what, probe, timeoutMs, 100);

const fullOptions = () =>
  multiclusterServerOptions({
    heartbeatThresholdMs: 3000,
    pushSyncer: { heartbeatIntervalMs: 300, importPollIntervalMs: 300 },
    scheduling: { tolerationSeconds: 1, heartbeatThresholdSeconds: 3, resyncMs: 300 },
    splitter: { resyncMs: 300 },
  });

describe('deployment splitter across a restart', () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-splitter-restart-'));
  const dirs: string[] = [rootDir];
  const pclusters: RunningPcluster[] = [];
  const down: RestClient[] = [];
  let atrium: TestServer | undefined;
  let up: RestClient | undefined;

  const start = async (withControllers: boolean) => {
    const options = fullOptions();
    atrium = await startTestServer({ rootDir, server: withControllers ? options : { plugins: options.plugins.map(({ name, resources, install }) => ({ name, resources, install })) } });
    up = new RestClient({ url: atrium.url, ca: atrium.server.caPem, token: atrium.server.adminToken });
    return up;
  };
  const stop = async () => {
    up?.close();
    await atrium?.stop();
    up = atrium = undefined;
  };

  before(async () => {
    const client = await start(true);
    for (const name of ['st-a', 'st-b']) {
      const dir = mkdtempSync(join(tmpdir(), `atrium-splitter-restart-${name}-`));
      dirs.push(dir);
      const pc = await startPcluster({ name, rootDir: dir, bindAddress: '127.0.0.1', securePort: 0, readyDelayMs: 100 });
      pclusters.push(pc);
      down.push(new RestClient({ url: pc.url, ca: pc.caPem, token: pc.adminToken }));
      await client.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name }, spec: { kubeconfig: readFileSync(pc.kubeconfigPath, 'utf8') } });
    }
    await client.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
  });

  after(async () => {
    await stop();
    for (const d of down) d.close();
    for (const pc of pclusters) await pc.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('marks the namespace before it creates children', async () => {
    const client = up!;
    await bindCompute(client, { cluster: 'root', locationWorkspace: 'root' });
    await eventually('apps split', async () => (await client.get(namespacesGVR, 'apps')).metadata?.annotations?.['scheduling.atrium.io/split-workloads'] === 'true');
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
