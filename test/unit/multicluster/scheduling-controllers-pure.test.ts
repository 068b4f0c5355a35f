/**
 * The pure parts of the scheduling controllers: which Placement places a namespace, the namespace metadata the
 * scheduler writes, the splitter's child objects and per-cluster statuses, the syncer's skip rule for split roots,
 * the demo's table, and the cordon patches and spread parsing of the kubectl plugin.
 */
import { upstreamStatus } from '../../../src/multicluster/syncer/resource-syncer.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { assignedKeys, placementForNamespace, scheduledNamespaceMetadata } from '../../../src/multicluster/scheduling/namespace-assignment.js';
import { clusterStatuses, desiredChild, isSplitRoot, replicasOf, updatedChild } from '../../../src/multicluster/splitter/children.js';
import { heldOver, isAssigned } from '../../../src/multicluster/syncer/transform.js';
import { deploymentTable, shortAge } from '../../../src/demo/table.js';
import { cordonPatch } from '../../../src/multicluster/scheduling/cordon.js';
import { parseSpread } from '../../../src/multicluster/scheduling/cli.js';

const ns = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, labels, annotations, ...extra },
});
const placement = (name: string, namespaceSelector?: unknown) => ({ metadata: { name }, spec: { namespaceSelector: namespaceSelector as never } });

describe('placementForNamespace', () => {
  const placements = [placement('zeta', {}), placement('alpha', { matchLabels: { team: 'a' } }), placement('none-selector')];
  const cases: [string, KubeObject, string | undefined][] = [
    ['empty selector places any namespace', ns('web'), 'zeta'],
    ['first matching by name wins', ns('web', { team: 'a' }), 'alpha'],
    ['override annotation names the Placement', ns('web', { team: 'a' }, { 'scheduling.atrium.io/placement': 'zeta' }), 'zeta'],
    ['override naming a missing Placement places nowhere', ns('web', {}, { 'scheduling.atrium.io/placement': 'gone' }), undefined],
    ['override none opts out', ns('web', {}, { 'scheduling.atrium.io/placement': 'none' }), undefined],
    ['kube-node-lease is never placed', ns('kube-node-lease'), undefined],
    ['kube-system is placed like any namespace', ns('kube-system'), 'zeta'],
    ['kube-public is placed like any namespace', ns('kube-public'), 'zeta'],
    ['kube-system follows the override too', ns('kube-system', {}, { 'scheduling.atrium.io/placement': 'none' }), undefined],
    ['terminating namespaces are not placed', ns('web', {}, {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }), undefined],
  ];
  for (const [title, n, want] of cases) it(title, () => assert.equal(placementForNamespace(n, placements)?.metadata.name, want));
  it('a missing selector selects nothing', () => assert.equal(placementForNamespace(ns('web'), [placement('p')]), undefined));
  it('an invalid selector selects nothing', () =>
    assert.equal(placementForNamespace(ns('web'), [placement('p', { matchExpressions: [{ key: 'a', operator: 'Bogus' }] })]), undefined));
});

describe('scheduledNamespaceMetadata and assignedKeys', () => {
  const before = ns('web', { keep: 'me', 'state.workload.kcp.io/old': 'Sync', 'state.workload.kcp.io/k1': 'Sync' }, { mine: 'x', 'scheduling.kcp.io/placement': 'p' });
  it('writes exactly the chosen state labels and both annotations, keeping foreign metadata', () => {
    const m = scheduledNamespaceMetadata(before, 'default', ['k1', 'k2']);
    assert.deepEqual(m.labels, { keep: 'me', 'state.workload.kcp.io/k1': 'Sync', 'state.workload.kcp.io/k2': 'Sync' });
    assert.deepEqual(m.annotations, { mine: 'x', 'scheduling.kcp.io/placement': 'default', 'scheduling.atrium.io/split-workloads': 'true' });
  });
  it('releases a namespace without a Placement', () => {
    const m = scheduledNamespaceMetadata(before, undefined, ['k1']);
    assert.deepEqual(m.labels, { keep: 'me' });
    assert.deepEqual(m.annotations, { mine: 'x' });
  });
  it('reads only Sync state labels, sorted', () => {
    assert.deepEqual(assignedKeys(ns('n', { 'state.workload.kcp.io/b': 'Sync', 'state.workload.kcp.io/a': 'Sync', 'state.workload.kcp.io/c': 'Pending', other: 'Sync' })), ['a', 'b']);
  });
});

describe('splitter children', () => {
  const root: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'apps',
      uid: 'u-1',
      generation: 4,
      labels: { app: 'web' },
      annotations: { note: 'n', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'kcp.io/cluster': 'root' },
    },
    spec: { replicas: 15, template: { spec: {} } },
  };
  it('derives a labelled, owned child with its share', () => {
    const c = desiredChild(root, 'cluster-1', 6);
    assert.equal(c.metadata?.name, 'web--cluster-1');
    assert.equal(c.metadata?.namespace, 'apps');
    assert.deepEqual(c.metadata?.labels, { app: 'web', 'workload.kcp.io/cluster': 'cluster-1', 'scheduling.atrium.io/split-from': 'web' });
    assert.deepEqual(c.metadata?.annotations, { note: 'n', 'scheduling.atrium.io/root-generation': '4' });
    assert.deepEqual(c.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(c.spec, { replicas: 6, template: { spec: {} } });
    assert.equal((root.spec as { replicas: number }).replicas, 15, 'the root is not modified');
  });
  it('updates an existing child but keeps finalizers, status and its cluster annotation', () => {
    const existing: KubeObject = { ...desiredChild(root, 'c', 1), status: { readyReplicas: 1 } };
    existing.metadata = { ...existing.metadata, resourceVersion: '9', finalizers: ['f'], annotations: { 'kcp.io/cluster': 'root' } };
    const next = updatedChild(existing, desiredChild(root, 'c', 2));
    assert.equal(replicasOf(next), 2);
    assert.deepEqual(next.metadata?.finalizers, ['f']);
    assert.equal(next.metadata?.resourceVersion, '9');
    assert.deepEqual(next.status, { readyReplicas: 1 });
    assert.equal(next.metadata?.annotations?.['kcp.io/cluster'], 'root');
  });
  const roots: [string, KubeObject, boolean][] = [
    ['plain Deployment', root, true],
    ['labelled to a cluster', { metadata: { labels: { 'workload.kcp.io/cluster': 'x' } } }, false],
    ['a child', { metadata: { labels: { 'scheduling.atrium.io/split-from': 'web' } } }, false],
    ['terminating', { metadata: { deletionTimestamp: 'now' } }, false],
  ];
  for (const [title, obj, want] of roots) it(`isSplitRoot: ${title}`, () => assert.equal(isSplitRoot(obj), want));
  it('replicasOf defaults to 1', () => assert.equal(replicasOf({ spec: {} }), 1));
  it("clusterStatuses keeps assigned targets, with each child's own generation (its status speaks in it)", () => {
    const kid = (t: string, gen: number, observed?: number): KubeObject => ({
      metadata: { labels: { 'workload.kcp.io/cluster': t }, generation: gen, annotations: { 'scheduling.atrium.io/root-generation': '4' } },
      status: observed === undefined ? undefined : { observedGeneration: observed },
    });
    // A child without spec.replicas holds Kubernetes' default 1; a child on an unreachable target is marked so.
    assert.deepEqual(clusterStatuses([kid('a', 3, 2), kid('b', 2), kid('gone', 1, 1)], ['a', 'b'], ['b']), [
      { target: 'a', syncedGeneration: 4, generation: 3, status: { observedGeneration: 2 }, replicas: 1 },
      { target: 'b', syncedGeneration: 4, generation: 2, status: undefined, replicas: 1, reachable: false },
    ]);
  });

  it("upstreamStatus reports observedGeneration in the upstream object's generations", () => {
    const up = (gen: number): KubeObject => ({ metadata: { generation: gen } });
    const down = (gen: number, observed: number): KubeObject => ({ metadata: { generation: gen }, status: { observedGeneration: observed, replicas: 2 } });
    assert.deepEqual(upstreamStatus(up(7), down(3, 3)), { observedGeneration: 7, replicas: 2 }, 'the cluster observed the copy it holds');
    assert.deepEqual(upstreamStatus(up(7), down(3, 2)), { observedGeneration: 6, replicas: 2 }, 'not yet');
    assert.deepEqual(upstreamStatus(up(7), { metadata: {}, status: { phase: 'Running' } }), { phase: 'Running' }, 'no generations: as it is');
  });
});

describe('syncer skip rule for split roots', () => {
  const target = { name: 't', key: 'k' };
  const splitNs = ns('apps', { 'state.workload.kcp.io/k': 'Sync' }, { 'scheduling.atrium.io/split-workloads': 'true' });
  const plainNs = ns('apps', { 'state.workload.kcp.io/k': 'Sync' });
  const cases: [string, KubeObject, KubeObject, boolean][] = [
    ['root in a split namespace is skipped', { metadata: { name: 'web' }, spec: { replicas: 3 } }, splitNs, false],
    ['child labelled to the target syncs', { metadata: { name: 'web--t', labels: { 'workload.kcp.io/cluster': 't' } }, spec: { replicas: 3 } }, splitNs, true],
    ['objects without replicas follow the namespace', { metadata: { name: 'svc' }, spec: { ports: [] } }, splitNs, true],
    ['a replicated object in an unsplit namespace syncs', { metadata: { name: 'web' }, spec: { replicas: 3 } }, plainNs, true],
  ];
  for (const [title, obj, n, want] of cases) it(title, () => assert.equal(isAssigned(obj, n, target), want));
});

describe('syncer: a consumer workspace\'s namespace moving away (make before break)', () => {
  const target = { name: 't', key: 'k', consumer: true };
  const fin = 'workload.kcp.io/syncer-k';
  const leftNs = ns('apps', { 'workload.kcp.io/cluster': 'other' }, { 'scheduling.atrium.io/split-workloads': 'true' });
  const placedNs = ns('apps', { 'state.workload.kcp.io/k': 'Sync' }, { 'scheduling.atrium.io/split-workloads': 'true' });
  const child = (labels: Record<string, string>, finalizers: string[] = []): KubeObject => ({ metadata: { name: 'web--t', labels, finalizers }, spec: { replicas: 3 } });
  const svc = (labels: Record<string, string>, finalizers: string[] = []): KubeObject => ({ metadata: { name: 'web', labels, finalizers }, spec: { ports: [] } });
  const services = { group: '', resource: 'services' };
  const cases: [string, KubeObject, KubeObject, { group: string; resource: string } | undefined, boolean][] = [
    ['a child synced here and still labelled for the target keeps its copy', child({ 'workload.kcp.io/cluster': 't', 'scheduling.atrium.io/split-from': 'web' }, [fin]), leftNs, undefined, true],
    ['a Service kept here by its own state label keeps its copy', svc({ 'state.workload.kcp.io/k': 'Sync' }, [fin]), leftNs, services, true],
    ['a child never synced here (no finalizer of this target) is not taken on', child({ 'workload.kcp.io/cluster': 't', 'scheduling.atrium.io/split-from': 'web' }), leftNs, undefined, false],
    ['an object a user pinned by the bare name is not held', svc({ 'workload.kcp.io/cluster': 't' }, [fin]), leftNs, { group: '', resource: 'configmaps' }, false],
    ['a finalizer of another target holds nothing here', child({ 'workload.kcp.io/cluster': 't', 'scheduling.atrium.io/split-from': 'web' }, ['workload.kcp.io/syncer-other']), leftNs, undefined, false],
    ['a child labelled for another target goes', child({ 'workload.kcp.io/cluster': 'u', 'scheduling.atrium.io/split-from': 'web' }, [fin]), leftNs, undefined, false],
    ['a Service the placement controller took off the target goes', svc({ 'state.workload.kcp.io/j': 'Sync' }, [fin]), leftNs, services, false],
    ['while the namespace is placed here, a child labelled for the target syncs', child({ 'workload.kcp.io/cluster': 't' }), placedNs, undefined, true],
  ];
  for (const [title, obj, n, resource, want] of cases) it(title, () => assert.equal(isAssigned(obj, n, target, resource), want));
  it('heldOver needs both the finalizer and the own assignment', () => {
    assert.equal(heldOver(child({ 'workload.kcp.io/cluster': 't', 'scheduling.atrium.io/split-from': 'web' }, [fin]), target), true);
    assert.equal(heldOver(child({ 'workload.kcp.io/cluster': 't' }, [fin]), target), false);
    assert.equal(heldOver(child({}, [fin]), target), false);
    assert.equal(heldOver(svc({ 'state.workload.kcp.io/k': 'Sync' }), target), false);
  });
});

describe('demo table', () => {
  it('prints kubectl columns padded by three spaces, sorted by name', () => {
    const now = Date.parse('2026-01-01T00:01:00Z');
    const d = (name: string, replicas: number, ready: number): KubeObject => ({
      metadata: { name, creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicas },
      status: { readyReplicas: ready, updatedReplicas: replicas, availableReplicas: ready },
    });
    assert.deepEqual(deploymentTable([d('my-deployment--cluster-2', 9, 9), d('my-deployment', 15, 15), d('my-deployment--cluster-1', 6, 6)], now), [
      'NAME                       READY   UP-TO-DATE   AVAILABLE   AGE',
      'my-deployment              15/15   15           15          60s',
      'my-deployment--cluster-1   6/6     6            6           60s',
      'my-deployment--cluster-2   9/9     9            9           60s',
    ]);
  });
  const ages: [number, string][] = [[0, '0s'], [119_000, '119s'], [185_000, '3m5s'], [600_000, '10m'], [3 * 3600_000, '3h'], [50 * 3600_000, '2d']];
  for (const [ms, want] of ages) it(`shortAge(${ms}) = ${want}`, () => assert.equal(shortAge(ms), want));
});

describe('kubectl atrium helpers', () => {
  it('cordon patches', () => {
    assert.deepEqual(cordonPatch('cordon', 'T'), { spec: { unschedulable: true, evictAfter: null } });
    assert.deepEqual(cordonPatch('uncordon', 'T'), { spec: { unschedulable: null, evictAfter: null } });
    assert.deepEqual(cordonPatch('drain', 'T'), { spec: { unschedulable: true, evictAfter: 'T' } });
  });
  const spreads: [string, unknown][] = [['All', { mode: 'All' }], ['One', { mode: 'One' }], ['3', { mode: 'Count', count: 3 }]];
  for (const [text, want] of spreads) it(`parseSpread(${text})`, () => assert.deepEqual(parseSpread(text), want));
  for (const bad of ['0', 'all', '-1', '']) it(`parseSpread rejects "${bad}"`, () => assert.throws(() => parseSpread(bad), /--spread must be/));
});
