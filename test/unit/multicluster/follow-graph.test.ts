import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { followClusters, hpaTargets, podsPerCluster, selectedBy, type FollowContext, type PlacedWorkload } from '../../../src/multicluster/decisions/follow-graph.js';
import { podReferences, podsOf, podTemplateOf } from '../../../src/multicluster/decisions/workload-references.js';

const w = (kind: string, name: string, clusters: string[], spec: Record<string, unknown> = {}, labels: Record<string, string> = { app: name }, extra: Partial<PlacedWorkload> = {}): PlacedWorkload => ({
  kind,
  name,
  template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } },
  clusters,
  ...extra,
});
const o = (name: string, body: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject => ({ metadata: { name, ...(labels ? { labels } : {}) }, ...body });

// The namespace: a split Deployment (children on a and b), a StatefulSet on b, a Job on c.
const web = [
  w('Deployment', 'web--a', ['a'], { serviceAccountName: 'web-sa', containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'web-env' } }, { secretRef: { name: 'web-secret-env' } }] }] }, { app: 'web', tier: 'front' }, { root: 'web', pods: { a: 2 } }),
  w('Deployment', 'web--b', ['b'], { serviceAccountName: 'web-sa', containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'web-env' } }, { secretRef: { name: 'web-secret-env' } }] }] }, { app: 'web', tier: 'front' }, { root: 'web', pods: { b: 3 } }),
];
const db = w('StatefulSet', 'db', ['b'], {
  volumes: [
    { name: 'cfg', configMap: { name: 'db-config' } },
    { name: 'all', projected: { sources: [{ configMap: { name: 'db-projected-cm' } }, { secret: { name: 'db-projected-secret' } }] } },
    { name: 'tls', secret: { secretName: 'db-tls' } },
    { name: 'data', persistentVolumeClaim: { claimName: 'db-extra' } },
  ],
  initContainers: [{ name: 'init', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'db-password', key: 'p' } } }, { name: 'M', valueFrom: { configMapKeyRef: { name: 'db-mode', key: 'm' } } }] }],
  imagePullSecrets: [{ name: 'registry' }],
}, { app: 'db', tier: 'back' }, { pods: { b: 2 } });
const job = w('Job', 'migrate', ['c'], { containers: [{ name: 'c', image: 'x' }], ephemeralContainers: [{ name: 'dbg', envFrom: [{ configMapRef: { name: 'debug' } }] }] }, { job: 'migrate' });

const ctx: FollowContext = {
  workloads: [...web, db, job],
  services: [
    o('web', { spec: { selector: { app: 'web' } } }),
    o('db', { spec: { selector: { app: 'db' } } }),
    o('external', { spec: { type: 'ExternalName', externalName: 'db.example' } }),
    o('manual', { spec: { ports: [{ port: 80 }] } }),
    o('nobody', { spec: { selector: { app: 'none' } } }),
  ],
  serviceAccounts: [o('web-sa', { imagePullSecrets: [{ name: 'web-pull' }] }), o('default', { imagePullSecrets: [{ name: 'default-pull' }] })],
  ingresses: [o('front', { spec: { tls: [{ secretName: 'front-tls' }], rules: [{ http: { paths: [{ backend: { service: { name: 'web' } } }] } }] } }), o('both', { spec: { defaultBackend: { service: { name: 'db' } }, rules: [{ http: { paths: [{ backend: { service: { name: 'web' } } }] } }] } })],
  namespaceClusters: ['a', 'b', 'c'],
};

describe('follow graph: an object goes exactly where the workloads that use it run', () => {
  const table: { name: string; resource: string; obj: KubeObject; want: string[] }[] = [
    { name: 'ConfigMap in envFrom of a split Deployment: both of its clusters', resource: 'configmaps', obj: o('web-env'), want: ['a', 'b'] },
    { name: 'ConfigMap mounted as a volume', resource: 'configmaps', obj: o('db-config'), want: ['b'] },
    { name: 'ConfigMap in a projected volume', resource: 'configmaps', obj: o('db-projected-cm'), want: ['b'] },
    { name: 'ConfigMap in an init container env valueFrom', resource: 'configmaps', obj: o('db-mode'), want: ['b'] },
    { name: 'ConfigMap used by an ephemeral container', resource: 'configmaps', obj: o('debug'), want: ['c'] },
    { name: 'ConfigMap no workload names (read through the API): wherever a workload of the namespace runs', resource: 'configmaps', obj: o('unused'), want: ['a', 'b', 'c'] },
    { name: 'Secret no workload names: nowhere', resource: 'secrets', obj: o('unused'), want: [] },
    { name: 'ServiceAccount no workload names: nowhere', resource: 'serviceaccounts', obj: o('unused'), want: [] },
    { name: 'Secret in envFrom', resource: 'secrets', obj: o('web-secret-env'), want: ['a', 'b'] },
    { name: 'Secret volume', resource: 'secrets', obj: o('db-tls'), want: ['b'] },
    { name: 'Secret in a projected volume', resource: 'secrets', obj: o('db-projected-secret'), want: ['b'] },
    { name: 'Secret in env secretKeyRef', resource: 'secrets', obj: o('db-password'), want: ['b'] },
    { name: 'Secret in imagePullSecrets', resource: 'secrets', obj: o('registry'), want: ['b'] },
    { name: 'Secret a used ServiceAccount pulls with: where the ServiceAccount goes', resource: 'secrets', obj: o('web-pull'), want: ['a', 'b'] },
    { name: 'Secret of the default ServiceAccount (never synced): nowhere', resource: 'secrets', obj: o('default-pull'), want: [] },
    { name: 'Secret an Ingress terminates TLS with: where the Ingress goes', resource: 'secrets', obj: o('front-tls'), want: ['a', 'b'] },
    { name: 'ServiceAccount by serviceAccountName', resource: 'serviceaccounts', obj: o('web-sa'), want: ['a', 'b'] },
    { name: 'PVC by claimName', resource: 'persistentvolumeclaims', obj: o('db-extra'), want: ['b'] },
    { name: 'PVC nothing mounts', resource: 'persistentvolumeclaims', obj: o('data-db-0'), want: [] },
  ];
  // A split Deployment of one replica: its children are on a and b, but only a runs a pod; the claim it mounts goes
  // only where a pod can mount it (elsewhere it would wait for a first consumer forever). Scaled to 0: both.
  const single = (podsA: number, podsB: number): FollowContext => ({
    workloads: [
      w('Deployment', 'pg--a', ['a'], { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'pg-data' } }] }, { app: 'pg' }, { root: 'pg', pods: { a: podsA } }),
      w('Deployment', 'pg--b', ['b'], { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'pg-data' } }] }, { app: 'pg' }, { root: 'pg', pods: { b: podsB } }),
    ],
    namespaceClusters: ['a', 'b'],
  });
  it('a claim of a split Deployment goes only to the clusters that run its pods', () => {
    assert.deepEqual(followClusters('persistentvolumeclaims', o('pg-data'), single(1, 0)), ['a']);
    assert.deepEqual(followClusters('persistentvolumeclaims', o('pg-data'), single(1, 1)), ['a', 'b']);
    assert.deepEqual(followClusters('persistentvolumeclaims', o('pg-data'), single(0, 0)), ['a', 'b']);
  });
  const table2: { name: string; resource: string; obj: KubeObject; want: string[] }[] = [
    { name: 'Service selecting the split Deployment: both clusters', resource: 'services', obj: o('web', { spec: { selector: { app: 'web' } } }), want: ['a', 'b'] },
    { name: 'Service selecting the StatefulSet: its cluster', resource: 'services', obj: o('db', { spec: { selector: { app: 'db' } } }), want: ['b'] },
    { name: 'Service selecting both tiers by a shared label', resource: 'services', obj: o('all', { spec: { selector: { tier: 'back' } } }), want: ['b'] },
    { name: 'Service selecting nothing placed: nowhere', resource: 'services', obj: o('nobody', { spec: { selector: { app: 'none' } } }), want: [] },
    { name: 'Service without selector: every cluster of the namespace', resource: 'services', obj: o('manual', { spec: { ports: [{ port: 80 }] } }), want: ['a', 'b', 'c'] },
    { name: 'ExternalName Service: every cluster of the namespace', resource: 'services', obj: o('external', { spec: { type: 'ExternalName', externalName: 'db.example' } }), want: ['a', 'b', 'c'] },
    { name: 'Endpoints of a selector-less Service: where it goes', resource: 'endpoints', obj: o('manual'), want: ['a', 'b', 'c'] },
    { name: 'Endpoints of a Service with a selector: the cluster makes its own', resource: 'endpoints', obj: o('web'), want: [] },
    { name: 'EndpointSlice of a selector-less Service', resource: 'endpointslices', obj: o('manual-x1', {}, { 'kubernetes.io/service-name': 'manual' }), want: ['a', 'b', 'c'] },
    { name: 'EndpointSlice the controller manages: never', resource: 'endpointslices', obj: o('manual-x2', {}, { 'kubernetes.io/service-name': 'manual', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' }), want: [] },
    { name: 'NetworkPolicy selecting the database pods', resource: 'networkpolicies', obj: o('db-np', { spec: { podSelector: { matchLabels: { app: 'db' } } } }), want: ['b'] },
    { name: 'NetworkPolicy with an expression', resource: 'networkpolicies', obj: o('front-np', { spec: { podSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] } } }), want: ['a', 'b'] },
    { name: 'NetworkPolicy with an empty podSelector: every workload of the namespace', resource: 'networkpolicies', obj: o('deny-all', { spec: { podSelector: {} } }), want: ['a', 'b', 'c'] },
    { name: 'Ingress: where its backend Services go', resource: 'ingresses', obj: o('front', { spec: { rules: [{ http: { paths: [{ backend: { service: { name: 'web' } } }] } }] } }), want: ['a', 'b'] },
    { name: 'Ingress with a default backend and a rule', resource: 'ingresses', obj: o('both', { spec: { defaultBackend: { service: { name: 'db' } }, rules: [{ http: { paths: [{ backend: { service: { name: 'db' } } }] } }] } }), want: ['b'] },
    { name: 'Ingress to a Service that does not exist: nowhere', resource: 'ingresses', obj: o('lost', { spec: { defaultBackend: { service: { name: 'gone' } } } }), want: [] },
    { name: 'PodDisruptionBudget selecting the split Deployment', resource: 'poddisruptionbudgets', obj: o('web-pdb', { spec: { selector: { matchLabels: { app: 'web' } } } }), want: ['a', 'b'] },
    { name: 'PodDisruptionBudget without selector selects nothing', resource: 'poddisruptionbudgets', obj: o('none-pdb', { spec: {} }), want: [] },
    { name: 'HPA of the split Deployment: its children\'s clusters', resource: 'horizontalpodautoscalers', obj: o('web', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } } }), want: ['a', 'b'] },
    { name: 'HPA of the StatefulSet', resource: 'horizontalpodautoscalers', obj: o('db', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' } } }), want: ['b'] },
    { name: 'HPA naming a kind and name that do not match', resource: 'horizontalpodautoscalers', obj: o('x', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' } } }), want: [] },
    { name: 'a kind outside the table: nowhere', resource: 'widgets', obj: o('w'), want: [] },
  ];
  for (const tc of [...table, ...table2]) {
    it(tc.name, () => {
      assert.deepEqual(followClusters(tc.resource, tc.obj, ctx), tc.want);
    });
  }

  it('a ConfigMap no workload names goes nowhere while nothing runs; one a workload names goes only where that workload runs, even when it runs nowhere yet', () => {
    assert.deepEqual(followClusters('configmaps', o('settings'), { ...ctx, workloads: [] }), []);
    const pending = w('StatefulSet', 'queue', [], { volumes: [{ name: 'cfg', configMap: { name: 'queue-config' } }] });
    assert.deepEqual(followClusters('configmaps', o('queue-config'), { ...ctx, workloads: [...ctx.workloads, pending] }), []);
  });

  it('a Secret reached through a ServiceAccount and an Ingress cycle-free, sorted, deduplicated', () => {
    const c: FollowContext = { ...ctx, serviceAccounts: [o('web-sa', { secrets: [{ name: 'shared' }] })], ingresses: [o('front', { spec: { tls: [{ secretName: 'shared' }], defaultBackend: { service: { name: 'db' } } } })] };
    assert.deepEqual(followClusters('secrets', o('shared'), c), ['a', 'b']);
  });

  it('hpaTargets stands the split children for their root; podsPerCluster sums pods', () => {
    const targets = hpaTargets(o('h', { spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' } } }), ctx);
    assert.deepEqual(targets.map((t) => t.name), ['web--a', 'web--b']);
    assert.deepEqual(podsPerCluster(selectedBy({ matchLabels: { tier: 'front' } }, ctx)), { a: 2, b: 3 });
    assert.deepEqual(podsPerCluster([...selectedBy({}, ctx)]), { a: 2, b: 5, c: 1 });
    assert.deepEqual(selectedBy({ matchExpressions: [{ key: 'tier', operator: 'Bogus' as never }] }, ctx), [], 'an invalid selector selects nothing');
  });
});

describe('workload references: pod templates by kind', () => {
  it('finds the template of each kind', () => {
    const tpl = { metadata: { labels: { a: '1' } }, spec: { containers: [] } };
    assert.deepEqual(podTemplateOf('Deployment', { spec: { template: tpl } })?.metadata?.labels, { a: '1' });
    assert.deepEqual(podTemplateOf('CronJob', { spec: { jobTemplate: { spec: { template: tpl } } } })?.metadata?.labels, { a: '1' });
    assert.deepEqual(podTemplateOf('PodTemplate', { template: tpl } as KubeObject)?.metadata?.labels, { a: '1' });
    assert.deepEqual(podTemplateOf('Pod', { metadata: { labels: { p: 'x' } }, spec: { containers: [] } })?.metadata?.labels, { p: 'x' });
    assert.equal(podTemplateOf('Deployment', { spec: {} }), undefined);
  });

  it('names the ServiceAccount `default` when none is set, and reads the deprecated serviceAccount', () => {
    assert.deepEqual([...podReferences({ containers: [] }).serviceAccounts], ['default']);
    assert.deepEqual([...podReferences({ serviceAccount: 'old' }).serviceAccounts], ['old']);
  });

  it('counts pods per kind', () => {
    assert.equal(podsOf('StatefulSet', { spec: { replicas: 3 } }), 3);
    assert.equal(podsOf('StatefulSet', { spec: {} }), 1);
    assert.equal(podsOf('Job', { spec: { parallelism: 4 } }), 4);
    assert.equal(podsOf('CronJob', { spec: { jobTemplate: { spec: { parallelism: 2 } } } }), 2);
    assert.equal(podsOf('Pod', { spec: {} }), 1);
  });
});
