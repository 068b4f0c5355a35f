/**
 * scheduling.k8s.io/v1 PriorityClasses and the Priority admission plugin, over HTTPS against a real `atrium pcluster`
 * (kubectl included): the system classes present from start and refused a DELETE, validation and immutability with
 * upstream's messages, one global default only, the printer columns, discovery, protobuf and OpenAPI, and pods given
 * their class's priority (unknown classes refused, the global default applied, a given priority that differs
 * refused). The messages were compared with kube-apiserver v1.32.4's answers to the same requests.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harnessFor, type TestServer } from '../helpers/harness.js';
import { startPcluster } from '../../src/pcluster/pcluster.js';
import { decodeKubernetesProtobuf } from '../../src/apimachinery/protobuf/decode.js';

let ts: TestServer;
const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';
const PODS = '/api/v1/namespaces/default/pods';
const TABLE = { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

before(async () => {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-pcluster-priority-'));
  const cluster = await startPcluster({ name: 'prio', rootDir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs: 200 });
  ts = harnessFor(cluster, rootDir, async () => {
    await cluster.stop();
    rmSync(rootDir, { recursive: true, force: true });
  });
});

after(async () => {
  await ts?.stop();
});

const priorityClass = (name: string, value: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });
const pod = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

async function create(path: string, body: unknown): Promise<any> {
  const r = await ts.request('POST', path, body);
  assert.equal(r.status, 201, r.text);
  return r.json;
}

describe('PriorityClasses', () => {
  it('are discovered as scheduling.k8s.io/v1 priorityclasses, cluster-scoped, short name pc', async () => {
    const r = await ts.request('GET', '/apis/scheduling.k8s.io/v1');
    assert.equal(r.status, 200, r.text);
    const res = r.json.resources.find((x: any) => x.name === 'priorityclasses');
    assert.deepEqual({ namespaced: res.namespaced, kind: res.kind, shortNames: res.shortNames, categories: res.categories }, { namespaced: false, kind: 'PriorityClass', shortNames: ['pc'], categories: undefined });
    const groups = await ts.request('GET', '/apis');
    assert.ok(groups.json.groups.some((g: any) => g.name === 'scheduling.k8s.io' && g.preferredVersion.version === 'v1'));
  });

  it('start with the two system classes, which cannot be deleted', async () => {
    const node = (await ts.request('GET', `${PC}/system-node-critical`)).json;
    assert.deepEqual([node.value, node.preemptionPolicy, node.description, node.globalDefault], [2000001000, 'PreemptLowerPriority', 'Used for system critical pods that must not be moved from their current node.', undefined]);
    const cluster = (await ts.request('GET', `${PC}/system-cluster-critical`)).json;
    assert.equal(cluster.value, 2000000000);
    assert.equal(cluster.metadata.generation, 1);
    const r = await ts.request('DELETE', `${PC}/system-cluster-critical`);
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class and cannot be deleted');
  });

  it('are validated with upstream messages, and value and preemptionPolicy are immutable', async () => {
    let r = await ts.request('POST', PC, priorityClass('too-high', 1_000_000_001));
    assert.equal(r.status, 422);
    assert.match(r.json.message, /value: Forbidden: maximum allowed value of a user defined priority is 1000000000/);
    r = await ts.request('POST', PC, priorityClass('system-mine', 5));
    assert.equal(r.status, 422);
    assert.match(r.json.message, /metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class/);
    r = await ts.request('POST', PC, priorityClass('bad-policy', 5, { preemptionPolicy: 'Sometimes' }));
    assert.equal(r.status, 422);
    assert.match(r.json.message, /preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"/);
    const made = await create(PC, priorityClass('batch', 100, { description: 'batch work' }));
    assert.equal(made.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(made.metadata.generation, 1);
    r = await ts.request('PATCH', `${PC}/batch`, { value: 101 }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(r.status, 422);
    assert.match(r.json.message, /value: Forbidden: may not be changed in an update\./);
    r = await ts.request('PATCH', `${PC}/batch`, { preemptionPolicy: 'Never' }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(r.status, 422);
    assert.match(r.json.message, /preemptionPolicy: Invalid value: "Never": field is immutable/);
    r = await ts.request('PATCH', `${PC}/batch`, { description: 'changed' }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.metadata.generation, 1);
  });

  it('allow one global default only', async () => {
    await create(PC, priorityClass('default-low', 10, { globalDefault: true }));
    const r = await ts.request('POST', PC, priorityClass('default-other', 20, { globalDefault: true }));
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'priorityclasses.scheduling.k8s.io "default-other" is forbidden: PriorityClass default-low is already marked as default. Only one default can exist');
    const again = await ts.request('PATCH', `${PC}/batch`, { globalDefault: true }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(again.status, 403);
    const same = await ts.request('PATCH', `${PC}/default-low`, { description: 'the default' }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(same.status, 200, same.text);
  });

  it('print NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY', async () => {
    const r = await ts.request('GET', `${PC}/system-node-critical`, undefined, TABLE);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.columnDefinitions.map((c: any) => [c.name, c.type, c.priority]), [['Name', 'string', 0], ['Value', 'integer', 0], ['Global-Default', 'boolean', 0], ['Age', 'string', 0], ['PreemptionPolicy', 'string', 0]]);
    const cells = r.json.rows[0].cells;
    assert.deepEqual([cells[0], cells[1], cells[2], cells[4]], ['system-node-critical', 2000001000, false, 'PreemptLowerPriority']);
    const k = await ts.kubectl(['get', 'pc', 'system-cluster-critical']);
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\nsystem-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority\n$/);
  });
});

describe('PriorityClass bodies and schema', () => {
  it('are answered as protobuf, which decodes to the object', async () => {
    await create(PC, priorityClass('pb-class', 77, { description: 'by protobuf', preemptionPolicy: 'Never' }));
    const pb = await ts.request('GET', `${PC}/pb-class`, undefined, { headers: { Accept: PROTOBUF } });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], PROTOBUF);
    const decoded = decodeKubernetesProtobuf(pb.raw).object as any;
    assert.deepEqual([decoded.value, decoded.description, decoded.preemptionPolicy, decoded.metadata.name], [77, 'by protobuf', 'Never', 'pb-class']);
    assert.equal((await ts.request('DELETE', `${PC}/pb-class`)).status, 200);
    const { metadata: { uid: _u, resourceVersion: _rv, creationTimestamp: _c, managedFields: _m, ...meta }, ...rest } = decoded;
    const json = await ts.request('POST', PC, { ...rest, metadata: meta });
    assert.equal(json.status, 201, json.text);
    assert.deepEqual([json.json.value, json.json.preemptionPolicy], [77, 'Never']);
  });

  it('are described in OpenAPI v3 under their Go name', async () => {
    const r = await ts.request('GET', '/openapi/v3/apis/scheduling.k8s.io/v1');
    assert.equal(r.status, 200, r.text);
    const schema = r.json.components.schemas['io.k8s.api.scheduling.v1.PriorityClass'];
    assert.deepEqual(Object.keys(schema.properties).sort(), ['apiVersion', 'description', 'globalDefault', 'kind', 'metadata', 'preemptionPolicy', 'value']);
    assert.deepEqual(schema.properties.value, { ...schema.properties.value, type: 'integer', format: 'int32' });
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'scheduling.k8s.io', kind: 'PriorityClass', version: 'v1' }]);
  });
});

describe('Priority admission', () => {
  it('refuses a pod naming an unknown class', async () => {
    const r = await ts.request('POST', PODS, pod('lost', { priorityClassName: 'nope' }));
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'pods "lost" is forbidden: no PriorityClass with name nope was found');
    // A pod named by generateName only is refused under that prefix, as kube-apiserver words it.
    const generated = await ts.request('POST', PODS, { ...pod(''), metadata: { generateName: 'gen-' }, spec: { priorityClassName: 'nope', containers: [{ name: 'c', image: 'busybox' }] } });
    assert.equal(generated.json.message, 'pods "gen-" is forbidden: no PriorityClass with name nope was found');
  });

  it("gives a pod its class's value and policy", async () => {
    await create(PC, priorityClass('polite', 500, { preemptionPolicy: 'Never' }));
    const p = await create(PODS, pod('polite-pod', { priorityClassName: 'polite' }));
    assert.deepEqual([p.spec.priority, p.spec.preemptionPolicy], [500, 'Never']);
    const critical = await create(PODS, pod('critical-pod', { priorityClassName: 'system-node-critical' }));
    assert.equal(critical.spec.priority, 2000001000);
  });

  it('refuses a given priority or policy other than the class computes', async () => {
    let r = await ts.request('POST', PODS, pod('liar', { priorityClassName: 'polite', priority: 7 }));
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'pods "liar" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 500 from the given PriorityClass name');
    r = await ts.request('POST', PODS, pod('pushy', { priorityClassName: 'polite', preemptionPolicy: 'PreemptLowerPriority' }));
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'pods "pushy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name');
    const same = await create(PODS, pod('honest', { priorityClassName: 'polite', priority: 500 }));
    assert.equal(same.spec.priority, 500);
  });

  it('applies the global default to a pod naming no class, and keeps the priority through an update', async () => {
    const p = await create(PODS, pod('plain'));
    assert.deepEqual([p.spec.priorityClassName, p.spec.priority, p.spec.preemptionPolicy], ['default-low', 10, 'PreemptLowerPriority']);
    // The scheduler and kubelet write the pod meanwhile: read it again on a conflict.
    let r;
    for (let attempt = 0; attempt < 20; attempt++) {
      const fresh = (await ts.request('GET', `${PODS}/plain`)).json;
      const { priority: _p, preemptionPolicy: _pp, ...spec } = fresh.spec;
      r = await ts.request('PUT', `${PODS}/plain`, { ...fresh, metadata: { ...fresh.metadata, labels: { x: 'y' } }, spec });
      if (r.status !== 409) break;
    }
    assert.equal(r!.status, 200, r!.text);
    assert.deepEqual([r!.json.spec.priority, r!.json.spec.preemptionPolicy, r!.json.metadata.labels.x], [10, 'PreemptLowerPriority', 'y']);
    // Without a default class, priority 0 and no class name.
    assert.equal((await ts.request('DELETE', `${PC}/default-low`)).status, 200);
    const zero = await create(PODS, pod('zero'));
    assert.deepEqual([zero.spec.priorityClassName, zero.spec.priority, zero.spec.preemptionPolicy], [undefined, 0, 'PreemptLowerPriority']);
  });
});
