/**
 * The simulated cluster's volume decisions, table-driven: which class a claim has and which class is the default,
 * what the scheduler concludes about a pod's claims, node affinity, static binding, capacity accounting and the
 * provisioned volume.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import {
  findMatchingVolume,
  formatBytes,
  podClaimNames,
  podVolumes,
  provisionDecision,
  provisionedBytes,
  provisionedVolume,
  volumeNodeAffinityMatches,
  volumeNodeConflicts,
  type VolumeLookup,
} from '../../../src/pcluster/controllers/storage/binding.js';
import { claimClassName, claimHasClass, defaultStorageClass, isDefaultIngressClass, isDefaultStorageClass, isDelayBinding, newestDefault } from '../../../src/pcluster/controllers/classes.js';
import { parseStorageCapacity } from '../../../src/pcluster/options.js';

const claim = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...meta },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const volume = (name: string, spec: Record<string, unknown> = {}, phase = 'Available', meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, ...meta },
  spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, ...spec },
  status: { phase },
});
const sc = (name: string, mode: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, ...extra }, provisioner: 'atrium.io/simulated', volumeBindingMode: mode });
const pod = (...claims: string[]): KubeObject => ({
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c' }], volumes: [...claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })), { name: 'tmp', emptyDir: {} }] },
});
const lookupOf = (claims: KubeObject[], volumes: KubeObject[] = [], classes: KubeObject[] = [sc('standard', 'WaitForFirstConsumer'), sc('fast', 'Immediate')]): VolumeLookup => ({
  claim: (n) => claims.find((c) => c.metadata?.name === n),
  volume: (n) => volumes.find((v) => v.metadata?.name === n),
  storageClass: (n) => classes.find((c) => c.metadata?.name === n),
});
const affinity = (...terms: unknown[]) => ({ nodeAffinity: { required: { nodeSelectorTerms: terms } } });

describe('storage classes', () => {
  it('the cluster starts with kind’s default class: standard, WaitForFirstConsumer, Delete', () => {
    const c = defaultStorageClass();
    assert.deepEqual([c.metadata?.name, c.provisioner, c.volumeBindingMode, c.reclaimPolicy, isDefaultStorageClass(c)], ['standard', 'atrium.io/simulated', 'WaitForFirstConsumer', 'Delete', true]);
  });
  it('the default is the newest class marked so (ties: first name); none when none is', () => {
    const at = (name: string, time: string, ann: Record<string, string>) => ({ metadata: { name, creationTimestamp: time, annotations: ann } });
    const on = { 'storageclass.kubernetes.io/is-default-class': 'true' };
    const beta = { 'storageclass.beta.kubernetes.io/is-default-class': 'true' };
    const classes = [at('a', '2024-01-01T00:00:00Z', on), at('b', '2024-02-01T00:00:00Z', beta), at('c', '2024-03-01T00:00:00Z', { 'storageclass.kubernetes.io/is-default-class': 'false' })];
    assert.equal(newestDefault(classes, isDefaultStorageClass)?.metadata?.name, 'b');
    assert.equal(newestDefault([at('z', '2024-01-01T00:00:00Z', on), at('y', '2024-01-01T00:00:00Z', on)], isDefaultStorageClass)?.metadata?.name, 'y');
    assert.equal(newestDefault([classes[2]!], isDefaultStorageClass), undefined);
    assert.equal(isDefaultIngressClass({ metadata: { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } }), true);
  });
  const hasClass: [string, KubeObject, boolean, string][] = [
    ['no class at all', claim('a'), false, ''],
    ['an empty class (no dynamic provisioning)', claim('a', { storageClassName: '' }), true, ''],
    ['a named class', claim('a', { storageClassName: 'fast' }), true, 'fast'],
    ['the beta annotation wins', claim('a', { storageClassName: 'fast' }, { annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } }), true, 'slow'],
  ];
  for (const [name, c, has, cls] of hasClass) it(`${name}: hasClass ${has}, class "${cls}"`, () => assert.deepEqual([claimHasClass(c), claimClassName(c)], [has, cls]));
  it('binding waits for the first consumer only with a WaitForFirstConsumer class that exists', () => {
    const classes = (n: string) => [sc('standard', 'WaitForFirstConsumer'), sc('fast', 'Immediate')].find((c) => c.metadata?.name === n);
    assert.equal(isDelayBinding(claim('a', { storageClassName: 'standard' }), classes), true);
    assert.equal(isDelayBinding(claim('a', { storageClassName: 'fast' }), classes), false);
    assert.equal(isDelayBinding(claim('a', { storageClassName: 'missing' }), classes), false);
    assert.equal(isDelayBinding(claim('a'), classes), false);
  });
});

describe("the scheduler's view of a pod's claims (VolumeBinding PreFilter)", () => {
  it('lists each claim a pod names once', () => assert.deepEqual(podClaimNames(pod('a', 'b', 'a')), ['a', 'b']));
  const bound = claim('bound', { storageClassName: 'fast', volumeName: 'pv-1' }, {});
  const cases: [string, KubeObject, VolumeLookup, unknown][] = [
    ['no claims: schedulable', pod(), lookupOf([]), { kind: 'schedulable', volumes: [], delayed: [] }],
    ['a missing claim', pod('gone'), lookupOf([]), { kind: 'unresolvable', message: 'persistentvolumeclaim "gone" not found' }],
    ['a claim being deleted', pod('old'), lookupOf([claim('old', {}, { deletionTimestamp: '2024-01-01T00:00:00Z' })]), { kind: 'unresolvable', message: 'persistentvolumeclaim "old" is being deleted' }],
    ['an unbound Immediate claim', pod('now'), lookupOf([claim('now', { storageClassName: 'fast' })]), { kind: 'unresolvable', message: 'pod has unbound immediate PersistentVolumeClaims' }],
    ['an unbound claim without a class binds immediately', pod('none'), lookupOf([claim('none', { storageClassName: '' })]), { kind: 'unresolvable', message: 'pod has unbound immediate PersistentVolumeClaims' }],
    ['an unbound claim of a missing class binds immediately', pod('x'), lookupOf([claim('x', { storageClassName: 'nope' })]), { kind: 'unresolvable', message: 'pod has unbound immediate PersistentVolumeClaims' }],
  ];
  for (const [name, p, lookup, want] of cases) it(name, () => assert.deepEqual(podVolumes(p, lookup), want));
  it('an unbound WaitForFirstConsumer claim waits for the node; bound claims bring their volumes', () => {
    const wffc = claim('later', { storageClassName: 'standard' });
    const pv = volume('pv-1');
    const r = podVolumes(pod('later', 'bound'), lookupOf([wffc, bound], [pv]));
    assert.deepEqual(r, { kind: 'schedulable', volumes: [{ claim: 'bound', volume: pv }], delayed: [wffc] });
  });
  it('an unbound Immediate claim wins over WaitForFirstConsumer ones', () => {
    const r = podVolumes(pod('later', 'now'), lookupOf([claim('later', { storageClassName: 'standard' }), claim('now', { storageClassName: 'fast' })]));
    assert.equal(r.kind, 'unresolvable');
  });
  it('filters nodes by the bound volumes’ node affinity, and refuses volumes that do not exist', () => {
    const pinned = volume('pv-1', affinity({ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }));
    assert.deepEqual(volumeNodeConflicts([{ volume: pinned }], 'n1', { 'kubernetes.io/hostname': 'n1' }), []);
    assert.deepEqual(volumeNodeConflicts([{ volume: pinned }], 'n2', { 'kubernetes.io/hostname': 'n2' }), ['node(s) had volume node affinity conflict']);
    assert.deepEqual(volumeNodeConflicts([{ volume: undefined }], 'n1', {}), ['node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)']);
  });
});

describe('volume node affinity', () => {
  const labels = { zone: 'a', gen: '5', 'kubernetes.io/hostname': 'n1' };
  const cases: [string, unknown[], boolean][] = [
    ['In matches', [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }], true],
    ['In misses', [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }], false],
    ['NotIn of an absent label matches', [{ matchExpressions: [{ key: 'rack', operator: 'NotIn', values: ['r1'] }] }], true],
    ['Exists / DoesNotExist', [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }, { key: 'rack', operator: 'DoesNotExist' }] }], true],
    ['Gt and Lt compare integers', [{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }, { key: 'gen', operator: 'Lt', values: ['6'] }] }], true],
    ['expressions of a term are ANDed', [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'gen', operator: 'Gt', values: ['9'] }] }], false],
    ['terms are ORed', [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }], true],
    ['an empty term matches nothing', [{}], false],
  ];
  for (const [name, terms, want] of cases) it(name, () => assert.equal(volumeNodeAffinityMatches(volume('v', affinity(...terms)), 'n1', labels), want));
  it('a volume without node affinity fits every node', () => assert.equal(volumeNodeAffinityMatches(volume('v'), 'n9', {}), true));
});

describe('static binding (FindMatchingVolume)', () => {
  const c = claim('data', { storageClassName: 'manual', resources: { requests: { storage: '2Gi' } } });
  const pv = (name: string, size: string, extra: Record<string, unknown> = {}, phase = 'Available', meta: Record<string, unknown> = {}) =>
    volume(name, { storageClassName: 'manual', capacity: { storage: size }, ...extra }, phase, meta);
  const cases: [string, KubeObject[], string | undefined][] = [
    ['the smallest volume that is big enough', [pv('big', '10Gi'), pv('small', '1Gi'), pv('fit', '3Gi')], 'fit'],
    ['only of the claim’s class', [pv('other', '5Gi', { storageClassName: 'gold' })], undefined],
    ['with every requested access mode', [pv('rox', '5Gi', { accessModes: ['ReadOnlyMany'] })], undefined],
    ['of the same volume mode', [pv('block', '5Gi', { volumeMode: 'Block' })], undefined],
    ['only Available ones', [pv('released', '5Gi', {}, 'Released')], undefined],
    ['never one being deleted', [pv('dying', '5Gi', {}, 'Available', { deletionTimestamp: '2024-01-01T00:00:00Z' })], undefined],
    ['never one claimed by another claim', [pv('taken', '5Gi', { claimRef: { namespace: 'default', name: 'other' } })], undefined],
    ['one pre-bound to the claim first, whatever its class', [pv('any', '5Gi'), pv('mine', '5Gi', { storageClassName: 'x', claimRef: { namespace: 'default', name: 'data' } }, 'Available')], 'mine'],
  ];
  for (const [name, volumes, want] of cases) it(name, () => assert.equal(findMatchingVolume(c, volumes)?.metadata?.name, want));
  it('honours the claim’s selector and, for a node, the volume’s node affinity', () => {
    const selective = claim('data', { storageClassName: 'manual', selector: { matchLabels: { tier: 'ssd' } } });
    assert.equal(findMatchingVolume(selective, [pv('hdd', '5Gi'), pv('ssd', '5Gi', {}, 'Available', { labels: { tier: 'ssd' } })])?.metadata?.name, 'ssd');
    const pinned = pv('pinned', '5Gi', affinity({ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }));
    assert.equal(findMatchingVolume(c, [pinned], { name: 'n2', labels: { 'kubernetes.io/hostname': 'n2' } }), undefined);
    assert.equal(findMatchingVolume(c, [pinned], { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } })?.metadata?.name, 'pinned');
  });
});

describe('storage capacity', () => {
  const ours = (size: string) => volume(`pv-${size}`, { capacity: { storage: size } }, 'Bound', { annotations: { 'pv.kubernetes.io/provisioned-by': 'atrium.io/simulated' } });
  it('counts only the volumes the simulated provisioner made, Released ones too', () => {
    assert.equal(provisionedBytes([ours('1Gi'), ours('512Mi'), volume('static', { capacity: { storage: '100Gi' } })]), 1.5 * 2 ** 30);
  });
  const decisions: [number, number, number, string | undefined][] = [
    [10 * 2 ** 30, 0, 10 * 2 ** 30, undefined],
    [10 * 2 ** 30, 9 * 2 ** 30, 2 ** 30, undefined],
    [10 * 2 ** 30, 2 ** 30, 20 * 2 ** 30, 'insufficient storage in the simulated cluster: requested 20Gi, 9Gi of 10Gi left'],
    [100 * 2 ** 30, 120 * 2 ** 30, 1, 'insufficient storage in the simulated cluster: requested 1, 0 of 100Gi left'],
  ];
  for (const [capacity, used, requested, message] of decisions) {
    it(`${formatBytes(requested)} with ${formatBytes(used)} of ${formatBytes(capacity)} used: ${message ?? 'fits'}`, () =>
      assert.deepEqual(provisionDecision(capacity, used, requested), message ? { ok: false, message } : { ok: true }));
  }
  const formats: [number, string][] = [[0, '0'], [1024, '1Ki'], [1536 * 2 ** 20, '1536Mi'], [2 ** 40, '1Ti'], [1000, '1000']];
  for (const [n, s] of formats) it(`formats ${n} as ${s}`, () => assert.equal(formatBytes(n), s));
  it('--storage-capacity takes a positive quantity', () => {
    assert.equal(parseStorageCapacity('100Gi'), 100 * 2 ** 30);
    assert.equal(parseStorageCapacity('1T'), 1e12);
    assert.throws(() => parseStorageCapacity('lots'), /invalid storage capacity "lots": expected a quantity such as 100Gi/);
    assert.throws(() => parseStorageCapacity('0'), /must be greater than zero/);
  });
});

describe('the provisioned volume', () => {
  it('is pre-bound to the claim with its request, modes, the class’s reclaim policy and mount options, pinned to the node', () => {
    const c = claim('data', { storageClassName: 'standard', accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], resources: { requests: { storage: '5Gi' } } }, { resourceVersion: '7' });
    const pv = provisionedVolume(c, { ...sc('standard', 'WaitForFirstConsumer'), reclaimPolicy: 'Retain', mountOptions: ['noatime'] }, 'n1');
    assert.deepEqual(pv, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-uid-data', annotations: { 'pv.kubernetes.io/provisioned-by': 'atrium.io/simulated' } },
      spec: {
        accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
        capacity: { storage: '5Gi' },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'uid-data', resourceVersion: '7' },
        csi: { driver: 'simulated.atrium.io', volumeHandle: 'pvc-uid-data', fsType: 'ext4' },
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        mountOptions: ['noatime'],
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } },
      },
    });
    const immediate = provisionedVolume(c, sc('fast', 'Immediate'));
    assert.equal((immediate.spec as any).nodeAffinity, undefined);
    assert.equal((immediate.spec as any).persistentVolumeReclaimPolicy, 'Delete');
  });
});
