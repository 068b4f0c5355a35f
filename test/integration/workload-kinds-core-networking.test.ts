/**
 * The storage, service-plumbing and networking kinds a simulated cluster serves, over HTTPS against a server that
 * serves them as `atrium pcluster` does but without the cluster's controllers and admission (which bind claims, mark
 * volumes Available, run replication controllers and default classes; test/integration/pcluster-*.test.ts covers
 * those), so that what is checked here is the API alone: PersistentVolumeClaims, PersistentVolumes, ReplicationControllers, Endpoints, PodTemplates,
 * EndpointSlices, Ingresses, IngressClasses, NetworkPolicies and StorageClasses. For each: a realistic object read
 * back with kube-apiserver 1.32's defaults, the 422s users hit (exact messages), status and scale subresources,
 * strategic merge patch, server-side apply with two managers, protobuf create bodies from the Go client types,
 * discovery and OpenAPI v3.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { workloadResources } from '../../src/registry/builtin/workloads/resources.js';
import { decodeKubernetesProtobuf } from '../../src/apimachinery/protobuf/decode.js';

let ts: TestServer;
const core = '/api/v1';
const ns = `${core}/namespaces/default`;
const networking = '/apis/networking.k8s.io/v1';
const storage = '/apis/storage.k8s.io/v1';
const discovery = '/apis/discovery.k8s.io/v1';
const strategic = { 'Content-Type': 'application/strategic-merge-patch+json' };
const merge = { 'Content-Type': 'application/merge-patch+json' };
const apply = { 'Content-Type': 'application/apply-patch+yaml' };
const protobuf = 'application/vnd.kubernetes.protobuf';
const table = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
/** The Go-generated protobuf fixtures (test/unit/protobuf/testdata/gen/core_networking.go). */
const fixtures = fileURLToPath(new URL('../../../test/unit/protobuf/testdata/', import.meta.url));

before(async () => {
  ts = await startTestServer({ server: { builtinControllers: true, plugins: [{ name: 'workload-kinds', resources: workloadResources }] } });
});

after(async () => {
  await ts?.stop();
});

async function created(path: string, body: unknown): Promise<any> {
  const r = await ts.request('POST', path, body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}

/** A 422 Invalid whose message is exactly `<Kind> "<name>" is invalid: <causes joined with ", ">` (one cause: no brackets). */
function assertInvalid(r: HttpResponse, kindAndName: string, causes: string[]): void {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json.reason, 'Invalid');
  const joined = causes.length === 1 ? causes[0] : `[${causes.join(', ')}]`;
  assert.equal(r.json.message, `${kindAndName} is invalid: ${joined}`);
  assert.equal(r.json.details.causes.length, causes.length);
}

function tableOf(r: HttpResponse): { columns: string[]; cells: unknown[][] } {
  assert.equal(r.status, 200, r.text);
  return { columns: r.json.columnDefinitions.map((c: any) => c.name), cells: r.json.rows.map((row: any) => row.cells) };
}

// What `helm template` renders for a chart's data volume claim.
const pvc = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, labels: { 'app.kubernetes.io/name': 'shop', 'app.kubernetes.io/managed-by': 'Helm' } },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } }, ...extra },
});

describe('PersistentVolumeClaims', () => {
  it('stores a claim with volumeMode Filesystem and a Pending status, dropping volumeAttributesClassName (gate off in 1.32)', async () => {
    const claim = await created(`${ns}/persistentvolumeclaims`, pvc('data', { storageClassName: 'fast', volumeAttributesClassName: 'gold' }));
    assert.equal(claim.spec.volumeMode, 'Filesystem');
    assert.equal(claim.spec.storageClassName, 'fast');
    assert.equal(claim.spec.volumeAttributesClassName, undefined);
    assert.deepEqual(claim.status, { phase: 'Pending' });
    assert.equal(claim.metadata.generation, undefined);
    const read = (await ts.request('GET', `${ns}/persistentvolumeclaims/data`)).json;
    assert.deepEqual(read.spec, { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } }, storageClassName: 'fast', volumeMode: 'Filesystem' });
  });

  it('refuses a claim without access modes or storage request, naming both in one 422', async () => {
    const r = await ts.request('POST', `${ns}/persistentvolumeclaims`, { metadata: { name: 'bad' }, spec: { resources: {} } });
    assertInvalid(r, 'PersistentVolumeClaim "bad"', ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']);
    const modes = await ts.request('POST', `${ns}/persistentvolumeclaims`, pvc('bad', { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'WriteOnly'] }));
    assertInvalid(modes, 'PersistentVolumeClaim "bad"', [
      'spec.accessModes: Unsupported value: "WriteOnly": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
      'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    ]);
    const zero = await ts.request('POST', `${ns}/persistentvolumeclaims`, pvc('bad', { resources: { requests: { storage: '0' } } }));
    assertInvalid(zero, 'PersistentVolumeClaim "bad"', ['spec.resources[storage]: Invalid value: "0": must be greater than zero']);
  });

  it('keeps the spec immutable once created, except a bound claim’s storage request', async () => {
    await created(`${ns}/persistentvolumeclaims`, pvc('frozen'));
    const modes = await ts.request('PATCH', `${ns}/persistentvolumeclaims/frozen`, { spec: { accessModes: ['ReadWriteMany'] } }, { headers: merge });
    assertInvalid(modes, 'PersistentVolumeClaim "frozen"', ['spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims']);
    // An unbound claim cannot grow either.
    const grow = await ts.request('PATCH', `${ns}/persistentvolumeclaims/frozen`, { spec: { resources: { requests: { storage: '20Gi' } } } }, { headers: merge });
    assertInvalid(grow, 'PersistentVolumeClaim "frozen"', ['spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims']);
    // The volume controller may set volumeName once.
    const bind = await ts.request('PATCH', `${ns}/persistentvolumeclaims/frozen`, { spec: { volumeName: 'pv-1' } }, { headers: merge });
    assert.equal(bind.status, 200, bind.text);
    const mode = await ts.request('PATCH', `${ns}/persistentvolumeclaims/frozen`, { spec: { volumeMode: 'Block' } }, { headers: merge });
    assertInvalid(mode, 'PersistentVolumeClaim "frozen"', [
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
      'volumeMode: Invalid value: "Block": field is immutable',
    ]);
  });

  it('writes status only through /status; a bound claim may grow, and shrink only above status.capacity', async () => {
    const claim = await created(`${ns}/persistentvolumeclaims`, pvc('grows', { volumeName: 'pv-grows' }));
    // The main endpoint ignores status.
    const ignored = await ts.request('PUT', `${ns}/persistentvolumeclaims/grows`, { ...claim, status: { phase: 'Bound' } });
    assert.equal(ignored.status, 200, ignored.text);
    assert.deepEqual(ignored.json.status, { phase: 'Pending' });
    const bound = await ts.request('PUT', `${ns}/persistentvolumeclaims/grows/status`, {
      ...ignored.json,
      spec: { ...ignored.json.spec, accessModes: ['ReadWriteMany'] },
      status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '8Gi' } },
    });
    assert.equal(bound.status, 200, bound.text);
    assert.deepEqual(bound.json.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '8Gi' } });
    assert.deepEqual(bound.json.spec.accessModes, ['ReadWriteOnce'], '/status keeps the spec');
    const grow = await ts.request('PATCH', `${ns}/persistentvolumeclaims/grows`, { spec: { resources: { requests: { storage: '16Gi' } } } }, { headers: strategic });
    assert.equal(grow.status, 200, grow.text);
    assert.equal(grow.json.spec.resources.requests.storage, '16Gi');
    assert.equal(grow.json.status.phase, 'Bound');
    const shrink = await ts.request('PATCH', `${ns}/persistentvolumeclaims/grows`, { spec: { resources: { requests: { storage: '4Gi' } } } }, { headers: strategic });
    assertInvalid(shrink, 'PersistentVolumeClaim "grows"', ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
    const rows = tableOf(await ts.request('GET', `${ns}/persistentvolumeclaims/grows`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
    assert.deepEqual(rows.cells[0]!.slice(0, 7), ['grows', 'Bound', 'pv-grows', '8Gi', 'RWO', '', '<unset>']);
    assert.equal(rows.cells[0]![8], 'Filesystem');
  });

  it('merges status conditions by type on a strategic merge patch of /status', async () => {
    await created(`${ns}/persistentvolumeclaims`, pvc('resizing'));
    const condition = (type: string, status: string) => ({ type, status, lastTransitionTime: '2024-05-17T09:30:12Z' });
    const first = await ts.request('PATCH', `${ns}/persistentvolumeclaims/resizing/status`, { status: { conditions: [condition('Resizing', 'True')] } }, { headers: strategic });
    assert.equal(first.status, 200, first.text);
    const second = await ts.request('PATCH', `${ns}/persistentvolumeclaims/resizing/status`, { status: { conditions: [condition('FileSystemResizePending', 'True'), { type: 'Resizing', status: 'False' }] } }, { headers: strategic });
    assert.equal(second.status, 200, second.text);
    // Merged by type: Resizing keeps its lastTransitionTime; the patch's order wins (normalizeElementOrder). An unset
    // lastProbeTime (a metav1.Time held by value) is written as null, as Go writes it.
    assert.deepEqual(second.json.status.conditions, [
      { ...condition('FileSystemResizePending', 'True'), lastProbeTime: null },
      { type: 'Resizing', status: 'False', lastTransitionTime: '2024-05-17T09:30:12Z', lastProbeTime: null },
    ]);
    assert.equal(second.json.status.phase, 'Pending');
  });

  it('warns about a fractional byte request and the deprecated class annotation', async () => {
    const body = pvc('fractional', { resources: { requests: { storage: '1500m' } } });
    (body.metadata as any).annotations = { 'volume.beta.kubernetes.io/storage-class': 'fast' };
    const r = await ts.request('POST', `${ns}/persistentvolumeclaims`, body);
    assert.equal(r.status, 201, r.text);
    const warnings = String(r.headers.warning ?? '');
    assert.match(warnings, /spec\.resources\.requests\[storage\]: fractional byte value \\?"1500m\\?" is invalid, must be an integer/);
    assert.match(warnings, /metadata\.annotations\[volume\.beta\.kubernetes\.io\/storage-class\]: deprecated since v1\.8; use \\?"storageClassName\\?" attribute instead/);
  });
});

const csiVolume = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: {
    capacity: { storage: '10Gi' },
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'manual',
    csi: { driver: 'ebs.csi.aws.com', volumeHandle: `vol-${name}`, fsType: 'ext4' },
    ...extra,
  },
});

describe('PersistentVolumes', () => {
  it('stores a cluster-scoped volume with reclaim policy Retain, volumeMode Filesystem and a Pending phase', async () => {
    const pv = await created(`${core}/persistentvolumes`, csiVolume('pv-one'));
    assert.equal(pv.metadata.namespace, undefined);
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(pv.spec.volumeMode, 'Filesystem');
    assert.equal(pv.status.phase, 'Pending');
    assert.match(pv.status.lastPhaseTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const hostPath = await created(`${core}/persistentvolumes`, {
      metadata: { name: 'pv-host' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data/pv-host' } },
    });
    assert.deepEqual(hostPath.spec.hostPath, { path: '/data/pv-host', type: '' });
  });

  it('refuses a volume without capacity, access modes or a source', async () => {
    const r = await ts.request('POST', `${core}/persistentvolumes`, { metadata: { name: 'pv-bad' }, spec: { capacity: { cpu: '1' } } });
    assertInvalid(r, 'PersistentVolume "pv-bad"', [
      'spec.accessModes: Required value',
      'spec.capacity: Unsupported value: "object": supported values: "storage"',
      'spec: Required value: must specify a volume type',
    ]);
    const none = await ts.request('POST', `${core}/persistentvolumes`, { metadata: { name: 'pv-bad' }, spec: { accessModes: ['ReadWriteOnce'], local: { path: '/mnt/disk' } } });
    assertInvalid(none, 'PersistentVolume "pv-bad"', [
      'spec.capacity: Required value',
      'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
      'spec.nodeAffinity: Required value: Local volume requires node affinity',
    ]);
  });

  it('keeps its source immutable and moves lastPhaseTransitionTime with the phase written through /status', async () => {
    const pv = await created(`${core}/persistentvolumes`, csiVolume('pv-two'));
    const source = await ts.request('PATCH', `${core}/persistentvolumes/pv-two`, { spec: { csi: { volumeHandle: 'vol-other' } } }, { headers: strategic });
    assertInvalid(source, 'PersistentVolume "pv-two"', ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation']);
    const claimed = await ts.request('PATCH', `${core}/persistentvolumes/pv-two`, { spec: { claimRef: { namespace: 'default', name: 'data' }, persistentVolumeReclaimPolicy: 'Delete' } }, { headers: strategic });
    assert.equal(claimed.status, 200, claimed.text);
    await new Promise((r) => setTimeout(r, 1100));
    const available = await ts.request('PATCH', `${core}/persistentvolumes/pv-two/status`, { status: { phase: 'Bound' } }, { headers: merge });
    assert.equal(available.status, 200, available.text);
    assert.equal(available.json.status.phase, 'Bound');
    assert.notEqual(available.json.status.lastPhaseTransitionTime, pv.status.lastPhaseTransitionTime);
    const same = await ts.request('PATCH', `${core}/persistentvolumes/pv-two/status`, { status: { message: 'ok' } }, { headers: merge });
    assert.equal(same.json.status.lastPhaseTransitionTime, available.json.status.lastPhaseTransitionTime);
    const rows = tableOf(await ts.request('GET', `${core}/persistentvolumes/pv-two`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
    assert.deepEqual(rows.cells[0]!.slice(0, 9), ['pv-two', '10Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'manual', '<unset>', '']);
  });
});

describe('StorageClasses', () => {
  it('defaults reclaimPolicy Delete and volumeBindingMode Immediate, and marks the default class in the table', async () => {
    const sc = await created(`${storage}/storageclasses`, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'rancher.io/local-path',
    });
    assert.equal(sc.reclaimPolicy, 'Delete');
    assert.equal(sc.volumeBindingMode, 'Immediate');
    const rows = tableOf(await ts.request('GET', `${storage}/storageclasses/standard`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    assert.deepEqual(rows.cells[0]!.slice(0, 5), ['standard (default)', 'rancher.io/local-path', 'Delete', 'Immediate', false]);
  });

  it('requires a provisioner and keeps provisioner and parameters immutable', async () => {
    const r = await ts.request('POST', `${storage}/storageclasses`, { metadata: { name: 'noprov' }, reclaimPolicy: 'Recycle' });
    assertInvalid(r, 'StorageClass.storage.k8s.io "noprov"', ['provisioner: Required value', 'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']);
    await created(`${storage}/storageclasses`, { metadata: { name: 'gp3' }, provisioner: 'ebs.csi.aws.com', parameters: { type: 'gp3' } });
    const u = await ts.request('PATCH', `${storage}/storageclasses/gp3`, { provisioner: 'other.csi.io', parameters: { type: 'io2' } }, { headers: merge });
    assertInvalid(u, 'StorageClass.storage.k8s.io "gp3"', ['parameters: Forbidden: updates to parameters are forbidden.', 'provisioner: Forbidden: updates to provisioner are forbidden.']);
    const expand = await ts.request('PATCH', `${storage}/storageclasses/gp3`, { allowVolumeExpansion: true }, { headers: merge });
    assert.equal(expand.status, 200, expand.text);
  });
});

const legacyController = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name },
  spec: {
    replicas: 0,
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    ...extra,
  },
});

describe('ReplicationControllers', () => {
  it('takes its selector and labels from the template, defaults the pod template and starts at generation 1', async () => {
    const rc = await created(`${ns}/replicationcontrollers`, { ...legacyController('legacy'), spec: { ...legacyController('legacy').spec, replicas: undefined } });
    assert.deepEqual(rc.spec.selector, { app: 'legacy' });
    assert.deepEqual(rc.metadata.labels, { app: 'legacy' });
    assert.equal(rc.spec.replicas, 1);
    assert.equal(rc.metadata.generation, 1);
    assert.deepEqual(rc.status, { replicas: 0 });
    const pod = rc.spec.template.spec;
    assert.equal(pod.restartPolicy, 'Always');
    assert.equal(pod.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.equal(pod.containers[0].terminationMessagePath, '/dev/termination-log');
  });

  it('refuses a selector that does not match the template labels', async () => {
    const r = await ts.request('POST', `${ns}/replicationcontrollers`, legacyController('mismatch', { selector: { app: 'other' }, replicas: -1 }));
    assertInvalid(r, 'ReplicationController "mismatch"', [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"mismatch"}: `selector` does not match template `labels`',
    ]);
  });

  it('scales through /scale, bumping generation, and writes status through /status', async () => {
    await created(`${ns}/replicationcontrollers`, legacyController('scaled'));
    const scale = await ts.request('GET', `${ns}/replicationcontrollers/scaled/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.json.kind, 'Scale');
    assert.equal(scale.json.apiVersion, 'autoscaling/v1');
    assert.deepEqual(scale.json.spec, { replicas: 0 });
    assert.deepEqual(scale.json.status, { replicas: 0, selector: 'app=scaled' });
    const put = await ts.request('PUT', `${ns}/replicationcontrollers/scaled/scale`, { ...scale.json, spec: { replicas: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.replicas, 3);
    const rc = (await ts.request('GET', `${ns}/replicationcontrollers/scaled`)).json;
    assert.equal(rc.spec.replicas, 3);
    assert.equal(rc.metadata.generation, 2);
    const status = await ts.request('PUT', `${ns}/replicationcontrollers/scaled/status`, { ...rc, spec: { ...rc.spec, replicas: 9 }, status: { replicas: 3, readyReplicas: 2, availableReplicas: 2, observedGeneration: 2 } });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.spec.replicas, 3, '/status keeps the spec');
    assert.equal(status.json.metadata.generation, 2, 'a status write does not bump generation');
    const badStatus = await ts.request('PATCH', `${ns}/replicationcontrollers/scaled/status`, { status: { readyReplicas: 5 } }, { headers: merge });
    assertInvalid(badStatus, 'ReplicationController "scaled"', ['status.readyReplicas: Invalid value: 5: cannot be greater than status.replicas']);
    const selected = await ts.request('GET', `${ns}/replicationcontrollers?fieldSelector=status.replicas=3`);
    assert.deepEqual(selected.json.items.map((i: any) => i.metadata.name), ['scaled']);
    const rows = tableOf(await ts.request('GET', `${ns}/replicationcontrollers/scaled`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
    assert.deepEqual([...rows.cells[0]!.slice(0, 4), ...rows.cells[0]!.slice(5)], ['scaled', 3, 3, 2, 'web', 'nginx:1.27', 'app=scaled']);
  });
});

describe('Endpoints, EndpointSlices and PodTemplates', () => {
  it('stores Endpoints with TCP ports and prints ip:port', async () => {
    const ep = await created(`${ns}/endpoints`, {
      metadata: { name: 'billing-db' },
      subsets: [{ addresses: [{ ip: '10.0.0.10' }, { ip: '10.0.0.11' }], ports: [{ name: 'pg', port: 5432 }] }],
    });
    assert.equal(ep.subsets[0].ports[0].protocol, 'TCP');
    const rows = tableOf(await ts.request('GET', `${ns}/endpoints/billing-db`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Endpoints', 'Age']);
    assert.deepEqual(rows.cells[0]!.slice(0, 2), ['billing-db', '10.0.0.10:5432,10.0.0.11:5432']);
    // Endpoints, unlike the other kinds here, may be created by a PUT.
    const put = await ts.request('PUT', `${ns}/endpoints/headless`, { metadata: { name: 'headless' }, subsets: [{ addresses: [{ ip: '10.244.0.9', hostname: 'db-0' }] }] });
    assert.equal(put.status, 201, put.text);
    const headless = tableOf(await ts.request('GET', `${ns}/endpoints/headless`, undefined, { headers: table }));
    assert.equal(headless.cells[0]![1], '10.244.0.9');
    const putPvc = await ts.request('PUT', `${ns}/persistentvolumeclaims/not-there`, pvc('not-there'));
    assert.equal(putPvc.status, 404, putPvc.text);
    const bad = await ts.request('POST', `${ns}/endpoints`, {
      metadata: { name: 'bad' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }, { name: 'b', port: 70000 }] }, { ports: [{ name: 'x', port: 1 }] }],
    });
    assertInvalid(bad, 'Endpoints "bad"', [
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'subsets[0].ports[0].name: Required value',
      'subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
    ]);
  });

  it('stores an EndpointSlice with defaulted ports and conditions; its addressType cannot change', async () => {
    const slice = await created(`${discovery}/namespaces/default/endpointslices`, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-x1', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.0.5'], nodeName: 'kinds-node-0', deprecatedTopology: { 'kubernetes.io/hostname': 'kinds-node-0' } }, { addresses: ['10.244.0.6'] }],
      ports: [{ port: 8080 }],
    });
    assert.deepEqual(slice.ports, [{ name: '', protocol: 'TCP', port: 8080 }]);
    assert.deepEqual(slice.endpoints[1].conditions, {});
    assert.equal(slice.endpoints[0].deprecatedTopology, undefined, 'v1 drops deprecatedTopology writes');
    assert.equal(slice.metadata.generation, 1);
    const change = await ts.request('PATCH', `${discovery}/namespaces/default/endpointslices/web-x1`, { addressType: 'IPv6', endpoints: [{ addresses: ['fd00::5'] }] }, { headers: merge });
    assertInvalid(change, 'EndpointSlice.discovery.k8s.io "web-x1"', ['addressType: Invalid value: "IPv6": field is immutable']);
    const bad = await ts.request('POST', `${discovery}/namespaces/default/endpointslices`, { metadata: { name: 'bad' }, addressType: 'IPv5', endpoints: [{ addresses: [] }] });
    assertInvalid(bad, 'EndpointSlice.discovery.k8s.io "bad"', [
      'addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"',
      'endpoints[0].addresses: Required value: must contain at least 1 address',
    ]);
    const rows = tableOf(await ts.request('GET', `${discovery}/namespaces/default/endpointslices/web-x1`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    assert.deepEqual(rows.cells[0]!.slice(0, 4), ['web-x1', 'IPv4', '8080', '10.244.0.5,10.244.0.6']);
  });

  it('stores a PodTemplate with the pod defaults and refuses one without containers', async () => {
    const t = await created(`${ns}/podtemplates`, { metadata: { name: 'batch' }, template: { metadata: { labels: { role: 'worker' } }, spec: { containers: [{ name: 'w', image: 'busybox:latest' }] } } });
    assert.equal(t.template.spec.dnsPolicy, 'ClusterFirst');
    assert.equal(t.template.spec.containers[0].imagePullPolicy, 'Always');
    assert.equal(t.metadata.generation, 1);
    const bad = await ts.request('POST', `${ns}/podtemplates`, { metadata: { name: 'empty' }, template: { spec: { containers: [] } } });
    assertInvalid(bad, 'PodTemplate "empty"', ['template.spec.containers: Required value']);
    const rows = tableOf(await ts.request('GET', `${ns}/podtemplates/batch`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Containers', 'Images', 'Pod Labels']);
    assert.deepEqual(rows.cells[0], ['batch', 'w', 'busybox:latest', 'role=worker']);
  });
});

// What the ingress-nginx chart's README example renders.
const ingress = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } },
  spec: {
    ingressClassName: 'nginx',
    tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
    rules: [
      {
        host: 'shop.example.com',
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
            { path: '/api', pathType: 'Exact', backend: { service: { name: 'api', port: { name: 'http' } } } },
          ],
        },
      },
    ],
    ...extra,
  },
});

describe('Ingresses and IngressClasses', () => {
  it('stores an ingress with an empty load balancer status and generation 1, printed as kubectl does', async () => {
    const ing = await created(`${networking}/namespaces/default/ingresses`, ingress('storefront'));
    assert.deepEqual(ing.status, { loadBalancer: {} });
    assert.equal(ing.metadata.generation, 1);
    const rows = tableOf(await ts.request('GET', `${networking}/namespaces/default/ingresses/storefront`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    assert.deepEqual(rows.cells[0]!.slice(0, 5), ['storefront', 'nginx', 'shop.example.com', '', '80, 443']);
  });

  it('refuses bad hosts, paths, path types and backends in one 422', async () => {
    const r = await ts.request(
      'POST',
      `${networking}/namespaces/default/ingresses`,
      ingress('broken', {
        rules: [
          { host: '10.0.0.1', http: { paths: [{ path: 'api', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
          { host: 'Shop.Example.com', http: { paths: [{ path: '/', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
          { host: '*.example.com', http: { paths: [{ path: '/x', pathType: 'Regex', backend: { service: { name: 'web' } } }] } },
          { http: { paths: [{ path: '/', pathType: 'ImplementationSpecific', backend: {} }] } },
        ],
      }),
    );
    const subdomain =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    assertInvalid(r, 'Ingress.networking.k8s.io "broken"', [
      'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      "spec.rules[0].http.paths[0].path: Invalid value: \"api\": must be an absolute path",
      `spec.rules[1].host: Invalid value: "Shop.Example.com": ${subdomain}`,
      'spec.rules[1].http.paths[0].pathType: Required value: pathType must be specified',
      'spec.rules[2].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      'spec.rules[2].http.paths[0].backend: Required value: port name or number is required',
      'spec.rules[3].http.paths[0].backend: Invalid value: "": resource or service backend is required',
    ]);
    const empty = await ts.request('POST', `${networking}/namespaces/default/ingresses`, { metadata: { name: 'empty' }, spec: {} });
    assertInvalid(empty, 'Ingress.networking.k8s.io "empty"', ['spec: Invalid value: "null": either `defaultBackend` or `rules` must be specified']);
    const noRules = await ts.request('POST', `${networking}/namespaces/default/ingresses`, { metadata: { name: 'empty' }, spec: { rules: [] } });
    assertInvalid(noRules, 'Ingress.networking.k8s.io "empty"', ['spec: Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified']);
  });

  it('replaces the atomic rules list on a strategic merge patch and bumps generation only for spec changes', async () => {
    await created(`${networking}/namespaces/default/ingresses`, ingress('patched'));
    const patch = { spec: { rules: [{ host: 'new.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 8080 } } } }] } }] } };
    const r = await ts.request('PATCH', `${networking}/namespaces/default/ingresses/patched`, patch, { headers: strategic });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.rules, patch.spec.rules);
    assert.deepEqual(r.json.spec.tls, [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }]);
    assert.equal(r.json.metadata.generation, 2);
    const lb = await ts.request('PATCH', `${networking}/namespaces/default/ingresses/patched/status`, { status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }, { hostname: 'lb.example.com' }] } }, spec: { rules: [] } }, { headers: merge });
    assert.equal(lb.status, 200, lb.text);
    assert.equal(lb.json.metadata.generation, 2);
    assert.deepEqual(lb.json.spec.rules, patch.spec.rules, '/status keeps the spec');
    const ignored = await ts.request('PATCH', `${networking}/namespaces/default/ingresses/patched`, { status: { loadBalancer: {} }, metadata: { labels: { x: 'y' } } }, { headers: merge });
    assert.deepEqual(ignored.json.status.loadBalancer.ingress, [{ ip: '203.0.113.7' }, { hostname: 'lb.example.com' }], 'the main endpoint keeps status');
    assert.equal(ignored.json.metadata.generation, 2);
    const rows = tableOf(await ts.request('GET', `${networking}/namespaces/default/ingresses/patched`, undefined, { headers: table }));
    assert.deepEqual(rows.cells[0]!.slice(0, 5), ['patched', 'nginx', 'new.example.com', '203.0.113.7,lb.example.com', '80, 443']);
    const badLb = await ts.request('PATCH', `${networking}/namespaces/default/ingresses/patched/status`, { status: { loadBalancer: { ingress: [{ ip: 'not-an-ip' }] } } }, { headers: merge });
    assertInvalid(badLb, 'Ingress.networking.k8s.io "patched"', ['status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
  });

  it('stores an IngressClass with a cluster-scoped parameters reference; its controller cannot change', async () => {
    const ic = await created(`${networking}/ingressclasses`, {
      metadata: { name: 'public', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } },
    });
    assert.equal(ic.spec.parameters.scope, 'Cluster');
    assert.equal(ic.metadata.generation, 1);
    const change = await ts.request('PATCH', `${networking}/ingressclasses/public`, { spec: { controller: 'example.com/other' } }, { headers: merge });
    assertInvalid(change, 'IngressClass.networking.k8s.io "public"', ['spec.controller: Invalid value: "example.com/other": field is immutable']);
    const bad = await ts.request('POST', `${networking}/ingressclasses`, { metadata: { name: 'bad' }, spec: { controller: 'nginx', parameters: { kind: 'P', name: 'p', scope: 'Namespace' } } });
    assertInvalid(bad, 'IngressClass.networking.k8s.io "bad"', [
      'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
      "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
    ]);
    const rows = tableOf(await ts.request('GET', `${networking}/ingressclasses/public`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Controller', 'Parameters', 'Age']);
    assert.deepEqual(rows.cells[0]!.slice(0, 3), ['public', 'k8s.io/ingress-nginx', 'IngressParameters.k8s.example.com/external-lb']);
  });
});

const policy = (name: string) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name },
  spec: {
    podSelector: { matchLabels: { app: 'db' } },
    ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 5432 }] }],
  },
});

describe('NetworkPolicies', () => {
  it('defaults policyTypes from the rules present and port protocols to TCP', async () => {
    const np = await created(`${networking}/namespaces/default/networkpolicies`, policy('db-ingress'));
    assert.deepEqual(np.spec.policyTypes, ['Ingress']);
    assert.deepEqual(np.spec.ingress[0].ports, [{ protocol: 'TCP', port: 5432 }]);
    assert.equal(np.metadata.generation, 1);
    const egress = await created(`${networking}/namespaces/default/networkpolicies`, { metadata: { name: 'dns' }, spec: { podSelector: {}, egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }] } });
    assert.deepEqual(egress.spec.policyTypes, ['Ingress', 'Egress']);
    const rows = tableOf(await ts.request('GET', `${networking}/namespaces/default/networkpolicies`, undefined, { headers: table }));
    assert.deepEqual(rows.columns, ['Name', 'Pod-Selector', 'Age']);
    assert.deepEqual(rows.cells.map((c) => c.slice(0, 2)), [['db-ingress', 'app=db'], ['dns', '<none>']]);
  });

  it('refuses bad ports, CIDRs, peers and selectors in one 422', async () => {
    const r = await ts.request('POST', `${networking}/namespaces/default/networkpolicies`, {
      metadata: { name: 'bad' },
      spec: {
        podSelector: { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['x'] }] },
        ingress: [
          {
            ports: [{ port: 0 }, { port: 'Not_A_Name' }, { port: 80, endPort: 79 }, { protocol: 'ICMP' }],
            from: [{}, { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] }, podSelector: {} }, { ipBlock: { cidr: '10.0.0.0/33' } }],
          },
        ],
      },
    });
    assertInvalid(r, 'NetworkPolicy.networking.k8s.io "bad"', [
      'spec.podSelector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
      'spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ingress[0].ports[1].port: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.ingress[0].ports[2].endPort: Invalid value: 80: must be greater than or equal to `port`',
      'spec.ingress[0].ports[3].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'spec.ingress[0].from[0]: Required value: must specify a peer',
      'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
      'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
      'spec.ingress[0].from[2].ipBlock.cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('replaces the atomic ingress rules on a strategic merge patch and bumps generation', async () => {
    await created(`${networking}/namespaces/default/networkpolicies`, policy('patched'));
    const r = await ts.request('PATCH', `${networking}/namespaces/default/networkpolicies/patched`, { spec: { ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] } }, { headers: strategic });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.ingress, [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }]);
    assert.deepEqual(r.json.spec.podSelector, { matchLabels: { app: 'db' } });
    assert.equal(r.json.metadata.generation, 2);
  });
});

describe('server-side apply with two managers', () => {
  const applyAs = (path: string, manager: string, body: unknown, force = false) =>
    ts.request('PATCH', `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`, JSON.stringify(body), { headers: apply });

  it('shares a NetworkPolicy between managers, conflicts on a field another owns, and forces it', async () => {
    const path = `${networking}/namespaces/default/networkpolicies/shared`;
    const first = await applyAs(path, 'platform', { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'shared', labels: { owner: 'platform' } }, spec: { podSelector: { matchLabels: { app: 'api' } }, policyTypes: ['Ingress'] } });
    assert.equal(first.status, 201, first.text);
    const second = await applyAs(path, 'team', { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'shared', labels: { team: 'a' } } });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.metadata.labels, { owner: 'platform', team: 'a' });
    assert.deepEqual(second.json.metadata.managedFields.map((m: any) => m.manager).sort(), ['platform', 'team']);
    const conflict = await applyAs(path, 'team', { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'shared' }, spec: { podSelector: { matchLabels: { app: 'other' } } } });
    assert.equal(conflict.status, 409, conflict.text);
    assert.equal(conflict.json.reason, 'Conflict');
    assert.equal(conflict.json.message, 'Apply failed with 1 conflict: conflict with "platform": .spec.podSelector', 'LabelSelector is an atomic struct');
    const forced = await applyAs(path, 'team', { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'shared' }, spec: { podSelector: { matchLabels: { app: 'other' } } } }, true);
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual(forced.json.spec.podSelector, { matchLabels: { app: 'other' } });
    assert.deepEqual(forced.json.metadata.labels, { owner: 'platform' }, 'team no longer applies its label, so it goes');
  });

  it('merges two managers’ entries in a StorageClass and PVC labels, keeping each one’s fields', async () => {
    const path = `${storage}/storageclasses/applied`;
    const a = await applyAs(path, 'infra', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'applied' }, provisioner: 'ebs.csi.aws.com', mountOptions: ['noatime'] });
    assert.equal(a.status, 201, a.text);
    const b = await applyAs(path, 'ops', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'applied', annotations: { note: 'ops' } }, allowVolumeExpansion: true });
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.provisioner, 'ebs.csi.aws.com');
    assert.equal(b.json.allowVolumeExpansion, true);
    assert.deepEqual(b.json.mountOptions, ['noatime']);
    const claim = `${ns}/persistentvolumeclaims/applied`;
    const c1 = await applyAs(claim, 'helm', pvc('applied'));
    assert.equal(c1.status, 201, c1.text);
    const c2 = await applyAs(claim, 'argo', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'applied', labels: { 'argocd.argoproj.io/instance': 'shop' } } });
    assert.equal(c2.status, 200, c2.text);
    assert.equal(c2.json.metadata.labels['app.kubernetes.io/name'], 'shop');
    assert.equal(c2.json.metadata.labels['argocd.argoproj.io/instance'], 'shop');
    assert.equal(c2.json.spec.resources.requests.storage, '8Gi');
  });
});

describe('protobuf create bodies from the Go client types', () => {
  const cases: [string, string][] = [
    ['persistentvolumeclaim', `${ns}/persistentvolumeclaims`],
    ['persistentvolume', `${core}/persistentvolumes`],
    ['replicationcontroller', `${ns}/replicationcontrollers`],
    ['endpoints', `${ns}/endpoints`],
    ['podtemplate', `${ns}/podtemplates`],
    ['endpointslice', `${discovery}/namespaces/default/endpointslices`],
    ['ingress', `${networking}/namespaces/default/ingresses`],
    ['ingressclass', `${networking}/ingressclasses`],
    ['networkpolicy', `${networking}/namespaces/default/networkpolicies`],
    ['storageclass', `${storage}/storageclasses`],
  ];
  for (const [fixture, path] of cases) {
    it(`${fixture}: the protobuf body creates the object the JSON form describes`, async () => {
      const body = readFileSync(`${fixtures}${fixture}.pb`);
      const json = JSON.parse(readFileSync(`${fixtures}${fixture}.json`, 'utf8'));
      const r = await ts.request('POST', path, body, { headers: { 'Content-Type': protobuf, Accept: `${protobuf}, application/json` } });
      assert.equal(r.status, 201, r.text);
      // Answered in protobuf, as kube-apiserver answers a client that prefers it.
      assert.equal(r.headers['content-type'], protobuf);
      const answer = decodeKubernetesProtobuf(r.raw).object as any;
      assert.equal(answer.kind, json.kind);
      assert.equal(answer.metadata.name, json.metadata.name);
      const { metadata: _m, status: _s, ...sent } = json;
      const { metadata: _rm, status: _rs, apiVersion: _av, kind: _k, ...got } = answer;
      for (const [field, value] of Object.entries(sent)) {
        if (field === 'apiVersion' || field === 'kind') continue;
        assertIncludes(got[field], value, `${fixture}.${field}`);
      }
    });
  }

  /** Every value the client sent is in the stored object (which may carry defaults besides). */
  function assertIncludes(actual: unknown, expected: unknown, where: string): void {
    if (expected === null) return;
    if (Array.isArray(expected)) {
      assert.ok(Array.isArray(actual), where);
      assert.equal(actual.length, expected.length, where);
      expected.forEach((e, i) => assertIncludes(actual[i], e, `${where}[${i}]`));
    } else if (typeof expected === 'object') {
      assert.ok(actual && typeof actual === 'object', where);
      for (const [k, v] of Object.entries(expected as Record<string, unknown>)) {
        if (k === 'creationTimestamp') continue;
        if (k === 'deprecatedTopology') continue;
        assertIncludes((actual as Record<string, unknown>)[k], v, `${where}.${k}`);
      }
    } else {
      assert.deepEqual(actual, expected, where);
    }
  }
});

describe('discovery and OpenAPI', () => {
  const resourcesOf = async (path: string) => (await ts.request('GET', path)).json.resources as any[];

  it('lists every kind with its short names, categories, verbs and subresources', async () => {
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    const expect = (list: any[], name: string, kind: string, namespaced: boolean, shortNames: string[], categories?: string[]) => {
      const r = list.find((x) => x.name === name);
      assert.ok(r, name);
      assert.equal(r.kind, kind, name);
      assert.equal(r.namespaced, namespaced, name);
      assert.deepEqual(r.shortNames ?? [], shortNames, name);
      assert.deepEqual(r.categories ?? [], categories ?? [], name);
      assert.deepEqual([...r.verbs].sort(), verbs, name);
    };
    const coreList = await resourcesOf(core);
    expect(coreList, 'persistentvolumeclaims', 'PersistentVolumeClaim', true, ['pvc']);
    expect(coreList, 'persistentvolumes', 'PersistentVolume', false, ['pv']);
    expect(coreList, 'replicationcontrollers', 'ReplicationController', true, ['rc'], ['all']);
    expect(coreList, 'endpoints', 'Endpoints', true, ['ep']);
    expect(coreList, 'podtemplates', 'PodTemplate', true, []);
    for (const sub of ['persistentvolumeclaims/status', 'persistentvolumes/status', 'replicationcontrollers/status', 'replicationcontrollers/scale']) {
      assert.ok(coreList.some((r) => r.name === sub), sub);
    }
    const scale = coreList.find((r) => r.name === 'replicationcontrollers/scale');
    assert.deepEqual([scale.group, scale.version, scale.kind], ['autoscaling', 'v1', 'Scale']);
    const net = await resourcesOf(networking);
    expect(net, 'ingresses', 'Ingress', true, ['ing']);
    expect(net, 'ingressclasses', 'IngressClass', false, []);
    expect(net, 'networkpolicies', 'NetworkPolicy', true, ['netpol']);
    assert.ok(net.some((r) => r.name === 'ingresses/status'));
    expect(await resourcesOf(storage), 'storageclasses', 'StorageClass', false, ['sc']);
    expect(await resourcesOf(discovery), 'endpointslices', 'EndpointSlice', true, []);
    const groups = (await ts.request('GET', '/apis')).json.groups.map((g: any) => g.name);
    for (const g of ['networking.k8s.io', 'storage.k8s.io', 'discovery.k8s.io']) assert.ok(groups.includes(g), g);
  });

  it('publishes every kind in OpenAPI v3 with its GVK, list semantics and patch keys', async () => {
    const doc = async (gv: string) => {
      const r = await ts.request('GET', `/openapi/v3/${gv}`);
      assert.equal(r.status, 200, `${gv}: ${r.text.slice(0, 200)}`);
      return r.json.components.schemas as Record<string, any>;
    };
    const v1 = await doc('api/v1');
    for (const kind of ['PersistentVolumeClaim', 'PersistentVolume', 'ReplicationController', 'Endpoints', 'PodTemplate']) {
      const schema = v1[`io.k8s.api.core.v1.${kind}`];
      assert.ok(schema, kind);
      assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind }]);
    }
    assert.equal(v1['io.k8s.api.core.v1.PersistentVolumeSpec'].properties.csi.allOf[0].$ref, '#/components/schemas/io.k8s.api.core.v1.CSIPersistentVolumeSource');
    assert.equal(v1['io.k8s.api.core.v1.PersistentVolumeClaimStatus'].properties.conditions['x-kubernetes-list-type'], 'map');
    const net = await doc('apis/networking.k8s.io/v1');
    for (const kind of ['Ingress', 'IngressClass', 'NetworkPolicy']) assert.ok(net[`io.k8s.api.networking.v1.${kind}`], kind);
    assert.deepEqual(net['io.k8s.api.networking.v1.HTTPIngressPath'].required, ['pathType', 'backend']);
    assert.equal(net['io.k8s.api.networking.v1.IngressRule'].properties.http.allOf[0].$ref, '#/components/schemas/io.k8s.api.networking.v1.HTTPIngressRuleValue');
    assert.ok((await doc('apis/storage.k8s.io/v1'))['io.k8s.api.storage.v1.StorageClass']);
    assert.ok((await doc('apis/discovery.k8s.io/v1'))['io.k8s.api.discovery.v1.EndpointSlice']);
  });
});
