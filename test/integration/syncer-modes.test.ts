/**
 * Pull/none mode: `kubectl atrium workload sync` registers a cluster and prints the manifest; the syncer runs as a
 * separate `atrium syncer` process with the in-manifest ServiceAccount kubeconfig (what the pull-mode Deployment
 * mounts), so it works with exactly the RBAC the plugin granted.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import { eventuallyWith } from '../helpers/eventually.js';
import type { KubeObject } from '../../src/apimachinery/object.js';

const configMapsGVR = { group: '', version: 'v1', resource: 'configmaps' };

const eventually = eventuallyWith({ timeoutMs: 20_000 });

describe('syncer: registered with kubectl atrium workload sync, run as a separate process', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  let down: RestClient;

  before(async () => {
    fleet = await startFleet({
      name: 'syncer-modes',
      clusters: ['pcx'],
      multicluster: { heartbeatThresholdMs: 5000 },
      register: false,
      syncer: { heartbeatInterval: '500ms', importPollInterval: '500ms' },
    });
    up = fleet.up;
    down = fleet.cluster('pcx').client;
  });

  after(async () => {
    await fleet?.stop();
  });

  it('prints a manifest whose credentials let a syncer process sync with the granted RBAC only', async () => {
    // Pull mode: the fixture runs `atrium syncer` with the kubeconfig of the manifest's Secret (the ServiceAccount's).
    const { stderr, manifest } = await fleet.register('pcx', { mode: 'pull' });
    assert.match(stderr!, /Creating synctarget "pcx"/);
    // It returns once the workspace serves the workload types its SyncTarget gives it.
    assert.match(stderr!, /^Waiting for the workspace to serve deployments\.apps \.\.\. done$/m);
    await fleet.up.list({ group: 'apps', version: 'v1', resource: 'deployments' }, { namespace: 'default' });
    assert.deepEqual(manifest!.map((d) => d.kind), ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Secret', 'Deployment']);
    assert.match(manifest!.find((d) => d.kind === 'Deployment').spec.template.spec.containers[0].args.join(' '), /--sync-target-name=pcx/);
    await fleet.waitReady(['pcx'], { timeoutMs: 20_000 });
    await up.create({ group: '', version: 'v1', resource: 'namespaces' }, { metadata: { name: 'apps', labels: { 'workload.kcp.io/cluster': 'pcx' } } });
    await up.create(configMapsGVR, { metadata: { name: 'settings', namespace: 'apps' }, data: { k: 'v' } });
    const ns = await eventually('downstream namespace', async () => (await down.list({ group: '', version: 'v1', resource: 'namespaces' })).items.find((n) => locatorOf(n)?.namespace === 'apps')?.metadata?.name);
    const cm = await eventually('configmap downstream', () => down.get(configMapsGVR, 'settings', { namespace: ns })).catch((e) => {
      throw new Error(`${e.message}\n${fleet.logs()}`);
    });
    assert.deepEqual(cm.data, { k: 'v' });
  });

  it('mirrors the pods and events of its cluster with the granted RBAC, and a deleted mirror restarts its pod', async () => {
    const podsGVR = { group: '', version: 'v1', resource: 'pods' };
    const eventsGVR = { group: '', version: 'v1', resource: 'events' };
    // Namespace `apps` is assigned to pcx by hand (previous test): the Deployment is synced whole, so its cluster's
    // ReplicaSet is mirrored up (owned by the Deployment) and owns the mirrored pods.
    const d: KubeObject = await up.create({ group: 'apps', version: 'v1', resource: 'deployments' }, { metadata: { name: 'hello', namespace: 'apps' }, spec: { replicas: 2, selector: { matchLabels: { app: 'hello' } }, template: { metadata: { labels: { app: 'hello' } }, spec: { containers: [{ name: 'c', image: 'hello:1' }] } } } });
    const mirrored = async () => (await up.list(podsGVR, { namespace: 'apps' }, { labelSelector: 'app=hello' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    const rsGVR = { group: 'apps', version: 'v1', resource: 'replicasets' };
    const pods = await eventually('two mirrored pods on pcx--<node>, owned by the mirror of the Deployment\'s ReplicaSet', async () => {
      const rs = (await up.list(rsGVR, { namespace: 'apps' })).items.find((r) => (r.metadata?.ownerReferences as { uid?: string }[] | undefined)?.[0]?.uid === d.metadata?.uid);
      if (!rs || rs.metadata?.labels?.['scheduling.atrium.io/mirror'] !== 'true') return undefined;
      const items = await mirrored();
      const ok = items.length === 2 && items.every((p) => /^pcx--/.test((p.spec as { nodeName?: string }).nodeName ?? '') && (p.metadata?.ownerReferences as { uid?: string }[] | undefined)?.[0]?.uid === rs.metadata?.uid && (p.status as { phase?: string }).phase === 'Running');
      return ok && items;
    }).catch((e) => {
      throw new Error(`${e.message}\n${fleet.logs()}`);
    });
    await eventually('an event of its cluster about a pod, the cluster named', async () => (await up.list(eventsGVR, { namespace: 'apps' })).items.some((e) => /^\[pcx\] /.test(String((e as { message?: string }).message))));
    const victim = pods[0]!.metadata!.name!;
    await up.delete(podsGVR, victim, { namespace: 'apps' });
    await eventually('a replacement mirrored', async () => {
      const items = await mirrored();
      return items.length === 2 && !items.some((p) => p.metadata?.name === victim);
    });
  });
});
