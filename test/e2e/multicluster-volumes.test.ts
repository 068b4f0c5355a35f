/**
 * A workspace with compute shows its clusters' PersistentVolumes read-only (get and list, as its Nodes): those bound
 * to its claims, read from each cluster on request, with claimRef naming the upstream namespace and claim uid; a
 * cluster's other volumes (its own, another namespace's) are not shown. `kubectl get pv` prints them; a cluster that
 * cannot be reached is left out with a warning.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type InProcessFleet } from '../helpers/fleet.js';
import { eventually } from '../helpers/eventually.js';
import { runKubectl } from '../helpers/harness.js';
import type { KubeObject } from '../../src/apimachinery/object.js';

const podsGVR = { group: '', version: 'v1', resource: 'pods' };
const pvcGVR = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const pvGVR = { group: '', version: 'v1', resource: 'persistentvolumes' };
const nsGVR = { group: '', version: 'v1', resource: 'namespaces' };
const A = 'pv-a';
const B = 'pv-b';

interface PV extends KubeObject {
  spec: { claimRef?: { namespace?: string; name?: string; uid?: string; resourceVersion?: string }; capacity?: Record<string, string> };
}

describe('PersistentVolumes in a workspace: its clusters\' volumes bound to its claims, read-only', () => {
  let fleet: InProcessFleet;
  const kubectl = (args: string[]) => runKubectl(fleet.kubeconfig, args);
  /** The claims' upstream uid and the volume each is bound to. */
  const claims: Record<string, { uid: string; volume: string; namespace: string }> = {};

  before(async () => {
    fleet = await startFleet({ name: 'volumes', clusters: [A, B], multicluster: { heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } } });
    await fleet.waitReady(undefined, { resources: ['pods', 'persistentvolumeclaims'], timeoutMs: 60_000 });
    await kubectl(['create', 'namespace', 'other']);
    const placed = [
      { claim: 'data', namespace: 'default', cluster: A },
      { claim: 'logs', namespace: 'other', cluster: B },
    ];
    for (const p of placed) {
      const labels = { 'workload.kcp.io/cluster': p.cluster };
      await fleet.up.create(pvcGVR, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: p.claim, namespace: p.namespace, labels }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, { namespace: p.namespace });
      await fleet.up.create(podsGVR, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `uses-${p.claim}`, namespace: p.namespace, labels },
        spec: { containers: [{ name: 'main', image: 'nginx', volumeMounts: [{ name: 'v', mountPath: '/data' }] }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: p.claim } }] },
      }, { namespace: p.namespace });
    }
    for (const p of placed) {
      const c = await eventually(`${p.claim} Bound upstream with its cluster's volume`, async () => {
        const o = (await fleet.up.get(pvcGVR, p.claim, { namespace: p.namespace })) as KubeObject & { spec: { volumeName?: string }; status?: { phase?: string } };
        return o.status?.phase === 'Bound' && o.spec.volumeName ? o : undefined;
      }, 60_000);
      claims[p.claim] = { uid: c.metadata!.uid!, volume: c.spec.volumeName!, namespace: p.namespace };
    }
    // On pv-a, volumes that are not the workspace's: one claimed from a namespace of the cluster's own, one unclaimed.
    const down = fleet.cluster(A).client;
    await down.create(nsGVR, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foreign' } });
    const pv = (name: string, claimRef?: object) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...(claimRef ? { claimRef } : {}) } });
    await down.create(pvGVR, pv('foreign-pv', { kind: 'PersistentVolumeClaim', namespace: 'foreign', name: 'data' }));
    await down.create(pvGVR, pv('loose-pv'));
  });

  after(async () => {
    await fleet?.stop();
  });

  it('is discovered as persistentvolumes (pv), cluster-scoped, get and list', async () => {
    const r = await kubectl(['api-resources', '--api-group=', '-o', 'wide']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume\s+get,list\s*$/m);
  });

  it('lists the volumes bound to the workspace\'s claims, from every cluster, with claimRef in the upstream namespace', async () => {
    const r = await kubectl(['get', 'pv', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const items = (JSON.parse(r.stdout) as { kind: string; items: PV[] }).items;
    assert.deepEqual(items.map((p) => p.metadata!.name).sort(), [claims.data!.volume, claims.logs!.volume].sort());
    for (const [claim, c] of Object.entries(claims)) {
      const got = items.find((p) => p.metadata!.name === c.volume)!;
      assert.deepEqual(got.spec.claimRef, { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: c.namespace, name: claim, uid: c.uid }, `${claim}'s volume names the upstream claim`);
      assert.equal(got.spec.capacity?.storage, '1Gi');
    }
    const table = await kubectl(['get', 'pv']);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.deepEqual(lines[0]!.trim().split(/\s{2,}/), ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE']);
    for (const [claim, c] of Object.entries(claims)) {
      assert.match(table.stdout, new RegExp(`^${c.volume}\\s+1Gi\\s+RWO\\s+\\S+\\s+Bound\\s+${c.namespace}/${claim}\\s`, 'm'), table.stdout);
    }
    assert.doesNotMatch(table.stdout, /foreign-pv|loose-pv/);
  });

  it('gets one by name; another\'s volume and a missing one are NotFound; it cannot be written', async () => {
    const one = await kubectl(['get', 'pv', claims.logs!.volume, '-o', 'jsonpath={.spec.claimRef.namespace}/{.spec.claimRef.name}']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, 'other/logs');
    for (const name of ['foreign-pv', 'loose-pv', 'no-such-pv']) {
      const r = await kubectl(['get', 'pv', name]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`persistentvolumes "${name}" not found`));
    }
    const del = await kubectl(['delete', 'pv', claims.data!.volume]);
    assert.notEqual(del.code, 0, 'the view is read-only');
    assert.match(del.stderr, /\(MethodNotAllowed\): delete is not supported on resources of kind "persistentvolumes"/);
    const watch = await kubectl(['get', '--raw', '/api/v1/persistentvolumes?watch=true']);
    assert.notEqual(watch.code, 0, 'no watch');
    assert.match(watch.stderr, /\(MethodNotAllowed\): watch is not supported/);
  });

  it('leaves out a cluster that cannot be reached, with a warning', async () => {
    await fleet.cluster(B).stop();
    const r = await kubectl(['get', 'pv', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [`persistentvolume/${claims.data!.volume}`]);
    assert.match(r.stderr, /Warning: persistentvolumes of SyncTarget pv-b are left out/);
    const gone = await kubectl(['get', 'pv', claims.logs!.volume]);
    assert.match(gone.stderr, /ServiceUnavailable/);
  });
});
