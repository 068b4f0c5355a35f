/**
 * Placement, scheduling and splitting in process: one atrium with the multicluster options and two simulated
 * physical clusters (st-a, st-b) in push mode. Covers the default Location and its status, the default Placement
 * (`bind compute`) and its status, state labels on placed namespaces and the opt-out annotation, splitting a
 * Deployment into per-cluster children (and never syncing the root), status aggregation onto the root, scaling,
 * the per-object cluster label override, and cordon / drain / uncordon.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { syncTargetKey } from '../../src/multicluster/api/keys.js';
import { cordonSyncTarget } from '../../src/multicluster/scheduling/cordon.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const locationsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'locations' };
const placementsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };

function deployment(name: string, replicas: number, labels: Record<string, string> = {}): KubeObject {
  const app = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { ...app, ...labels } },
    spec: { replicas, selector: { matchLabels: app }, template: { metadata: { labels: app }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

const stateLabel = (target: string) => `state.workload.kcp.io/${syncTargetKey('root', target)}`;
const ready = (d: KubeObject | undefined) => (d?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
const replicas = (d: KubeObject | undefined) => (d?.spec as { replicas?: number } | undefined)?.replicas;

describe('scheduling: Locations, Placements, namespace assignment and the deployment splitter', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  let down: RestClient[] = [];

  before(async () => {
    fleet = await startFleet({ name: 'sched', clusters: ['st-a', 'st-b'], multicluster: fastScheduling() });
    up = fleet.up;
    down = fleet.clusters.map((c) => c.client);
    for (const ns of ['apps', 'optout']) {
      await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, annotations: ns === 'optout' ? { 'scheduling.atrium.io/placement': 'none' } : {} } });
    }
  });

  after(async () => {
    await fleet?.stop();
  });

  it('creates the default Location and counts its instances', async () => {
    const loc = await eventually('default Location with 2 available instances', async () => {
      const l = await up.get(locationsGVR, 'default');
      const s = l.status as { instances?: number; availableInstances?: number };
      return s.instances === 2 && s.availableInstances === 2 && l;
    });
    assert.deepEqual((loc.spec as { resource: unknown }).resource, { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' });
  });

  it('bind compute creates the default Placement once; it binds and reports its targets', async () => {
    assert.equal(await fleet.bindCompute(), 'placement.scheduling.kcp.io/default created (location workspace root)');
    assert.equal(await fleet.bindCompute(), 'placement.scheduling.kcp.io/default already exists');
    const p = await eventually('Placement Bound and Scheduled', async () => {
      const p = await up.get(placementsGVR, 'default');
      const s = p.status as { phase?: string; conditions?: { type: string; status: string; message?: string }[] };
      return s.phase === 'Bound' && s.conditions?.find((c) => c.type === 'Scheduled')?.status === 'True' && p;
    });
    const status = p.status as { selectedLocation: unknown; conditions: { type: string; status: string; reason?: string; message?: string }[] };
    assert.deepEqual(status.selectedLocation, { path: 'root', locationName: 'default' });
    assert.deepEqual(status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(status.conditions.find((c) => c.type === 'Scheduled')?.message, 'Scheduled to SyncTargets "st-a", "st-b"');
  });

  it('writes state labels on placed namespaces and leaves opted-out ones alone', async () => {
    const ns = await eventually('apps scheduled to both targets', async () => {
      const ns = await up.get(namespacesGVR, 'apps');
      const l = ns.metadata?.labels ?? {};
      return l[stateLabel('st-a')] === 'Sync' && l[stateLabel('st-b')] === 'Sync' && ns;
    });
    assert.equal(ns.metadata?.annotations?.['scheduling.kcp.io/placement'], 'default');
    assert.equal(ns.metadata?.annotations?.['scheduling.atrium.io/split-workloads'], 'true');
    const optout = await up.get(namespacesGVR, 'optout');
    assert.deepEqual(Object.keys(optout.metadata?.labels ?? {}).filter((k) => k.startsWith('state.workload.kcp.io/')), []);
    assert.equal(optout.metadata?.annotations?.['scheduling.kcp.io/placement'], undefined);
  });

  it('splits a Deployment into per-cluster children, syncs only them, and aggregates their status onto the root', async () => {
    await eventually('deployments served', async () => (await up.list(deploymentsGVR, { namespace: 'apps' })) && true);
    await up.create(deploymentsGVR, deployment('web', 10), { namespace: 'apps' });
    const kids = await eventually('children 5/5', async () => {
      const a = await up.get(deploymentsGVR, 'web--st-a', { namespace: 'apps' });
      const b = await up.get(deploymentsGVR, 'web--st-b', { namespace: 'apps' });
      return replicas(a) === 5 && replicas(b) === 5 && [a, b];
    });
    for (const [i, kid] of kids.entries()) {
      const target = ['st-a', 'st-b'][i]!;
      assert.equal(kid.metadata?.labels?.['workload.kcp.io/cluster'], target);
      assert.equal(kid.metadata?.labels?.['scheduling.atrium.io/split-from'], 'web');
      assert.equal(kid.metadata?.ownerReferences?.[0]?.name, 'web');
      assert.equal(kid.metadata?.ownerReferences?.[0]?.controller, true);
    }
    const root = await eventually('root 10 ready and Available', async () => {
      const r = await up.get(deploymentsGVR, 'web', { namespace: 'apps' });
      const available = (r.status as { conditions?: { type: string; status: string }[] })?.conditions?.find((c) => c.type === 'Available');
      return ready(r) === 10 && available?.status === 'True' && r;
    });
    assert.equal((root.status as { observedGeneration?: number }).observedGeneration, root.metadata?.generation);
    // Each cluster runs its own child only, never the root. (A target whose heartbeat lapsed on a loaded machine is
    // evacuated and its replicas moved; back on the namespace it gets no share until a scale, so no child.)
    let children = 0;
    for (const [i, client] of down.entries()) {
      const names = (await client.list(deploymentsGVR)).items.map((d) => d.metadata?.name);
      assert.ok(names.every((n) => n === `web--${['st-a', 'st-b'][i]}`), `only the child runs on each cluster, never the root: ${names.join(', ')}`);
      children += names.length;
    }
    assert.ok(children > 0, 'the children run on the clusters');
  });

  it('re-divides on scale', async () => {
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 3 } }, { namespace: 'apps' });
    await eventually('children 2 + 1 and root 3 ready', async () => {
      const list = (await up.list(deploymentsGVR, { namespace: 'apps' })).items;
      const by = new Map(list.map((d) => [d.metadata!.name!, d]));
      const split = [replicas(by.get('web--st-a')), replicas(by.get('web--st-b'))];
      return split.sort().join(',') === '1,2' && ready(by.get('web')) === 3;
    });
  });

  it('scaled to 0, a Deployment keeps a child at 0 on every cluster; scaled up again, clusters without a share lose theirs', async () => {
    const children = async () => (await up.list(deploymentsGVR, { namespace: 'apps' })).items.filter((d) => d.metadata?.labels?.['scheduling.atrium.io/split-from'] === 'web' && !d.metadata?.deletionTimestamp);
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 0 } }, { namespace: 'apps' });
    await eventually('both children at 0', async () => {
      const kids = await children();
      return kids.length === 2 && kids.every((k) => replicas(k) === 0);
    });
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 1 } }, { namespace: 'apps' });
    await eventually('one child holding the replica, root 1 ready', async () => {
      const kids = await children();
      return kids.length === 1 && replicas(kids[0]) === 1 && ready(await up.get(deploymentsGVR, 'web', { namespace: 'apps' })) === 1;
    });
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 3 } }, { namespace: 'apps' });
    await eventually('children 2 + 1 and root 3 ready again', async () => {
      const kids = await children();
      return kids.length === 2 && kids.map((k) => replicas(k)).sort().join(',') === '1,2' && ready(await up.get(deploymentsGVR, 'web', { namespace: 'apps' })) === 3;
    });
  });

  it('treats a root created without spec.replicas as replicas: 1 and never syncs the root itself', async () => {
    const solo = deployment('solo', 1);
    delete (solo.spec as { replicas?: number }).replicas;
    await up.create(deploymentsGVR, solo, { namespace: 'apps' });
    // One replica over two clusters: one child holds it, and the cluster with no share gets no child.
    const kids = await eventually('one child holding the replica, root 1 ready', async () => {
      const list = (await up.list(deploymentsGVR, { namespace: 'apps' })).items;
      const children = list.filter((d) => d.metadata?.labels?.['scheduling.atrium.io/split-from'] === 'solo');
      return children.length === 1 && replicas(children[0]) === 1 && ready(list.find((d) => d.metadata?.name === 'solo')) === 1 && children;
    });
    assert.ok(['solo--st-a', 'solo--st-b'].includes(kids[0]!.metadata!.name!), kids[0]!.metadata!.name);
    for (const client of down) {
      const names = (await client.list(deploymentsGVR)).items.map((d) => d.metadata?.name);
      assert.ok(!names.includes('solo'), `the root never runs on a cluster: ${names.join(', ')}`);
    }
    await up.delete(deploymentsGVR, 'solo', { namespace: 'apps' });
  });

  it('does not split an object labelled to one cluster', async () => {
    await up.create(deploymentsGVR, deployment('pinned', 2, { 'workload.kcp.io/cluster': 'st-a' }), { namespace: 'apps' });
    await eventually('pinned runs on st-a with 2 replicas', async () => {
      const d = (await down[0]!.list(deploymentsGVR)).items.find((x) => x.metadata?.name === 'pinned');
      return replicas(d) === 2;
    });
    const names = (await up.list(deploymentsGVR, { namespace: 'apps' })).items.map((d) => d.metadata!.name!);
    assert.ok(!names.some((n) => n.startsWith('pinned--')), `no children of pinned: ${names.join(', ')}`);
    assert.ok(!(await down[1]!.list(deploymentsGVR)).items.some((d) => d.metadata?.name === 'pinned'));
  });

  it('cordon keeps work, drain moves it, uncordon makes the target schedulable again', async () => {
    assert.equal(await cordonSyncTarget(up, 'root', 'st-b', 'cordon'), 'synctarget.workload.kcp.io/st-b cordoned');
    await eventually('Location counts 1 available', async () => ((await up.get(locationsGVR, 'default')).status as { availableInstances?: number }).availableInstances === 1);
    const ns = await up.get(namespacesGVR, 'apps');
    assert.equal(ns.metadata?.labels?.[stateLabel('st-b')], 'Sync', 'a cordoned target keeps its namespaces');

    assert.equal(await cordonSyncTarget(up, 'root', 'st-b', 'drain'), 'synctarget.workload.kcp.io/st-b drained');
    await eventually('st-b drained: all 3 replicas on st-a', async () => {
      const ns = await up.get(namespacesGVR, 'apps');
      if (ns.metadata?.labels?.[stateLabel('st-b')] !== undefined) return false;
      const list = (await up.list(deploymentsGVR, { namespace: 'apps' })).items;
      const by = new Map(list.map((d) => [d.metadata!.name!, d]));
      return !by.has('web--st-b') && replicas(by.get('web--st-a')) === 3 && ready(by.get('web')) === 3;
    });

    assert.equal(await cordonSyncTarget(up, 'root', 'st-b', 'uncordon'), 'synctarget.workload.kcp.io/st-b uncordoned');
    await eventually('st-b scheduled again', async () => (await up.get(namespacesGVR, 'apps')).metadata?.labels?.[stateLabel('st-b')] === 'Sync');
    const st = await up.get(syncTargetsGVR, 'st-b');
    assert.deepEqual(st.spec?.['unschedulable' as never], undefined);
  });
  it('resolves spec.locationWorkspace in another workspace, and reports a missing or empty one', async () => {
    // The client addresses logical clusters by name; Placements name the location workspace by path.
    const consumer = { cluster: (await fleet.createWorkspace('consumer')).cluster };
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, consumer);
    assert.equal(await fleet.bindCompute({ cluster: consumer.cluster, locationWorkspace: 'root', spread: { mode: 'Count', count: 1 } }), 'placement.scheduling.kcp.io/default created (location workspace root)');
    type Status = { phase?: string; selectedLocation?: unknown; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
    const statusOf = async (name: string) => (await up.get(placementsGVR, name, consumer)).status as Status;
    const s = await eventually('consumer Placement Bound onto a SyncTarget of root', async () => {
      const s = await statusOf('default');
      return s.phase === 'Bound' && s.conditions?.find((c) => c.type === 'Scheduled')?.status === 'True' && s;
    });
    assert.deepEqual(s.selectedLocation, { path: 'root', locationName: 'default' });
    const shop = await eventually('shop labelled with a key of a root SyncTarget', async () => {
      const ns = await up.get(namespacesGVR, 'shop', consumer);
      const states = Object.keys(ns.metadata?.labels ?? {}).filter((k) => k.startsWith('state.workload.kcp.io/'));
      return states.length === 1 && states;
    });
    assert.ok([stateLabel('st-a'), stateLabel('st-b')].includes(shop[0]!), `a key of root's st-a or st-b: ${shop[0]}`);

    const cases: [string, string, string][] = [
      ['nowhere', 'root:nowhere', 'The location workspace "root:nowhere" does not exist'],
      ['self', 'root:consumer', 'No Location exists in location workspace "root:consumer"'],
    ];
    for (const [name, locationWorkspace, message] of cases) {
      await up.create(placementsGVR, { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Placement', metadata: { name }, spec: { locationWorkspace, locationSelectors: [{}], namespaceSelector: { matchLabels: { never: 'x' } }, locationResource: { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' } } }, consumer);
      const st = await eventually(`Placement ${name} Pending`, async () => {
        const st = await statusOf(name);
        return st.phase === 'Pending' && st;
      });
      const readyCond = st.conditions?.find((c) => c.type === 'Ready');
      assert.deepEqual([readyCond?.status, readyCond?.reason, readyCond?.message], ['False', 'LocationNotFound', message]);
      assert.equal(st.selectedLocation, undefined);
    }
  });
});
