/**
 * Volumes in the simulated cluster, over HTTPS against a real `atrium pcluster` with a 20Gi storage capacity: the
 * default StorageClass it starts with (kept across restarts as the user left it), the DefaultStorageClass and
 * StorageObjectInUseProtection admission, WaitForFirstConsumer provisioning through the scheduler (volume pinned to
 * the pod's node), Immediate classes, static volumes, reclaim (Delete and Retain), pvc-protection, the capacity
 * (ProvisioningFailed, and binding once space is freed), and pods held back by claims that are not bound.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;
const core = '/api/v1';
const ns = `${core}/namespaces/default`;
const storage = '/apis/storage.k8s.io/v1';
const merge = { 'Content-Type': 'application/merge-patch+json' };

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-storage-'));
  const cluster = await startPcluster({ name: 'vol', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 2, readyDelayMs: 200, storageCapacity: '20Gi' });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

async function create(path: string, body: unknown): Promise<any> {
  const r = await ts.request('POST', path, body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}

const get = async (path: string): Promise<any> => {
  const r = await ts.request('GET', path);
  return r.status === 200 ? r.json : undefined;
};

const claim = (name: string, size: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...meta },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...spec },
});

const podUsing = (name: string, claims: string[], spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: [{ name: 'c', image: 'busybox', volumeMounts: claims.map((c) => ({ name: c, mountPath: `/${c}` })) }],
    volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })),
    ...spec,
  },
});

const storageClass = (name: string, extra: Record<string, unknown>) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'atrium.io/simulated', ...extra });

/** The Events about an object in default, by reason; undefined while there are none (for `eventually`). */
async function eventsAbout(name: string, reason?: string): Promise<any[] | undefined> {
  const items = (await get(`${ns}/events`))?.items ?? [];
  const found = items.filter((e: any) => e.involvedObject?.name === name && (!reason || e.reason === reason));
  return found.length ? found : undefined;
}

const bound = (name: string, timeoutMs = 15_000) =>
  eventually(`claim ${name} Bound`, async () => {
    const c = await get(`${ns}/persistentvolumeclaims/${name}`);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, timeoutMs);

const gone = (path: string, timeoutMs = 15_000) => eventually(`${path} gone`, async () => (await ts.request('GET', path)).status === 404, timeoutMs);

describe('pcluster storage classes and admission', () => {
  it('starts with kind’s default StorageClass standard and the default IngressClass atrium', async () => {
    const sc = await get(`${storage}/storageclasses/standard`);
    assert.equal(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class'], 'true');
    assert.deepEqual([sc.provisioner, sc.reclaimPolicy, sc.volumeBindingMode], ['atrium.io/simulated', 'Delete', 'WaitForFirstConsumer']);
    const ic = await get('/apis/networking.k8s.io/v1/ingressclasses/atrium');
    assert.equal(ic.metadata.annotations['ingressclass.kubernetes.io/is-default-class'], 'true');
    assert.equal(ic.spec.controller, 'atrium.io/ingress-nginx-sim');
  });

  it('gives a claim without a class the default class, leaves "" and named classes alone, and protects claims and volumes', async () => {
    const plain = await create(`${ns}/persistentvolumeclaims`, claim('adm-plain', '1Gi'));
    assert.equal(plain.spec.storageClassName, 'standard');
    assert.deepEqual(plain.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    // managedFields record the create before mutating admission, as kube-apiserver's: the default class and the
    // protection finalizer admission added are owned by no manager; what the writer sent is its own.
    const owned = JSON.stringify(plain.metadata.managedFields);
    assert.ok(owned.includes('"f:resources"'), owned);
    assert.ok(!owned.includes('f:storageClassName') && !owned.includes('f:finalizers'), owned);
    const empty = await create(`${ns}/persistentvolumeclaims`, claim('adm-empty', '1Gi', { storageClassName: '' }));
    assert.equal(empty.spec.storageClassName, '');
    const named = await create(`${ns}/persistentvolumeclaims`, claim('adm-named', '1Gi', { storageClassName: 'gold' }));
    assert.equal(named.spec.storageClassName, 'gold');
    const beta = await create(`${ns}/persistentvolumeclaims`, claim('adm-beta', '1Gi', {}, { annotations: { 'volume.beta.kubernetes.io/storage-class': 'silver' } }));
    assert.equal(beta.spec.storageClassName, undefined);
    const pv = await create(`${core}/persistentvolumes`, { metadata: { name: 'adm-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'nothing-matches', hostPath: { path: '/data/adm' } } });
    assert.deepEqual(pv.metadata.finalizers, ['kubernetes.io/pv-protection']);
    // An unclaimed volume becomes Available; a claim of a class that does not exist is told so.
    await eventually('adm-pv Available', async () => (await get(`${core}/persistentvolumes/adm-pv`))?.status?.phase === 'Available');
    const [failed] = await eventually('ProvisioningFailed for gold', () => eventsAbout('adm-named', 'ProvisioningFailed'));
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, 'storageclass.storage.k8s.io "gold" not found');
    const [none] = await eventually('FailedBinding for ""', () => eventsAbout('adm-empty', 'FailedBinding'));
    assert.equal(none.message, 'no persistent volumes available for this claim and no storage class is set');
    for (const name of ['adm-plain', 'adm-empty', 'adm-named', 'adm-beta']) await ts.request('DELETE', `${ns}/persistentvolumeclaims/${name}`);
    await ts.request('DELETE', `${core}/persistentvolumes/adm-pv`);
    // Nothing uses them: the protection finalizers come off and they are gone.
    for (const name of ['adm-plain', 'adm-empty', 'adm-named', 'adm-beta']) await gone(`${ns}/persistentvolumeclaims/${name}`);
    await gone(`${core}/persistentvolumes/adm-pv`);
  });
});

describe('pcluster volume provisioning and binding', () => {
  it('WaitForFirstConsumer: a claim waits for its first pod, then gets a volume pinned to the pod’s node, and the pod runs', async () => {
    const c = await create(`${ns}/persistentvolumeclaims`, claim('data', '1Gi'));
    const [waiting] = await eventually('WaitForFirstConsumer', () => eventsAbout('data', 'WaitForFirstConsumer'));
    assert.deepEqual([waiting.type, waiting.message, waiting.source.component], ['Normal', 'waiting for first consumer to be created before binding', 'persistentvolume-controller']);
    assert.equal((await get(`${ns}/persistentvolumeclaims/data`)).status.phase, 'Pending');

    await create(`${ns}/pods`, podUsing('data-user', ['data']));
    const pvc = await bound('data');
    const pvName = `pvc-${c.metadata.uid}`;
    assert.equal(pvc.spec.volumeName, pvName);
    assert.deepEqual(pvc.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    const node = pvc.metadata.annotations['volume.kubernetes.io/selected-node'];
    assert.match(node, /^vol-node-[12]$/);
    for (const [k, v] of Object.entries({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.kubernetes.io/storage-provisioner': 'atrium.io/simulated',
      'volume.beta.kubernetes.io/storage-provisioner': 'atrium.io/simulated',
    })) {
      assert.equal(pvc.metadata.annotations[k], v, k);
    }

    const pv = await eventually('volume Bound', async () => {
      const v = await get(`${core}/persistentvolumes/${pvName}`);
      return v?.status?.phase === 'Bound' ? v : undefined;
    });
    assert.equal(pv.metadata.annotations['pv.kubernetes.io/provisioned-by'], 'atrium.io/simulated');
    assert.deepEqual(pv.metadata.finalizers, ['kubernetes.io/pv-protection']);
    assert.deepEqual(pv.spec.capacity, { storage: '1Gi' });
    assert.deepEqual([pv.spec.claimRef.namespace, pv.spec.claimRef.name, pv.spec.claimRef.uid], ['default', 'data', c.metadata.uid]);
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
    assert.equal(pv.spec.storageClassName, 'standard');
    assert.deepEqual(pv.spec.nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }]);

    const running = await eventually('data-user Running', async () => {
      const p = await get(`${ns}/pods/data-user`);
      return p?.status?.phase === 'Running' ? p : undefined;
    });
    assert.equal(running.spec.nodeName, node);
    const events = ((await eventsAbout('data')) ?? []).map((e: any) => e.reason);
    for (const reason of ['Provisioning', 'ProvisioningSucceeded']) assert.ok(events.includes(reason), `${reason} in ${events}`);
    const scheduled = await eventually('Scheduled event', () => eventsAbout('data-user', 'Scheduled'));
    assert.equal(scheduled[0].message, `Successfully assigned default/data-user to ${node}`);

    // A second pod of the same claim follows the volume to its node.
    await create(`${ns}/pods`, podUsing('data-user-2', ['data'], { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '10m' } } }] }));
    const second = await eventually('data-user-2 Running', async () => {
      const p = await get(`${ns}/pods/data-user-2`);
      return p?.status?.phase === 'Running' ? p : undefined;
    });
    assert.equal(second.spec.nodeName, node);
  });

  it('pvc-protection keeps a claim in use until its pods are gone; then the Delete policy removes the volume', async () => {
    const pvName = (await get(`${ns}/persistentvolumeclaims/data`)).spec.volumeName;
    const del = await ts.request('DELETE', `${ns}/persistentvolumeclaims/data`);
    assert.equal(del.status, 200, del.text);
    await new Promise((r) => setTimeout(r, 500));
    const terminating = await get(`${ns}/persistentvolumeclaims/data`);
    assert.ok(terminating.metadata.deletionTimestamp, 'still there, being deleted');
    assert.deepEqual(terminating.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    // A new pod cannot use a claim that is being deleted.
    await create(`${ns}/pods`, podUsing('late-user', ['data']));
    const cond = await eventually('late-user unschedulable', async () => (await get(`${ns}/pods/late-user`))?.status?.conditions?.find((c: any) => c.type === 'PodScheduled'));
    assert.deepEqual([cond.status, cond.reason, cond.message], ['False', 'Unschedulable', '0/2 nodes are available: persistentvolumeclaim "data" is being deleted.']);
    for (const p of ['data-user', 'data-user-2', 'late-user']) await ts.request('DELETE', `${ns}/pods/${p}`);
    await gone(`${ns}/persistentvolumeclaims/data`);
    await gone(`${core}/persistentvolumes/${pvName}`);
  });

  it('an Immediate class binds without a pod; with Retain its volume is Released and kept when the claim goes', async () => {
    await create(`${storage}/storageclasses`, storageClass('keep', { volumeBindingMode: 'Immediate', reclaimPolicy: 'Retain', mountOptions: ['noatime'] }));
    await create(`${ns}/persistentvolumeclaims`, claim('kept', '2Gi', { storageClassName: 'keep', accessModes: ['ReadWriteMany'] }));
    const pvc = await bound('kept');
    const pv = await get(`${core}/persistentvolumes/${pvc.spec.volumeName}`);
    assert.deepEqual([pv.spec.persistentVolumeReclaimPolicy, pv.spec.nodeAffinity, pv.spec.mountOptions, pv.spec.accessModes], ['Retain', undefined, ['noatime'], ['ReadWriteMany']]);
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/kept`);
    await gone(`${ns}/persistentvolumeclaims/kept`);
    const released = await eventually('volume Released', async () => {
      const v = await get(`${core}/persistentvolumes/${pvc.spec.volumeName}`);
      return v?.status?.phase === 'Released' ? v : undefined;
    });
    assert.equal(released.spec.claimRef.name, 'kept');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await get(`${core}/persistentvolumes/${pvc.spec.volumeName}`)).status.phase, 'Released', 'Retain keeps it');
    await ts.request('DELETE', `${core}/persistentvolumes/${pvc.spec.volumeName}`);
    await gone(`${core}/persistentvolumes/${pvc.spec.volumeName}`);
  });

  it('binds a claim to a matching static volume (smallest that fits), both Bound', async () => {
    for (const [name, size] of [['manual-big', '10Gi'], ['manual-small', '3Gi']] as const) {
      await create(`${core}/persistentvolumes`, { metadata: { name }, spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/data/${name}` } } });
    }
    const c = await create(`${ns}/persistentvolumeclaims`, claim('task-pv-claim', '3Gi', { storageClassName: 'manual' }));
    const pvc = await bound('task-pv-claim');
    assert.equal(pvc.spec.volumeName, 'manual-small');
    assert.deepEqual(pvc.status.capacity, { storage: '3Gi' });
    const pv = await eventually('manual-small Bound', async () => {
      const v = await get(`${core}/persistentvolumes/manual-small`);
      return v?.status?.phase === 'Bound' ? v : undefined;
    });
    assert.equal(pv.spec.claimRef.uid, c.metadata.uid);
    assert.equal(pv.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.equal((await get(`${core}/persistentvolumes/manual-big`)).status.phase, 'Available');
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/task-pv-claim`);
    // Static volumes default to Retain: Released, not deleted.
    await eventually('manual-small Released', async () => (await get(`${core}/persistentvolumes/manual-small`))?.status?.phase === 'Released');
    for (const name of ['manual-big', 'manual-small']) await ts.request('DELETE', `${core}/persistentvolumes/${name}`);
  });
  it('binds a claim its author pre-bound to a volume once that volume exists', async () => {
    await create(`${ns}/persistentvolumeclaims`, claim('prebound', '1Gi', { storageClassName: '', volumeName: 'prebound-pv' }));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await get(`${ns}/persistentvolumeclaims/prebound`)).status.phase, 'Pending');
    await create(`${core}/persistentvolumes`, { metadata: { name: 'prebound-pv' }, spec: { capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data/prebound' } } });
    const pvc = await bound('prebound');
    assert.deepEqual(pvc.status.capacity, { storage: '2Gi' });
    assert.equal(pvc.metadata.annotations['pv.kubernetes.io/bound-by-controller'], undefined, 'its author bound it');
    const pv = await eventually('prebound-pv Bound', async () => {
      const v = await get(`${core}/persistentvolumes/prebound-pv`);
      return v?.status?.phase === 'Bound' ? v : undefined;
    });
    assert.equal(pv.spec.claimRef.name, 'prebound');
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/prebound`);
    await eventually('prebound-pv Released', async () => (await get(`${core}/persistentvolumes/prebound-pv`))?.status?.phase === 'Released');
    await ts.request('DELETE', `${core}/persistentvolumes/prebound-pv`);
  });
});

describe('pcluster storage capacity and unbound claims', () => {
  it('a claim beyond what is left stays Pending with ProvisioningFailed, and binds once space is freed', async () => {
    await create(`${storage}/storageclasses`, storageClass('now', { volumeBindingMode: 'Immediate' }));
    const first = await bound((await create(`${ns}/persistentvolumeclaims`, claim('first', '12Gi', { storageClassName: 'now' }))).metadata.name);
    await create(`${ns}/persistentvolumeclaims`, claim('second', '12Gi', { storageClassName: 'now' }));
    const [failed] = await eventually('ProvisioningFailed', () => eventsAbout('second', 'ProvisioningFailed'));
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.source.component, 'atrium.io/simulated');
    assert.equal(failed.message, 'failed to provision volume with StorageClass "now": insufficient storage in the simulated cluster: requested 12Gi, 8Gi of 20Gi left');
    assert.equal((await get(`${ns}/persistentvolumeclaims/second`)).status.phase, 'Pending');
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/first`);
    await gone(`${core}/persistentvolumes/${first.spec.volumeName}`);
    const second = await bound('second');
    assert.deepEqual(second.status.capacity, { storage: '12Gi' });
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/second`);
  });

  it('WaitForFirstConsumer beyond the capacity: ProvisioningFailed on the claim, the pod Pending with the PreBind error', async () => {
    await create(`${ns}/persistentvolumeclaims`, claim('huge', '500Gi'));
    await create(`${ns}/pods`, podUsing('huge-user', ['huge']));
    const [failed] = await eventually('ProvisioningFailed', () => eventsAbout('huge', 'ProvisioningFailed'));
    assert.match(failed.message, /^failed to provision volume with StorageClass "standard": insufficient storage in the simulated cluster: requested 500Gi, \d+Gi of 20Gi left$/);
    const cond = await eventually('PodScheduled False', async () => (await get(`${ns}/pods/huge-user`))?.status?.conditions?.find((c: any) => c.type === 'PodScheduled' && c.status === 'False'));
    assert.deepEqual([cond.reason, cond.message], ['SchedulerError', 'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "huge"']);
    const pod = await get(`${ns}/pods/huge-user`);
    assert.equal(pod.spec.nodeName, undefined);
    assert.equal((await get(`${ns}/persistentvolumeclaims/huge`)).status.phase, 'Pending');
    await ts.request('DELETE', `${ns}/pods/huge-user`);
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/huge`);
  });

  it('a pod with an unbound Immediate claim, or a missing claim, is Unschedulable with upstream’s message', async () => {
    await create(`${storage}/storageclasses`, { metadata: { name: 'external' }, provisioner: 'example.com/nfs', volumeBindingMode: 'Immediate' });
    await create(`${ns}/persistentvolumeclaims`, claim('nfs', '1Gi', { storageClassName: 'external' }));
    await create(`${ns}/pods`, podUsing('nfs-user', ['nfs']));
    await create(`${ns}/pods`, podUsing('ghost-user', ['ghost']));
    const condOf = (name: string) => eventually(`${name} unschedulable`, async () => (await get(`${ns}/pods/${name}`))?.status?.conditions?.find((c: any) => c.type === 'PodScheduled'));
    assert.equal((await condOf('nfs-user')).message, '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.');
    assert.equal((await condOf('ghost-user')).message, '0/2 nodes are available: persistentvolumeclaim "ghost" not found.');
    const [failed] = await eventually('FailedScheduling', () => eventsAbout('ghost-user', 'FailedScheduling'));
    assert.equal(failed.type, 'Warning');
    const [external] = await eventually('ExternalProvisioning', () => eventsAbout('nfs', 'ExternalProvisioning'));
    assert.match(external.message, /^Waiting for a volume to be created either by the external provisioner 'example.com\/nfs' or manually by the system administrator\./);
    // The claim appears: the pod waits for the first consumer binding, and then runs.
    await create(`${ns}/persistentvolumeclaims`, claim('ghost', '1Gi'));
    await eventually('ghost-user Running', async () => (await get(`${ns}/pods/ghost-user`))?.status?.phase === 'Running');
    for (const p of ['nfs-user', 'ghost-user']) await ts.request('DELETE', `${ns}/pods/${p}`);
  });

  it('the kubelet does not start a pod bound to its node before its claims are Bound', async () => {
    await create(`${storage}/storageclasses`, { metadata: { name: 'manual-later' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'Immediate' });
    await create(`${ns}/persistentvolumeclaims`, claim('later', '1Gi', { storageClassName: 'manual-later' }));
    // Bound to a node by its author: the scheduler is not asked.
    await create(`${ns}/pods`, podUsing('direct', ['later'], { nodeName: 'vol-node-2' }));
    const waiting = await eventually('ContainerCreating', async () => {
      const p = await get(`${ns}/pods/direct`);
      return p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating' ? p : undefined;
    });
    assert.equal(waiting.status.phase, 'Pending');
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await get(`${ns}/pods/direct`)).status.phase, 'Pending', 'still waiting after the ready delay');
    await create(`${core}/persistentvolumes`, { metadata: { name: 'later-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual-later', hostPath: { path: '/data/later' } } });
    await bound('later');
    await eventually('direct Running', async () => (await get(`${ns}/pods/direct`))?.status?.phase === 'Running');
    await ts.request('DELETE', `${ns}/pods/direct`);
  });

  it('a claim created without a class before any default exists gets the default later (retroactive)', async () => {
    const patched = await ts.request('PATCH', `${storage}/storageclasses/standard`, { metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' } } }, { headers: merge });
    assert.equal(patched.status, 200, patched.text);
    const c = await create(`${ns}/persistentvolumeclaims`, claim('classless', '1Gi'));
    assert.equal(c.spec.storageClassName, undefined);
    await ts.request('PATCH', `${storage}/storageclasses/standard`, { metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } }, { headers: merge });
    await eventually('class assigned', async () => (await get(`${ns}/persistentvolumeclaims/classless`))?.spec?.storageClassName === 'standard');
    await ts.request('DELETE', `${ns}/persistentvolumeclaims/classless`);
  });
});

describe('pcluster bootstrap classes across restarts', () => {
  it('creates them once: a changed class survives a restart, a missing one comes back', async () => {
    const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-restart-'));
    try {
      const opts = { name: 'again', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 0 };
      let cluster = await startPcluster(opts);
      let t = harnessFor(cluster, rootDir, () => cluster.stop());
      const r = await t.request('PATCH', `${storage}/storageclasses/standard`, { metadata: { labels: { edited: 'yes' } } }, { headers: merge });
      assert.equal(r.status, 200, r.text);
      assert.equal((await t.request('DELETE', '/apis/networking.k8s.io/v1/ingressclasses/atrium')).status, 200);
      await t.stop();
      cluster = await startPcluster(opts);
      t = harnessFor(cluster, rootDir, () => cluster.stop());
      assert.equal((await t.request('GET', `${storage}/storageclasses/standard`)).json.metadata.labels.edited, 'yes');
      assert.equal((await t.request('GET', '/apis/networking.k8s.io/v1/ingressclasses/atrium')).status, 200);
      await t.stop();
    } finally {
      rmSync(rootDir, { recursive: true, force: true });
    }
  });
});
