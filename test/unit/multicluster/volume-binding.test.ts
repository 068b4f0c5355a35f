import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { volumeCopy } from '../../../src/multicluster/syncer/workspace-volumes.js';
import { boundClaimStatus, claimRefFor, mismatch, reclaimOf, unbound, volumeCopyName, volumeFor, volumePhase } from '../../../src/multicluster/decisions/volume-binding.js';

const pv = (name: string, spec: Record<string, unknown> = {}, phase = 'Available'): KubeObject => ({
  metadata: { name },
  spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', ...spec },
  status: { phase },
});
const claim = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...meta },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } }, storageClassName: 'manual', ...spec },
});

describe('volumeFor: which of its workspace\'s volumes a claim binds', () => {
  it('the smallest Available volume of its class with its access modes and capacity', () => {
    const vols = [pv('big', { capacity: { storage: '100Gi' } }), pv('small'), pv('tiny', { capacity: { storage: '1Gi' } }), pv('rox', { accessModes: ['ReadOnlyMany'] }), pv('other', { storageClassName: 'fast' })];
    assert.equal(volumeFor(claim('c'), vols)?.metadata?.name, 'small');
  });

  it('never a volume another claim holds, one still Pending, or one being deleted', () => {
    assert.equal(volumeFor(claim('c'), [pv('held', { claimRef: { namespace: 'default', name: 'x' } }), pv('new', {}, 'Pending'), { ...pv('going'), metadata: { name: 'going', deletionTimestamp: 'now' } }]), undefined);
  });

  it('the volume pre-bound to it, or the one it names, when that one satisfies it', () => {
    const pre = pv('pre', { claimRef: { namespace: 'default', name: 'c' } }, 'Available');
    assert.equal(volumeFor(claim('c'), [pv('small'), pre])?.metadata?.name, 'pre');
    assert.equal(volumeFor(claim('c', { volumeName: 'named', storageClassName: '' }), [pv('named', { storageClassName: undefined }, 'Pending')])?.metadata?.name, 'named');
    assert.equal(volumeFor(claim('c', { volumeName: 'named' }), [pv('named', { capacity: { storage: '1Gi' } })]), undefined, 'too small');
    assert.equal(volumeFor(claim('c', { volumeName: 'named' }), [pv('named', { claimRef: { namespace: 'default', name: 'x' } })]), undefined, 'another claim\'s');
    assert.equal(volumeFor(claim('c', { volumeName: 'missing' }), [pv('small')]), undefined, 'a named volume is the only candidate');
    assert.equal(volumeFor(claim('c', { volumeName: 'pvc-123' }), [pre]), undefined, 'a claim naming a volume takes no other, even one pre-bound to it');
  });

  it('a claim naming no class binds nothing by matching (a cluster\'s default class provisions it)', () => {
    const { storageClassName: _c, ...spec } = claim('c').spec as Record<string, unknown>;
    assert.equal(volumeFor({ ...claim('c'), spec }, [pv('plain', { storageClassName: undefined })]), undefined);
    assert.equal(volumeFor(claim('c', { storageClassName: '' }), [pv('plain', { storageClassName: undefined })])?.metadata?.name, 'plain');
  });

  it('mismatch says why a named volume cannot take the claim', () => {
    assert.equal(mismatch(claim('c'), pv('v', { storageClassName: 'fast' })), 'storageClassName does not match');
    assert.equal(mismatch(claim('c'), pv('v', { volumeMode: 'Block' })), 'incompatible volumeMode');
    assert.equal(mismatch(claim('c'), pv('v')), undefined);
  });
});

describe('volumePhase and reclaimOf: a volume\'s life in its workspace', () => {
  const bound = (c: KubeObject) => pv('v', { claimRef: claimRefFor(c) });
  it('Available, Bound while its claim lives and names it, Released once the claim is gone or another by that name', () => {
    const c = claim('c', { volumeName: 'v' });
    assert.equal(volumePhase(pv('v'), undefined), 'Available');
    assert.equal(volumePhase(bound(c), c), 'Bound');
    assert.equal(volumePhase(bound(c), undefined), 'Released');
    assert.equal(volumePhase(bound(c), claim('c', { volumeName: 'v' }, { uid: 'new' })), 'Released');
    assert.equal(volumePhase(pv('v', { claimRef: { namespace: 'default', name: 'later' } }), undefined), 'Available', 'pre-bound to a claim not made yet');
  });

  it('unbound: a volume whose claim took another volume loses the binding (the binder\'s claimRef whole, a user\'s pre-binding its uid)', () => {
    const c = claim('c', { volumeName: 'other' });
    const byBinder = { ...pv('v', { claimRef: claimRefFor(c) }), metadata: { name: 'v', annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes' } } };
    assert.deepEqual(unbound(byBinder, c), { claimRef: null });
    const { uid: _u, resourceVersion: _r, ...named } = claimRefFor(c);
    assert.deepEqual(unbound(pv('v', { claimRef: claimRefFor(c) }), c), { claimRef: named });
    assert.equal(unbound(pv('v', { claimRef: claimRefFor(c) }), claim('c', { volumeName: 'v' })), undefined, 'bound to it');
    assert.equal(unbound(pv('v', { claimRef: { namespace: 'default', name: 'c' } }), c), undefined, 'only pre-bound');
  });

  it('reclaim policies', () => {
    assert.equal(reclaimOf(pv('v')), 'keep');
    assert.equal(reclaimOf(pv('v', { persistentVolumeReclaimPolicy: 'Delete' })), 'delete');
    assert.equal(reclaimOf(pv('v', { persistentVolumeReclaimPolicy: 'Recycle' })), 'fail', 'nothing scrubs the storage: Failed, never handed to another claim');
  });

  it('a bound claim\'s status is its volume\'s capacity and access modes', () => {
    assert.deepEqual(boundClaimStatus(claim('c'), pv('v')), { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } });
  });

  it('a copy\'s name is the volume\'s with a suffix of the claim\'s uid: stable, distinct per binding', () => {
    assert.equal(volumeCopyName('v', 'u1'), volumeCopyName('v', 'u1'));
    assert.notEqual(volumeCopyName('v', 'u1'), volumeCopyName('v', 'u2'));
    assert.match(volumeCopyName('v', 'u1'), /^v-[0-9a-f]{10}$/);
    assert.ok(volumeCopyName('x'.repeat(300), 'u1').length <= 253);
  });
});

describe('volumeCopy: a workspace volume as its claim\'s cluster gets it', () => {
  it('pre-bound to the claim downstream, Retain, labelled, its workspace node names the cluster\'s own', () => {
    const up: KubeObject = {
      metadata: { name: 'local-pv', labels: { type: 'local' } },
      spec: {
        capacity: { storage: '5Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        claimRef: { namespace: 'default', name: 'data', uid: 'u-data' },
        local: { path: '/mnt/disks/ssd1' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['east--node-1', 'west--node-1'] }] }] } },
      },
    };
    const copy = volumeCopy(up, claim('data', {}, { uid: 'u-data' }), 'kcp-abc', 'root:apps', 'key1', 'east');
    assert.equal(copy.metadata!.name, volumeCopyName('local-pv', 'u-data'));
    assert.deepEqual(copy.metadata!.labels, { type: 'local', 'scheduling.atrium.io/workspace-volume-copy': 'true', 'internal.workload.kcp.io/cluster': 'key1' });
    const spec = copy.spec as Record<string, any>;
    assert.deepEqual(spec.claimRef, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'kcp-abc', name: 'data' });
    assert.equal(spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.deepEqual(spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, ['node-1', 'west--node-1']);
    assert.deepEqual((up.spec as any).nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, ['east--node-1', 'west--node-1'], 'the workspace volume is left as it is');
  });
});
