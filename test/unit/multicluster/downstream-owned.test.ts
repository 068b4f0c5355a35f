import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assignedElsewhere, downstreamOwnedPaths, keepDownstreamOwned, upstreamMirrorPatch } from '../../../src/multicluster/syncer/downstream-owned.js';
import { nextSyncCondition, syncConditionOf, withoutSyncConditions } from '../../../src/multicluster/syncer/sync-condition.js';
import { toDownstream } from '../../../src/multicluster/syncer/transform.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';

const entry = (manager: string, fieldsV1: unknown, subresource?: string) => ({ manager, operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1, ...(subresource ? { subresource } : {}) });
const deploy = (replicas: number, managedFields: unknown[] = []): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', managedFields }, spec: { replicas, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } } } as KubeObject);

describe('downstreamOwnedPaths', () => {
  const cases: { name: string; entries: unknown[]; want: string[] }[] = [
    { name: 'nothing managed', entries: [], want: [] },
    { name: 'only the syncer', entries: [entry('syncer', { 'f:spec': { 'f:replicas': {} } })], want: [] },
    { name: 'an HPA stand-in owns replicas', entries: [entry('syncer', { 'f:spec': { 'f:template': {} } }), entry('hpa', { 'f:spec': { 'f:replicas': {} } })], want: ['spec.replicas'] },
    { name: 'through the scale subresource', entries: [entry('kubectl', { 'f:spec': { 'f:replicas': {} } }, 'scale')], want: ['spec.replicas'] },
    { name: 'status entries never count', entries: [entry('kubelet', { 'f:spec': { 'f:replicas': {} } }, 'status')], want: [] },
    { name: 'metadata is not spec', entries: [entry('ctrl', { 'f:metadata': { 'f:annotations': { 'f:x': {} } } })], want: [] },
    { name: 'nested leaves and a list owned by element', entries: [entry('webhook', { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {} } }, 'f:dnsPolicy': {} } } } })], want: ['spec.template.spec.containers', 'spec.template.spec.dnsPolicy'] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(downstreamOwnedPaths(deploy(1, c.entries)).map((p) => p.join('.')), c.want));
  }
});

describe('mirroring and keeping downstream-owned fields', () => {
  it('builds the upstream patch only when values differ', () => {
    assert.deepEqual(upstreamMirrorPatch(deploy(1), deploy(5), [['spec', 'replicas']]), { spec: { replicas: 5 } });
    assert.equal(upstreamMirrorPatch(deploy(5), deploy(5), [['spec', 'replicas']]), undefined);
    assert.equal(upstreamMirrorPatch(deploy(5), deploy(5), []), undefined);
  });

  it('keeps the downstream value in the desired copy and rehashes it', () => {
    const desired = toDownstream(deploy(1), 'deployments', 'kcp-x', 'key');
    const before = desired.metadata!.annotations!['internal.workload.kcp.io/spec-hash'];
    keepDownstreamOwned(desired, deploy(5), [['spec', 'replicas']]);
    assert.equal((desired.spec as { replicas: number }).replicas, 5);
    const after = desired.metadata!.annotations!['internal.workload.kcp.io/spec-hash'];
    assert.notEqual(after, before);
    assert.equal(after, toDownstream({ ...deploy(5), metadata: { ...deploy(5).metadata, namespace: 'ns' } }, 'deployments', 'kcp-x', 'key').metadata!.annotations!['internal.workload.kcp.io/spec-hash']);
  });

  it('does not mirror an object other targets also sync', () => {
    const o = (labels: Record<string, string>) => ({ metadata: { labels } }) as KubeObject;
    assert.equal(assignedElsewhere(o({ 'state.workload.kcp.io/me': 'Sync' }), 'me'), false);
    assert.equal(assignedElsewhere(o({ 'state.workload.kcp.io/me': 'Sync', 'state.workload.kcp.io/other': 'Sync' }), 'me'), true);
    assert.equal(assignedElsewhere(o({ 'state.workload.kcp.io/other': 'Pending' }), 'me'), false);
  });
});

describe('Synced condition annotation', () => {
  const withAnno = (v?: string): KubeObject => ({ metadata: { name: 'a', annotations: v ? { 'synced.workload.kcp.io/k': v } : {} } });
  it('is written on first sync, not again while unchanged, and keeps its transition time until the status flips', () => {
    const first = nextSyncCondition(withAnno(), 'k', { status: 'True', reason: 'Synced' }, 't1')!;
    assert.deepEqual(JSON.parse(first), { type: 'Synced', status: 'True', reason: 'Synced', lastTransitionTime: 't1' });
    assert.equal(nextSyncCondition(withAnno(first), 'k', { status: 'True', reason: 'Synced' }, 't2'), undefined);
    const failed = nextSyncCondition(withAnno(first), 'k', { status: 'False', reason: 'SyncFailed', message: 'm1' }, 't3')!;
    assert.equal(syncConditionOf(withAnno(failed), 'k')?.lastTransitionTime, 't3');
    const failedAgain = nextSyncCondition(withAnno(failed), 'k', { status: 'False', reason: 'SyncFailed', message: 'm2' }, 't4')!;
    assert.equal(JSON.parse(failedAgain).lastTransitionTime, 't3');
    assert.equal(JSON.parse(failedAgain).message, 'm2');
  });

  it('never reaches the downstream copy', () => {
    const o: KubeObject = { metadata: { name: 'a', annotations: { 'synced.workload.kcp.io/k': '{}', keep: 'x' } } };
    assert.deepEqual(withoutSyncConditions(o).metadata?.annotations, { keep: 'x' });
    assert.ok(o.metadata!.annotations!['synced.workload.kcp.io/k']);
    assert.equal(syncConditionOf(withAnno('not json'), 'k'), undefined);
  });
});
