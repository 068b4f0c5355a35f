import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { aggregatesStatus, awaitsPlacement, clusterSpecOf, isClusterLocal, isPlacementBookkeeping, kindPlacementOf, kindPlacements, ownStateKeys } from '../../../src/multicluster/api/kind-placement.js';
import { placeNamespace, type PlaceNamespaceInput, type PlacedObject } from '../../../src/multicluster/decisions/place-namespace.js';
import type { Acceptance } from '../../../src/multicluster/decisions/choose-cluster.js';

const kind = (resource: string, group = '') => kindPlacementOf(group, resource)!;
const tpl = (app: string, spec: Record<string, unknown> = {}) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } });
const obj = (name: string, body: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, uid: `uid-${name}`, ...meta }, ...body });
const p = (resource: string, group: string, o: KubeObject): PlacedObject => ({ kind: kind(resource, group), obj: o });
const targets = [
  { name: 'a', key: 'ka', ready: true },
  { name: 'b', key: 'kb', ready: true },
];
const input = (objects: PlacedObject[], extra: Partial<PlaceNamespaceInput> = {}): PlaceNamespaceInput => ({
  objects,
  targets,
  acceptance: () => ({ acceptance: 'Accepted' as Acceptance }),
  nameOfKey: (k) => ({ ka: 'a', kb: 'b', kgone: 'gone' })[k],
  ...extra,
});
const placed = (r: ReturnType<typeof placeNamespace>, name: string) => r.placements.find((x) => x.obj.metadata?.name === name);

// A split Deployment (children on a and b, 2 + 2), as the splitter leaves it.
const child = (t: string) => p('deployments', 'apps', obj(`web--${t}`, { spec: { replicas: 2, template: tpl('web', { serviceAccountName: 'web-sa' }) } }, { labels: { 'workload.kcp.io/cluster': t, 'scheduling.atrium.io/split-from': 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }] }));
const root = p('deployments', 'apps', obj('web', { spec: { replicas: 4, template: tpl('web') } }));

describe('placeNamespace: every object of a placed namespace', () => {
  it('a StatefulSet goes to one cluster (the roomier), its ConfigMap with it; split roots and children are the splitter\'s', () => {
    const sts = p('statefulsets', 'apps', obj('db', { spec: { replicas: 2, template: tpl('db', { volumes: [{ name: 'c', configMap: { name: 'db-config' } }] }) } }));
    const r = placeNamespace(input([root, child('a'), child('b'), sts, p('configmaps', '', obj('db-config')), p('configmaps', '', obj('kube-root-ca.crt'))], { room: (t) => (t === 'b' ? 50 : 10) }));
    assert.deepEqual(placed(r, 'db')?.clusters, ['b']);
    assert.deepEqual(placed(r, 'db')?.condition, { status: 'True', reason: 'Scheduled', message: 'synced to b' });
    assert.deepEqual(placed(r, 'db-config')?.clusters, ['b']);
    assert.equal(placed(r, 'web'), undefined, 'the root is the splitter\'s');
    assert.equal(placed(r, 'web--a'), undefined, 'children are pinned by their label');
    assert.equal(placed(r, 'kube-root-ca.crt'), undefined, 'per-cluster machinery is never placed');
    assert.deepEqual(r.workloads.map((w) => [w.name, w.root, w.clusters]), [['web--a', 'web', ['a']], ['web--b', 'web', ['b']], ['db', undefined, ['b']]]);
  });

  it('sticky: the cluster in the object\'s own state label, else its syncer finalizer, is kept', () => {
    const byLabel = p('jobs', 'batch', obj('j1', { spec: { template: tpl('j') } }, { labels: { 'state.workload.kcp.io/ka': 'Sync' } }));
    const byFinalizer = p('jobs', 'batch', obj('j2', { spec: { template: tpl('j') } }, { finalizers: ['workload.kcp.io/syncer-ka'] }));
    const goneCluster = p('jobs', 'batch', obj('j3', { spec: { template: tpl('j') } }, { labels: { 'state.workload.kcp.io/kgone': 'Sync' } }));
    const r = placeNamespace(input([byLabel, byFinalizer, goneCluster], { room: (t) => (t === 'b' ? 99 : 1) }));
    assert.deepEqual(placed(r, 'j1')?.clusters, ['a']);
    assert.deepEqual(placed(r, 'j2')?.clusters, ['a']);
    assert.deepEqual(placed(r, 'j3')?.clusters, ['b'], 'its cluster left the namespace: chosen again');
  });

  it('a new workload mounting a claim goes where the claim already is, or where the first workload mounting it went', () => {
    const mounting = (name: string, claim: string, created: string) => p('jobs', 'batch', obj(name, { spec: { template: tpl(name, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: claim } }] }) } }, { creationTimestamp: created }));
    const claimOnA = p('persistentvolumeclaims', '', obj('data', {}, { labels: { 'state.workload.kcp.io/ka': 'Sync' } }));
    const shared = p('persistentvolumeclaims', '', obj('shared'));
    const r = placeNamespace(
      input([claimOnA, shared, mounting('uses-data', 'data', '2026-01-01T00:00:02Z'), mounting('second', 'shared', '2026-01-01T00:00:05Z'), mounting('first', 'shared', '2026-01-01T00:00:03Z')], {
        room: (t) => (t === 'b' ? 99 : 10),
      }),
    );
    assert.deepEqual(placed(r, 'uses-data')?.clusters, ['a'], 'the claim is on a, although b has more room');
    assert.deepEqual(placed(r, 'first')?.clusters, ['b'], 'the roomier cluster');
    assert.deepEqual(placed(r, 'second')?.clusters, ['b'], 'with the first, where the shared claim now is');
    assert.deepEqual(placed(r, 'shared')?.clusters, ['b']);
    // No room where the claim is: it goes where it fits.
    const full = placeNamespace(input([claimOnA, mounting('big', 'data', '2026-01-01T00:00:00Z')], { room: (t) => (t === 'a' ? 0 : 9) }));
    assert.deepEqual(placed(full, 'big')?.clusters, ['b']);
  });

  it('pods pinned to a workspace node by name go to that node\'s cluster (One kinds when first placed, DaemonSets there only), or nowhere with the reason', () => {
    const pod = p('pods', '', obj('pinned', { spec: { nodeName: 'a--node-1', containers: [{ name: 'c', image: 'x' }] } }));
    const sts = p('statefulsets', 'apps', obj('db', { spec: { template: tpl('db', { nodeSelector: { 'kubernetes.io/hostname': 'a--node-2' } }) } }));
    const ds = p('daemonsets', 'apps', obj('agent', { spec: { template: tpl('agent', { nodeSelector: { 'kubernetes.io/hostname': 'b--node-1' } }) } }));
    const both = p('jobs', 'batch', obj('both', { spec: { template: tpl('both', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['a--node-1', 'b--node-1'] }] }] } } } }) } }));
    const bare = p('jobs', 'batch', obj('bare', { spec: { template: tpl('bare', { nodeName: 'node-1' }) } }));
    const r = placeNamespace(input([pod, sts, ds, both, bare], { room: (t) => (t === 'b' ? 99 : 1) }));
    assert.deepEqual(placed(r, 'pinned')?.clusters, ['a'], 'although b has more room');
    assert.deepEqual(placed(r, 'db')?.clusters, ['a']);
    assert.deepEqual(placed(r, 'agent')?.clusters, ['b']);
    assert.deepEqual(placed(r, 'both')?.condition, { status: 'False', reason: 'NodeNotInPlacement', message: 'its pods are pinned to nodes "a--node-1", "b--node-1", which are not all of one cluster' });
    assert.deepEqual(placed(r, 'bare')?.clusters, ['b'], 'no workspace node name: chosen as any other');
  });

  it('a new ReplicaSet or ReplicationController goes where the bare Pods it would adopt run', () => {
    const orphan = p('pods', '', obj('lonely', { spec: { containers: [] } }, { labels: { name: 'lonely', 'state.workload.kcp.io/ka': 'Sync' } }));
    const rs = p('replicasets', 'apps', obj('adopter', { spec: { selector: { matchLabels: { name: 'lonely' } }, template: tpl('lonely') } }, { creationTimestamp: '2026-01-01T00:00:05Z' }));
    const rc = p('replicationcontrollers', '', obj('rc', { spec: { selector: { name: 'lonely' }, template: tpl('lonely') } }, { creationTimestamp: '2026-01-01T00:00:06Z' }));
    const other = p('replicasets', 'apps', obj('unrelated', { spec: { selector: { matchLabels: { name: 'nobody' } }, template: tpl('nobody') } }));
    const r = placeNamespace(input([orphan, rs, rc, other], { room: (t) => (t === 'b' ? 99 : 1) }));
    assert.deepEqual(placed(r, 'adopter')?.clusters, ['a'], 'although b has more room');
    assert.deepEqual(placed(r, 'rc')?.clusters, ['a']);
    assert.deepEqual(placed(r, 'unrelated')?.clusters, ['b']);
  });

  it('sticky but not blind: a current cluster refusing the kind is left for the one with room', () => {
    const sts = p('statefulsets', 'apps', obj('db', { spec: { template: tpl('db') } }, { labels: { 'state.workload.kcp.io/ka': 'Sync' } }));
    const c = { name: 'c', key: 'kc', ready: true };
    const acceptance = (t: string) => ({ acceptance: (t === 'a' ? 'Incompatible' : 'Accepted') as Acceptance });
    const r = placeNamespace(input([sts], { targets: [...targets, c], acceptance, room: (t) => (t === 'c' ? 50 : 5) }));
    assert.deepEqual(placed(r, 'db')?.clusters, ['c']);
  });

  it('a DaemonSet runs on every accepting cluster; a kind one cluster refuses goes to the others', () => {
    const acceptance = (t: string, _g: string, resource: string) => ({ acceptance: (t === 'a' && resource === 'daemonsets' ? 'Incompatible' : 'Accepted') as Acceptance });
    const r = placeNamespace(input([p('daemonsets', 'apps', obj('agent', { spec: { template: tpl('agent') } })), p('podtemplates', '', obj('pt'))], { acceptance }));
    assert.deepEqual(placed(r, 'agent')?.clusters, ['b']);
    assert.deepEqual(placed(r, 'pt')?.clusters, ['a', 'b']);
  });

  it('no cluster: NoClusters; every cluster refusing: Incompatible; not reported: Pending', () => {
    const sts = p('statefulsets', 'apps', obj('db', { spec: { template: tpl('db') } }));
    const ds = p('daemonsets', 'apps', obj('agent', { spec: { template: tpl('agent') } }));
    const none = placeNamespace(input([sts, ds], { targets: [] }));
    assert.deepEqual([placed(none, 'db')?.condition?.reason, placed(none, 'agent')?.condition?.reason], ['NoClusters', 'NoClusters']);
    const refused = placeNamespace(input([sts, ds], { acceptance: () => ({ acceptance: 'Incompatible', message: 'spec.x: missing' }) }));
    assert.deepEqual([placed(refused, 'db')?.condition?.reason, placed(refused, 'agent')?.condition?.reason], ['Incompatible', 'Incompatible']);
    assert.deepEqual(placed(refused, 'db')?.clusters, []);
    const pending = placeNamespace(input([sts], { acceptance: () => ({ acceptance: 'Pending' }) }));
    assert.equal(placed(pending, 'db')?.condition?.reason, 'Pending');
  });

  it('followers: a Service of the split Deployment to both clusters; one nothing selects is NotUsed; an Ingress refused where it should go', () => {
    const acceptance = (_t: string, _g: string, resource: string) => ({ acceptance: (resource === 'ingresses' ? 'Incompatible' : 'Accepted') as Acceptance, message: 'no ingresses here' });
    const r = placeNamespace(
      input(
        [
          root,
          child('a'),
          child('b'),
          p('services', '', obj('web', { spec: { selector: { app: 'web' } } })),
          p('services', '', obj('nobody', { spec: { selector: { app: 'x' } } })),
          p('serviceaccounts', '', obj('web-sa')),
          p('ingresses', 'networking.k8s.io', obj('web', { spec: { defaultBackend: { service: { name: 'web' } } } })),
        ],
        { acceptance },
      ),
    );
    const svc = r.placements.find((x) => x.kind.resource === 'services' && x.obj.metadata?.name === 'web');
    assert.deepEqual(svc?.clusters, ['a', 'b']);
    assert.deepEqual(placed(r, 'web-sa')?.clusters, ['a', 'b']);
    const nobody = placed(r, 'nobody');
    assert.deepEqual([nobody?.clusters, nobody?.condition], [[], { status: 'False', reason: 'NotUsed', message: 'no workload placed in the namespace uses it' }]);
    const ing = r.placements.find((x) => x.kind.resource === 'ingresses');
    assert.deepEqual(ing?.clusters, []);
    assert.equal(ing?.condition?.reason, 'Incompatible');
  });

  it('a PodDisruptionBudget gets its budget apportioned per cluster', () => {
    const pdb = p('poddisruptionbudgets', 'policy', obj('web', { spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } } }));
    const r = placeNamespace(input([root, child('a'), child('b'), pdb]));
    const x = r.placements.find((y) => y.kind.resource === 'poddisruptionbudgets')!;
    assert.deepEqual(x.clusters, ['a', 'b']);
    assert.deepEqual(x.clusterSpec, { a: { minAvailable: 2 }, b: { minAvailable: 1 } });
  });

  it('an HPA of the split Deployment acts upstream; each cluster gets an observe-only copy on its share', () => {
    const hpa = p('horizontalpodautoscalers', 'autoscaling', obj('web', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 10 } }));
    const r = placeNamespace(input([root, child('a'), child('b'), hpa]));
    const x = r.placements.find((y) => y.kind.resource === 'horizontalpodautoscalers')!;
    assert.deepEqual(x.upstreamHpa, { root: 'web' });
    assert.deepEqual(x.clusters, ['a', 'b']);
    const disabled = { minReplicas: 1, behavior: { scaleUp: { selectPolicy: 'Disabled' }, scaleDown: { selectPolicy: 'Disabled' } } };
    assert.deepEqual(x.clusterSpec, { a: { scaleTargetRef: { name: 'web--a' }, ...disabled }, b: { scaleTargetRef: { name: 'web--b' }, ...disabled } });
  });

  it('an HPA of a StatefulSet follows it whole', () => {
    const sts = p('statefulsets', 'apps', obj('db', { spec: { template: tpl('db') } }, { labels: { 'state.workload.kcp.io/kb': 'Sync' } }));
    const hpa = p('horizontalpodautoscalers', 'autoscaling', obj('db', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, maxReplicas: 10 } }));
    const x = placeNamespace(input([sts, hpa])).placements.find((y) => y.kind.resource === 'horizontalpodautoscalers')!;
    assert.deepEqual([x.clusters, x.upstreamHpa, x.clusterSpec], [['b'], undefined, undefined]);
  });

  it('pinned and terminating objects are not placed; pinned workloads still count for their followers', () => {
    const pinned = p('statefulsets', 'apps', obj('pinned', { spec: { template: tpl('p', { volumes: [{ name: 'c', configMap: { name: 'pinned-config' } }] }) } }, { labels: { 'workload.kcp.io/cluster': 'a' } }));
    const dying = p('jobs', 'batch', obj('dying', { spec: { template: tpl('d') } }, { deletionTimestamp: '2026-01-01T00:00:00Z' }));
    const r = placeNamespace(input([pinned, dying, p('configmaps', '', obj('pinned-config'))]));
    assert.equal(placed(r, 'pinned'), undefined);
    assert.equal(placed(r, 'dying'), undefined);
    assert.deepEqual(placed(r, 'pinned-config')?.clusters, ['a']);
  });
});

describe('the kind table and its annotations', () => {
  it('places every workload kind a workspace with compute serves, one way each', () => {
    const modes = Object.fromEntries(kindPlacements.map((k) => [k.group ? `${k.resource}.${k.group}` : k.resource, k.mode]));
    assert.equal(modes['deployments.apps'], 'Split');
    for (const r of ['statefulsets.apps', 'jobs.batch', 'cronjobs.batch', 'pods', 'replicationcontrollers', 'replicasets.apps']) assert.equal(modes[r], 'One', r);
    assert.equal(modes['daemonsets.apps'], 'Every');
    for (const r of ['services', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'networkpolicies.networking.k8s.io', 'ingresses.networking.k8s.io', 'poddisruptionbudgets.policy', 'horizontalpodautoscalers.autoscaling']) assert.equal(modes[r], 'Follow', r);
    for (const r of ['storageclasses.storage.k8s.io', 'ingressclasses.networking.k8s.io', 'controllerrevisions.apps']) assert.equal(modes[r], 'None', r);
    assert.equal(kindPlacementOf('example.com', 'widgets'), undefined);
  });

  it('reads state keys, the aggregation rule, per-cluster spec and bookkeeping annotations', () => {
    const o: KubeObject = { metadata: { labels: { 'state.workload.kcp.io/kb': 'Sync', 'state.workload.kcp.io/ka': 'Sync', 'state.workload.kcp.io/kc': 'Pending' }, annotations: { 'scheduling.atrium.io/cluster-spec': '{"ka":{"minAvailable":1}}' } } };
    assert.deepEqual(ownStateKeys(o), ['ka', 'kb']);
    assert.equal(aggregatesStatus(o), true);
    assert.equal(aggregatesStatus({ metadata: { labels: { 'state.workload.kcp.io/ka': 'Sync' } } }), false);
    assert.deepEqual(clusterSpecOf(o, 'ka'), { minAvailable: 1 });
    assert.equal(clusterSpecOf(o, 'kb'), undefined);
    assert.equal(clusterSpecOf({ metadata: { annotations: { 'scheduling.atrium.io/cluster-spec': 'not json' } } }, 'ka'), undefined);
    for (const a of ['scheduling.atrium.io/scheduled', 'scheduling.atrium.io/cluster-spec', 'status.workload.kcp.io/ka']) assert.equal(isPlacementBookkeeping(a), true, a);
    assert.equal(isPlacementBookkeeping('scheduling.atrium.io/root-generation'), false);
    assert.equal(isClusterLocal('secrets', { metadata: { name: 't', annotations: { 'kubernetes.io/service-account.name': 'default' } } }), true, 'a token Secret read as metadata only');
    // The endpoints controllers' own: each cluster's controllers make theirs; a user's Endpoints and slices do sync.
    assert.equal(isClusterLocal('endpoints', { metadata: { name: 'web', labels: { 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' } } }), true);
    assert.equal(isClusterLocal('endpoints', { metadata: { name: 'external-db' } }), false);
    assert.equal(isClusterLocal('endpointslices', { metadata: { name: 'web-x', labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } } }), true);
    assert.equal(isClusterLocal('endpointslices', { metadata: { name: 'db-x', labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' } } }), true);
    assert.equal(isClusterLocal('endpointslices', { metadata: { name: 'db-y', labels: { 'endpointslice.kubernetes.io/managed-by': 'staff' } } }), false);
  });

  it('an object awaits placement only in a placed namespace, for a placed kind, unpinned and undecided', () => {
    const placedNs: KubeObject = { metadata: { name: 'shop', annotations: { 'scheduling.atrium.io/split-workloads': 'true' } } };
    const cm = { group: '', resource: 'configmaps' };
    assert.equal(awaitsPlacement({ metadata: { name: 'c' } }, placedNs, cm), true);
    assert.equal(awaitsPlacement({ metadata: { name: 'c', annotations: { 'scheduling.atrium.io/scheduled': '{}' } } }, placedNs, cm), false);
    assert.equal(awaitsPlacement({ metadata: { name: 'c', labels: { 'workload.kcp.io/cluster': 'a' } } }, placedNs, cm), false);
    assert.equal(awaitsPlacement({ metadata: { name: 'kube-root-ca.crt' } }, placedNs, cm), false);
    assert.equal(awaitsPlacement({ metadata: { name: 'c' } }, { metadata: { name: 'demo' } }, cm), false);
    assert.equal(awaitsPlacement({ metadata: { name: 'web' } }, placedNs, { group: 'apps', resource: 'deployments' }), false, 'split roots are the splitter\'s');
    assert.equal(awaitsPlacement({ metadata: { name: 'w' } }, placedNs, { group: 'example.com', resource: 'widgets' }), false);
  });
});
