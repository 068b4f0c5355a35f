/**
 * Multi-cluster edge cases found in review: a SyncTarget with deletionPolicy Orphan goes away once its syncer has
 * unlabelled what it leaves behind (the copies stay downstream, the upstream finalizers go); a steady split child is
 * not rewritten (the splitter keeps the syncer's annotations); and a Deployment whose name is too long for a label
 * value (or whose child name would be too long) still splits, without holding up the other Deployments.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf, syncTargetKey } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';

const configMapsGVR = { group: '', version: 'v1', resource: 'configmaps' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const SPLIT_FROM = 'scheduling.atrium.io/split-from';

function deployment(name: string, replicas: number): KubeObject {
  const app = { app: name.slice(0, 60) };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: app }, spec: { replicas, selector: { matchLabels: app }, template: { metadata: { labels: app }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
}

describe('multi-cluster edge cases', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  let down: RestClient[] = [];

  before(async () => {
    fleet = await startFleet({ name: 'edge', clusters: ['st-a', 'st-b', 'orphan'], multicluster: fastScheduling(), register: false });
    up = fleet.up;
    down = fleet.clusters.map((c) => c.client);
  });
  after(async () => {
    await fleet?.stop();
  });

  it('a SyncTarget with deletionPolicy Orphan is deleted; its copies stay downstream, unlabelled', async () => {
    const orphanDown = down[2]!;
    await fleet.register('orphan', { deletionPolicy: 'Orphan' });
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keep', labels: { 'workload.kcp.io/cluster': 'orphan' } } });
    await up.create(configMapsGVR, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'keep' }, data: { a: '1' } });
    const downNs = await eventually('downstream namespace', async () => (await orphanDown.list(namespacesGVR)).items.find((n) => locatorOf(n)?.namespace === 'keep')?.metadata?.name);
    await eventually('synced down', () => orphanDown.get(configMapsGVR, 'cfg', { namespace: downNs }));
    await eventually('syncer finalizer upstream', async () => ((await up.get(configMapsGVR, 'cfg', { namespace: 'keep' })).metadata?.finalizers ?? []).length === 1);
    await up.delete(syncTargetsGVR, 'orphan');
    await eventually('SyncTarget gone', async () => (await up.get(syncTargetsGVR, 'orphan').then(() => false, (e: { code?: number }) => e.code === 404)), 20_000);
    const left = await orphanDown.get(configMapsGVR, 'cfg', { namespace: downNs });
    assert.equal(left.metadata?.labels?.['internal.workload.kcp.io/cluster'], undefined, 'left behind without the syncer label');
    assert.deepEqual((await up.get(configMapsGVR, 'cfg', { namespace: 'keep' })).metadata?.finalizers ?? [], [], 'upstream finalizer released');
  });

  it('splits long-named Deployments without holding up others, and leaves steady children alone', async () => {
    for (const name of ['st-a', 'st-b']) await fleet.register(name);
    await up.create(namespacesGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    await fleet.bindCompute();
    await eventually('apps split', async () => (await up.get(namespacesGVR, 'apps')).metadata?.annotations?.['scheduling.atrium.io/split-workloads'] === 'true');
    // Both clusters on the namespace before the Deployments: split over one, they would stay there (a cluster joining
    // later takes no replicas that need not move), and a cluster with no share gets no child.
    await eventually('apps placed on both clusters', async () => {
      const labels = (await up.get(namespacesGVR, 'apps')).metadata?.labels ?? {};
      return ['st-a', 'st-b'].every((t) => labels[`state.workload.kcp.io/${syncTargetKey('root', t)}`] === 'Sync');
    });
    await eventually('deployments served', async () => (await up.list(deploymentsGVR, { namespace: 'apps' })) && true);
    const long = `a${'x'.repeat(69)}`; // 70 characters: a valid name, too long for a label value
    await up.create(deploymentsGVR, deployment(long, 2), { namespace: 'apps' });
    await up.create(deploymentsGVR, deployment('zz', 2), { namespace: 'apps' });
    const kids = await eventually('both split into two children each', async () => {
      const list = (await up.list(deploymentsGVR, { namespace: 'apps' })).items;
      const of = (root: string) => list.filter((d) => d.metadata?.ownerReferences?.[0]?.name === root);
      return of(long).length === 2 && of('zz').length === 2 && list;
    });
    for (const kid of kids.filter((d) => d.metadata?.ownerReferences?.[0]?.name === long)) {
      const from = kid.metadata!.labels![SPLIT_FROM]!;
      assert.ok(from.length <= 63 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(from), `label value ${from}`);
    }
    // Steady state: once the children run and the syncer has marked them synced, passes (every 300 ms) change nothing.
    const child = 'zz--st-a';
    await eventually('child synced and ready', async () => {
      const c = await up.get(deploymentsGVR, child, { namespace: 'apps' });
      const want = (c.spec as { replicas?: number } | undefined)?.replicas ?? 1;
      return Object.keys(c.metadata?.annotations ?? {}).some((k) => k.startsWith('synced.workload.kcp.io/')) && ((c.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) === want;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const before = (await up.get(deploymentsGVR, child, { namespace: 'apps' })).metadata?.resourceVersion;
    await new Promise((r) => setTimeout(r, 2000));
    const after = (await up.get(deploymentsGVR, child, { namespace: 'apps' })).metadata?.resourceVersion;
    assert.equal(after, before, 'the child was rewritten while nothing changed');
  });
  it('a split root does not report a new generation observed before its clusters have seen it', async () => {
    const root = await eventually('zz observed and available', async () => {
      const r = await up.get(deploymentsGVR, 'zz', { namespace: 'apps' });
      const st = r.status as { observedGeneration?: number; readyReplicas?: number } | undefined;
      return st?.observedGeneration === r.metadata?.generation && st?.readyReplicas === 2 && r;
    });
    // Both clusters go away; the new spec reaches the children upstream but no cluster can observe it.
    for (const i of [0, 1]) await fleet.clusters[i]!.stop();
    const spec = root.spec as { template: { spec: { containers: { name: string; image: string }[] } } };
    await up.patch(deploymentsGVR, 'zz', 'merge', { spec: { template: { spec: { containers: [{ ...spec.template.spec.containers[0]!, image: 'nginx:2' }] } } } }, { namespace: 'apps' });
    await eventually('children carry the new spec', async () => {
      const kids = (await up.list(deploymentsGVR, { namespace: 'apps' })).items.filter((d) => d.metadata?.labels?.[SPLIT_FROM] === 'zz');
      return kids.length > 0 && kids.every((k) => JSON.stringify(k.spec).includes('nginx:2'));
    });
    await new Promise((r) => setTimeout(r, 1500));
    const after = await up.get(deploymentsGVR, 'zz', { namespace: 'apps' });
    const observed = (after.status as { observedGeneration?: number } | undefined)?.observedGeneration;
    assert.ok(observed !== undefined && observed < after.metadata!.generation!, `observedGeneration ${observed} must stay below generation ${after.metadata?.generation}`);
  });
});
