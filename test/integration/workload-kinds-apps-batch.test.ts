/**
 * The apps/v1 StatefulSet, DaemonSet and ControllerRevision, batch/v1 Job and CronJob, policy/v1 PodDisruptionBudget
 * and autoscaling/v2 + v1 HorizontalPodAutoscaler kinds of the simulated cluster over HTTPS, as kube-apiserver 1.32
 * serves them: objects as Helm charts render them read back with upstream's defaults; the 422s users hit, with
 * upstream's messages; /status and /scale; strategic merge patches of container lists; server-side apply by two
 * managers; protobuf bodies written by the Go types; discovery; OpenAPI v3; the two HPA versions over one storage.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { TESTDATA_DIR, dropNulls } from '../unit/protobuf/fixture-support.js';
import { openWatch } from './support.js';
import { decodeKubernetesProtobuf } from '../../src/apimachinery/protobuf/decode.js';

let ts: TestServer;
const NS = 'shop';
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const BATCH = `/apis/batch/v1/namespaces/${NS}`;
const POLICY = `/apis/policy/v1/namespaces/${NS}`;
const HPA2 = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const HPA1 = `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`;
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-kinds-'));
  // The API as kube-apiserver serves it, without a controller manager: no workload controller writes status here.
  const cluster = await startPcluster({ name: 'kinds', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 200, controllers: ['-*'] });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
  for (const ns of [NS, 'team-a']) assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
});

after(async () => {
  await ts?.stop();
});

function ok(r: HttpResponse, status = 200): any {
  assert.equal(r.status, status, r.text);
  return r.json;
}

/** A 422 and its message. */
function invalid(r: HttpResponse, message: string): void {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json.reason, 'Invalid');
  assert.equal(r.json.message, message);
}

// ---- objects as Helm charts render them

const helmLabels = (name: string) => ({
  'app.kubernetes.io/name': name,
  'app.kubernetes.io/instance': 'shop',
  'app.kubernetes.io/managed-by': 'Helm',
  'helm.sh/chart': `${name}-1.4.2`,
});
const helmAnnotations = { 'meta.helm.sh/release-name': 'shop', 'meta.helm.sh/release-namespace': NS };
const selectorLabels = (name: string) => ({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': 'shop' });

function statefulSet(name = 'db', extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, labels: helmLabels(name), annotations: helmAnnotations },
    spec: {
      serviceName: `${name}-headless`,
      replicas: 2,
      selector: { matchLabels: selectorLabels(name) },
      template: {
        metadata: { labels: selectorLabels(name) },
        spec: {
          containers: [
            {
              name: 'postgres',
              image: 'postgres:16.3',
              ports: [{ name: 'tcp-postgres', containerPort: 5432 }],
              env: [{ name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' }],
              volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
              resources: { requests: { cpu: '250m', memory: '256Mi' } },
            },
            { name: 'metrics', image: 'prometheuscommunity/postgres-exporter:v0.15.0', ports: [{ name: 'http-metrics', containerPort: 9187 }] },
          ],
        },
      },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } } } }],
      ...extra,
    },
  };
}

function daemonSet(name = 'agent') {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, labels: helmLabels(name), annotations: helmAnnotations },
    spec: {
      selector: { matchLabels: selectorLabels(name) },
      template: {
        metadata: { labels: selectorLabels(name) },
        spec: {
          tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [
            { name: 'fluent-bit', image: 'cr.fluentbit.io/fluent/fluent-bit:3.0.7', volumeMounts: [{ name: 'varlog', mountPath: '/var/log' }] },
            { name: 'reloader', image: 'ghcr.io/jimmidyson/configmap-reload:v0.12.0' },
          ],
          volumes: [{ name: 'varlog', hostPath: { path: '/var/log' } }],
        },
      },
    },
  };
}

function job(name = 'migrate', podSpec: Record<string, unknown> = { restartPolicy: 'Never' }) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, annotations: { 'helm.sh/hook': 'pre-upgrade', 'helm.sh/hook-delete-policy': 'before-hook-creation' } },
    spec: {
      ttlSecondsAfterFinished: 600,
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'migrate' } },
        spec: { containers: [{ name: 'migrate', image: 'ghcr.io/shop/migrate:2.3.0', args: ['up'] }], ...podSpec },
      },
    },
  };
}

function cronJob(name = 'backup', schedule = '30 2 * * *') {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, labels: helmLabels(name) },
    spec: {
      schedule,
      jobTemplate: {
        spec: {
          template: {
            spec: {
              restartPolicy: 'OnFailure',
              containers: [
                { name: 'backup', image: 'ghcr.io/shop/backup:1.0.1', args: ['--target', 's3://backups'] },
                { name: 'notify', image: 'curlimages/curl:8.8.0' },
              ],
            },
          },
        },
      },
    },
  };
}

function pdb(name = 'db', spec: Record<string, unknown> = { minAvailable: 1 }) {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, labels: helmLabels('db') }, spec: { selector: { matchLabels: selectorLabels('db') }, ...spec } };
}

function hpaV2(name = 'web', spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, labels: helmLabels('web') },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
      ...spec,
    },
  };
}

/** A revision as the statefulset controller writes it; with `owner`, controlled by that StatefulSet. */
function controllerRevision(name = 'db-7b9f8d6c5', owner?: { name: string; uid: string }) {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      labels: selectorLabels('db'),
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }] } : {}),
    },
    data: { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'postgres', image: 'postgres:16.3' }] } } } },
    revision: 1,
  };
}

// ---- the generic behaviour every kind shares, table-driven

interface Kind {
  kind: string;
  collection: string;
  resource: () => Record<string, any>;
  /** Status the server sets on create. */
  freshStatus: Record<string, unknown>;
  /** A status a controller would write through /status. */
  writtenStatus?: Record<string, unknown>;
  /** The status that write reads back as (writtenStatus by default). */
  readStatus?: Record<string, unknown>;
  tracksGeneration: boolean;
  /** A second manager's partial apply and where its field lands. */
  apply: { body: (name: string) => string; check: (obj: any) => void };
  fixture: string;
  definition: string;
  openapiPath: string;
}

const kinds: Kind[] = [
  {
    kind: 'StatefulSet',
    collection: `${APPS}/statefulsets`,
    resource: () => statefulSet('ssa-sts'),
    freshStatus: { replicas: 0, availableReplicas: 0 },
    writtenStatus: { observedGeneration: 1, replicas: 2, readyReplicas: 1, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 1, currentRevision: 'db-1', updateRevision: 'db-1' },
    tracksGeneration: true,
    apply: { body: (n) => `apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: ${n}\nspec:\n  minReadySeconds: 15\n`, check: (o) => assert.equal(o.spec.minReadySeconds, 15) },
    fixture: 'statefulset',
    definition: 'io.k8s.api.apps.v1.StatefulSet',
    openapiPath: '/openapi/v3/apis/apps/v1',
  },
  {
    kind: 'DaemonSet',
    collection: `${APPS}/daemonsets`,
    resource: () => daemonSet('ssa-ds'),
    freshStatus: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    writtenStatus: { currentNumberScheduled: 1, numberMisscheduled: 0, desiredNumberScheduled: 1, numberReady: 1, observedGeneration: 1, numberAvailable: 1, updatedNumberScheduled: 1 },
    tracksGeneration: true,
    apply: { body: (n) => `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: ${n}\nspec:\n  minReadySeconds: 20\n`, check: (o) => assert.equal(o.spec.minReadySeconds, 20) },
    fixture: 'daemonset',
    definition: 'io.k8s.api.apps.v1.DaemonSet',
    openapiPath: '/openapi/v3/apis/apps/v1',
  },
  {
    kind: 'Job',
    collection: `${BATCH}/jobs`,
    resource: () => job('ssa-job'),
    freshStatus: {},
    writtenStatus: { active: 1, ready: 0, startTime: '2024-05-17T09:30:12Z', terminating: 0, uncountedTerminatedPods: {} },
    tracksGeneration: true,
    apply: { body: (n) => `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${n}\nspec:\n  activeDeadlineSeconds: 900\n`, check: (o) => assert.equal(o.spec.activeDeadlineSeconds, 900) },
    fixture: 'job',
    definition: 'io.k8s.api.batch.v1.Job',
    openapiPath: '/openapi/v3/apis/batch/v1',
  },
  {
    kind: 'CronJob',
    collection: `${BATCH}/cronjobs`,
    resource: () => cronJob('ssa-cj'),
    freshStatus: {},
    writtenStatus: { lastScheduleTime: '2024-05-17T02:30:00Z', active: [{ kind: 'Job', namespace: NS, name: 'ssa-cj-28600000', apiVersion: 'batch/v1' }] },
    tracksGeneration: true,
    apply: { body: (n) => `apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: ${n}\nspec:\n  startingDeadlineSeconds: 120\n`, check: (o) => assert.equal(o.spec.startingDeadlineSeconds, 120) },
    fixture: 'cronjob',
    definition: 'io.k8s.api.batch.v1.CronJob',
    openapiPath: '/openapi/v3/apis/batch/v1',
  },
  {
    kind: 'PodDisruptionBudget',
    collection: `${POLICY}/poddisruptionbudgets`,
    resource: () => pdb('ssa-pdb'),
    freshStatus: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    writtenStatus: { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 },
    tracksGeneration: true,
    apply: {
      body: (n) => `apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: ${n}\nspec:\n  unhealthyPodEvictionPolicy: AlwaysAllow\n`,
      check: (o) => assert.equal(o.spec.unhealthyPodEvictionPolicy, 'AlwaysAllow'),
    },
    fixture: 'poddisruptionbudget',
    definition: 'io.k8s.api.policy.v1.PodDisruptionBudget',
    openapiPath: '/openapi/v3/apis/policy/v1',
  },
  {
    kind: 'HorizontalPodAutoscaler',
    collection: HPA2,
    resource: () => hpaV2('ssa-hpa'),
    freshStatus: { desiredReplicas: 0, currentMetrics: null },
    writtenStatus: { currentReplicas: 2, desiredReplicas: 3 },
    readStatus: { currentReplicas: 2, desiredReplicas: 3, currentMetrics: null },
    tracksGeneration: false,
    apply: {
      body: (n) => `apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: ${n}\nspec:\n  behavior:\n    scaleDown:\n      stabilizationWindowSeconds: 120\n`,
      check: (o) => assert.equal(o.spec.behavior.scaleDown.stabilizationWindowSeconds, 120),
    },
    fixture: 'hpa-v2',
    definition: 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
    openapiPath: '/openapi/v3/apis/autoscaling/v2',
  },
  {
    kind: 'ControllerRevision',
    collection: `${APPS}/controllerrevisions`,
    resource: () => controllerRevision('ssa-rev'),
    freshStatus: {},
    tracksGeneration: false,
    apply: {
      body: (n) => `apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: ${n}\n  labels:\n    team: data\n`,
      check: (o) => assert.equal(o.metadata.labels.team, 'data'),
    },
    fixture: 'controllerrevision',
    definition: 'io.k8s.api.apps.v1.ControllerRevision',
    openapiPath: '/openapi/v3/apis/apps/v1',
  },
];

describe('every new kind', () => {
  for (const k of kinds) {
    it(`${k.kind}: a create resets status, a main-endpoint update keeps it, /status writes only status`, async () => {
      const body = k.resource();
      if (k.writtenStatus) body.status = k.writtenStatus;
      const created = ok(await ts.request('POST', k.collection, body), 201);
      const name = created.metadata.name;
      if (k.writtenStatus) assert.deepEqual(created.status, k.freshStatus);
      else assert.equal(created.status, undefined);
      assert.equal(created.metadata.generation, k.tracksGeneration ? 1 : undefined);
      if (!k.writtenStatus) return;

      // PUT on the main endpoint: a status in the body is ignored.
      const put = ok(await ts.request('PUT', `${k.collection}/${name}`, { ...created, status: k.writtenStatus }));
      assert.deepEqual(put.status, k.freshStatus);
      assert.equal(put.metadata.resourceVersion, created.metadata.resourceVersion, 'nothing changed, nothing written');

      // PUT /status: the status is written, a spec change in the body is not.
      const statusBody = { ...created, spec: { ...created.spec, ...(k.kind === 'HorizontalPodAutoscaler' ? { maxReplicas: 99 } : { minReadySeconds: 99, startingDeadlineSeconds: 99, activeDeadlineSeconds: 99 }) }, status: k.writtenStatus };
      const written = ok(await ts.request('PUT', `${k.collection}/${name}/status`, statusBody));
      assert.deepEqual(written.status, k.readStatus ?? k.writtenStatus);
      assert.deepEqual(written.spec, created.spec);
      assert.equal(written.metadata.generation, created.metadata.generation, 'a status write never bumps generation');
      const read = ok(await ts.request('GET', `${k.collection}/${name}/status`));
      assert.deepEqual(read.status, k.readStatus ?? k.writtenStatus);

      // A spec change through the main endpoint bumps generation and keeps the written status.
      const patched = ok(await ts.request('PATCH', `${k.collection}/${name}`, k.kind === 'HorizontalPodAutoscaler' ? { spec: { maxReplicas: 11 } } : { metadata: { labels: { tier: 'x' } }, spec: specChange(k.kind) }, { headers: MERGE }));
      assert.deepEqual(patched.status, k.readStatus ?? k.writtenStatus);
      if (k.tracksGeneration) assert.equal(patched.metadata.generation, 2);
    });

    it(`${k.kind}: server-side apply by two managers, each owning its fields`, async () => {
      const name = `${k.resource().metadata.name}-applied`;
      const full = { ...k.resource(), metadata: { ...k.resource().metadata, name } };
      const first = ok(await ts.request('PATCH', `${k.collection}/${name}?fieldManager=helm`, JSON.stringify(full), { headers: APPLY }), 201);
      const again = ok(await ts.request('PATCH', `${k.collection}/${name}?fieldManager=helm`, JSON.stringify(full), { headers: APPLY }));
      // The same apply again changes nothing — but the applier's time when a second has passed and the configuration
      // differs from the stored object before defaulting (an atomic list such as volumeClaimTemplates, defaulted when
      // stored): managedFieldsUpdater stamps the time whenever the merge differs from the live object, as upstream.
      const withoutTimes = (o: any) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined, managedFields: o.metadata.managedFields.map((m: any) => ({ ...m, time: undefined })) } });
      assert.deepEqual(withoutTimes(again), withoutTimes(first), 'the same apply again changes nothing');
      if (again.metadata.resourceVersion !== first.metadata.resourceVersion) {
        assert.notEqual(again.metadata.managedFields[0].time, first.metadata.managedFields[0].time, 'a new revision only for a new time');
      }
      const second = ok(await ts.request('PATCH', `${k.collection}/${name}?fieldManager=ops`, k.apply.body(name), { headers: APPLY }));
      k.apply.check(second);
      const managers = second.metadata.managedFields.filter((m: any) => m.operation === 'Apply').map((m: any) => m.manager).sort();
      assert.deepEqual(managers, ['helm', 'ops']);
      // helm re-applies its configuration: ops' field stays, helm's fields are unchanged.
      const third = ok(await ts.request('PATCH', `${k.collection}/${name}?fieldManager=helm`, JSON.stringify(full), { headers: APPLY }));
      k.apply.check(third);
    });

    it(`${k.kind}: a protobuf body as the Go client encodes it creates the object`, async () => {
      const body = readFileSync(join(TESTDATA_DIR, `${k.fixture}.pb`));
      const expected = JSON.parse(readFileSync(join(TESTDATA_DIR, `${k.fixture}.json`), 'utf8'));
      const collection = k.collection.replace(`/namespaces/${NS}/`, '/namespaces/team-a/');
      const answer = await ts.request('POST', collection, body, { headers: { 'Content-Type': PROTOBUF, Accept: `${PROTOBUF}, application/json` } });
      assert.equal(answer.status, 201, answer.text);
      // Answered in protobuf, as kube-apiserver answers a client that prefers it: decoded, it is the object as JSON.
      assert.equal(answer.headers['content-type'], PROTOBUF);
      const created = decodeKubernetesProtobuf(answer.raw).object as any;
      assert.equal(created.metadata.name, expected.metadata.name);
      assert.equal(created.metadata.namespace, 'team-a');
      // Everything the Go client sent is there (the server adds defaults and resets status).
      if (expected.spec) assertSubset(created.spec, dropNulls(expected.spec), 'spec');
      if (k.kind === 'ControllerRevision') assert.deepEqual(created.data, expected.data);
      ok(await ts.request('DELETE', `${collection}/${expected.metadata.name}`));
    });

    it(`${k.kind}: OpenAPI v3 publishes the kind`, async () => {
      const doc = ok(await ts.request('GET', k.openapiPath));
      const schema = doc.components.schemas[k.definition];
      assert.ok(schema, k.definition);
      assert.deepEqual(schema['x-kubernetes-group-version-kind'][0].kind, k.kind);
      assert.ok(schema.properties.metadata);
    });
  }
});

/** Every member of `expected` is in `actual` with the same value (objects may have more members). */
function assertSubset(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(actual !== null && typeof actual === 'object', `${path} is an object`);
    for (const [k, v] of Object.entries(expected)) assertSubset((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path} has ${expected.length} items`);
    expected.forEach((v, i) => assertSubset((actual as unknown[])[i], v, `${path}[${i}]`));
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

function specChange(kind: string): Record<string, unknown> {
  switch (kind) {
    case 'StatefulSet':
    case 'DaemonSet':
      return { minReadySeconds: 3 };
    case 'Job':
      return { activeDeadlineSeconds: 300 };
    case 'CronJob':
      return { suspend: true };
    default:
      return { unhealthyPodEvictionPolicy: 'AlwaysAllow' };
  }
}

describe('discovery', () => {
  const find = (list: any, name: string) => list.resources.find((r: any) => r.name === name);
  const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

  it('lists the kinds with their short names, categories, verbs and subresources', async () => {
    const apps = ok(await ts.request('GET', '/apis/apps/v1'));
    const batch = ok(await ts.request('GET', '/apis/batch/v1'));
    const policy = ok(await ts.request('GET', '/apis/policy/v1'));
    const as2 = ok(await ts.request('GET', '/apis/autoscaling/v2'));
    const as1 = ok(await ts.request('GET', '/apis/autoscaling/v1'));
    const core = ok(await ts.request('GET', '/api/v1'));
    const expect = (list: any, name: string, kind: string, shortNames: string[] | undefined, categories: string[] | undefined) => {
      const r = find(list, name);
      assert.ok(r, name);
      assert.equal(r.kind, kind);
      assert.equal(r.namespaced, true);
      assert.deepEqual(r.shortNames, shortNames, `${name} shortNames`);
      assert.deepEqual(r.categories, categories, `${name} categories`);
      assert.deepEqual([...r.verbs].sort(), verbs);
    };
    expect(apps, 'statefulsets', 'StatefulSet', ['sts'], ['all']);
    expect(apps, 'daemonsets', 'DaemonSet', ['ds'], ['all']);
    expect(apps, 'controllerrevisions', 'ControllerRevision', undefined, undefined);
    expect(apps, 'deployments', 'Deployment', ['deploy'], ['all']);
    expect(apps, 'replicasets', 'ReplicaSet', ['rs'], ['all']);
    expect(batch, 'jobs', 'Job', undefined, ['all']);
    expect(batch, 'cronjobs', 'CronJob', ['cj'], ['all']);
    expect(policy, 'poddisruptionbudgets', 'PodDisruptionBudget', ['pdb'], undefined);
    expect(as2, 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', ['hpa'], ['all']);
    expect(as1, 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', ['hpa'], ['all']);
    expect(core, 'pods', 'Pod', ['po'], ['all']);
    expect(core, 'services', 'Service', ['svc'], ['all']);

    const sub = (list: any, name: string) => find(list, name) && [...find(list, name).verbs].sort();
    for (const [list, name] of [
      [apps, 'statefulsets/status'],
      [apps, 'statefulsets/scale'],
      [apps, 'daemonsets/status'],
      [batch, 'jobs/status'],
      [batch, 'cronjobs/status'],
      [policy, 'poddisruptionbudgets/status'],
      [as2, 'horizontalpodautoscalers/status'],
      [as1, 'horizontalpodautoscalers/status'],
    ] as const) {
      assert.deepEqual(sub(list, name), ['get', 'patch', 'update'], name);
    }
    const scale = find(apps, 'statefulsets/scale');
    assert.deepEqual([scale.group, scale.version, scale.kind], ['autoscaling', 'v1', 'Scale']);
    assert.equal(apps.resources.filter((r: any) => r.name.startsWith('controllerrevisions')).length, 1, 'no subresources');
    assert.equal(apps.resources.filter((r: any) => r.name.startsWith('daemonsets/')).length, 1, 'daemonsets have only /status');
  });

  it('prefers autoscaling/v2 and serves v1 beside it', async () => {
    const group = ok(await ts.request('GET', '/apis/autoscaling'));
    assert.deepEqual(group.versions.map((v: any) => v.version), ['v2', 'v1']);
    assert.equal(group.preferredVersion.version, 'v2');
  });
});

describe('StatefulSet', () => {
  it('reads back with upstream defaults', async () => {
    const body = statefulSet('web-db');
    delete (body.spec as any).replicas;
    const s = ok(await ts.request('POST', `${APPS}/statefulsets`, body), 201);
    assert.equal(s.spec.replicas, 1);
    assert.equal(s.spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(s.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.equal(s.spec.revisionHistoryLimit, 10);
    assert.deepEqual(s.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });
    assert.equal(s.metadata.generation, 1);
    const pod = s.spec.template.spec;
    assert.deepEqual([pod.restartPolicy, pod.dnsPolicy, pod.schedulerName, pod.terminationGracePeriodSeconds], ['Always', 'ClusterFirst', 'default-scheduler', 30]);
    assert.equal(pod.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.equal(pod.containers[0].ports[0].protocol, 'TCP');
    const claim = s.spec.volumeClaimTemplates[0];
    assert.deepEqual([claim.apiVersion, claim.kind, claim.spec.volumeMode, claim.status.phase], ['v1', 'PersistentVolumeClaim', 'Filesystem', 'Pending']);
    const got = ok(await ts.request('GET', `${APPS}/statefulsets/web-db`));
    assert.deepEqual(got.spec, s.spec);
  });

  it('answers the 422s users hit with upstream messages', async () => {
    const mismatch = statefulSet('bad');
    (mismatch.spec.template.metadata as any).labels = { app: 'other' };
    invalid(
      await ts.request('POST', `${APPS}/statefulsets`, mismatch),
      'StatefulSet.apps "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );
    const noSelector = statefulSet('bad');
    delete (noSelector.spec as any).selector;
    invalid(
      await ts.request('POST', `${APPS}/statefulsets`, noSelector),
      'StatefulSet.apps "bad" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/instance":"shop", "app.kubernetes.io/name":"bad"}: `selector` does not match template `labels`]',
    );
    invalid(await ts.request('POST', `${APPS}/statefulsets`, statefulSet('bad', { replicas: -1 })), 'StatefulSet.apps "bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    invalid(
      await ts.request('POST', `${APPS}/statefulsets`, statefulSet('Bad_Name')),
      'StatefulSet.apps "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    );

    const created = ok(await ts.request('POST', `${APPS}/statefulsets`, statefulSet('frozen')), 201);
    const forbidden =
      "StatefulSet.apps \"frozen\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
    invalid(await ts.request('PATCH', `${APPS}/statefulsets/frozen`, { spec: { serviceName: 'other' } }, { headers: MERGE }), forbidden);
    invalid(await ts.request('PUT', `${APPS}/statefulsets/frozen`, { ...created, spec: { ...created.spec, volumeClaimTemplates: [] } }), forbidden);
    // What may change, does.
    const ok1 = ok(await ts.request('PATCH', `${APPS}/statefulsets/frozen`, { spec: { replicas: 4, minReadySeconds: 5, updateStrategy: { type: 'OnDelete', rollingUpdate: null } } }, { headers: MERGE }));
    assert.deepEqual([ok1.spec.replicas, ok1.spec.minReadySeconds, ok1.spec.updateStrategy], [4, 5, { type: 'OnDelete' }]);
    assert.equal(ok1.metadata.generation, 2);
  });

  it('scales through /scale with the selector in the Scale status', async () => {
    ok(await ts.request('POST', `${APPS}/statefulsets`, statefulSet('scaled')), 201);
    const scale = ok(await ts.request('GET', `${APPS}/statefulsets/scaled/scale`));
    assert.deepEqual([scale.kind, scale.apiVersion, scale.spec.replicas, scale.status.replicas], ['Scale', 'autoscaling/v1', 2, 0]);
    assert.equal(scale.status.selector, 'app.kubernetes.io/instance=shop,app.kubernetes.io/name=scaled');
    const put = ok(await ts.request('PUT', `${APPS}/statefulsets/scaled/scale`, { ...scale, spec: { replicas: 5 } }));
    assert.equal(put.spec.replicas, 5);
    const s = ok(await ts.request('GET', `${APPS}/statefulsets/scaled`));
    assert.deepEqual([s.spec.replicas, s.metadata.generation], [5, 2]);
    const patched = ok(await ts.request('PATCH', `${APPS}/statefulsets/scaled/scale`, { spec: { replicas: 1 } }, { headers: MERGE }));
    assert.equal(patched.spec.replicas, 1);
    assert.equal((await ts.request('PATCH', `${APPS}/statefulsets/scaled/scale`, { spec: { replicas: -2 } }, { headers: MERGE })).status, 422);
  });

  it('merges a strategic merge patch of the container list by name', async () => {
    ok(await ts.request('POST', `${APPS}/statefulsets`, statefulSet('patched')), 201);
    const p = ok(
      await ts.request('PATCH', `${APPS}/statefulsets/patched`, { spec: { template: { spec: { containers: [{ name: 'postgres', image: 'postgres:16.4', env: [{ name: 'PGPORT', value: '5433' }] }] } } } }, { headers: SMP }),
    );
    const [pg, metrics] = p.spec.template.spec.containers;
    assert.equal(p.spec.template.spec.containers.length, 2);
    assert.equal(pg.image, 'postgres:16.4');
    assert.deepEqual(pg.ports, [{ name: 'tcp-postgres', containerPort: 5432, protocol: 'TCP' }], 'fields not in the patch stay');
    assert.deepEqual(pg.env.map((e: any) => e.name).sort(), ['PGDATA', 'PGPORT'], 'env merges by name too');
    assert.equal(metrics.name, 'metrics');
    assert.equal(p.metadata.generation, 2);
  });
});

describe('DaemonSet', () => {
  it('reads back with upstream defaults and the template generation annotation', async () => {
    const d = ok(await ts.request('POST', `${APPS}/daemonsets`, daemonSet()), 201);
    assert.deepEqual(d.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(d.spec.revisionHistoryLimit, 10);
    assert.equal(d.metadata.annotations['deprecated.daemonset.template.generation'], '1');
    assert.deepEqual(d.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    // A template change bumps generation and the template generation; another spec change only generation.
    const p = ok(await ts.request('PATCH', `${APPS}/daemonsets/agent`, { spec: { template: { spec: { containers: [{ name: 'fluent-bit', image: 'cr.fluentbit.io/fluent/fluent-bit:3.1.0' }] } } } }, { headers: SMP }));
    assert.deepEqual([p.metadata.generation, p.metadata.annotations['deprecated.daemonset.template.generation']], [2, '2']);
    assert.deepEqual(p.spec.template.spec.containers.map((c: any) => c.name), ['fluent-bit', 'reloader']);
    assert.deepEqual(p.spec.template.spec.containers[0].volumeMounts, [{ name: 'varlog', mountPath: '/var/log' }]);
    const q = ok(await ts.request('PATCH', `${APPS}/daemonsets/agent`, { spec: { minReadySeconds: 10 } }, { headers: MERGE }));
    assert.deepEqual([q.metadata.generation, q.metadata.annotations['deprecated.daemonset.template.generation']], [3, '2']);
    // A client cannot set it.
    const r = ok(await ts.request('PATCH', `${APPS}/daemonsets/agent`, { metadata: { annotations: { 'deprecated.daemonset.template.generation': '9' } } }, { headers: MERGE }));
    assert.equal(r.metadata.annotations['deprecated.daemonset.template.generation'], '2');
  });

  it('answers the 422s users hit with upstream messages', async () => {
    const mismatch = daemonSet('bad-ds');
    mismatch.spec.selector = { matchLabels: { app: 'x' } } as any;
    invalid(
      await ts.request('POST', `${APPS}/daemonsets`, mismatch),
      'DaemonSet.apps "bad-ds" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/instance":"shop", "app.kubernetes.io/name":"bad-ds"}: `selector` does not match template `labels`',
    );
    const never = daemonSet('bad-ds');
    (never.spec.template.spec as any).restartPolicy = 'Never';
    invalid(await ts.request('POST', `${APPS}/daemonsets`, never), 'DaemonSet.apps "bad-ds" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"');
    const zero = daemonSet('bad-ds');
    (zero.spec as any).updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } };
    invalid(await ts.request('POST', `${APPS}/daemonsets`, zero), 'DaemonSet.apps "bad-ds" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0');
    ok(await ts.request('POST', `${APPS}/daemonsets`, daemonSet('fixed-ds')), 201);
    invalid(
      await ts.request('PATCH', `${APPS}/daemonsets/fixed-ds`, { spec: { selector: { matchLabels: { 'app.kubernetes.io/instance': null } } } }, { headers: MERGE }),
      'DaemonSet.apps "fixed-ds" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app.kubernetes.io/name":"fixed-ds"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });
});

describe('ControllerRevision', () => {
  it('is stored with its data and prints its controller', async () => {
    const owner = ok(await ts.request('POST', `${APPS}/statefulsets`, statefulSet('owner')), 201);
    const c = ok(await ts.request('POST', `${APPS}/controllerrevisions`, controllerRevision('owner-7b9f8d6c5', { name: 'owner', uid: owner.metadata.uid })), 201);
    assert.deepEqual(c.data, controllerRevision().data);
    assert.equal(c.revision, 1);
    invalid(await ts.request('PUT', `${APPS}/controllerrevisions/${c.metadata.name}`, { ...c, data: { other: true } }), `ControllerRevision.apps "${c.metadata.name}" is invalid: data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x22, 0x6f, 0x74, 0x68, 0x65, 0x72, 0x22, 0x3a, 0x74, 0x72, 0x75, 0x65, 0x7d}, Object:runtime.Object(nil)}: field is immutable`);
    const noData = controllerRevision('empty-rev') as any;
    delete noData.data;
    invalid(await ts.request('POST', `${APPS}/controllerrevisions`, noData), 'ControllerRevision.apps "empty-rev" is invalid: data: Required value: data is mandatory');
    const table = ok(await ts.request('GET', `${APPS}/controllerrevisions/${c.metadata.name}`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }));
    assert.deepEqual(table.columnDefinitions.map((d: any) => d.name), ['Name', 'Controller', 'Revision', 'Age']);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), [c.metadata.name, 'statefulset.apps/owner', 1]);
  });
});

describe('Job', () => {
  it('generates its selector and labels and reads back with upstream defaults', async () => {
    const j = ok(await ts.request('POST', `${BATCH}/jobs`, job()), 201);
    const uid = j.metadata.uid;
    assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    const expectedLabels = {
      'app.kubernetes.io/name': 'migrate',
      'job-name': 'migrate',
      'batch.kubernetes.io/job-name': 'migrate',
      'controller-uid': uid,
      'batch.kubernetes.io/controller-uid': uid,
    };
    assert.deepEqual(j.spec.template.metadata.labels, expectedLabels);
    assert.deepEqual(j.metadata.labels, expectedLabels, 'a Job without labels takes its template\'s');
    const s = j.spec;
    assert.deepEqual(
      [s.completions, s.parallelism, s.backoffLimit, s.completionMode, s.suspend, s.manualSelector, s.podReplacementPolicy],
      [1, 1, 6, 'NonIndexed', false, false, 'TerminatingOrFailed'],
    );
    assert.deepEqual(j.status, {});
    assert.equal(j.spec.template.spec.terminationGracePeriodSeconds, 30);
  });

  it('names a generated Job in its labels', async () => {
    const body = job('');
    (body.metadata as any) = { generateName: 'adhoc-' };
    const j = ok(await ts.request('POST', `${BATCH}/jobs`, body), 201);
    assert.match(j.metadata.name, /^adhoc-[a-z0-9]{5}$/);
    assert.equal(j.spec.template.metadata.labels['batch.kubernetes.io/job-name'], j.metadata.name);
  });

  it('answers the 422s users hit with upstream messages', async () => {
    invalid(
      await ts.request('POST', `${BATCH}/jobs`, job('always', {})),
      'Job.batch "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    invalid(
      await ts.request('POST', `${BATCH}/jobs`, job('always', { restartPolicy: 'Always' })),
      'Job.batch "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
    const manual = job('manual');
    Object.assign(manual.spec, { manualSelector: true, selector: { matchLabels: { app: 'elsewhere' } } });
    invalid(
      await ts.request('POST', `${BATCH}/jobs`, manual),
      'Job.batch "manual" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app.kubernetes.io/name":"migrate"}: `selector` does not match template `labels`',
    );
    const negative = job('negative');
    Object.assign(negative.spec, { backoffLimit: -1, parallelism: -2 });
    invalid(
      await ts.request('POST', `${BATCH}/jobs`, negative),
      'Job.batch "negative" is invalid: [spec.parallelism: Invalid value: -2: must be greater than or equal to 0, spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0]',
    );

    ok(await ts.request('POST', `${BATCH}/jobs`, job('fixed')), 201);
    invalid(
      await ts.request('PATCH', `${BATCH}/jobs/fixed`, { spec: { template: { spec: { containers: [{ name: 'migrate', image: 'ghcr.io/shop/migrate:2.4.0' }] } } } }, { headers: SMP }),
      'Job.batch "fixed" is invalid: spec.template: Invalid value: "object": field is immutable',
    );
    invalid(await ts.request('PATCH', `${BATCH}/jobs/fixed`, { spec: { completions: 3 } }, { headers: MERGE }), 'Job.batch "fixed" is invalid: spec.completions: Invalid value: 3: field is immutable');
    // Mutable fields change.
    const p = ok(await ts.request('PATCH', `${BATCH}/jobs/fixed`, { spec: { suspend: true, parallelism: 0 } }, { headers: MERGE }));
    assert.deepEqual([p.spec.suspend, p.spec.parallelism, p.metadata.generation], [true, 0, 2]);
  });

  it('selects by status.successful', async () => {
    const j = ok(await ts.request('POST', `${BATCH}/jobs`, job('counted')), 201);
    const names = async (selector: string) => ok(await ts.request('GET', `${BATCH}/jobs?fieldSelector=${encodeURIComponent(selector)}`)).items.map((i: any) => i.metadata.name);
    assert.ok((await names('status.successful=0')).includes('counted'));
    ok(await ts.request('PUT', `${BATCH}/jobs/counted/status`, { ...j, status: { succeeded: 1, startTime: '2024-05-17T09:30:12Z', completionTime: '2024-05-17T09:31:00Z', conditions: [{ type: 'Complete', status: 'True' }] } }));
    assert.deepEqual(await names('status.successful=1'), ['counted']);
    const table = ok(await ts.request('GET', `${BATCH}/jobs/counted`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }));
    assert.deepEqual(table.columnDefinitions.map((d: any) => d.name), ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
    assert.deepEqual(table.rows[0].cells.slice(0, 4), ['counted', 'Complete', '1/1', '48s']);
  });
});

describe('CronJob', () => {
  it('reads back with upstream defaults', async () => {
    const c = ok(await ts.request('POST', `${BATCH}/cronjobs`, cronJob()), 201);
    assert.deepEqual(
      [c.spec.concurrencyPolicy, c.spec.suspend, c.spec.successfulJobsHistoryLimit, c.spec.failedJobsHistoryLimit],
      ['Allow', false, 3, 1],
    );
    assert.deepEqual(c.status, {});
    const jobSpec = c.spec.jobTemplate.spec;
    assert.equal(jobSpec.backoffLimit, undefined, 'a job template is not defaulted like a Job');
    assert.equal(jobSpec.template.spec.containers[0].terminationMessagePolicy, 'File');
    for (const schedule of ['@hourly', '*/15 9-17 * * MON-FRI', '0 0 1 jan,jul ?', '@every 1h30m']) {
      ok(await ts.request('POST', `${BATCH}/cronjobs`, cronJob(`ok-${Math.random().toString(36).slice(2, 8)}`, schedule)), 201);
    }
  });

  it('parses the schedule and the time zone as upstream does', async () => {
    invalid(await ts.request('POST', `${BATCH}/cronjobs`, cronJob('bad-cron', 'x')), 'CronJob.batch "bad-cron" is invalid: spec.schedule: Invalid value: "x": expected exactly 5 fields, found 1: [x]');
    invalid(
      await ts.request('POST', `${BATCH}/cronjobs`, cronJob('bad-cron', '61 * * * *')),
      'CronJob.batch "bad-cron" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
    );
    invalid(await ts.request('POST', `${BATCH}/cronjobs`, cronJob('bad-cron', '@fortnightly')), 'CronJob.batch "bad-cron" is invalid: spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly');
    invalid(
      await ts.request('POST', `${BATCH}/cronjobs`, cronJob('bad-cron', 'TZ=UTC 0 * * * *')),
      'CronJob.batch "bad-cron" is invalid: spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    );
    const tz = cronJob('bad-cron');
    (tz.spec as any).timeZone = 'Mars/Olympus';
    invalid(await ts.request('POST', `${BATCH}/cronjobs`, tz), 'CronJob.batch "bad-cron" is invalid: spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus');
    const berlin = cronJob('berlin');
    (berlin.spec as any).timeZone = 'Europe/Berlin';
    ok(await ts.request('POST', `${BATCH}/cronjobs`, berlin), 201);
    const never = cronJob('bad-cron');
    (never.spec.jobTemplate.spec.template.spec as any).restartPolicy = 'Always';
    invalid(await ts.request('POST', `${BATCH}/cronjobs`, never), 'CronJob.batch "bad-cron" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
  });
});

describe('PodDisruptionBudget', () => {
  it('is stored as written, with the zero status Go writes', async () => {
    const p = ok(await ts.request('POST', `${POLICY}/poddisruptionbudgets`, pdb('db', { maxUnavailable: '25%' })), 201);
    assert.deepEqual(p.spec, { selector: { matchLabels: selectorLabels('db') }, maxUnavailable: '25%' });
    assert.deepEqual(p.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const table = ok(await ts.request('GET', `${POLICY}/poddisruptionbudgets/db`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }));
    assert.deepEqual(table.rows[0].cells.slice(0, 4), ['db', 'N/A', '25%', 0]);
  });

  it('refuses minAvailable with maxUnavailable, and bad percentages', async () => {
    const both = await ts.request('POST', `${POLICY}/poddisruptionbudgets`, pdb('both', { minAvailable: 1, maxUnavailable: 1 }));
    assert.equal(both.status, 422);
    assert.match(both.json.message, /^PodDisruptionBudget\.policy "both" is invalid: spec: Invalid value: policy\.PodDisruptionBudgetSpec\{MinAvailable:.*\}: minAvailable and maxUnavailable cannot be both set$/);
    assert.deepEqual(both.json.details.causes.map((c: any) => c.field), ['spec']);
    invalid(
      await ts.request('POST', `${POLICY}/poddisruptionbudgets`, pdb('pct', { minAvailable: '150%' })),
      'PodDisruptionBudget.policy "pct" is invalid: spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    );
    invalid(
      await ts.request('POST', `${POLICY}/poddisruptionbudgets`, pdb('pct', { maxUnavailable: -1 })),
      'PodDisruptionBudget.policy "pct" is invalid: spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
    );
  });
});

describe('HorizontalPodAutoscaler', () => {
  it('v2 reads back with upstream defaults', async () => {
    const h = ok(await ts.request('POST', HPA2, { ...hpaV2('defaults'), spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } }), 201);
    assert.equal(h.spec.minReplicas, 1);
    assert.deepEqual(h.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    assert.deepEqual(h.spec.behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    assert.deepEqual(h.status, { desiredReplicas: 0, currentMetrics: null });
    assert.equal(h.metadata.generation, undefined);
  });

  it('answers the 422s users hit with upstream messages', async () => {
    const noTarget = hpaV2('bad-hpa') as any;
    delete noTarget.spec.scaleTargetRef;
    invalid(await ts.request('POST', HPA2, noTarget), 'HorizontalPodAutoscaler.autoscaling "bad-hpa" is invalid: [spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Required value]');
    invalid(
      await ts.request('POST', HPA2, hpaV2('bad-hpa', { minReplicas: 5, maxReplicas: 2 })),
      'HorizontalPodAutoscaler.autoscaling "bad-hpa" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    );
    invalid(
      await ts.request('POST', HPA1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad-hpa' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 3, maxReplicas: 1 } }),
      'HorizontalPodAutoscaler.autoscaling "bad-hpa" is invalid: spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`',
    );
    invalid(
      await ts.request('POST', HPA2, hpaV2('bad-hpa', { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] })),
      'HorizontalPodAutoscaler.autoscaling "bad-hpa" is invalid: spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization',
    );
  });

  it('one storage for v2 and v1: v1 reads a v2 object with the other metrics and the behavior in annotations', async () => {
    const v2 = hpaV2('shared', {
      metrics: [
        { type: 'Pods', pods: { metric: { name: 'requests_per_second' }, target: { type: 'AverageValue', averageValue: '100' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 65 } } },
      ],
      behavior: { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
    });
    ok(await ts.request('POST', HPA2, v2), 201);
    const v1 = ok(await ts.request('GET', `${HPA1}/shared`));
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.spec, { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 65 });
    assert.deepEqual(v1.status, { currentReplicas: 0, desiredReplicas: 0 });
    const a = v1.metadata.annotations;
    assert.deepEqual(JSON.parse(a['autoscaling.alpha.kubernetes.io/metrics']), [{ type: 'Pods', pods: { metricName: 'requests_per_second', targetAverageValue: '100' } }]);
    assert.equal(
      a['autoscaling.alpha.kubernetes.io/behavior'],
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":60}]}}',
    );

    // A v1 client writes back what it read, changing the CPU target: nothing else is lost.
    const updated = ok(await ts.request('PUT', `${HPA1}/shared`, { ...v1, spec: { ...v1.spec, targetCPUUtilizationPercentage: 50 } }));
    assert.equal(updated.spec.targetCPUUtilizationPercentage, 50);
    const back = ok(await ts.request('GET', `${HPA2}/shared`));
    assert.deepEqual(back.spec.metrics, [
      { type: 'Pods', pods: { metric: { name: 'requests_per_second' }, target: { type: 'AverageValue', averageValue: '100' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
    ]);
    assert.deepEqual(back.spec.behavior.scaleDown.policies, [{ type: 'Pods', value: 1, periodSeconds: 60 }]);
    assert.equal(back.metadata.annotations, undefined, 'the round-trip annotations are not stored');

    // Status written through v2 shows in v1.
    ok(await ts.request('PUT', `${HPA2}/shared/status`, { ...back, status: { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42, averageValue: '120m' } } }] } }));
    const v1s = ok(await ts.request('GET', `${HPA1}/shared`));
    assert.deepEqual(v1s.status, { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 42 });
    assert.deepEqual(JSON.parse(v1s.metadata.annotations['autoscaling.alpha.kubernetes.io/current-metrics']), [
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 42, currentAverageValue: '120m' } },
    ]);
    const listed = ok(await ts.request('GET', HPA1)).items.map((i: any) => i.metadata.name);
    assert.ok(listed.includes('shared'));
    const table = ok(await ts.request('GET', `${HPA1}/shared`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }));
    assert.deepEqual(table.rows[0].cells.slice(0, 6), ['shared', 'Deployment/web', '<unknown>/100, cpu: <unknown>/50%', '2', 10, 2]);
    // Statuses pair with metrics by position (formatHPAMetrics): a single cpu status matches a cpu-only HPA.
    ok(await ts.request('PUT', `${HPA2}/shared/status`, { ...ok(await ts.request('GET', `${HPA2}/shared`)), status: { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Pods', pods: { metric: { name: 'requests_per_second' }, current: { averageValue: '80' } } }, { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42 } } }] } }));
    const table2 = ok(await ts.request('GET', `${HPA2}/shared`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }));
    assert.equal(table2.rows[0].cells[2], '80/100, cpu: 42%/50%');
  });

  it('a v1 watch sees objects written through v2, converted', async () => {
    const rv = ok(await ts.request('GET', HPA1)).metadata.resourceVersion;
    const watch = await openWatch(ts, `${HPA1}?watch=true&resourceVersion=${rv}`);
    try {
      ok(await ts.request('POST', HPA2, hpaV2('watched')), 201);
      const event = await watch.next();
      assert.equal(event.type, 'ADDED');
      assert.deepEqual([event.object.apiVersion, event.object.metadata.name, event.object.spec.targetCPUUtilizationPercentage], ['autoscaling/v1', 'watched', 70]);
    } finally {
      watch.close();
    }
  });

  it('a v1 object reads back through v2 with its CPU target as a metric', async () => {
    const created = ok(
      await ts.request('POST', HPA1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'legacy' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 4, targetCPUUtilizationPercentage: 55 } }),
      201,
    );
    assert.deepEqual(created.spec, { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 55 });
    assert.deepEqual(created.status, { currentReplicas: 0, desiredReplicas: 0 });
    const v2 = ok(await ts.request('GET', `${HPA2}/legacy`));
    assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 55 } } }]);
    assert.equal(v2.spec.minReplicas, 1);
    const untargeted = ok(
      await ts.request('POST', HPA1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'untargeted' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4 } }),
      201,
    );
    assert.equal(untargeted.spec.targetCPUUtilizationPercentage, 80);
    // The v1 status endpoint writes the CPU reading.
    const s = ok(await ts.request('PUT', `${HPA1}/legacy/status`, { ...created, status: { currentReplicas: 1, desiredReplicas: 2, currentCPUUtilizationPercentage: 90 } }));
    assert.deepEqual(s.status, { currentReplicas: 1, desiredReplicas: 2, currentCPUUtilizationPercentage: 90 });
    const v2s = ok(await ts.request('GET', `${HPA2}/legacy`));
    assert.deepEqual(v2s.status, { currentReplicas: 1, desiredReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '0', averageUtilization: 90 } } }] });
  });
});
