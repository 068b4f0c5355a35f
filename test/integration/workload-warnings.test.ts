/**
 * What kube-apiserver 1.32 tells a user about a workload beyond accepting it, over HTTPS against a simulated
 * cluster's API (no controllers, as kube-apiserver without a controller manager): the pod and pod template warnings
 * (pkg/api/pod/warnings.go) on create and on updates that change the spec, a Pod's negative grace period taken as 1,
 * a Job's and a ReplicationController's pods orphaned by a DELETE that names no propagation policy (with the Job's
 * warning), and decode errors naming Go's named types. Expected texts are kube-apiserver's, as the differential suite
 * (ATRIUM_DIFF_KINDS=workloads) compares them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';

let ts: TestServer;
const NS = 'warn';
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const BATCH = `/apis/batch/v1/namespaces/${NS}`;
const CORE = `/api/v1/namespaces/${NS}`;
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

function warnings(r: HttpResponse): string[] {
  const h = r.headers.warning;
  const list = h === undefined ? [] : Array.isArray(h) ? h : h.split(/, (?=299 - ")/);
  return list.map((w) => w.replace(/^299 - "/, '').replace(/"$/, '').replace(/\\"/g, '"'));
}

const labels = { app: 'w' };
const container = (extra: Record<string, unknown> = {}) => ({ name: 'c', image: 'nginx', ...extra });
const deployment = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container()], ...spec } } },
});

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-warnings-'));
  const cluster = await startPcluster({ name: 'warn', rootDir, bindAddress: '127.0.0.1', securePort: 0, runControllers: false, builtinControllers: false });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
  assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  assert.equal((await ts.request('POST', `${CORE}/serviceaccounts`, { metadata: { name: 'default' } })).status, 201);
});
after(() => ts?.stop());

describe('pod template warnings', () => {
  it('warn on create about the name, a negative grace period, duplicate env and ports, overlapping paths and deprecated labels', async () => {
    const r = await ts.request(
      'POST',
      `${APPS}/deployments`,
      deployment('web.v1', {
        terminationGracePeriodSeconds: -1,
        nodeSelector: { 'beta.kubernetes.io/os': 'linux' },
        containers: [
          container({ env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }], ports: [{ containerPort: 80 }, { containerPort: 80, hostPort: 8080 }] }),
        ],
        volumes: [{ name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'a', path: 'x' }, { key: 'b', path: 'x/y' }] } }],
      }),
    );
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(warnings(r), [
      'metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]',
      'spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      'volume "cfg" (ConfigMap "cfg"): overlapping paths: "x/y" with "x"',
      'spec.template.spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
      'spec.template.spec.containers[0].ports[1]: overlapping port definition with spec.template.spec.containers[0].ports[0]',
      'spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1',
    ]);
    // The template keeps its value; only a Pod's is taken as 1.
    assert.equal(r.json.spec.template.spec.terminationGracePeriodSeconds, -1);
  });

  it('warn again on an update only when the spec changed (the generation moved), also through apply', async () => {
    const created = await ts.request('POST', `${APPS}/deployments`, deployment('api', { terminationGracePeriodSeconds: -5 }));
    assert.deepEqual(warnings(created), ['spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1']);
    const labelOnly = await ts.request('PATCH', `${APPS}/deployments/api`, { metadata: { labels: { team: 'a' } } }, { headers: MERGE });
    assert.equal(labelOnly.status, 200);
    assert.deepEqual(warnings(labelOnly), []);
    const specChange = await ts.request('PATCH', `${APPS}/deployments/api`, { spec: { replicas: 3 } }, { headers: MERGE });
    assert.deepEqual(warnings(specChange), ['spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1']);
    const applied = await ts.request('PATCH', `${APPS}/deployments/applied?fieldManager=me`, deployment('applied', { nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' } }), { headers: APPLY });
    assert.equal(applied.status, 201, applied.text);
    assert.deepEqual(warnings(applied), ['spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead']);
  });

  it("warn about a Pod's name as its hostname, and store its negative grace period as 1", async () => {
    const r = await ts.request('POST', `${CORE}/pods`, { metadata: { name: 'p.one' }, spec: { terminationGracePeriodSeconds: -3, automountServiceAccountToken: false, containers: [container()] } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(warnings(r), ["metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"]);
    assert.equal(r.json.spec.terminationGracePeriodSeconds, 1);
  });

  it('warn about a Job template at spec.template and a CronJob one at spec.jobTemplate.spec.template', async () => {
    const template = { spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: -1, containers: [container()] } };
    const job = await ts.request('POST', `${BATCH}/jobs`, { metadata: { name: 'once' }, spec: { template } });
    assert.deepEqual(warnings(job), ['spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1']);
    const cron = await ts.request('POST', `${BATCH}/cronjobs`, { metadata: { name: 'nightly' }, spec: { schedule: '0 0 * * *', jobTemplate: { spec: { template } } } });
    assert.deepEqual(warnings(cron), ['spec.jobTemplate.spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1']);
  });
});

describe('storage classes', () => {
  it('warn about deprecated node labels in allowedTopologies, on create and update', async () => {
    const sc = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'zonal' },
      provisioner: 'example.com/disk',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', values: ['a'] }] }],
    };
    const want = ['allowedTopologies[0].matchLabelExpressions[0].key: deprecated since v1.17; use "topology.kubernetes.io/zone" instead'];
    const created = await ts.request('POST', '/apis/storage.k8s.io/v1/storageclasses', sc);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(warnings(created), want);
    const updated = await ts.request('PATCH', '/apis/storage.k8s.io/v1/storageclasses/zonal', { metadata: { labels: { a: 'b' } } }, { headers: MERGE });
    assert.deepEqual(warnings(updated), want);
  });
});

describe('deleting Jobs and ReplicationControllers', () => {
  it('orphans their pods when the DELETE names no policy (the orphan finalizer), and warns for a Job', async () => {
    const template = { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [container()] } };
    assert.equal((await ts.request('POST', `${BATCH}/jobs`, { metadata: { name: 'leave' }, spec: { template } })).status, 201);
    const del = await ts.request('DELETE', `${BATCH}/jobs/leave`);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(warnings(del), ['child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning']);
    assert.deepEqual(del.json.metadata.finalizers, ['orphan']);
    assert.ok(del.json.metadata.deletionTimestamp);

    assert.equal((await ts.request('POST', `${BATCH}/jobs`, { metadata: { name: 'gone' }, spec: { template } })).status, 201);
    const background = await ts.request('DELETE', `${BATCH}/jobs/gone`, { propagationPolicy: 'Background' });
    assert.equal(background.status, 200);
    assert.deepEqual(warnings(background), []);
    assert.equal((await ts.request('GET', `${BATCH}/jobs/gone`)).status, 404);

    const rc = { metadata: { name: 'legacy' }, spec: { replicas: 1, selector: labels, template: { metadata: { labels }, spec: { containers: [container()] } } } };
    assert.equal((await ts.request('POST', `${CORE}/replicationcontrollers`, rc)).status, 201);
    const rcDel = await ts.request('DELETE', `${CORE}/replicationcontrollers/legacy`);
    assert.deepEqual(warnings(rcDel), []);
    assert.deepEqual(rcDel.json.metadata.finalizers, ['orphan']);
    // A Deployment's default is to delete its dependents: gone at once.
    assert.equal((await ts.request('POST', `${APPS}/deployments`, deployment('short'))).status, 201);
    assert.equal((await ts.request('DELETE', `${APPS}/deployments/short`)).status, 200);
    assert.equal((await ts.request('GET', `${APPS}/deployments/short`)).status, 404);
  });
});

describe('decode errors', () => {
  it("name Go's named types, the element type of a list item, and an int-or-string's int32", async () => {
    const cases: [string, unknown, string][] = [
      [`${CORE}/pods`, { metadata: { name: 'a' }, spec: { containers: [container({ imagePullPolicy: 7 })] } }, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy'],
      [`${CORE}/pods`, { metadata: { name: 'b' }, spec: { containers: [container({ securityContext: { capabilities: { add: [1] } } })] } }, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Capabilities.spec.containers.securityContext.capabilities.add of type v1.Capability'],
      [`${CORE}/pods`, { metadata: { name: 'c' }, spec: { ephemeralContainers: [{ name: 'e', image: 'x', restartPolicy: 1 }], containers: [container()] } }, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field EphemeralContainer.spec.ephemeralContainers.restartPolicy of type v1.ContainerRestartPolicy'],
      [`${APPS}/deployments`, { ...deployment('d'), spec: { ...deployment('d').spec, strategy: { rollingUpdate: { maxSurge: true } } } }, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32'],
      [`/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, { metadata: { name: 'p' }, spec: { minAvailable: 1 }, status: { disruptedPods: 'x' } }, 'PodDisruptionBudget in version "v1" cannot be handled as a PodDisruptionBudget: json: cannot unmarshal string into Go struct field PodDisruptionBudgetStatus.status.disruptedPods of type map[string]v1.Time'],
    ];
    for (const [path, body, message] of cases) {
      const r = await ts.request('POST', path, body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.message, message);
    }
  });
});
