/**
 * Transparent multi-cluster end to end, in process: one atrium with the multicluster options and three simulated
 * physical clusters (`startPcluster`), registered in push mode (spec.kubeconfig). Covers negotiation (the
 * Deployment type served built in, its schema enforced on the clusters, no CRD published), spec down / status up,
 * moving by label, a condition set upstream kept beside the cluster's status, deletion (at once upstream, the copy
 * after it; a re-created object's copy replaced), an incompatible cluster with the exact field path, and SyncTarget removal.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastSync, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventuallyWith } from '../helpers/eventually.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const servicesGVR = { group: '', version: 'v1', resource: 'services' };
const configMapsGVR = { group: '', version: 'v1', resource: 'configmaps' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

const eventually = eventuallyWith({ timeoutMs: 20_000 });

/** The downstream namespace holding the upstream namespace `ns` of root. */
async function downstreamNamespaceOf(client: RestClient, ns: string): Promise<string | undefined> {
  const list = await client.list(namespacesGVR);
  return list.items.find((n) => locatorOf(n)?.namespace === ns && locatorOf(n)?.cluster === 'root')?.metadata?.name;
}

function labelled(obj: KubeObject, target: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, labels: { ...(obj.metadata?.labels ?? {}), 'workload.kcp.io/cluster': target } } };
}

describe('syncer: push mode with three physical clusters', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  let down: RestClient[] = [];

  before(async () => {
    fleet = await startFleet({ name: 'syncer', clusters: ['pc1', 'pc2', { name: 'pc3', deploymentSchema: 'replicas-as-string' }], multicluster: fastSync(), register: false });
    up = fleet.up;
    down = fleet.clusters.map((c) => c.client);
  });

  after(async () => {
    await fleet?.stop();
  });

  const register = (i: number) => fleet.register(`pc${i}`);

  const stateOf = async (i: number, resource: string) => {
    const st = await up.get(syncTargetsGVR, `pc${i}`);
    return ((st.status as { syncedResources?: { resource: string; state: string; message?: string }[] })?.syncedResources ?? []).find((r) => r.resource === resource);
  };

  it('registers clusters, reports heartbeat, capacity and Ready, and serves Deployments built in (no negotiated CRD)', async () => {
    await register(1);
    await register(2);
    const st = await eventually('pc1 Ready', async () => {
      const o = await up.get(syncTargetsGVR, 'pc1');
      const s = o.status as { conditions?: { type: string; status: string }[] } | undefined;
      return s?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && o;
    });
    const status = st.status as Record<string, any>;
    assert.ok(status.lastSyncerHeartbeatTime);
    assert.equal(status.capacity.cpu, '4');
    assert.equal(status.allocatable.pods, '110');
    assert.ok(st.metadata?.labels?.['internal.workload.kcp.io/key']);
    assert.ok(st.metadata?.finalizers?.includes('workload.kcp.io/synctarget'));
    await eventually('deployments Accepted on pc1', async () => (await stateOf(1, 'deployments'))?.state === 'Accepted').catch(async (e) => {
      console.log('DEBUG', JSON.stringify(await stateOf(1, 'deployments')), JSON.stringify((await up.list({ group: 'apiresource.kcp.io', version: 'v1alpha1', resource: 'apiresourceimports' })).items.map((i) => [i.metadata?.name, i.status])));
      throw e;
    });
    await eventually('deployments Accepted on pc2', async () => (await stateOf(2, 'deployments'))?.state === 'Accepted');
    const crd = await up.get({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, 'deployments.apps').catch((e: { code?: number }) => e.code);
    assert.equal(crd, 404, 'no CRD is published for a type atrium serves built in');
    const imp = await up.get({ group: 'apiresource.kcp.io', version: 'v1alpha1', resource: 'apiresourceimports' }, 'deployments.pc1.v1.apps');
    const impSpec = imp.spec as { shortNames?: string[]; categories?: string[] };
    assert.deepEqual([impSpec.shortNames, impSpec.categories], [['deploy'], ['all']], 'the import carries what the cluster\'s discovery gives');
    const enforced = (imp.status as { conditions?: { type: string; status: string; reason?: string }[] }).conditions?.find((c) => c.type === 'Available');
    assert.deepEqual([enforced?.status, enforced?.reason], ['True', 'Enforced']);
    const discovery = await fleet.atrium.request('GET', '/apis/apps/v1');
    const deploy = discovery.json.resources.find((r: { name: string }) => r.name === 'deployments');
    assert.deepEqual([deploy.shortNames, deploy.categories], [['deploy'], ['all']]);
    // Negotiation decides each resource on its own: the others are Accepted soon after (not necessarily together).
    await eventually('services Accepted on pc1', async () => (await stateOf(1, 'services'))?.state === 'Accepted');
    await eventually('configmaps Accepted on pc1', async () => (await stateOf(1, 'configmaps'))?.state === 'Accepted');
  });

  it('syncs a labelled Deployment, Service and ConfigMap down and status up', async () => {
    await up.create(namespacesGVR, { metadata: { name: 'demo' } });
    await up.create(deploymentsGVR, labelled({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'demo' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } }, 'pc1'));
    await up.create(servicesGVR, labelled({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'demo' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, 'pc1'));
    await up.create(configMapsGVR, labelled({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'demo' }, data: { a: '1' } }, 'pc1'));
    const ns = await eventually('downstream namespace on pc1', () => downstreamNamespaceOf(down[0]!, 'demo'));
    assert.match(ns, /^kcp-[0-9a-z]{12}$/);
    const d = await eventually('deployment on pc1', () => down[0]!.get(deploymentsGVR, 'web', { namespace: ns }));
    assert.equal((d.spec as any).replicas, 2);
    assert.equal(d.metadata?.labels?.['workload.kcp.io/cluster'], undefined);
    assert.ok(d.metadata?.labels?.['internal.workload.kcp.io/cluster']);
    await eventually('service on pc1', () => down[0]!.get(servicesGVR, 'web', { namespace: ns }));
    const cm = await eventually('configmap on pc1', () => down[0]!.get(configMapsGVR, 'cfg', { namespace: ns }));
    assert.deepEqual(cm.data, { a: '1' });
    const upDeploy = await eventually('status up', async () => {
      const o = await up.get(deploymentsGVR, 'web', { namespace: 'demo' });
      return (o.status as any)?.readyReplicas === 2 && o;
    });
    assert.ok(upDeploy.metadata?.finalizers?.some((f) => f.startsWith('workload.kcp.io/syncer-')));
    assert.equal(await downstreamNamespaceOf(down[1]!, 'demo'), undefined);
    // spec changes flow down
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 3 } }, { namespace: 'demo' });
    await eventually('replicas 3 on pc1', async () => ((await down[0]!.get(deploymentsGVR, 'web', { namespace: ns })).spec as any).replicas === 3);
  });

  it('moves objects to another cluster when the label changes', async () => {
    for (const [gvr, name] of [[deploymentsGVR, 'web'], [servicesGVR, 'web'], [configMapsGVR, 'cfg']] as const) {
      await up.patch(gvr, name, 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'pc2' } } }, { namespace: 'demo' });
    }
    const ns2 = await eventually('downstream namespace on pc2', () => downstreamNamespaceOf(down[1]!, 'demo'));
    await eventually('deployment on pc2', () => down[1]!.get(deploymentsGVR, 'web', { namespace: ns2 }));
    await eventually('configmap on pc2', () => down[1]!.get(configMapsGVR, 'cfg', { namespace: ns2 }));
    const ns1 = (await downstreamNamespaceOf(down[0]!, 'demo'))!;
    await eventually('gone from pc1', async () => (await down[0]!.list(deploymentsGVR, { namespace: ns1 })).items.length === 0 && (await down[0]!.list(configMapsGVR, { namespace: ns1 })).items.every((c) => c.metadata?.name === 'kube-root-ca.crt'));
    await eventually('one syncer finalizer left', async () => {
      const o = await up.get(deploymentsGVR, 'web', { namespace: 'demo' });
      return o.metadata?.finalizers?.filter((f) => f.startsWith('workload.kcp.io/syncer-')).length === 1;
    });
  });

  it('keeps a condition someone else set upstream when the cluster\'s status comes up', async () => {
    const before = (await up.get(deploymentsGVR, 'web', { namespace: 'demo' })).status as { conditions?: { type: string }[] };
    const custom = { type: 'StatusPatched', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'E2E', message: 'set upstream' };
    await up.patch(deploymentsGVR, 'web', 'merge', { status: { conditions: [...(before.conditions ?? []), custom] } }, { namespace: 'demo', subresource: 'status' });
    // A new status from the cluster (scaled down) replaces the upstream one, but for the condition it does not manage.
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 2 } }, { namespace: 'demo' });
    const back = await eventually('the new status up', async () => {
      const s = (await up.get(deploymentsGVR, 'web', { namespace: 'demo' })).status as any;
      return s?.replicas === 2 && s?.readyReplicas === 2 && s;
    });
    // (lastUpdateTime: null as kube-apiserver stores a DeploymentCondition without one.)
    assert.deepEqual((back.conditions as { type: string }[]).find((c) => c.type === 'StatusPatched'), { ...custom, lastUpdateTime: null });
    assert.deepEqual((back.conditions as { type: string }[]).map((c) => c.type).sort(), ['Available', 'Progressing', 'StatusPatched']);
  });

  it('a DELETE removes the upstream object at once; the downstream copy follows', async () => {
    const ns2 = (await downstreamNamespaceOf(down[1]!, 'demo'))!;
    assert.equal((await down[1]!.list(deploymentsGVR, { namespace: ns2 })).items.length, 1);
    await up.delete(deploymentsGVR, 'web', { namespace: 'demo' });
    // Unlike kcp, the syncer finalizer does not hold the deleted object (decisions/deletion.ts): gone as on one cluster.
    await assert.rejects(up.get(deploymentsGVR, 'web', { namespace: 'demo' }), (err: { code?: number }) => err.code === 404);
    await eventually('downstream deployment gone', async () => (await down[1]!.list(deploymentsGVR, { namespace: ns2 })).items.length === 0);
  });

  it('replaces the copy of an object deleted and made again under the same name instead of adopting it', async () => {
    const ns2 = (await downstreamNamespaceOf(down[1]!, 'demo'))!;
    const before = await down[1]!.get(configMapsGVR, 'cfg', { namespace: ns2 });
    const old = await up.get(configMapsGVR, 'cfg', { namespace: 'demo' });
    assert.equal(before.metadata?.annotations?.['internal.workload.kcp.io/upstream-uid'], old.metadata?.uid);
    await up.delete(configMapsGVR, 'cfg', { namespace: 'demo' });
    const made = await up.create(configMapsGVR, labelled({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'demo' }, data: { a: '1' } }, 'pc2'));
    const after = await eventually('a new copy of the new object', async () => {
      const c = await down[1]!.get(configMapsGVR, 'cfg', { namespace: ns2 }).catch(() => undefined);
      return c?.metadata?.annotations?.['internal.workload.kcp.io/upstream-uid'] === made.metadata?.uid && c;
    });
    assert.notEqual(after.metadata?.uid, before.metadata?.uid);
  });

  it('marks a cluster whose Deployment schema disagrees Incompatible with the exact field path', async () => {
    await register(3);
    const r = await eventually('deployments Incompatible on pc3', async () => {
      const s = await stateOf(3, 'deployments');
      return s?.state === 'Incompatible' && s;
    });
    assert.equal(r.message, 'spec.replicas: type "string" in the cluster does not accept "integer"');
    // The type stays served natively, with its built-in schema: replicas is an integer.
    const bad = await fleet.atrium.request('POST', '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'bad' }, spec: { replicas: 'two', selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
    assert.equal(bad.status, 400, bad.text);
    await eventually('configmaps Accepted on pc3', async () => (await stateOf(3, 'configmaps'))?.state === 'Accepted');
    assert.equal((await stateOf(1, 'deployments'))?.state, 'Accepted');
  });

  it('removes a SyncTarget only after its downstream objects are gone', async () => {
    const ns2 = (await downstreamNamespaceOf(down[1]!, 'demo'))!;
    assert.ok((await down[1]!.list(servicesGVR, { namespace: ns2 })).items.length === 1);
    await up.delete(syncTargetsGVR, 'pc2');
    await eventually('pc2 SyncTarget gone', async () => {
      try {
        await up.get(syncTargetsGVR, 'pc2');
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
    await eventually('downstream namespace removed from pc2', async () => (await downstreamNamespaceOf(down[1]!, 'demo')) === undefined);
    const svc = await up.get(servicesGVR, 'web', { namespace: 'demo' });
    assert.ok(!svc.metadata?.finalizers?.some((f) => f.startsWith('workload.kcp.io/syncer-')));
  });
});
