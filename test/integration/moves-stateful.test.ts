/**
 * Moves of StatefulSets with claims (issue #15), in process: atrium and two simulated clusters. A namespace pinned to
 * st-a runs two StatefulSets with volumeClaimTemplates; the namespace is moved to st-b. The one without a move policy
 * is refused: it keeps running on st-a, with `Moving=False, reason DataWouldBeLost` naming the clusters and the
 * annotation, and a Warning Event. The one annotated `scheduling.atrium.io/move-policy: AllowDataLoss` moves to st-b,
 * its condition saying its claims there start empty.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fastScheduling, startFleet, type InProcessFleet } from '../helpers/fleet.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { eventually } from '../helpers/eventually.js';
import { syncTargetKey } from '../../src/multicluster/api/keys.js';

const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });
const G = { ns: gvr('', 'v1', 'namespaces'), sts: gvr('apps', 'v1', 'statefulsets'), events: gvr('', 'v1', 'events') };
const NS = 'store';

function statefulSet(name: string, policy?: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, ...(policy ? { annotations: { 'scheduling.atrium.io/move-policy': policy } } : {}) },
    spec: {
      replicas: 1,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'db', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  };
}

describe('moves: a StatefulSet with claims is refused a move by default, moved when its policy allows data loss', { timeout: 240_000 }, () => {
  let fleet: InProcessFleet;
  const downstream = async (cluster: string) =>
    (await fleet.cluster(cluster).client.list(G.sts)).items.filter((s) => !s.metadata?.deletionTimestamp).map((s) => s.metadata!.name!).sort();
  const moving = (o: KubeObject | undefined) => {
    const text = o?.metadata?.annotations?.['scheduling.atrium.io/moving'];
    return text ? (JSON.parse(text) as { type: string; status: string; reason: string; message: string }) : undefined;
  };

  before(async () => {
    fleet = await startFleet({
      name: 'moves-stateful',
      clusters: [
        { name: 'st-a', nodes: 1 },
        { name: 'st-b', nodes: 1 },
      ],
      // Heartbeats judged over 20 s, so a loaded machine does not make a live cluster look lost.
      multicluster: { ...fastScheduling(), heartbeatThresholdMs: 20_000, scheduling: { tolerationSeconds: 5, resyncMs: 300 } },
      bindCompute: true,
      waitReady: { resources: ['statefulsets', 'persistentvolumeclaims'], timeoutMs: 90_000 },
    });
    await fleet.up.create(G.ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { 'workload.kcp.io/cluster': 'st-a' } } });
    await eventually(`the StatefulSet API in ${NS}`, () => fleet.up.list(G.sts, { namespace: NS }));
    await fleet.up.create(G.sts, statefulSet('db'), { namespace: NS });
    await fleet.up.create(G.sts, statefulSet('cache', 'AllowDataLoss'), { namespace: NS });
  });

  after(async () => {
    await fleet?.stop();
  });

  it('runs both on st-a', async () => {
    await eventually('db and cache on st-a', async () => JSON.stringify(await downstream('st-a')) === '["cache","db"]', 90_000);
    assert.deepEqual(await downstream('st-b'), []);
  });

  it('the namespace moves to st-b: db stays on st-a with Moving=False/DataWouldBeLost and an Event; cache moves, saying its claims start empty', async () => {
    await fleet.up.patch(G.ns, NS, 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'st-b' } } });
    const keyA = syncTargetKey(fleet.workspace.cluster, 'st-a');
    let last = '';
    await eventually('db refused, cache moved', async () => {
      const db = await fleet.up.get(G.sts, 'db', { namespace: NS });
      const cache = await fleet.up.get(G.sts, 'cache', { namespace: NS });
      const a = await downstream('st-a');
      const b = await downstream('st-b');
      last = JSON.stringify({ a, b, db: moving(db), cache: moving(cache), dbLabels: db.metadata?.labels });
      return moving(db)?.reason === 'DataWouldBeLost' && moving(cache)?.reason === 'MovedWithoutData' && JSON.stringify(a) === '["db"]' && JSON.stringify(b) === '["cache"]';
    }, 120_000).catch((e) => {
      throw new Error(`${(e as Error).message}; last: ${last}`);
    });
    const db = await fleet.up.get(G.sts, 'db', { namespace: NS });
    assert.equal(db.metadata?.labels?.[`state.workload.kcp.io/${keyA}`], 'Sync', 'db stays assigned to st-a');
    const c = moving(db)!;
    assert.equal(c.type, 'Moving');
    assert.equal(c.status, 'False');
    assert.match(c.message, /not moved off "st-a".*to "st-b".*data-db-0.*new, empty claims.*scheduling\.atrium\.io\/move-policy=AllowDataLoss/);
    assert.match(moving(await fleet.up.get(G.sts, 'cache', { namespace: NS }))!.message, /moved off "st-a" to "st-b".*data-cache-0\) on "st-b" start new and empty/);
    await eventually('a Warning Event DataWouldBeLost on db', async () =>
      (await fleet.up.list(G.events, { namespace: NS })).items.some((e) => (e as { involvedObject?: { name?: string }; reason?: string; type?: string }).involvedObject?.name === 'db' && (e as { reason?: string }).reason === 'DataWouldBeLost' && (e as { type?: string }).type === 'Warning'),
    30_000);
    // Still there a little later: the refusal holds, it is not a step of a slow move.
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await downstream('st-a'), ['db']);
  });

  it('moved back to st-a: the refusal is over, its condition is removed', async () => {
    await fleet.up.patch(G.ns, NS, 'merge', { metadata: { labels: { 'workload.kcp.io/cluster': 'st-a' } } });
    await eventually('db without a standing Moving condition', async () => moving(await fleet.up.get(G.sts, 'db', { namespace: NS })) === undefined, 60_000);
    assert.deepEqual(await downstream('st-a').then((a) => a.includes('db')), true);
  });
});
