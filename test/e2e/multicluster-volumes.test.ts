/**
 * PersistentVolumes in a workspace with compute, with the real kubectl over two simulated clusters:
 * - its clusters' volumes bound to its claims are shown (get and list, as its Nodes), read from each cluster on
 *   request, with claimRef naming the upstream namespace and claim uid; a cluster's other volumes (its own, another
 *   namespace's) are not shown; a cluster that cannot be reached is left out with a warning;
 * - a user's own volumes (statically provisioned: kubernetes.io's "Configure a Pod to Use a PersistentVolume for
 *   Storage" tutorial, a claim naming its volume) are stored in the workspace, bound to claims there as the PV
 *   controller binds them, and go to the cluster their claim goes to as a copy pre-bound to it; released by their
 *   reclaim policy.
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

describe('PersistentVolumes in a workspace: its own, and its clusters\' volumes bound to its claims', () => {
  let fleet: InProcessFleet;
  const kubectl = (args: string[]) => runKubectl(fleet.kubeconfig, args);
  /** The claims' upstream uid and the volume each is bound to. */
  const claims: Record<string, { uid: string; volume: string; namespace: string }> = {};

  before(async () => {
    fleet = await startFleet({ name: 'volumes', clusters: [A, B], bindCompute: true, multicluster: { heartbeatThresholdMs: 5000, pushSyncer: { heartbeatIntervalMs: 500, importPollIntervalMs: 500 } } });
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

  it('is discovered as persistentvolumes (pv), cluster-scoped, with every verb', async () => {
    const r = await kubectl(['api-resources', '--api-group=', '-o', 'wide']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume\s+create,delete,deletecollection,get,list,patch,update,watch\s*$/m);
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

  it('gets one by name; another\'s volume and a missing one are NotFound; a cluster\'s volume is not the workspace\'s to delete', async () => {
    const one = await kubectl(['get', 'pv', claims.logs!.volume, '-o', 'jsonpath={.spec.claimRef.namespace}/{.spec.claimRef.name}']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, 'other/logs');
    for (const name of ['foreign-pv', 'loose-pv', 'no-such-pv']) {
      const r = await kubectl(['get', 'pv', name]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`persistentvolumes "${name}" not found`));
    }
    const del = await kubectl(['delete', 'pv', claims.data!.volume]);
    assert.notEqual(del.code, 0, 'a cluster\'s volume is only shown');
    assert.match(del.stderr, new RegExp(`persistentvolumes "${claims.data!.volume}" not found`));
  });

  const tutorial = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: task-pv-volume
  labels:
    type: local
spec:
  storageClassName: manual
  capacity:
    storage: 10Gi
  accessModes:
    - ReadWriteOnce
  hostPath:
    path: "/mnt/data"
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: task-pv-claim
spec:
  storageClassName: manual
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 3Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: task-pv-pod
spec:
  volumes:
    - name: task-pv-storage
      persistentVolumeClaim:
        claimName: task-pv-claim
  containers:
    - name: task-pv-container
      image: nginx
      ports:
        - containerPort: 80
          name: "http-server"
      volumeMounts:
        - mountPath: "/usr/share/nginx/html"
          name: task-pv-storage
`;

  /** The copy of workspace volume `name` on the cluster the upstream pod `pod` runs on, and that cluster. */
  const copyOf = async (name: string, pod: string) => {
    const up = (await fleet.up.get(podsGVR, pod, { namespace: 'default' })) as KubeObject & { spec: { nodeName?: string } };
    const cluster = [A, B].find((c) => up.spec.nodeName?.startsWith(`${c}--`));
    assert.ok(cluster, `${pod} runs on a cluster: ${up.spec.nodeName}`);
    const copies = (await fleet.cluster(cluster).client.list(pvGVR)).items as PV[];
    const copy = copies.find((p) => p.metadata?.annotations?.['scheduling.atrium.io/workspace-volume-source']?.endsWith(`/${name}`));
    return { cluster, copy };
  };

  it("a user's volume: `kubectl apply` of the PersistentVolume tutorial binds in the workspace and the pod runs on a cluster with the volume", async () => {
    const r = await runKubectl(fleet.kubeconfig, ['apply', '-f', '-'], { input: tutorial });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /persistentvolume\/task-pv-volume created/);
    // Bound in the workspace as on one cluster: the claim of class manual takes the volume of class manual.
    await eventually('the volume Bound to default/task-pv-claim', async () => {
      const pv = await kubectl(['get', 'pv', 'task-pv-volume']);
      return /^task-pv-volume\s+10Gi\s+RWO\s+Retain\s+Bound\s+default\/task-pv-claim\s+manual\s/m.test(pv.stdout) || undefined;
    }, 30_000);
    const pvc = await kubectl(['get', 'pvc', 'task-pv-claim']);
    assert.match(pvc.stdout, /^task-pv-claim\s+Bound\s+task-pv-volume\s+10Gi\s+RWO\s+manual\s/m, pvc.stdout);
    await eventually('task-pv-pod Running', async () => ((await kubectl(['get', 'pod', 'task-pv-pod', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running') || undefined, 60_000);
    // On the pod's cluster: a copy pre-bound to the claim there (never another workspace's claim), which the cluster bound.
    const { cluster, copy } = await copyOf('task-pv-volume', 'task-pv-pod');
    assert.ok(copy, 'the volume was copied to the pod\'s cluster');
    assert.equal(copy.spec.claimRef?.name, 'task-pv-claim');
    assert.equal((copy as PV & { status?: { phase?: string } }).status?.phase, 'Bound');
    assert.equal((copy.spec as { persistentVolumeReclaimPolicy?: string }).persistentVolumeReclaimPolicy, 'Retain', 'the cluster never deletes the storage behind it');
    const downClaim = (await fleet.cluster(cluster).client.get(pvcGVR, 'task-pv-claim', { namespace: copy.spec.claimRef!.namespace })) as KubeObject & { spec: { volumeName?: string } };
    assert.equal(downClaim.spec.volumeName, copy.metadata!.name, 'the cluster\'s claim is bound to the copy, not a provisioned volume');
    // The workspace lists its own volume, never the copy.
    const names = (await kubectl(['get', 'pv', '-o', 'name'])).stdout.trim().split('\n');
    assert.ok(names.includes('persistentvolume/task-pv-volume'), names.join(' '));
    assert.ok(!names.includes(`persistentvolume/${copy.metadata!.name}`), names.join(' '));
  });

  it("a claim naming its volume (spec.volumeName) binds that one and no provisioned volume; reclaim policies act when claims go", async () => {
    const manifest = `apiVersion: v1
kind: PersistentVolume
metadata: {name: named-pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadOnlyMany]
  persistentVolumeReclaimPolicy: Delete
  nfs: {server: nfs.example.com, path: /exports}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: named-claim}
spec:
  accessModes: [ReadOnlyMany]
  resources: {requests: {storage: 1Gi}}
  volumeName: named-pv
---
apiVersion: v1
kind: Pod
metadata: {name: named-pod}
spec:
  volumes: [{name: v, persistentVolumeClaim: {claimName: named-claim}}]
  containers: [{name: main, image: nginx, volumeMounts: [{name: v, mountPath: /data}]}]
`;
    const r = await runKubectl(fleet.kubeconfig, ['apply', '-f', '-'], { input: manifest });
    assert.equal(r.code, 0, r.stderr);
    await eventually('named-pod Running', async () => ((await kubectl(['get', 'pod', 'named-pod', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running') || undefined, 60_000);
    assert.equal((await kubectl(['get', 'pv', 'named-pv', '-o', 'jsonpath={.status.phase} {.spec.claimRef.name}'])).stdout, 'Bound named-claim');
    const { cluster, copy } = await copyOf('named-pv', 'named-pod');
    assert.ok(copy, 'the volume was copied to the pod\'s cluster');
    const downClaim = (await fleet.cluster(cluster).client.get(pvcGVR, 'named-claim', { namespace: copy.spec.claimRef!.namespace })) as KubeObject & { spec: { volumeName?: string } };
    assert.equal(downClaim.spec.volumeName, copy.metadata!.name);
    // Claims gone: Delete deletes the workspace's volume object, Retain keeps it Released; the copies leave the cluster.
    const gone = await kubectl(['delete', 'pod', 'task-pv-pod', 'named-pod', '--wait=true']);
    assert.equal(gone.code, 0, gone.stderr);
    assert.equal((await kubectl(['delete', 'pvc', 'task-pv-claim', 'named-claim', '--wait=true'])).code, 0);
    await eventually('named-pv deleted (reclaim policy Delete)', async () => /not found/.test((await kubectl(['get', 'pv', 'named-pv'])).stderr) || undefined, 30_000);
    await eventually('task-pv-volume Released (reclaim policy Retain)', async () => ((await kubectl(['get', 'pv', 'task-pv-volume', '-o', 'jsonpath={.status.phase}'])).stdout === 'Released') || undefined, 30_000);
    await eventually('the copies left the clusters', async () => {
      for (const c of [A, B]) {
        const left = ((await fleet.cluster(c).client.list(pvGVR)).items as PV[]).filter((p) => p.metadata?.labels?.['scheduling.atrium.io/workspace-volume-copy']);
        if (left.length) return undefined;
      }
      return true;
    }, 30_000);
    const del = await kubectl(['delete', 'pv', 'task-pv-volume']);
    assert.equal(del.code, 0, del.stderr);
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
