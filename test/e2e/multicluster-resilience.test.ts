/**
 * Transparent multi-cluster survives crashes: one `atrium start` and three `atrium pcluster` processes, registered in
 * the three modes (pc1 push: spec.kubeconfig, the syncer runs inside atrium; pc2 none: a separate `atrium syncer`
 * with the admin kubeconfig; pc3 pull: `kubectl atrium workload sync` prints the manifest and an `atrium syncer`
 * process runs with its ServiceAccount kubeconfig, as the in-cluster Deployment would). A Deployment, Service and
 * ConfigMap per cluster are assigned by label; then atrium, the pc2 syncer, the pc3 pull-mode syncer and the pc1
 * cluster are each SIGKILLed and restarted (on the same port, same root dir, same credentials), with upstream changes
 * made while each is down. After each step
 * the system must converge: every object exactly once downstream with the latest content, status back upstream, one
 * downstream namespace per cluster, no downstream object without an upstream one, and finalizers only where due.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventuallyWith } from '../helpers/eventually.js';
import { startFleet, type ProcessFleet } from '../helpers/fleet.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const servicesGVR = { group: '', version: 'v1', resource: 'services' };
const configMapsGVR = { group: '', version: 'v1', resource: 'configmaps' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };
const DOWN_LABEL = 'internal.workload.kcp.io/cluster';
/** Multi-process waits: up to a minute, every 200 ms. */
const eventually = eventuallyWith({ timeoutMs: 60_000, intervalMs: 200 });

const labelled = (target: string) => ({ 'workload.kcp.io/cluster': target });
const deployment = (name: string, target: string, replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', labels: labelled(target) },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
});

describe('multicluster: kill and restart atrium, a syncer and a physical cluster in turn', () => {
  let fleet: ProcessFleet;
  let up: RestClient;
  let down: RestClient[] = [];
  /** Upstream content the system must converge to, per cluster: ConfigMap data and Deployment replicas. */
  const want = [1, 2, 3].map(() => ({ data: { v: '1' } as Record<string, string>, replicas: 1, configMaps: ['cfg'] }));

  const logs = () => fleet.logs();

  before(async () => {
    // Registered in the first test, each in its own mode; the none and pull-mode syncers are `atrium syncer` processes.
    fleet = await startFleet({ name: 'mc-resilience', processes: {}, clusters: ['pc1', 'pc2', 'pc3'], register: false, syncer: { heartbeatInterval: '1s', importPollInterval: '2s' } });
    up = fleet.up;
    down = fleet.clusters.map((c) => c.client);
  });

  after(async () => {
    await fleet?.stop();
  });

  /** The downstream namespaces cluster i holds for us (by our label). */
  const ourNamespaces = async (i: number) => {
    const key = (await up.get(syncTargetsGVR, `pc${i}`)).metadata!.labels!['internal.workload.kcp.io/key']!;
    return { key, items: (await down[i - 1]!.list(namespacesGVR, {}, { labelSelector: `${DOWN_LABEL}=${key}` })).items };
  };

  /** Everything the issue asks of a converged system, for cluster i; returns a reason when not (yet) converged. */
  async function divergence(i: number): Promise<string | undefined> {
    const w = want[i - 1]!;
    const { key, items: nss } = await ourNamespaces(i);
    if (nss.length !== 1) return `pc${i}: ${nss.length} downstream namespaces`;
    if (locatorOf(nss[0]!)?.namespace !== 'shop') return `pc${i}: namespace locator ${JSON.stringify(locatorOf(nss[0]!))}`;
    const ns = nss[0]!.metadata!.name!;
    const sel = { labelSelector: `${DOWN_LABEL}=${key}` };
    const [deps, svcs, cms] = await Promise.all([deploymentsGVR, servicesGVR, configMapsGVR].map((g) => down[i - 1]!.list(g, {}, sel)));
    const names = (l: { items: KubeObject[] }) => l.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
    if (names(deps!).join() !== `${ns}/web-pc${i}`) return `pc${i}: deployments ${names(deps!)}`;
    if (names(svcs!).join() !== `${ns}/web-pc${i}`) return `pc${i}: services ${names(svcs!)}`;
    if (names(cms!).join() !== w.configMaps.map((c) => `${ns}/${c}-pc${i}`).sort().join()) return `pc${i}: configmaps ${names(cms!)}`;
    if (JSON.stringify(cms!.items.find((c) => c.metadata?.name === `cfg-pc${i}`)?.data) !== JSON.stringify(w.data)) return `pc${i}: configmap data ${JSON.stringify(cms!.items[0]?.data)}`;
    if ((deps!.items[0]!.spec as { replicas?: number }).replicas !== w.replicas) return `pc${i}: downstream replicas ${(deps!.items[0]!.spec as { replicas?: number }).replicas}`;
    const upDeploy = await up.get(deploymentsGVR, `web-pc${i}`, { namespace: 'shop' });
    const st = upDeploy.status as { readyReplicas?: number; observedGeneration?: number } | undefined;
    if (st?.readyReplicas !== w.replicas) return `pc${i}: upstream readyReplicas ${st?.readyReplicas}, want ${w.replicas}`;
    // Finalizers: exactly this target's on its objects; none left on deleted ones (they would be stuck).
    for (const [g, names] of [[deploymentsGVR, [`web-pc${i}`]], [servicesGVR, [`web-pc${i}`]], [configMapsGVR, w.configMaps.map((c) => `${c}-pc${i}`)]] as const) {
      for (const n of names) {
        const o = await up.get(g, n, { namespace: 'shop' });
        const fins = (o.metadata?.finalizers ?? []).filter((f) => f.startsWith('workload.kcp.io/syncer-'));
        if (fins.join() !== `workload.kcp.io/syncer-${key}`) return `pc${i}: ${g.resource}/${n} finalizers ${fins}`;
      }
    }
    return undefined;
  }

  async function assertConverged(step: string): Promise<void> {
    for (let i = 1; i <= 3; i++) {
      let why: string | undefined;
      await eventually(`${step}: pc${i} converged`, async () => (why = await divergence(i)) === undefined).catch((e) => {
        throw new Error(`${e.message} (${why})\n${logs()}`);
      });
    }
    // No upstream object is stuck deleting (a syncer finalizer that nobody will release). The syncer releases its
    // finalizer once the downstream copy is gone, so a deleted object may still be finishing when the copies agree.
    let stuck: string[] = [];
    await eventually(`${step}: no upstream object left deleting`, async () => {
      stuck = (await Promise.all([deploymentsGVR, servicesGVR, configMapsGVR].map((g) => up.list(g, { namespace: 'shop' })))).flatMap((l) => l.items).filter((o) => o.metadata?.deletionTimestamp).map((o) => o.metadata!.name!);
      return stuck.length === 0;
    }, 20_000).catch(() => assert.deepEqual(stuck, [], `${step}: upstream objects stuck deleting`));
  }

  it('registers clusters in push, none and pull mode and syncs a labelled Deployment, Service and ConfigMap to each', async () => {
    await fleet.register('pc1', { mode: 'push' });
    await fleet.register('pc2', { mode: 'none' });
    await fleet.register('pc3', { mode: 'pull' });
    await fleet.waitReady(['pc1', 'pc2', 'pc3'], { resources: ['deployments', 'services', 'configmaps'], timeoutMs: 60_000 });
    await up.create(namespacesGVR, { metadata: { name: 'shop' } });
    for (let i = 1; i <= 3; i++) {
      const t = `pc${i}`;
      await eventually('deployments served', () => up.create(deploymentsGVR, deployment(`web-${t}`, t, 1)));
      await up.create(servicesGVR, { apiVersion: 'v1', kind: 'Service', metadata: { name: `web-${t}`, namespace: 'shop', labels: labelled(t) }, spec: { selector: { app: `web-${t}` }, ports: [{ port: 80 }] } });
      await up.create(configMapsGVR, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cfg-${t}`, namespace: 'shop', labels: labelled(t) }, data: { v: '1' } });
    }
    await assertConverged('initial sync');
  });

  it('converges after atrium is killed and restarted, with changes made right after', async () => {
    await fleet.stopAtrium();
    await fleet.startAtrium();
    await eventually('atrium answering', () => up.get(namespacesGVR, 'shop'));
    for (let i = 1; i <= 3; i++) {
      await up.patch(configMapsGVR, `cfg-pc${i}`, 'merge', { data: { v: '2' } }, { namespace: 'shop' });
      want[i - 1]!.data = { v: '2' };
    }
    await up.patch(deploymentsGVR, 'web-pc2', 'merge', { spec: { replicas: 2 } }, { namespace: 'shop' });
    want[1]!.replicas = 2;
    await assertConverged('after atrium restart');
  });

  it('converges after the pc2 syncer is killed, with creates, updates and deletes made while it was down', async () => {
    await fleet.cluster('pc2').syncer!.kill();
    await up.patch(configMapsGVR, 'cfg-pc2', 'merge', { data: { v: '3' } }, { namespace: 'shop' });
    await up.create(configMapsGVR, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra-pc2', namespace: 'shop', labels: labelled('pc2') }, data: { v: '3' } });
    await up.patch(deploymentsGVR, 'web-pc2', 'merge', { spec: { replicas: 1 } }, { namespace: 'shop' });
    want[1] = { data: { v: '3' }, replicas: 1, configMaps: ['cfg', 'extra'] };
    await fleet.cluster('pc2').syncer!.start();
    await assertConverged('after syncer restart (create, update)');
    // A delete while the syncer is down: the upstream object goes at once (decisions/deletion.ts); the restarted syncer
    // finds its copy orphaned and deletes it.
    await fleet.cluster('pc2').syncer!.kill();
    await up.delete(configMapsGVR, 'extra-pc2', { namespace: 'shop' });
    await fleet.cluster('pc2').syncer!.start();
    want[1]!.configMaps = ['cfg'];
    await assertConverged('after syncer restart (delete)');
    await eventually('extra-pc2 gone upstream', async () => !(await up.list(configMapsGVR, { namespace: 'shop' })).items.some((c) => c.metadata?.name === 'extra-pc2'));
  });

  it('converges after the pc3 pull-mode syncer is killed and restarted with its ServiceAccount kubeconfig, with creates, updates and deletes made while it was down', async () => {
    // An object synced before the kill, to be deleted while the syncer is down.
    await up.create(configMapsGVR, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old-pc3', namespace: 'shop', labels: labelled('pc3') }, data: { v: '1' } });
    want[2]!.configMaps = ['cfg', 'old'];
    await assertConverged('pc3 before its syncer is killed');
    const heartbeat = async () => Date.parse(((await up.get(syncTargetsGVR, 'pc3')).status as { lastSyncerHeartbeatTime?: string } | undefined)?.lastSyncerHeartbeatTime ?? '');
    await fleet.cluster('pc3').syncer!.kill();
    const killedAt = Date.now();
    await up.patch(configMapsGVR, 'cfg-pc3', 'merge', { data: { v: '5' } }, { namespace: 'shop' });
    await up.create(configMapsGVR, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra-pc3', namespace: 'shop', labels: labelled('pc3') }, data: { v: '5' } });
    await up.delete(configMapsGVR, 'old-pc3', { namespace: 'shop' });
    await up.patch(deploymentsGVR, 'web-pc3', 'merge', { spec: { replicas: 2 } }, { namespace: 'shop' });
    want[2] = { data: { v: '5' }, replicas: 2, configMaps: ['cfg', 'extra'] };
    // Nothing else serves pc3: with its syncer down the cluster keeps the old content (old-pc3's copy too, although
    // the DELETE removed it upstream at once), so what converges below is the restarted syncer's work.
    await new Promise((r) => setTimeout(r, 500));
    assert.match((await divergence(3)) ?? 'converged', /^pc3: configmaps /, 'pc3 must not change while its syncer is down');
    await assert.rejects(up.get(configMapsGVR, 'old-pc3', { namespace: 'shop' }), (err: { code?: number }) => err.code === 404, 'old-pc3 is gone upstream at once');
    await fleet.cluster('pc3').syncer!.start();
    await assertConverged('after pull-mode syncer restart');
    // The restarted process heartbeats again with the ServiceAccount token (a heartbeat stamped after the kill).
    await eventually('pc3 heartbeat after the restart', async () => (await heartbeat()) > killedAt);
  });

  it('converges after the pc1 cluster is killed and restarted, with changes made while it was down', async () => {
    await fleet.cluster('pc1').proc!.kill();
    await up.patch(configMapsGVR, 'cfg-pc1', 'merge', { data: { v: '4' } }, { namespace: 'shop' });
    await up.patch(deploymentsGVR, 'web-pc1', 'merge', { spec: { replicas: 2 } }, { namespace: 'shop' });
    want[0] = { data: { v: '4' }, replicas: 2, configMaps: ['cfg'] };
    await new Promise((r) => setTimeout(r, 1000));
    await fleet.cluster('pc1').proc!.start();
    await assertConverged('after pcluster restart');
  });
});
