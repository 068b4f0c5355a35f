/**
 * storage.k8s.io/v1 CSIDrivers, CSINodes, CSIStorageCapacities and VolumeAttachments on the simulated cluster, as
 * kube-apiserver 1.32 serves them: discovery order and scopes, a protobuf body, CSIDriver defaulting and its generation
 * (none on create, one more per spec change), validation with upstream's paths and messages (immutable fields among
 * them), a VolumeAttachment's status ignored by its main endpoint and written through /status, deprecated node labels
 * warned about, deletes that answer the object or a Status, OpenAPI, protobuf answers and `kubectl get` columns.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { decodeKubernetesProtobuf } from '../../src/apimachinery/protobuf/decode.js';

let ts: TestServer;
const V1 = '/apis/storage.k8s.io/v1';
const DRIVERS = `${V1}/csidrivers`;
const NODES = `${V1}/csinodes`;
const CAPACITIES = `${V1}/namespaces/default/csistoragecapacities`;
const ATTACHMENTS = `${V1}/volumeattachments`;
const merge = { headers: { 'Content-Type': 'application/merge-patch+json' } };
const strategic = { headers: { 'Content-Type': 'application/strategic-merge-patch+json' } };
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-csi-'));
  const cluster = await startPcluster({ name: 'csi', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, controllers: ['-*'] });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});
after(async () => {
  await ts?.stop();
});

function status(r: HttpResponse, code: number): any {
  assert.equal(r.status, code, r.text);
  return r.json;
}
/** The causes of a 422, as `field: message`. */
function causes(r: HttpResponse): string[] {
  return status(r, 422).details.causes.map((c: any) => `${c.field}: ${c.message}`);
}
async function kubectlGet(args: string[]): Promise<string[][]> {
  const r = await ts.kubectl(['get', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
}

describe('discovery', () => {
  it('lists the storage.k8s.io/v1 resources in kube-apiserver\'s order, without short names', async () => {
    const list = status(await ts.request('GET', V1), 200);
    const byName = (n: string) => list.resources.find((r: any) => r.name === n);
    assert.deepEqual(list.resources.map((r: any) => r.name), ['csidrivers', 'csinodes', 'csistoragecapacities', 'storageclasses', 'volumeattachments', 'volumeattachments/status']);
    assert.deepEqual(['csidrivers', 'csinodes', 'csistoragecapacities', 'volumeattachments'].map((n) => [byName(n).kind, byName(n).namespaced, byName(n).shortNames]), [
      ['CSIDriver', false, undefined],
      ['CSINode', false, undefined],
      ['CSIStorageCapacity', true, undefined],
      ['VolumeAttachment', false, undefined],
    ]);
    assert.deepEqual(byName('volumeattachments/status').verbs, ['get', 'patch', 'update']);
  });

  it('publishes the kinds in OpenAPI v3 with their list and merge semantics and the /status path', async () => {
    const doc = status(await ts.request('GET', '/openapi/v3/apis/storage.k8s.io/v1'), 200);
    const schemas = doc.components.schemas;
    for (const kind of ['CSIDriver', 'CSINode', 'CSIStorageCapacity', 'VolumeAttachment']) {
      assert.deepEqual(schemas[`io.k8s.api.storage.v1.${kind}`]['x-kubernetes-group-version-kind'], [{ group: 'storage.k8s.io', version: 'v1', kind }]);
    }
    const drivers = schemas['io.k8s.api.storage.v1.CSINodeSpec'].properties.drivers;
    assert.deepEqual([drivers['x-kubernetes-list-type'], drivers['x-kubernetes-list-map-keys'], drivers['x-kubernetes-patch-merge-key']], ['map', ['name'], 'name']);
    assert.equal(schemas['io.k8s.api.storage.v1.CSIDriverSpec'].properties.volumeLifecycleModes['x-kubernetes-list-type'], 'set');
    assert.deepEqual(schemas['io.k8s.api.storage.v1.VolumeAttachmentSpec'].required, ['attacher', 'source', 'nodeName']);
    assert.ok(doc.paths['/apis/storage.k8s.io/v1/volumeattachments/{name}/status']);
    assert.ok(doc.paths['/apis/storage.k8s.io/v1/namespaces/{namespace}/csistoragecapacities/{name}']);
  });
});

describe('CSIDrivers', () => {
  it('are defaulted as SetDefaults_CSIDriver does, and get a generation only when their spec changes', async () => {
    const created = status(await ts.request('POST', DRIVERS, { metadata: { name: 'csi.example.com' } }), 201);
    assert.deepEqual(created.spec, {
      attachRequired: true,
      podInfoOnMount: false,
      volumeLifecycleModes: ['Persistent'],
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      requiresRepublish: false,
      seLinuxMount: false,
    });
    assert.equal(created.metadata.generation, undefined, 'nothing sets a CSIDriver\'s generation on create');
    const labelled = status(await ts.request('PATCH', `${DRIVERS}/csi.example.com`, { metadata: { labels: { tier: 'gold' } } }, merge), 200);
    assert.equal(labelled.metadata.generation, undefined);
    const changed = status(await ts.request('PATCH', `${DRIVERS}/csi.example.com`, { spec: { podInfoOnMount: true, tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }] } }, merge), 200);
    assert.equal(changed.metadata.generation, 1);
    // Sent again (the list now also written empty elsewhere) the spec is the same: no bump.
    const same = status(await ts.request('PATCH', `${DRIVERS}/csi.example.com`, { spec: { podInfoOnMount: true } }, merge), 200);
    assert.equal(same.metadata.generation, 1);
    const again = status(await ts.request('PATCH', `${DRIVERS}/csi.example.com`, { spec: { requiresRepublish: true } }, merge), 200);
    assert.equal(again.metadata.generation, 2);
    // markAsDeleting bumps a generation once there is one.
    status(await ts.request('POST', DRIVERS, { metadata: { name: 'held.example.com', finalizers: ['example.com/hold'] } }), 201);
    status(await ts.request('PATCH', `${DRIVERS}/held.example.com`, { spec: { podInfoOnMount: true } }, merge), 200);
    const deleting = status(await ts.request('DELETE', `${DRIVERS}/held.example.com`), 200);
    assert.deepEqual([deleting.metadata.generation, typeof deleting.metadata.deletionTimestamp], [2, 'string']);
    status(await ts.request('PATCH', `${DRIVERS}/held.example.com`, { metadata: { finalizers: null } }, merge), 200);
    status(await ts.request('GET', `${DRIVERS}/held.example.com`), 404);
  });

  it('are validated with upstream\'s paths and messages; attachRequired and volumeLifecycleModes cannot change', async () => {
    const bad = await ts.request('POST', DRIVERS, {
      metadata: { name: 'bad.example.com' },
      spec: { fsGroupPolicy: 'Bogus', volumeLifecycleModes: ['Sometimes'], tokenRequests: [{ audience: 'vault', expirationSeconds: 60 }, { audience: 'vault' }, { audience: 'other', expirationSeconds: 2 ** 33 }] },
    });
    assert.deepEqual(causes(bad), [
      'spec.fsGroupPolicy: Unsupported value: "Bogus": supported values: "File", "None", "ReadWriteOnceWithFSType"',
      'spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      'spec.tokenRequests[1].audience: Duplicate value: "vault"',
      'spec.tokenRequests[2].expirationSeconds: Invalid value: 8589934592: may not specify a duration larger than 2^32 seconds',
      'spec.volumeLifecycleModes: Unsupported value: "Sometimes": supported values: "Persistent", "Ephemeral"',
    ]);
    const attach = await ts.request('PATCH', `${DRIVERS}/csi.example.com`, { spec: { attachRequired: false } }, merge);
    assert.match(status(attach, 422).message, /^CSIDriver\.storage\.k8s\.io "csi\.example\.com" is invalid: spec\.attachedRequired: Invalid value: false: field is immutable$/);
    const modes = await ts.request('PATCH', `${DRIVERS}/csi.example.com`, { spec: { volumeLifecycleModes: ['Persistent', 'Ephemeral'] } }, merge);
    assert.deepEqual(causes(modes), ['spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{"Persistent", "Ephemeral"}: field is immutable']);
  });

  it('need a resourceVersion to be replaced, are not created by a PUT, and a DELETE answers the object', async () => {
    const current = status(await ts.request('GET', `${DRIVERS}/csi.example.com`), 200);
    delete current.metadata.resourceVersion;
    const unconditional = await ts.request('PUT', `${DRIVERS}/csi.example.com`, current);
    assert.deepEqual(causes(unconditional), ['metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
    status(await ts.request('PUT', `${DRIVERS}/missing.example.com`, { metadata: { name: 'missing.example.com', resourceVersion: '1' } }), 404);
    const deleted = status(await ts.request('DELETE', `${DRIVERS}/csi.example.com`), 200);
    assert.equal(deleted.kind, 'CSIDriver');
    assert.equal(deleted.metadata.name, 'csi.example.com');
  });

  it('decode from client-go\'s protobuf and print as kubectl does', async () => {
    const body = readFileSync(join(import.meta.dirname, '..', '..', '..', 'test', 'unit', 'protobuf', 'testdata', 'csidriver.pb'));
    const created = status(await ts.request('POST', DRIVERS, body, { headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } }), 201);
    assert.deepEqual(created.spec, {
      attachRequired: false,
      podInfoOnMount: true,
      volumeLifecycleModes: ['Persistent', 'Ephemeral'],
      storageCapacity: true,
      fsGroupPolicy: 'File',
      tokenRequests: [{ audience: 'vault' }, { audience: '', expirationSeconds: 3600 }],
      requiresRepublish: false,
      seLinuxMount: false,
    });
    status(await ts.request('POST', DRIVERS, { metadata: { name: 'plain.example.com' } }), 201);
    const rows = await kubectlGet(['csidrivers']);
    assert.deepEqual(rows[0], ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
    assert.deepEqual(rows.find((r) => r[0] === 'hostpath.csi.k8s.io')!.slice(0, 7), ['hostpath.csi.k8s.io', 'false', 'true', 'true', 'vault,', 'false', 'Persistent,Ephemeral']);
    assert.deepEqual(rows.find((r) => r[0] === 'plain.example.com')!.slice(0, 7), ['plain.example.com', 'true', 'false', 'false', '<unset>', 'false', 'Persistent']);
  });
});

describe('CSINodes', () => {
  it('answer empty lists as null, merge drivers by name, and refuse changes to a registered driver', async () => {
    const empty = status(await ts.request('POST', NODES, { metadata: { name: 'node-a' } }), 201);
    assert.deepEqual(empty.spec, { drivers: null });
    // Empty lists read back as null, as from kube-apiserver's protobuf storage.
    const emptyLists = status(await ts.request('POST', NODES, { metadata: { name: 'node-e' }, spec: { drivers: [] } }), 201);
    assert.deepEqual(emptyLists.spec, { drivers: null });
    const emptyKeys = status(await ts.request('PUT', `${NODES}/node-e`, { ...emptyLists, spec: { drivers: [{ name: 'e.csi.example.com', nodeID: 'e', topologyKeys: [] }] } }), 200);
    assert.deepEqual(emptyKeys.spec, { drivers: [{ name: 'e.csi.example.com', nodeID: 'e', topologyKeys: null }] });
    const bad = await ts.request('POST', NODES, {
      metadata: { name: 'node-b' },
      spec: { drivers: [{ name: 'Bad_Driver', nodeID: '', topologyKeys: ['zone', 'zone', ''], allocatable: { count: -1 } }, { name: 'Bad_Driver', nodeID: 'x'.repeat(257) }] },
    });
    assert.deepEqual(causes(bad), [
      `spec.drivers[0].name: Invalid value: "Bad_Driver": ${SUBDOMAIN}`,
      'spec.drivers[0].nodeID: Required value',
      'spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0',
      'spec.drivers[0]: Duplicate value: "zone"',
      'spec.drivers[0]: Required value',
      "spec.drivers[0]: Invalid value: \"\": name part must be non-empty",
      "spec.drivers[0]: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      `spec.drivers[1].name: Invalid value: "Bad_Driver": ${SUBDOMAIN}`,
      `spec.drivers[1].nodeID: Invalid value: "${'x'.repeat(257)}": must be 256 characters or less`,
      'spec.drivers[1].name: Duplicate value: "Bad_Driver"',
    ]);
    const registered = { name: 'a.csi.example.com', nodeID: 'node-a', topologyKeys: ['topology.example.com/zone'] };
    status(await ts.request('PATCH', `${NODES}/node-a`, { spec: { drivers: [registered] } }, strategic), 200);
    const both = status(await ts.request('PATCH', `${NODES}/node-a`, { spec: { drivers: [{ name: 'b.csi.example.com', nodeID: 'b-1' }] } }, strategic), 200);
    assert.deepEqual(both.spec.drivers.map((d: any) => d.name), ['b.csi.example.com', 'a.csi.example.com']);
    const moved = await ts.request('PATCH', `${NODES}/node-a`, { spec: { drivers: [{ name: 'a.csi.example.com', nodeID: 'elsewhere' }] } }, strategic);
    assert.deepEqual(causes(moved), [
      'CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:"a.csi.example.com", NodeID:"elsewhere", TopologyKeys:[]string{"topology.example.com/zone"}, Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable',
    ]);
    const rows = await kubectlGet(['csinodes', 'node-a']);
    assert.deepEqual(rows[0], ['NAME', 'DRIVERS', 'AGE']);
    assert.deepEqual(rows[1]!.slice(0, 2), ['node-a', '2']);
    const deleted = status(await ts.request('DELETE', `${NODES}/node-a`), 200);
    assert.equal(deleted.kind, 'CSINode');
  });
});

describe('CSIStorageCapacities', () => {
  it('are namespaced, warn about deprecated node labels, keep nodeTopology and storageClassName, and print Name/Created At', async () => {
    const topology = { matchLabels: { 'failure-domain.beta.kubernetes.io/zone': 'eu-1a' }, matchExpressions: [{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['amd64'] }] };
    const r = await ts.request('POST', CAPACITIES, { metadata: { name: 'fast-eu' }, storageClassName: 'fast', capacity: '1024Mi', maximumVolumeSize: '0.5Gi', nodeTopology: topology });
    const created = status(r, 201);
    assert.equal(created.metadata.namespace, 'default');
    assert.equal(created.capacity, '1Gi');
    assert.equal(created.maximumVolumeSize, '512Mi');
    assert.deepEqual(String(r.headers.warning).split(/,\s*(?=299)/), [
      '299 - "nodeTopology.matchExpressions[0].key: beta.kubernetes.io/arch is deprecated since v1.14; use \\"kubernetes.io/arch\\" instead"',
      '299 - "nodeTopology.matchLabels.failure-domain.beta.kubernetes.io/zone: deprecated since v1.17; use \\"topology.kubernetes.io/zone\\" instead"',
    ]);
    const bad = await ts.request('POST', CAPACITIES, { metadata: { name: 'bad' }, storageClassName: 'Fast', capacity: '-1', nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'In' }] } });
    assert.deepEqual(causes(bad), [
      "nodeTopology.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      `storageClassName: Invalid value: "Fast": ${SUBDOMAIN}`,
      'capacity: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    const renamed = await ts.request('PATCH', `${CAPACITIES}/fast-eu`, { storageClassName: 'slow', nodeTopology: { matchLabels: { zone: 'b' } } }, merge);
    assert.deepEqual(causes(renamed), [
      'nodeTopology: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"failure-domain.beta.kubernetes.io/zone":"eu-1a", "zone":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"beta.kubernetes.io/arch", Operator:"In", Values:[]string{"amd64"}}}}: field is immutable',
      'storageClassName: Invalid value: "slow": field is immutable',
    ]);
    const resized = status(await ts.request('PATCH', `${CAPACITIES}/fast-eu`, { capacity: '2Gi' }, merge), 200);
    assert.equal(resized.capacity, '2Gi');
    const rows = await kubectlGet(['csistoragecapacities', '-n', 'default']);
    assert.deepEqual(rows[0], ['NAME', 'CREATED AT']);
    assert.equal(rows[1]![0], 'fast-eu');
    // No ReturnDeletedObject: a DELETE answers a Status.
    const deleted = status(await ts.request('DELETE', `${CAPACITIES}/fast-eu`), 200);
    assert.deepEqual([deleted.kind, deleted.status, deleted.details.name, deleted.details.kind], ['Status', 'Success', 'fast-eu', 'csistoragecapacities']);
  });
});

describe('VolumeAttachments', () => {
  const va = (name: string, extra: Record<string, unknown> = {}) => ({
    metadata: { name },
    spec: { attacher: 'csi.example.com', source: { persistentVolumeName: `pv-${name}` }, nodeName: 'csi-node-1', ...extra },
  });

  it('start detached whatever the body says; the main endpoint ignores status and refuses spec changes', async () => {
    const created = status(await ts.request('POST', ATTACHMENTS, { ...va('va-1'), status: { attached: true, attachmentMetadata: { a: 'b' } } }), 201);
    assert.deepEqual(created.status, { attached: false });
    assert.equal(created.metadata.generation, undefined);
    // In protobuf, too, the status says attached: false (a zero kept, not dropped).
    const pb = await ts.request('GET', `${ATTACHMENTS}/va-1`, undefined, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(pb.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    const decoded = decodeKubernetesProtobuf(pb.raw).object as any;
    assert.deepEqual([decoded.spec, decoded.status], [created.spec, { attached: false }]);
    const patched = status(await ts.request('PATCH', `${ATTACHMENTS}/va-1`, { metadata: { labels: { app: 'db' } }, status: { attached: true } }, merge), 200);
    assert.deepEqual([patched.metadata.labels, patched.status], [{ app: 'db' }, { attached: false }]);
    const moved = await ts.request('PATCH', `${ATTACHMENTS}/va-1`, { spec: { nodeName: 'elsewhere' } }, merge);
    assert.deepEqual(causes(moved), [
      'spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000a1b2d0), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"elsewhere"}: field is immutable',
    ]);
  });

  it('are validated with upstream\'s paths and messages, an inline volume as a CSI volume', async () => {
    const bad = await ts.request('POST', ATTACHMENTS, { metadata: { name: 'va-bad' }, spec: { attacher: '', source: {}, nodeName: 'Bad_Node' } });
    assert.deepEqual(causes(bad), [
      'spec.attacher: Required value',
      'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
      `spec.nodeName: Invalid value: "Bad_Node": ${SUBDOMAIN}`,
      'spec.attacher: Required value',
      `spec.attacher: Invalid value: "": ${SUBDOMAIN}`,
    ]);
    const both = await ts.request('POST', ATTACHMENTS, va('va-both', { source: { persistentVolumeName: 'Bad_PV', inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h' } } } }));
    assert.deepEqual(causes(both), [
      'spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
      `spec.source.persistentVolumeName: Invalid value: "Bad_PV": ${SUBDOMAIN}`,
    ]);
    const inline = await ts.request('POST', ATTACHMENTS, va('va-inline', { source: { inlineVolumeSpec: { capacity: { storage: '1Gi' }, storageClassName: 'fast', persistentVolumeReclaimPolicy: 'Delete', nfs: { server: 'n', path: '/x' } } } }));
    assert.deepEqual(causes(inline), [
      'spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes',
      'spec.source.inlineVolumeSpec.accessModes: Required value',
      'spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes',
      'spec.source.inlineVolumeSpec.storageClassName: Forbidden: may not be specified in the context of inline volumes',
    ]);
    const good = status(await ts.request('POST', ATTACHMENTS, va('va-inline', { source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'vol-1' } } } })), 201);
    assert.deepEqual(good.spec.source.inlineVolumeSpec.csi, { driver: 'csi.example.com', volumeHandle: 'vol-1' });
  });

  it('write their status through /status only, which keeps spec and metadata and validates the status', async () => {
    const read = status(await ts.request('GET', `${ATTACHMENTS}/va-1/status`), 200);
    assert.deepEqual(read.status, { attached: false });
    const attached = status(
      await ts.request('PATCH', `${ATTACHMENTS}/va-1/status`, { metadata: { labels: { app: 'changed' } }, spec: { nodeName: 'elsewhere' }, status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdf' } } }, merge),
      200,
    );
    assert.deepEqual([attached.status, attached.spec.nodeName, attached.metadata.labels], [{ attached: true, attachmentMetadata: { devicePath: '/dev/xvdf' } }, 'csi-node-1', { app: 'db' }]);
    const current = status(await ts.request('GET', `${ATTACHMENTS}/va-1`), 200);
    current.status = { attached: false, detachError: { time: '2025-03-01T12:00:00Z', message: 'x'.repeat(1025) } };
    const tooLong = await ts.request('PUT', `${ATTACHMENTS}/va-1/status`, current);
    assert.deepEqual(causes(tooLong), ['status.detachError.message: Too long: may not be more than 262144 bytes', 'status.detachError.message: Too long: may not be more than 262144 bytes']);
    assert.match(tooLong.json.message, /is invalid: status\.detachError\.message: Too long: may not be more than 262144 bytes$/);
    current.status = { attached: false, detachError: { time: '2025-03-01T12:00:00Z', message: 'timed out' } };
    const detached = status(await ts.request('PUT', `${ATTACHMENTS}/va-1/status`, current), 200);
    assert.deepEqual(detached.status, { attached: false, detachError: { time: '2025-03-01T12:00:00Z', message: 'timed out' } });

    const rows = await kubectlGet(['volumeattachments']);
    assert.deepEqual(rows[0], ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE']);
    assert.deepEqual(rows.find((r) => r[0] === 'va-1')!.slice(0, 5), ['va-1', 'csi.example.com', 'pv-va-1', 'csi-node-1', 'false']);
    const deleted = status(await ts.request('DELETE', `${ATTACHMENTS}/va-1`), 200);
    assert.equal(deleted.kind, 'VolumeAttachment');
  });
});
