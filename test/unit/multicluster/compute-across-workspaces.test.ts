/**
 * The pure parts of running a workspace's workloads on another workspace's SyncTargets: the consumer-clusters
 * annotation the scheduler keeps on SyncTargets, the compute-apis decisions (which negotiated CRDs a consumer gets and
 * what happens to an existing one), and the splitter's resolution of a namespace's targets across workspaces.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { syncTargetKey } from '../../../src/multicluster/api/keys.js';
import { consumerClusters, consumerClustersPatch, parseConsumerClusters, stateKeysOf, syncTargetKeyIndexer } from '../../../src/multicluster/scheduling/consumer-clusters.js';
import {
  COMPUTE_API_HASH_ANNOTATION,
  COMPUTE_API_SOURCE_ANNOTATION,
  computeAPIAction,
  desiredComputeAPIs,
  locationWorkspacesOf,
  negotiatesItself,
} from '../../../src/multicluster/controllers/compute-apis.js';
import { contentHash } from '../../../src/multicluster/syncer/transform.js';
import { childrenOnTarget, namespaceTargets, unreleasableSyncerFinalizers, workspacesUsing, type ResolvedTarget } from '../../../src/multicluster/splitter/targets.js';
import type { APIResourceImport } from '../../../src/multicluster/api/types.js';

const ANNOTATION = 'scheduling.atrium.io/consumer-clusters';
const CLUSTER = 'kcp.io/cluster';
const inCluster = (cluster: string, name: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { name, labels, annotations: { [CLUSTER]: cluster } } });
const clusterOf = (o: KubeObject) => o.metadata!.annotations![CLUSTER]!;

describe('consumer-clusters annotation', () => {
  it('stateKeysOf reads every state label whatever its value, sorted, and nothing else', () => {
    const ns = inCluster('c', 'n', { 'state.workload.kcp.io/zz': 'Sync', 'state.workload.kcp.io/aa': '', 'state.workload.kcp.io/': 'Sync', 'workload.kcp.io/cluster': 'x', other: 'Sync' });
    assert.deepEqual(stateKeysOf(ns), ['aa', 'zz']);
    assert.deepEqual(stateKeysOf({}), []);
  });

  it('indexes SyncTargets by the key of their own cluster and name', () => {
    assert.deepEqual(syncTargetKeyIndexer(clusterOf)(inCluster('w', 'east')), [syncTargetKey('w', 'east')]);
    assert.notDeepEqual(syncTargetKeyIndexer(clusterOf)(inCluster('v', 'east')), [syncTargetKey('w', 'east')]);
  });

  it('lists the other clusters once each, sorted, leaving out the target\'s own', () => {
    const namespaces = [inCluster('team-b', 'x'), inCluster('w', 'own'), inCluster('team-a', 'y'), inCluster('team-b', 'z')];
    assert.deepEqual(consumerClusters('w', namespaces, clusterOf), ['team-a', 'team-b']);
    assert.deepEqual(consumerClusters('w', [inCluster('w', 'own')], clusterOf), []);
  });

  const target = (value?: string): KubeObject => ({ metadata: { name: 'east', ...(value === undefined ? {} : { annotations: { [ANNOTATION]: value } }) } });
  const cases: [string, KubeObject, string[], unknown][] = [
    ['adds the annotation', target(), ['a', 'b'], { metadata: { annotations: { [ANNOTATION]: '["a","b"]' } } }],
    ['leaves an equal annotation alone', target('["a","b"]'), ['a', 'b'], undefined],
    ['rewrites a changed list', target('["a"]'), ['a', 'b'], { metadata: { annotations: { [ANNOTATION]: '["a","b"]' } } }],
    ['rewrites another spelling of the same list', target('[ "a", "b" ]'), ['a', 'b'], { metadata: { annotations: { [ANNOTATION]: '["a","b"]' } } }],
    ['removes it when the list is empty', target('["a"]'), [], { metadata: { annotations: { [ANNOTATION]: null } } }],
    ['does nothing for an empty list and no annotation', target(), [], undefined],
  ];
  for (const [title, t, clusters, want] of cases) it(`consumerClustersPatch ${title}`, () => assert.deepEqual(consumerClustersPatch(t, clusters), want));

  it('parseConsumerClusters reads the scheduler\'s value and tolerates junk', () => {
    assert.deepEqual(parseConsumerClusters(target('["a","b"]')), ['a', 'b']);
    assert.deepEqual(parseConsumerClusters(target('not json')), []);
    assert.deepEqual(parseConsumerClusters(target('{"a":1}')), []);
    assert.deepEqual(parseConsumerClusters(target('["a",3]')), ['a']);
    assert.deepEqual(parseConsumerClusters(target()), []);
  });
});

describe('compute-apis decisions', () => {
  const negotiated = (name: string, spec: Record<string, unknown> = { group: 'apps', names: { plural: name.split('.')[0] } }, extra: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, annotations: { 'apiresource.kcp.io/negotiated': 'true', ...extra } },
    spec,
  });
  const userCRD = (name: string): KubeObject => ({ metadata: { name }, spec: { group: 'example.com' } });

  it('desiredComputeAPIs takes negotiated CRDs only, the first location workspace providing a name wins', () => {
    const crds: Record<string, KubeObject[]> = {
      w1: [negotiated('certificates.cert-manager.io', { v: 1 }), userCRD('widgets.example.com')],
      w2: [negotiated('certificates.cert-manager.io', { v: 2 }), negotiated('issuers.cert-manager.io', { group: 'cert-manager.io', names: { plural: 'issuers' } }), { ...negotiated('gone.apps'), metadata: { name: 'gone.apps', annotations: { 'apiresource.kcp.io/negotiated': 'true' }, deletionTimestamp: 'x' } }],
    };
    const got = desiredComputeAPIs(['w1', 'w2'], (c) => crds[c] ?? []);
    assert.deepEqual([...got].map(([n, v]) => [n, v.cluster, v.crd.spec]), [
      ['certificates.cert-manager.io', 'w1', { v: 1 }],
      ['issuers.cert-manager.io', 'w2', { group: 'cert-manager.io', names: { plural: 'issuers' } }],
    ]);
  });

  it('desiredComputeAPIs copies no CRD of a type served built in (a negotiated deployments.apps left from an older version)', () => {
    const crds: Record<string, KubeObject[]> = {
      w1: [negotiated('deployments.apps'), negotiated('replicasets.apps'), { ...negotiated('pods'), spec: { group: '', names: { plural: 'pods' } } }, negotiated('widgets.example.com', { group: 'example.com', names: { plural: 'widgets' } })],
    };
    assert.deepEqual([...desiredComputeAPIs(['w1'], (c) => crds[c] ?? []).keys()], ['widgets.example.com']);
  });

  it('locationWorkspacesOf resolves Placements in name order, skipping the own workspace and terminating ones', () => {
    const p = (name: string, ws?: string, deleting = false): KubeObject => ({ metadata: { name, ...(deleting ? { deletionTimestamp: 'x' } : {}) }, spec: { locationWorkspace: ws } });
    const known: Record<string, string> = { 'root:compute': 'w1', 'root:gpu': 'w2', 'root:team': 'c' };
    const resolve = (ws: string | undefined) => (ws === undefined ? { found: true as const, cluster: 'c' } : known[ws] ? { found: true as const, cluster: known[ws]! } : { found: false as const });
    assert.deepEqual(locationWorkspacesOf('c', [p('b', 'root:compute'), p('a', 'root:gpu'), p('c', 'root:compute'), p('d')], resolve), { sources: ['w2', 'w1'], unresolved: false });
    assert.deepEqual(locationWorkspacesOf('c', [p('a', 'root:team'), p('z', 'root:nowhere')], resolve), { sources: [], unresolved: true });
    assert.deepEqual(locationWorkspacesOf('c', [p('a', 'root:nowhere', true)], resolve), { sources: [], unresolved: false });
  });

  const source = negotiated('deployments.apps', { group: 'apps', names: { plural: 'deployments', kind: 'Deployment' }, scope: 'Namespaced' });
  const hash = contentHash(source.spec);
  const copy = (h: string, from = 'w', extra: Record<string, unknown> = {}): KubeObject => ({
    ...negotiated('deployments.apps', { old: true }, { [COMPUTE_API_HASH_ANNOTATION]: h, [COMPUTE_API_SOURCE_ANNOTATION]: from, mine: 'kept' }),
    ...extra,
  });

  it('creates a missing CRD with the source spec and the negotiated, hash and source annotations', () => {
    const got = computeAPIAction(source, 'w', undefined, false);
    assert.equal(got.action, 'create');
    const crd = (got as { crd: KubeObject }).crd;
    assert.deepEqual(crd.metadata, { name: 'deployments.apps', annotations: { 'apiresource.kcp.io/negotiated': 'true', [COMPUTE_API_HASH_ANNOTATION]: hash, [COMPUTE_API_SOURCE_ANNOTATION]: 'w' } });
    assert.deepEqual(crd.spec, source.spec);
    assert.notEqual(crd.spec, source.spec, 'a copy, not the cached object');
  });

  const cases: [string, KubeObject, boolean, string][] = [
    ['leaves a user CRD alone', userCRD('deployments.apps'), false, 'leave'],
    ['leaves a CRD the consumer negotiates itself alone', copy('stale'), true, 'leave'],
    ['does nothing when hash and source match', copy(hash), false, 'none'],
    ['updates on another hash', copy('stale'), false, 'update'],
    ['updates when the source workspace changed', copy(hash, 'v'), false, 'update'],
    ['takes over a negotiated CRD nothing negotiates any more', negotiated('deployments.apps', { old: true }), false, 'update'],
  ];
  for (const [title, existing, here, want] of cases) it(`computeAPIAction ${title}`, () => assert.equal(computeAPIAction(source, 'w', existing, here).action, want));

  it('an update replaces the spec and keeps the rest of the stored object', () => {
    const existing = copy('stale', 'w', { status: { conditions: [] } });
    existing.metadata!.resourceVersion = '7';
    const got = computeAPIAction(source, 'w', existing, false) as { crd: KubeObject };
    assert.deepEqual(got.crd.spec, source.spec);
    assert.equal(got.crd.metadata!.resourceVersion, '7');
    assert.equal(got.crd.metadata!.annotations!.mine, 'kept');
    assert.equal(got.crd.metadata!.annotations![COMPUTE_API_HASH_ANNOTATION], hash);
    assert.deepEqual(got.crd.status, { conditions: [] });
    assert.equal(existing.metadata!.annotations![COMPUTE_API_HASH_ANNOTATION], 'stale', 'the input is not changed');
  });

  it('negotiatesItself: an import of the resource from a live SyncTarget of the consumer', () => {
    const imp = (location: string, group: string, plural: string) => ({ metadata: { name: `${plural}.${location}` }, spec: { location, groupVersion: { group, version: 'v1' }, plural } }) as unknown as APIResourceImport;
    const live = (name: string) => name === 'mine';
    assert.equal(negotiatesItself([imp('mine', 'apps', 'deployments')], live, 'apps', 'deployments'), true);
    assert.equal(negotiatesItself([imp('gone', 'apps', 'deployments')], live, 'apps', 'deployments'), false);
    assert.equal(negotiatesItself([imp('mine', 'apps', 'replicasets')], live, 'apps', 'deployments'), false);
    assert.equal(negotiatesItself([], live, 'apps', 'deployments'), false);
  });
});

describe('splitter: namespace targets across workspaces', () => {
  const st = (cluster: string, name: string, ready = true): ResolvedTarget => ({
    cluster,
    key: syncTargetKey(cluster, name),
    target: { metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } } as ResolvedTarget['target'],
  });
  const all = [st('compute', 'east'), st('compute', 'west'), st('compute', 'north', false), st('team', 'east'), st('team', 'local')];
  const byKey = new Map(all.map((r) => [r.key, r]));
  const lookup = (key: string) => byKey.get(key);
  const kid = (target: string, finalizers: string[] = []): KubeObject => ({ metadata: { name: `web--${target}`, labels: { 'workload.kcp.io/cluster': target }, finalizers } });
  const key = (c: string, n: string) => syncTargetKey(c, n);

  it('resolves assignment keys of another workspace, dropping unknown keys', () => {
    const got = namespaceTargets([key('compute', 'west'), key('compute', 'east'), 'unknown'], [], 'team', lookup);
    assert.deepEqual(got.assigned, ['west', 'east']);
    assert.equal(got.byName.get('east')?.cluster, 'compute', 'the assigned east is compute\'s, not the namesake in the root\'s workspace');
  });

  const cases: [string, string[], KubeObject, string | undefined][] = [
    ['an evacuating child is found in the workspace the assignment comes from', [key('compute', 'east')], kid('west'), 'compute'],
    ['its syncer finalizer names the target exactly', [key('compute', 'east')], kid('local', [`workload.kcp.io/syncer-${key('team', 'local')}`]), 'team'],
    ['without an assignment, the root\'s own workspace', [], kid('local'), 'team'],
    ['without an assignment, the finalizer still finds another workspace\'s target', [], kid('west', [`workload.kcp.io/syncer-${key('compute', 'west')}`]), 'compute'],
    ['a target that is gone resolves nowhere', [key('compute', 'east')], kid('gone'), undefined],
    ['a finalizer of a namesake does not count', [], kid('west', [`workload.kcp.io/syncer-${key('team', 'east')}`]), undefined],
  ];
  for (const [title, keys, child, want] of cases) {
    it(title, () => {
      const got = namespaceTargets(keys, [child], 'team', lookup);
      assert.equal(got.byName.get(child.metadata!.labels!['workload.kcp.io/cluster']!)?.cluster, want);
    });
  }

  it('unreleasableSyncerFinalizers drops those of missing or not-Ready targets only', () => {
    const fins = ['other/finalizer', `workload.kcp.io/syncer-${key('compute', 'east')}`, `workload.kcp.io/syncer-${key('compute', 'north')}`, 'workload.kcp.io/syncer-vanished'];
    assert.deepEqual(unreleasableSyncerFinalizers(fins, lookup), [`workload.kcp.io/syncer-${key('compute', 'north')}`, 'workload.kcp.io/syncer-vanished']);
  });

  it('workspacesUsing: the target\'s own workspace and its consumers, once each', () => {
    const r = st('compute', 'east');
    r.target.metadata!.annotations = { [ANNOTATION]: '["team","compute","ops"]' };
    assert.deepEqual(workspacesUsing(r), ['compute', 'team', 'ops']);
    assert.deepEqual(workspacesUsing(st('compute', 'west')), ['compute']);
  });

  describe('childrenOnTarget counts what occupies a target', () => {
    const east = st('compute', 'east');
    const child = (name: string, target: string, namespace: string, extra: Record<string, unknown> = {}): KubeObject => ({
      metadata: { name, namespace, labels: { 'workload.kcp.io/cluster': target, 'scheduling.atrium.io/split-from': 'root' }, ...extra },
    });
    const namespaces: Record<string, KubeObject> = {
      'team/placed': { metadata: { name: 'placed', labels: { [`state.workload.kcp.io/${east.key}`]: 'Sync' } } },
      'team/draining': { metadata: { name: 'draining', labels: { [`state.workload.kcp.io/${east.key}`]: '' } } },
      'team/own': { metadata: { name: 'own', labels: { [`state.workload.kcp.io/${key('team', 'east')}`]: 'Sync' } } },
    };
    const namespaceOf = (c: string, n: string) => namespaces[`${c}/${n}`];
    const cases: [string, string, KubeObject, boolean][] = [
      ['a child in the target\'s own workspace, by name alone', 'compute', child('a', 'east', 'anything'), true],
      ['a child of another name', 'compute', child('a', 'west', 'anything'), false],
      ['a terminating child', 'compute', child('a', 'east', 'x', { deletionTimestamp: 'x' }), false],
      ['a Deployment that is no split child', 'compute', { metadata: { name: 'p', namespace: 'x', labels: { 'workload.kcp.io/cluster': 'east' } } }, false],
      ['a consumer\'s child in a namespace placed on the target', 'team', child('a', 'east', 'placed'), true],
      ['a consumer\'s child in a namespace whose state label is no longer Sync', 'team', child('a', 'east', 'draining'), true],
      ['a consumer\'s child on a namesake target of its own', 'team', child('a', 'east', 'own'), false],
      ['a consumer\'s child in an unknown namespace', 'team', child('a', 'east', 'gone'), false],
    ];
    for (const [title, ws, c, want] of cases) it(title, () => assert.equal(childrenOnTarget(east, ws, [c], namespaceOf).length, want ? 1 : 0));
  });
});
