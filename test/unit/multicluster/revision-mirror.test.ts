import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isRevisionWriter, mirrorLabels, REVISION_MIRROR_LABEL } from '../../../src/multicluster/syncer/revision-mirror.js';
import { isClusterLocal } from '../../../src/multicluster/api/kind-placement.js';

const obj = (labels: Record<string, string>) => ({ metadata: { name: 'x', labels } });

describe('revision mirror: one writer, clean labels, never synced', () => {
  it('the smallest Sync state key of the object (else its namespace) writes', () => {
    const ds = obj({ 'state.workload.kcp.io/bbb': 'Sync', 'state.workload.kcp.io/aaa': 'Sync', 'state.workload.kcp.io/000': 'Pending' });
    assert.equal(isRevisionWriter(ds, undefined, 'aaa'), true);
    assert.equal(isRevisionWriter(ds, undefined, 'bbb'), false);
    const ns = obj({ 'state.workload.kcp.io/k2': 'Sync', 'state.workload.kcp.io/k1': 'Sync' });
    assert.equal(isRevisionWriter(obj({}), ns, 'k1'), true);
    assert.equal(isRevisionWriter(obj({}), ns, 'k2'), false);
    assert.equal(isRevisionWriter(obj({ 'workload.kcp.io/cluster': 'st-a' }), undefined, 'k9'), true);
  });

  it('keeps the cluster labels but the syncer\'s, and marks the mirror', () => {
    assert.deepEqual(mirrorLabels(obj({ app: 'web', 'controller-revision-hash': 'abc', 'internal.workload.kcp.io/cluster': 'k', 'state.workload.kcp.io/k': 'Sync' })), { app: 'web', 'controller-revision-hash': 'abc', [REVISION_MIRROR_LABEL]: 'true' });
  });

  it('ControllerRevisions and mirrors are cluster-local', () => {
    assert.equal(isClusterLocal('controllerrevisions', obj({})), true);
    assert.equal(isClusterLocal('configmaps', obj({ [REVISION_MIRROR_LABEL]: 'true' })), true);
    assert.equal(isClusterLocal('configmaps', obj({})), false);
  });
});
