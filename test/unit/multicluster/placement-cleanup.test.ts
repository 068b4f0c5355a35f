/** The Placement cleanup finalizer's decision (scheduling/placement-cleanup.ts), as a table. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { awaitsCleanup, cleanupPending, finalizersWithCleanup, PLACEMENT_CLEANUP_FINALIZER } from '../../../src/multicluster/scheduling/placement-cleanup.js';

const F = PLACEMENT_CLEANUP_FINALIZER;
const deleting = (at = '2026-01-01T00:00:00Z'): KubeObject => ({ metadata: { name: 'default', deletionTimestamp: at, finalizers: [F] } });
const ns = (name: string, placement?: string): KubeObject => ({ metadata: { name, annotations: placement ? { 'scheduling.kcp.io/placement': placement } : {} } });
const deploy = (name: string, labels: Record<string, string> = {}, finalizers: string[] = []): KubeObject => ({ kind: 'Deployment', metadata: { name, namespace: 'shop', labels, finalizers } });
const now = new Date('2026-01-01T00:01:00Z');
const base = { placement: deleting(), namespaces: [ns('shop')], computeStays: false, workloads: [] as KubeObject[], releasable: (k: string) => k === 'ready', now, timeoutSeconds: 300 };

describe('Placement cleanup', () => {
  it('the finalizer is added to a live Placement lacking it, and only then', () => {
    assert.deepEqual(finalizersWithCleanup({ metadata: { finalizers: ['x'] } }), ['x', F]);
    assert.equal(finalizersWithCleanup({ metadata: { finalizers: [F] } }), undefined);
    assert.equal(finalizersWithCleanup({ metadata: { deletionTimestamp: 'x' } }), undefined);
    assert.equal(awaitsCleanup(deleting()), true);
    assert.equal(awaitsCleanup({ metadata: { finalizers: [F] } }), false);
  });

  const cases: [string, Partial<typeof base>, string | undefined][] = [
    ['nothing left: released', {}, undefined],
    ['a namespace still placed by it', { namespaces: [ns('shop', 'default'), ns('other', 'another')] }, 'namespaces still placed: shop'],
    ['a split child left', { workloads: [deploy('web'), deploy('web--a', { 'scheduling.atrium.io/split-from': 'web' })] }, 'split child Deployment shop/web--a still exists'],
    ['a finalizer a Ready syncer will release', { workloads: [deploy('pinned', {}, ['workload.kcp.io/syncer-ready'])] }, 'Deployment shop/pinned still synced (workload.kcp.io/syncer-ready)'],
    ['a finalizer of a SyncTarget that cannot release it', { workloads: [deploy('pinned', {}, ['workload.kcp.io/syncer-gone', 'other'])] }, undefined],
    ['other compute stays: objects do not matter', { computeStays: true, workloads: undefined }, undefined],
    ['no compute stays and the workloads are unknown', { workloads: undefined }, 'workloads not read yet'],
    ['past the timeout: released anyway', { namespaces: [ns('shop', 'default')], now: new Date('2026-01-01T00:05:01Z') }, undefined],
  ];
  for (const [title, over, want] of cases) it(title, () => assert.equal(cleanupPending({ ...base, ...over }), want));
});
