/**
 * The typed round trip of empty lists and maps, as kube-apiserver 1.32 answers (checked against it): a built-in
 * kind's omitempty list or map that ends up empty — sent empty, or emptied by a patch — is neither stored nor
 * answered, and no managedFields entry owns it; an entry left owning nothing goes, and managedFields with it.
 * Lists Go always writes (Role.rules) stay; validation still sees the empty list it was sent. A custom resource
 * keeps its empty values, but not in its metadata.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { workloadResources } from '../../src/registry/builtin/workloads/resources.js';
import { createNamespace, uniqueName } from './support.js';
import { installCRD } from './crd-support.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };

let ts: TestServer;
let ns: string;

before(async () => {
  // The workload kinds for Ingress, whose validation tells an empty list from a missing one.
  ts = await startTestServer({ server: { plugins: [{ name: 'workload-kinds', resources: workloadResources }] } });
  ns = await createNamespace(ts, 'omit');
});
after(() => ts.stop());

const cmPath = (name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

function managers(obj: any): string[] {
  return (obj.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.subresource ?? ''}`);
}

async function createCM(name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<any> {
  const r = await ts.request('POST', cmPath(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data }, { headers: { 'User-Agent': 'creator' } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

describe('empty omitempty lists and maps of built-in kinds', () => {
  it('a create or update that sends them empty stores none, and no manager owns them', async () => {
    const name = uniqueName('c');
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: {}, annotations: {}, finalizers: [] }, data: {}, binaryData: {} };
    const created = await ts.request('POST', cmPath(), body);
    assert.equal(created.status, 201, created.text);
    for (const obj of [created.json, (await ts.request('GET', cmPath(name))).json]) {
      assert.deepEqual(Object.keys(obj).sort(), ['apiVersion', 'kind', 'metadata']);
      for (const f of ['labels', 'annotations', 'finalizers', 'managedFields']) assert.equal(obj.metadata[f], undefined, f);
    }
    const updated = await ts.request('PUT', cmPath(name), { ...created.json, data: {}, metadata: { ...created.json.metadata, labels: {} } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.data, undefined);
    assert.equal(updated.json.metadata.labels, undefined);
    assert.equal(updated.json.metadata.resourceVersion, created.json.metadata.resourceVersion, 'nothing changed, nothing written');
  });

  for (const [label, headers, patch] of [
    ['merge', MERGE, { data: { a: null } }],
    ['json', JSON_PATCH, [{ op: 'remove', path: '/data/a' }]],
    ['strategic', SMP, { data: { a: null } }],
  ] as const) {
    it(`a ${label} patch that empties data drops it and the entry that owned only data.a, then managedFields`, async () => {
      const name = uniqueName('p');
      await createCM(name, { a: '1' });
      const patched = await ts.request('PATCH', cmPath(name), patch, { headers: { ...headers, 'User-Agent': 'patcher' } });
      assert.equal(patched.status, 200, patched.text);
      for (const obj of [patched.json, (await ts.request('GET', cmPath(name))).json]) {
        assert.equal(obj.data, undefined);
        assert.equal(obj.metadata.managedFields, undefined);
      }
    });
  }

  it('an emptied map loses only the managers that owned nothing else', async () => {
    const name = uniqueName('l');
    await createCM(name, { a: '1' }, { keep: 'x' });
    const other = await ts.request('PATCH', cmPath(name), { data: { b: '2' } }, { headers: { ...MERGE, 'User-Agent': 'other' } });
    assert.equal(other.status, 200, other.text);
    const patched = await ts.request('PATCH', cmPath(name), { data: { a: null, b: null } }, { headers: { ...MERGE, 'User-Agent': 'patcher' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.data, undefined);
    // creator still owns its label; other owned only data.b.
    assert.deepEqual(managers(patched.json), ['creator/']);
    assert.deepEqual(patched.json.metadata.managedFields[0].fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:keep': {} } } });
    const unlabelled = await ts.request('PATCH', cmPath(name), { metadata: { labels: { keep: null } } }, { headers: SMP });
    assert.equal(unlabelled.status, 200, unlabelled.text);
    assert.equal(unlabelled.json.metadata.labels, undefined);
    assert.equal(unlabelled.json.metadata.managedFields, undefined);
  });

  it('nested lists go too; a list Go always writes (Role.rules) stays, and its manager owns it', async () => {
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
    const role = (name: string, rules: unknown[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
    const nested = await ts.request('POST', path, role(uniqueName('r'), [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]));
    assert.equal(nested.status, 201, nested.text);
    assert.deepEqual(nested.json.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    const empty = await ts.request('POST', path, role(uniqueName('r'), []));
    assert.equal(empty.status, 201, empty.text);
    assert.deepEqual(empty.json.rules, []);
    assert.deepEqual(empty.json.metadata.managedFields[0].fieldsV1, { 'f:rules': {} });
    const binding = await ts.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: uniqueName('rb') },
      subjects: [],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    });
    assert.equal(binding.status, 201, binding.text);
    assert.equal(binding.json.subjects, undefined);
    assert.deepEqual(binding.json.metadata.managedFields[0].fieldsV1, { 'f:roleRef': {} });
  });

  it('validation sees the empty list it was sent (Go validates the decoded object)', async () => {
    const r = await ts.request('POST', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: uniqueName('i') },
      spec: { rules: [] },
    });
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec: Invalid value: \[\]networking\.IngressRule\{\}: either `defaultBackend` or `rules` must be specified/);
  });

  it('a namespace /finalize or /status write that sends an empty list stores none and adds no entry', async () => {
    const name = uniqueName('nsf');
    const created = await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { headers: { 'User-Agent': 'creator' } });
    assert.equal(created.status, 201, created.text);
    const fin = await ts.request('PUT', `/api/v1/namespaces/${name}/finalize`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: [] } }, { headers: { 'User-Agent': 'finalizer' } });
    assert.equal(fin.status, 200, fin.text);
    assert.deepEqual(fin.json.spec, {});
    assert.deepEqual(managers(fin.json), ['creator/']);
    const status = await ts.request('PATCH', `/api/v1/namespaces/${name}/status`, { status: { conditions: [] } }, { headers: { ...MERGE, 'User-Agent': 'status' } });
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.json.status, { phase: 'Active' });
    assert.deepEqual(managers(status.json), ['creator/']);
    assert.equal((await ts.request('DELETE', `/api/v1/namespaces/${name}`)).status, 200);
  });

  it('server-side apply stores the merged object without them', async () => {
    const name = uniqueName('a');
    const applied = await ts.request('PATCH', `${cmPath(name)}?fieldManager=ap`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: {} }, data: {} }, {
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    assert.equal(applied.status, 201, applied.text);
    assert.equal(applied.json.data, undefined);
    assert.equal(applied.json.metadata.labels, undefined);
    assert.equal((await ts.request('GET', cmPath(name))).json.data, undefined);
  });
});

describe('custom resources are unstructured', () => {
  const group = 'omitempty.example.com';
  before(async () => {
    await installCRD(ts, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gizmos.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' } }, l: { type: 'array', items: { type: 'string' } } } } },
              },
            },
          },
        ],
      },
    });
  });

  it('keeps empty maps and lists, and drops only the empty ones of its metadata', async () => {
    const path = `/apis/${group}/v1/namespaces/${ns}/gizmos`;
    const created = await ts.request('POST', path, { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'g1', labels: {} }, spec: { m: {}, l: [] } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec, { m: {}, l: [] });
    assert.equal(created.json.metadata.labels, undefined);
    assert.deepEqual(created.json.metadata.managedFields[0].fieldsV1, { 'f:spec': { '.': {}, 'f:l': {}, 'f:m': {} } });

    const second = await ts.request('POST', path, { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'g2', labels: { a: 'b' } }, spec: { m: { k: 'v' } } });
    assert.equal(second.status, 201, second.text);
    const patched = await ts.request('PATCH', `${path}/g2`, { metadata: { labels: { a: null } }, spec: { m: { k: null } } }, { headers: MERGE });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.spec, { m: {} });
    assert.equal(patched.json.metadata.labels, undefined);
    assert.deepEqual(patched.json.metadata.managedFields[0].fieldsV1, { 'f:spec': { '.': {}, 'f:m': {} } });
  });
});
