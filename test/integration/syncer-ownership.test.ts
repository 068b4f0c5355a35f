/**
 * Fields a downstream controller owns flow up, and the syncing state is visible on the objects: one atrium and one
 * simulated physical cluster in push mode. An HPA stand-in scales the downstream Deployment with its own field
 * manager; the new replicas reach upstream and survive later upstream spec changes (no fight). Every synced object
 * carries a `synced.workload.kcp.io/<key>` condition, written once, flipped to False with the reason on a conflict,
 * and removed with the finalizer when the object leaves the cluster.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastSync, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { locatorOf } from '../../src/multicluster/api/keys.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventuallyWith } from '../helpers/eventually.js';

const deploymentsGVR = { group: 'apps', version: 'v1', resource: 'deployments' };
const configMapsGVR = { group: '', version: 'v1', resource: 'configmaps' };
const namespacesGVR = { group: '', version: 'v1', resource: 'namespaces' };
const syncTargetsGVR = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

const eventually = eventuallyWith({ timeoutMs: 20_000 });

describe('syncer: downstream-owned fields and Synced conditions', () => {
  let fleet: InProcessFleet;
  let up: RestClient;
  let down: RestClient;
  let key = '';
  let ns = '';
  const condition = (o: KubeObject) => {
    const t = o.metadata?.annotations?.[`synced.workload.kcp.io/${key}`];
    return t ? (JSON.parse(t) as { status: string; reason: string; message?: string; lastTransitionTime: string }) : undefined;
  };

  /**
   * A Deployment whose rollout is over: its current generation observed, every replica updated and available, none
   * of an older ReplicaSet left (what `kubectl rollout status` waits for), and Progressing=NewReplicaSetAvailable,
   * which the cluster's deployment controller writes in the same status update.
   */
  const rolledOut = (o: KubeObject, replicas: number) => {
    const s = o.status as { observedGeneration?: number; replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number; conditions?: { type?: string; reason?: string }[] } | undefined;
    return (
      s?.observedGeneration === o.metadata?.generation &&
      s?.replicas === replicas &&
      s?.updatedReplicas === replicas &&
      s?.readyReplicas === replicas &&
      s?.availableReplicas === replicas &&
      (s?.conditions ?? []).some((c) => c.type === 'Progressing' && c.reason === 'NewReplicaSetAvailable')
    );
  };

  before(async () => {
    fleet = await startFleet({ name: 'syncer-own', clusters: [{ name: 'own', readyDelayMs: 50 }], multicluster: fastSync() });
    up = fleet.up;
    down = fleet.cluster('own').client;
    key = await eventually('key label', async () => (await up.get(syncTargetsGVR, 'own')).metadata?.labels?.['internal.workload.kcp.io/key']);
    await eventually('deployments Accepted', async () => ((await up.get(syncTargetsGVR, 'own')).status as any)?.syncedResources?.find((r: any) => r.resource === 'deployments')?.state === 'Accepted');
    await up.create(namespacesGVR, { metadata: { name: 'app', labels: { 'workload.kcp.io/cluster': 'own' } } });
    await eventually('deployments served', () =>
      up.create(deploymentsGVR, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'app' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.26' }] } } } }),
    );
    ns = await eventually('downstream namespace', async () => (await down.list(namespacesGVR)).items.find((n) => locatorOf(n)?.namespace === 'app')?.metadata?.name);
    await eventually('deployment downstream', () => down.get(deploymentsGVR, 'web', { namespace: ns }));
  });

  after(async () => {
    await fleet?.stop();
  });

  it('records Synced=True once and does not rewrite it while nothing changes', async () => {
    const synced = await eventually('Synced condition', async () => {
      const o = await up.get(deploymentsGVR, 'web', { namespace: 'app' });
      return condition(o)?.status === 'True' && (o.status as any)?.readyReplicas === 1 && o;
    });
    assert.equal(condition(synced)!.reason, 'Synced');
    await new Promise((r) => setTimeout(r, 1500));
    const later = await up.get(deploymentsGVR, 'web', { namespace: 'app' });
    assert.equal(later.metadata?.annotations?.[`synced.workload.kcp.io/${key}`], synced.metadata?.annotations?.[`synced.workload.kcp.io/${key}`]);
    assert.equal(later.metadata?.resourceVersion, synced.metadata?.resourceVersion, 'steady state writes nothing upstream');
    const d = await down.get(deploymentsGVR, 'web', { namespace: ns });
    assert.equal(d.metadata?.annotations?.[`synced.workload.kcp.io/${key}`], undefined, 'the condition stays upstream');
    assert.deepEqual(d.metadata?.managedFields?.map((m: any) => m.manager).filter((m: string) => m === 'syncer'), ['syncer']);
  });

  it('reflects replicas an HPA stand-in sets downstream, and keeps them when upstream spec changes', async () => {
    await down.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 3 } }, { namespace: ns, fieldManager: 'hpa-standin' });
    await eventually('replicas 3 upstream, status too', async () => {
      const o = await up.get(deploymentsGVR, 'web', { namespace: 'app' });
      return (o.spec as any).replicas === 3 && (o.status as any)?.readyReplicas === 3;
    });
    // An upstream change of another field flows down; replicas stay what the downstream owner set.
    await up.patch(deploymentsGVR, 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }, { namespace: 'app' });
    const d = await eventually('image down', async () => {
      const o = await down.get(deploymentsGVR, 'web', { namespace: ns });
      return (o.spec as any).template.spec.containers[0].image === 'nginx:1.27' && o;
    });
    assert.equal((d.spec as any).replicas, 3);
    const owners = (d.metadata?.managedFields ?? []).filter((m: any) => m.fieldsV1?.['f:spec']?.['f:replicas']).map((m: any) => m.manager);
    assert.deepEqual(owners, ['hpa-standin'], 'the syncer did not take replicas back');
    // No fight: once the rollout the new image started is over downstream and its final status has come up, neither
    // side changes any more. Until then the status legitimately changes on both sides (pods of the new ReplicaSet
    // turning ready, old ones going) for as long as the rollout takes, which a loaded machine stretches past any fixed
    // sleep: the quiet window starts from the rollout's end, not from the image reaching the cluster.
    await eventually('rollout over downstream and reflected upstream', async () =>
      rolledOut(await down.get(deploymentsGVR, 'web', { namespace: ns }), 3) && rolledOut(await up.get(deploymentsGVR, 'web', { namespace: 'app' }), 3),
    );
    const [u1, d1] = [await up.get(deploymentsGVR, 'web', { namespace: 'app' }), await down.get(deploymentsGVR, 'web', { namespace: ns })];
    await new Promise((r) => setTimeout(r, 1000));
    const [u2, d2] = [await up.get(deploymentsGVR, 'web', { namespace: 'app' }), await down.get(deploymentsGVR, 'web', { namespace: ns })];
    assert.equal(u2.metadata?.resourceVersion, u1.metadata?.resourceVersion);
    assert.equal(d2.metadata?.resourceVersion, d1.metadata?.resourceVersion);
    assert.equal((u2.spec as any).replicas, 3);
    // The HPA scales again: the new value wins upstream too.
    await down.patch(deploymentsGVR, 'web', 'merge', { spec: { replicas: 2 } }, { namespace: ns, fieldManager: 'hpa-standin' });
    await eventually('replicas 2 upstream', async () => ((await up.get(deploymentsGVR, 'web', { namespace: 'app' })).spec as any).replicas === 2);
  });

  it('records Synced=False with the reason on a conflict, and drops the condition with the finalizer when unassigned', async () => {
    await down.create(configMapsGVR, { metadata: { name: 'taken', namespace: ns }, data: { owner: 'someone-else' } });
    await up.create(configMapsGVR, { metadata: { name: 'taken', namespace: 'app' }, data: { a: '1' } });
    const c = await eventually('Synced=False', async () => condition(await up.get(configMapsGVR, 'taken', { namespace: 'app' }))?.status === 'False' && condition(await up.get(configMapsGVR, 'taken', { namespace: 'app' })));
    assert.equal(c.reason, 'SyncConflict');
    assert.match(c.message!, /already exists in the physical cluster and was not created by this syncer/);
    assert.deepEqual((await down.get(configMapsGVR, 'taken', { namespace: ns })).data, { owner: 'someone-else' });
    const ev = await eventually('SyncConflict event', async () => (await up.list({ group: '', version: 'v1', resource: 'events' }, { namespace: 'app' })).items.find((e: any) => e.reason === 'SyncConflict' && e.involvedObject?.name === 'taken'));
    assert.equal((ev as any).type, 'Warning');

    await up.create(configMapsGVR, { metadata: { name: 'moving', namespace: 'app' }, data: { a: '1' } });
    await eventually('moving Synced', async () => condition(await up.get(configMapsGVR, 'moving', { namespace: 'app' }))?.status === 'True');
    await up.patch(configMapsGVR, 'moving', 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'elsewhere' } } }, { namespace: 'app' });
    const gone = await eventually('condition and finalizer gone', async () => {
      const o = await up.get(configMapsGVR, 'moving', { namespace: 'app' });
      return !condition(o) && !(o.metadata?.finalizers ?? []).some((f) => f.startsWith('workload.kcp.io/syncer-')) && o;
    });
    assert.ok(gone);
    await eventually('moving gone downstream', async () => !(await down.list(configMapsGVR, { namespace: ns })).items.some((o) => o.metadata?.name === 'moving'));
  });
});
