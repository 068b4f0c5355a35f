/**
 * kcp's compute model across workspaces, in process: `root:compute` holds two SyncTargets (simulated physical clusters
 * in push mode) and its Location; `root:team` binds compute to it (`bind compute root:compute`). Covers the
 * consumer-clusters annotation the scheduler keeps on the SyncTargets (set while team's namespaces are placed there,
 * never listing compute itself, removed when the Placement goes), the Deployment type served built in by team once
 * bound (no CRD copied; printing as a Deployment; unserved, objects kept, once the Placement and its cleanup are gone,
 * and back with compute), an operator's type the clusters bring (a CRD in both) negotiated in compute with its short
 * names and categories and copied into team, and the splitter dividing a root Deployment of team over compute's
 * SyncTargets; compute's syncers sync team's share of the work into each physical cluster (namespaces located in
 * team), its status comes back aggregated on team's Deployment, and everything synced from team is removed from the
 * clusters when the Placement goes (the Placement's cleanup finalizer holds it, and the types, until then).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { TestServer } from '../helpers/harness.js';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';
import { defaultSyncedResources } from '../../src/multicluster/api/types.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const locationsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'locations' };
const placementsGVR = { group: 'scheduling.kcp.io', version: 'v1alpha1', resource: 'placements' };
const crdsGVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const CONSUMERS = 'scheduling.atrium.io/consumer-clusters';
const NEGOTIATED = 'apiresource.kcp.io/negotiated';
const TARGETS = ['st-a', 'st-b'];
const widgetsGVR = { group: 'example.com', version: 'v1', resource: 'widgets' };

/** An operator's type, installed in both physical clusters. */
const widgetCRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['example'] },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
  },
};

function deployment(name: string, replicas: number): KubeObject {
  const app = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: app },
    // Its pods read `<name>-config`, which therefore follows them to their clusters.
    spec: { replicas, selector: { matchLabels: app }, template: { metadata: { labels: app }, spec: { containers: [{ name: 'c', image: 'nginx', envFrom: [{ configMapRef: { name: `${name}-config` } }] }] } } },
  };
}
const replicas = (d: KubeObject | undefined) => (d?.spec as { replicas?: number } | undefined)?.replicas;

describe('compute in another workspace: root:team bound to root:compute', () => {
  let fleet: InProcessFleet;
  let atrium: TestServer;
  let up: RestClient;
  let downstream: RestClient[] = [];
  let compute: { cluster: string };
  let team: { cluster: string };

  const consumersOf = async (target: string) => (await up.get(syncTargetsGVR, target, compute)).metadata?.annotations?.[CONSUMERS];

  before(async () => {
    // The SyncTargets go to root:compute (the fixture creates it); each cluster also has an operator's CRD first.
    fleet = await startFleet({ name: 'compute', clusters: TARGETS, multicluster: fastScheduling(), server: { builtinControllers: true }, workspace: 'root:compute', register: false });
    ({ atrium, up } = fleet);
    downstream = fleet.clusters.map((c) => c.client);
    compute = { cluster: fleet.workspace.cluster };
    team = { cluster: (await fleet.createWorkspace('team')).cluster };
    for (const c of fleet.clusters) {
      await c.client.create(crdsGVR, widgetCRD);
      await up.create(syncTargetsGVR, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: c.name }, spec: { kubeconfig: readFileSync(c.kubeconfigPath, 'utf8'), resources: [...defaultSyncedResources, 'widgets.example.com'] } }, compute);
    }
    // compute also runs work of its own: its namespaces never make it a consumer of its own SyncTargets.
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'local' } }, compute);
    await fleet.bindCompute({ locationWorkspace: '' });
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, team);
  });

  after(async () => {
    await fleet?.stop();
  });

  it('compute has its Location over both SyncTargets and serves Deployments built in, accepted by both; team serves no Deployments yet', async () => {
    await eventually('default Location in root:compute with 2 available instances', async () => {
      const s = (await up.get(locationsGVR, 'default', compute)).status as { instances?: number; availableInstances?: number };
      return s.instances === 2 && s.availableInstances === 2;
    });
    for (const t of TARGETS) {
      await eventually(`deployments Accepted on ${t}`, async () => {
        const st = (await up.get(syncTargetsGVR, t, compute)).status as { syncedResources?: { resource: string; state: string }[] } | undefined;
        return st?.syncedResources?.find((r) => r.resource === 'deployments')?.state === 'Accepted';
      });
    }
    assert.equal(await up.get(crdsGVR, 'deployments.apps', compute).catch((e: { code?: number }) => e.code), 404, 'no CRD for a type served built in');
    assert.equal((await atrium.request('GET', `/clusters/root:compute/apis/apps/v1/namespaces/local/deployments`)).status, 200);
    const r = await atrium.request('GET', `/clusters/root:team/apis/apps/v1/namespaces/shop/deployments`);
    assert.equal(r.status, 404, r.text);
  });

  it('bind compute places team\'s namespaces onto compute\'s SyncTargets and lists team on them', async () => {
    assert.equal(await fleet.bindCompute({ cluster: team.cluster, locationWorkspace: 'root:compute' }), 'placement.scheduling.kcp.io/default created (location workspace root:compute)');
    await eventually('shop labelled for both SyncTargets of root:compute', async () => {
      const labels = (await up.get(namespacesGVR, 'shop', team)).metadata?.labels ?? {};
      return TARGETS.every((t) => labels[`state.workload.kcp.io/${syncTargetKey(compute.cluster, t)}`] === 'Sync');
    });
    await eventually('compute\'s own namespace placed too', async () => {
      const labels = (await up.get(namespacesGVR, 'local', compute)).metadata?.labels ?? {};
      return TARGETS.every((t) => labels[`state.workload.kcp.io/${syncTargetKey(compute.cluster, t)}`] === 'Sync');
    });
    for (const t of TARGETS) {
      await eventually(`${t} lists root:team's logical cluster (and not its own)`, async () => (await consumersOf(t)) === JSON.stringify([team.cluster]));
    }
  });

  it('team serves Deployments built in once bound (no CRD copied), printed as Deployments', async () => {
    await eventually('deployments served in root:team', async () => (await up.list(deploymentsGVR, { ...team, namespace: 'shop' })) && true);
    const table = await atrium.request('GET', `/clusters/root:team/apis/apps/v1/namespaces/shop/deployments`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(table.status, 200, table.text);
    assert.deepEqual(
      table.json.columnDefinitions.filter((c: { priority?: number }) => !c.priority).map((c: { name: string }) => c.name),
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age'],
    );
    assert.equal(await up.get(crdsGVR, 'deployments.apps', team).catch((e: { code?: number }) => e.code), 404);
  });

  it('negotiates the operator\'s type the clusters bring in compute, with their short names and categories, and copies it into team', async () => {
    const source = await eventually('widgets.example.com negotiated in root:compute', async () => {
      const crd = await up.get(crdsGVR, 'widgets.example.com', compute).catch(() => undefined);
      return crd?.metadata?.annotations?.[NEGOTIATED] === 'true' && crd;
    });
    assert.deepEqual((source.spec as { names: unknown }).names, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['example'] });
    const copy = await eventually('widgets.example.com in root:team', async () => up.get(crdsGVR, 'widgets.example.com', team).catch(() => undefined));
    assert.equal(copy.metadata?.annotations?.[NEGOTIATED], 'true');
    assert.equal(copy.metadata?.annotations?.['scheduling.atrium.io/compute-api-source'], compute.cluster);
    assert.deepEqual(copy.spec, source.spec);
    await eventually('widgets served in root:team', async () => (await up.list(widgetsGVR, { ...team, namespace: 'shop' })) && true);

    // A change of compute's CRD reaches the copy (negotiation keeps compute's by its own hash, so this edit stays).
    await up.patch(crdsGVR, 'widgets.example.com', 'merge', { spec: { names: { categories: ['compute-test'] } } }, compute);
    await eventually('the copy follows compute\'s spec', async () => {
      const [src, dst] = [await up.get(crdsGVR, 'widgets.example.com', compute), await up.get(crdsGVR, 'widgets.example.com', team)];
      return (dst.spec as { names: { categories?: string[] } }).names.categories?.[0] === 'compute-test' && isDeepStrictEqual(src.spec, dst.spec);
    });
  });

  it('splits a root Deployment of team over compute\'s SyncTargets', async () => {
    await up.create(deploymentsGVR, deployment('web', 10), { ...team, namespace: 'shop' });
    const kids = await eventually('children 5 + 5', async () => {
      const list = (await up.list(deploymentsGVR, { ...team, namespace: 'shop' })).items;
      const by = new Map(list.map((d) => [d.metadata!.name!, d]));
      const kids = TARGETS.map((t) => by.get(`web--${t}`));
      return kids.every((k) => replicas(k) === 5) && kids;
    });
    for (const [i, kid] of kids.entries()) {
      assert.equal(kid!.metadata?.labels?.['workload.kcp.io/cluster'], TARGETS[i]);
      assert.equal(kid!.metadata?.labels?.['scheduling.atrium.io/split-from'], 'web');
      assert.equal(kid!.metadata?.ownerReferences?.[0]?.name, 'web');
    }
    // compute's syncers sync team's children (and the ConfigMap their pods use) into the physical clusters, in a
    // namespace whose locator names team, and the clusters' status comes back aggregated on team's root.
    await up.create({ group: '', version: 'v1', resource: 'configmaps' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { k: 'v' } }, { ...team, namespace: 'shop' });
    for (const [i, t] of TARGETS.entries()) {
      const down = downstream[i]!;
      await eventually(`web--${t} and web-config in ${t}, in a namespace located in root:team`, async () => {
        const ns = (await down.list(namespacesGVR)).items.find((n) => locatorOf(n)?.cluster === team.cluster && locatorOf(n)?.namespace === 'shop');
        if (!ns) return false;
        const d = await down.get(deploymentsGVR, `web--${t}`, { namespace: ns.metadata!.name! }).catch(() => undefined);
        const cm = await down.get({ group: '', version: 'v1', resource: 'configmaps' }, 'web-config', { namespace: ns.metadata!.name! }).catch(() => undefined);
        return replicas(d) === 5 && cm !== undefined;
      });
    }
    await eventually('team\'s web 10/10 ready, aggregated from both clusters', async () => {
      const st = (await up.get(deploymentsGVR, 'web', { ...team, namespace: 'shop' })).status as { readyReplicas?: number } | undefined;
      return st?.readyReplicas === 10;
    });
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 3 } }, { ...team, namespace: 'shop' });
    await eventually('children re-divided to 2 + 1', async () => {
      const list = (await up.list(deploymentsGVR, { ...team, namespace: 'shop' })).items;
      const split = TARGETS.map((t) => replicas(list.find((d) => d.metadata?.name === `web--${t}`)));
      return [...split].sort().join(',') === '1,2';
    });
  });

  it('syncs only placed namespaces of workspaces with a Placement here: hand-written labels and bare names do not reach compute\'s clusters', async () => {
    const cms = { group: '', version: 'v1', resource: 'configmaps' };
    const stA = syncTargetKey(compute.cluster, 'st-a');
    // A workspace without any Placement labels a namespace for st-a by hand and pins a ConfigMap to it.
    const rogue = { cluster: (await fleet.createWorkspace('rogue')).cluster };
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'loot', labels: { [`state.workload.kcp.io/${stA}`]: 'Sync' } } }, rogue);
    await up.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rogue-cm', labels: { [`state.workload.kcp.io/${stA}`]: 'Sync', 'workload.kcp.io/cluster': 'st-a' } }, data: { k: 'v' } }, { ...rogue, namespace: 'loot' });
    // In team (a real consumer), a namespace opted out of placement holds a ConfigMap naming st-a by its bare name.
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'private', annotations: { 'scheduling.atrium.io/placement': 'none' } } }, team);
    await up.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pinned-by-name', labels: { 'workload.kcp.io/cluster': 'st-a' } }, data: { k: 'v' } }, { ...team, namespace: 'private' });
    // Positive control: a ConfigMap pinned to st-a in team's placed namespace does arrive.
    await up.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'placed-pin', labels: { 'workload.kcp.io/cluster': 'st-a' } }, data: { k: 'v' } }, { ...team, namespace: 'shop' });
    await eventually('placed-pin in st-a', async () => {
      const ns = (await downstream[0]!.list(namespacesGVR)).items.find((n) => locatorOf(n)?.cluster === team.cluster && locatorOf(n)?.namespace === 'shop');
      return ns !== undefined && (await downstream[0]!.get(cms, 'placed-pin', { namespace: ns.metadata!.name! }).catch(() => undefined)) !== undefined;
    });
    await new Promise((r) => setTimeout(r, 1500)); // the consumer list and the syncers had time to act on the rest
    assert.equal(await consumersOf('st-a'), JSON.stringify([team.cluster]), 'rogue has no Placement naming root:compute');
    const downNamespaces = (await downstream[0]!.list(namespacesGVR)).items;
    assert.deepEqual(downNamespaces.filter((n) => locatorOf(n)?.cluster === rogue.cluster).map((n) => n.metadata?.name), []);
    assert.deepEqual(downNamespaces.filter((n) => locatorOf(n)?.cluster === team.cluster && locatorOf(n)?.namespace === 'private').map((n) => n.metadata?.name), []);
  });

  it('when the Placement goes: the annotation goes, the children go, then the Deployment type; the objects stay for when compute returns', async () => {
    assert.deepEqual((await up.get(placementsGVR, 'default', team)).metadata?.finalizers, ['scheduling.atrium.io/release-compute']);
    await up.delete(placementsGVR, 'default', team);
    await eventually('shop released', async () => {
      const labels = (await up.get(namespacesGVR, 'shop', team)).metadata?.labels ?? {};
      return !Object.keys(labels).some((k) => k.startsWith('state.workload.kcp.io/'));
    });
    for (const t of TARGETS) await eventually(`${t} lists no consumer`, async () => (await consumersOf(t)) === undefined);
    // The Placement's cleanup finalizer holds it (and so the Deployment type in team) until the children are gone.
    const seen: string[][] = [];
    await eventually('the Placement gone once its cleanup is done', async () => {
      const p = await up.get(placementsGVR, 'default', team).catch((e: { code?: number }) => e.code);
      if (p === 404) return true;
      seen.push((await up.list(deploymentsGVR, { ...team, namespace: 'shop' })).items.map((d) => d.metadata!.name!));
      return false;
    });
    assert.ok(seen.every((names) => names.includes('web')), 'the root is never deleted');
    const r = await eventually('team serves no Deployments', async () => {
      const r = await atrium.request('GET', `/clusters/root:team/apis/apps/v1/namespaces/shop/deployments`);
      return r.status === 404 && r;
    });
    assert.equal(r.text, '404 page not found\n', 'as kube-apiserver answers for a group it does not serve');
    const crd = await up.get(crdsGVR, 'widgets.example.com', team);
    assert.equal(crd.metadata?.deletionTimestamp, undefined, 'a copied CRD is never deleted automatically');
    // Nothing synced from team is left in the clusters: the syncers drained team and removed its namespaces.
    for (const [i, t] of TARGETS.entries()) {
      await eventually(`${t} holds nothing from root:team`, async () => {
        const nss = (await downstream[i]!.list(namespacesGVR)).items.filter((n) => locatorOf(n)?.cluster === team.cluster);
        return nss.length === 0;
      });
    }
    // The upstream ConfigMap is no longer synced anywhere: no syncer finalizer is left on it.
    const cm = await up.get({ group: '', version: 'v1', resource: 'configmaps' }, 'web-config', { ...team, namespace: 'shop' });
    assert.deepEqual((cm.metadata?.finalizers ?? []).filter((f) => f.startsWith('workload.kcp.io/syncer-')), []);
    // Compute again (a Placement that places no namespace): the type is served again, with the objects it had.
    await up.create(placementsGVR, { apiVersion: 'scheduling.kcp.io/v1alpha1', kind: 'Placement', metadata: { name: 'later' }, spec: { locationWorkspace: 'root:compute', locationSelectors: [{}], locationResource: { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' } } }, team);
    const names = await eventually('Deployments served in team again', async () => (await up.list(deploymentsGVR, { ...team, namespace: 'shop' }).catch(() => undefined))?.items.map((d) => d.metadata!.name!));
    assert.deepEqual(names, ['web']);
  });
});
