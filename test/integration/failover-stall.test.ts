/**
 * Failover and a control plane that stalls, in process: atrium and two simulated clusters share one event loop, with
 * the fast failover timings of the scheduling suites (heartbeats every 300 ms, judged over 3 s, 1 s toleration). The
 * loop is blocked for 6 s, longer than threshold and toleration together: every heartbeat looks late once it runs
 * again. A split Deployment must keep both its children (no evacuation: the lateness was observed, not lived, and no
 * target was left healthy to move to), and a cluster that really stops afterwards is still failed over.
 * (Before: every target was evacuated on waking, both children were deleted and the Deployment came back whole on
 * whichever cluster reported first — the `atrium demo` flake under CI load.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const REPLICAS = 10;
const STALL_MS = 6000;

const ready = (d: KubeObject | undefined) => (d?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;

describe('failover: a stalled control plane evacuates nothing; a stopped cluster still moves', { timeout: 240_000 }, () => {
  let fleet: InProcessFleet;

  before(async () => {
    fleet = await startFleet({
      name: 'stall',
      clusters: [
        { name: 'sa', nodes: 2, readyDelayMs: 200 },
        { name: 'sb', nodes: 2, readyDelayMs: 200 },
      ],
      multicluster: fastScheduling(),
      bindCompute: true,
      waitReady: { resources: ['deployments'], timeoutMs: 90_000 },
    });
    await fleet.up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } });
    await eventually('the Deployment API in app', () => fleet.up.list(deploymentsGVR, { namespace: 'app' }));
    const labels = { app: 'web' };
    await fleet.up.create(deploymentsGVR, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels },
      spec: { replicas: REPLICAS, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    }, { namespace: 'app' });
  });

  after(async () => {
    await fleet?.stop();
  });

  /** The Deployments of namespace app by name. */
  const deployments = async () => new Map((await fleet.up.list(deploymentsGVR, { namespace: 'app' })).items.map((d) => [d.metadata!.name!, d]));

  it('keeps both children of a split Deployment through a 6 s stall', async () => {
    const converged = await eventually('web split over sa and sb, all ready', async () => {
      const all = await deployments();
      return ready(all.get('web')) === REPLICAS && ready(all.get('web--sa')) > 0 && ready(all.get('web--sb')) > 0 && all;
    }, 90_000);
    const uids = ['web--sa', 'web--sb'].map((n) => converged.get(n)!.metadata!.uid);
    const shares = ['web--sa', 'web--sb'].map((n) => (converged.get(n)!.spec as { replicas: number }).replicas);

    const start = Date.now();
    while (Date.now() - start < STALL_MS); // every server of this process stands still

    // Long enough for the SyncTarget controller to see the late heartbeats, the toleration to pass, and any evacuation
    // to show; both targets must come back Ready and the children must never change.
    const until = Date.now() + 8000;
    while (Date.now() < until) {
      const all = await deployments();
      for (const [i, name] of ['web--sa', 'web--sb'].entries()) {
        const d = all.get(name);
        assert.equal(d?.metadata?.uid, uids[i], `${name} was replaced or removed after the stall: ${JSON.stringify([...all.keys()])}`);
        assert.equal(d!.metadata!.deletionTimestamp, undefined, `${name} is being deleted after the stall`);
        assert.equal((d!.spec as { replicas: number }).replicas, shares[i], `${name}'s share changed after the stall`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    await fleet.waitReady(['sa', 'sb'], { timeoutMs: 30_000 });
    await eventually('web ready again', async () => ready((await deployments()).get('web')) === REPLICAS, 30_000);
  });

  it('still fails a stopped cluster over: its replicas move to the other', async () => {
    await fleet.cluster('sb').stop();
    await eventually('all of web on sa, sb\'s child gone', async () => {
      const all = await deployments();
      return ready(all.get('web')) === REPLICAS && ready(all.get('web--sa')) === REPLICAS && !all.has('web--sb');
    }, 90_000);
  });
});
