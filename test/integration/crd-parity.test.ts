/**
 * CRD behaviours checked against kube-apiserver 1.32 / apiextensions-apiserver, one shared server: what a terminating
 * CRD still serves, which CRD fields are immutable once established, generation on subresource writes, CEL typing,
 * and the exact texts of validation causes and printer columns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { assertStatus, createNamespace } from './support.js';
import { cronTabCRD } from './crd-fixtures.js';
import { installCRD, waitForCRD } from './crd-support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

let ts: TestServer;
let ns: string;

before(async () => {
  ts = await startTestServer();
  ns = await createNamespace(ts, 'parity');
});
after(async () => {
  await ts.stop();
});

/** A small namespaced CRD `<plural>.<group>` whose spec keeps unknown fields, with status and scale subresources. */
function simpleCRD(group: string, plural = 'things', kind = 'Thing', specSchema: any = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      ],
    },
  };
}

describe('a terminating CRD', () => {
  it('refuses only create; its objects can still be updated and patched, so finalizers come off and the deletion finishes', async () => {
    await installCRD(ts, simpleCRD('term.example.com'));
    const base = `/apis/term.example.com/v1/namespaces/${ns}/things`;
    const t1 = { apiVersion: 'term.example.com/v1', kind: 'Thing', metadata: { name: 't1', finalizers: ['example.com/hold'] }, spec: { a: 1 } };
    assert.equal((await ts.request('POST', base, t1)).status, 201);
    assert.equal((await ts.request('DELETE', `${CRDS}/things.term.example.com`)).status, 200);
    // The finalizer controller deletes the instance; it stays, held by its finalizer.
    const cur = await eventually('the instance marked for deletion', async () => {
      const t = (await ts.request('GET', `${base}/t1`)).json;
      return t.metadata.deletionTimestamp && t;
    }, 10_000, 20);
    const create = await ts.request('POST', base, { ...t1, metadata: { name: 't2' } });
    assertStatus(create, 405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
    assert.deepEqual(create.json.details, { group: 'term.example.com', kind: 'things' });
    // Discovery lists only the verbs left to clients of a terminating CRD.
    const disc = (await ts.request('GET', '/apis/term.example.com/v1')).json;
    assert.deepEqual(disc.resources.find((r: any) => r.name === 'things').verbs, ['delete', 'deletecollection', 'get', 'list', 'watch']);
    const put = await ts.request('PUT', `${base}/t1`, { ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } } });
    assert.equal(put.status, 200, put.text);
    const patch = await ts.request('PATCH', `${base}/t1`, { metadata: { finalizers: null } }, { headers: mergePatch });
    assert.equal(patch.status, 200, patch.text);
    await waitForCRD(ts, 'things.term.example.com', (x) => x === undefined);
  });
});

describe('updating an established CRD', () => {
  it('refuses a new scope or kind (field is immutable), in upstream order; listKind may change', async () => {
    await installCRD(ts, simpleCRD('immut.example.com', 'widgets', 'Widget'));
    const path = `${CRDS}/widgets.immut.example.com`;
    const scope = await ts.request('PATCH', path, { spec: { scope: 'Cluster' } }, { headers: mergePatch });
    assertStatus(scope, 422, 'Invalid', 'CustomResourceDefinition.apiextensions.k8s.io "widgets.immut.example.com" is invalid: spec.scope: Invalid value: "Cluster": field is immutable');
    const both = await ts.request('PATCH', path, { spec: { scope: 'Cluster', names: { kind: 'Gadget', listKind: 'GadgetList' } } }, { headers: mergePatch });
    assertStatus(both, 422, 'Invalid');
    assert.deepEqual(both.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
    ]);
    const listKind = await ts.request('PATCH', path, { spec: { names: { listKind: 'WidgetCollection' } } }, { headers: mergePatch });
    assert.equal(listKind.status, 200, listKind.text);
  });
});

describe('the scale subresource', () => {
  it('bumps metadata.generation when it changes the spec replicas, and not when it changes nothing', async () => {
    await installCRD(ts, simpleCRD('scale.example.com', 'scalers', 'Scaler'));
    const base = `/apis/scale.example.com/v1/namespaces/${ns}/scalers`;
    const c = await ts.request('POST', base, { apiVersion: 'scale.example.com/v1', kind: 'Scaler', metadata: { name: 'w1' }, spec: { replicas: 1 } });
    assert.equal(c.json.metadata.generation, 1);
    const scale = (await ts.request('GET', `${base}/w1/scale`)).json;
    const put = await ts.request('PUT', `${base}/w1/scale`, { ...scale, spec: { replicas: 4 } });
    assert.equal(put.status, 200, put.text);
    let obj = (await ts.request('GET', `${base}/w1`)).json;
    assert.deepEqual([obj.spec.replicas, obj.metadata.generation], [4, 2]);
    const patch = await ts.request('PATCH', `${base}/w1/scale`, { spec: { replicas: 4 } }, { headers: mergePatch });
    assert.equal(patch.status, 200, patch.text);
    obj = (await ts.request('GET', `${base}/w1`)).json;
    assert.equal(obj.metadata.generation, 2);
    // A status write never moves generation.
    const st = await ts.request('PATCH', `${base}/w1/status`, { status: { replicas: 4 } }, { headers: mergePatch });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.metadata.generation, 2);
  });
});

describe('CEL rules with optionalOldSelf', () => {
  it('has(oldSelf.x) is false on create (no old object) and tests the field of the old object on update', async () => {
    const spec = {
      type: 'object',
      properties: { color: { type: 'string' }, size: { type: 'integer' } },
      'x-kubernetes-validations': [
        { rule: '!has(oldSelf.color) || self.color == oldSelf.color.value()', optionalOldSelf: true, message: 'color is immutable once set' },
      ],
    };
    await installCRD(ts, simpleCRD('opt.example.com', 'paints', 'Paint', spec));
    const base = `/apis/opt.example.com/v1/namespaces/${ns}/paints`;
    const c = await ts.request('POST', base, { apiVersion: 'opt.example.com/v1', kind: 'Paint', metadata: { name: 'p1' }, spec: { color: 'red' } });
    assert.equal(c.status, 201, c.text);
    const c2 = await ts.request('POST', base, { apiVersion: 'opt.example.com/v1', kind: 'Paint', metadata: { name: 'p2' }, spec: { size: 1 } });
    assert.equal(c2.status, 201, c2.text);
    // p2 had no color: setting one is allowed; p1's color cannot change.
    const set = await ts.request('PATCH', `${base}/p2`, { spec: { color: 'blue' } }, { headers: mergePatch });
    assert.equal(set.status, 200, set.text);
    const same = await ts.request('PATCH', `${base}/p1`, { spec: { size: 2 } }, { headers: mergePatch });
    assert.equal(same.status, 200, same.text);
    const change = await ts.request('PATCH', `${base}/p1`, { spec: { color: 'green' } }, { headers: mergePatch });
    assertStatus(change, 422, 'Invalid', 'Paint.opt.example.com "p1" is invalid: spec: Invalid value: "object": color is immutable once set');
  });
});

describe('spec.preserveUnknownFields', () => {
  const causes = (r: any) => r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
  it('cannot be set to true; the defaults message comes only when the schema has defaults', async () => {
    const plain = simpleCRD('pres.example.com', 'plains', 'Plain');
    plain.spec.preserveUnknownFields = true;
    const r1 = await ts.request('POST', CRDS, plain);
    assertStatus(
      r1,
      422,
      'Invalid',
      'CustomResourceDefinition.apiextensions.k8s.io "plains.pres.example.com" is invalid: spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    );
    const defaulted = simpleCRD('pres.example.com', 'defs', 'Def', { type: 'object', properties: { a: { type: 'string', default: 'x' } } });
    defaulted.spec.preserveUnknownFields = true;
    const r2 = await ts.request('POST', CRDS, defaulted);
    assertStatus(r2, 422, 'Invalid');
    assert.deepEqual(causes(r2), [
      'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
    await installCRD(ts, simpleCRD('pres.example.com', 'laters', 'Later'));
    const r3 = await ts.request('PATCH', `${CRDS}/laters.pres.example.com`, { spec: { preserveUnknownFields: true } }, { headers: mergePatch });
    assertStatus(r3, 422, 'Invalid', /spec\.preserveUnknownFields: Invalid value: true: cannot set to true/);
  });
});

describe('CRDs in protected groups', () => {
  const ann = 'api-approved.kubernetes.io';
  it('need the api-approved.kubernetes.io annotation with a URL or an "unapproved" reason', async () => {
    const missing = simpleCRD('demo.k8s.io', 'tests', 'Test');
    const r1 = await ts.request('POST', CRDS, missing);
    assertStatus(
      r1,
      422,
      'Invalid',
      'CustomResourceDefinition.apiextensions.k8s.io "tests.demo.k8s.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    );
    const bad = simpleCRD('x.kubernetes.io', 'tests', 'Test');
    bad.metadata.annotations = { [ann]: 'sure' };
    const r2 = await ts.request('POST', CRDS, bad);
    assertStatus(
      r2,
      422,
      'Invalid',
      'CustomResourceDefinition.apiextensions.k8s.io "tests.x.kubernetes.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Invalid value: "sure": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    );
    const approved = simpleCRD('demo.k8s.io', 'tests', 'Test');
    approved.metadata.annotations = { [ann]: 'https://github.com/kubernetes/kubernetes/pull/1' };
    await installCRD(ts, approved);
    const bypassed = simpleCRD('kubernetes.io', 'others', 'Other');
    bypassed.metadata.annotations = { [ann]: 'unapproved, experimental' };
    await installCRD(ts, bypassed);
    // Changing the approval state to another valid one is fine; to an invalid one is not; other changes never fail.
    const path = `${CRDS}/tests.demo.k8s.io`;
    const r3 = await ts.request('PATCH', path, { metadata: { annotations: { [ann]: 'nope' } } }, { headers: mergePatch });
    assertStatus(r3, 422, 'Invalid', /metadata\.annotations\[api-approved\.kubernetes\.io\]: Invalid value: "nope"/);
    const r4 = await ts.request('PATCH', path, { metadata: { labels: { a: 'b' } } }, { headers: mergePatch });
    assert.equal(r4.status, 200, r4.text);
    // A group that merely contains k8s.io is not protected.
    assert.equal((await ts.request('POST', CRDS, simpleCRD('k8s.io.example.com', 'frees', 'Free'))).status, 201);
  });
});

describe('texts of validation causes and printer columns', () => {
  it('names the skipped CEL rules cause <nil> and prints a duplicate list-map key as Go does', async () => {
    const spec = {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        shape: { type: 'string', enum: ['round', 'square'] },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
      },
      'x-kubernetes-validations': [{ rule: 'self.size >= 0' }],
    };
    await installCRD(ts, simpleCRD('texts.example.com', 'boxes', 'Box', spec));
    const base = `/apis/texts.example.com/v1/namespaces/${ns}/boxes`;
    const r1 = await ts.request('POST', base, { apiVersion: 'texts.example.com/v1', kind: 'Box', metadata: { name: 'b1' }, spec: { size: 1, shape: 'flat' } });
    assertStatus(r1, 422, 'Invalid');
    assert.deepEqual(r1.json.details.causes.map((c: any) => [c.field, c.message]), [
      ['spec.shape', 'Unsupported value: "flat": supported values: "round", "square"'],
      ['<nil>', 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'],
    ]);
    const r2 = await ts.request('POST', base, {
      apiVersion: 'texts.example.com/v1',
      kind: 'Box',
      metadata: { name: 'b2' },
      spec: { size: 1, ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }] },
    });
    assertStatus(r2, 422, 'Invalid', 'Box.texts.example.com "b2" is invalid: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}');
  });

  it('printer columns: the first match of a [*] path, integers truncated, <invalid> for a date that does not parse', async () => {
    const crd = simpleCRD('cols.example.com', 'services', 'Service', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    crd.spec.versions[0].additionalPrinterColumns = [
      { name: 'Port', type: 'string', jsonPath: '.spec.ports[*].name' },
      { name: 'Count', type: 'integer', jsonPath: '.spec.count' },
      { name: 'Since', type: 'date', jsonPath: '.spec.since' },
    ];
    await installCRD(ts, crd);
    const base = `/apis/cols.example.com/v1/namespaces/${ns}/services`;
    const obj = { apiVersion: 'cols.example.com/v1', kind: 'Service', metadata: { name: 's1' }, spec: { ports: [{ name: 'http' }, { name: 'https' }], count: 2.7, since: 'yesterday' } };
    assert.equal((await ts.request('POST', base, obj)).status, 201);
    const table = await ts.request('GET', `${base}/s1`, undefined, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(table.status, 200, table.text);
    assert.deepEqual(table.json.rows[0].cells, ['s1', 'http', 2, '<invalid>']);
  });
});

describe('CEL rules are type-checked against the schema', () => {
  it('refuses, at CRD create, a rule that is not a bool or applies an operator or function to the wrong types', async () => {
    const crd = simpleCRD('typed.example.com', 'typeds', 'Typed', {
      type: 'object',
      properties: { a: { type: 'string' }, num: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.a' }, { rule: 'self.a == 1' }, { rule: 'self.num.startsWith("x")' }, { rule: 'self.num > 1 && self.a.startsWith("x")' }],
    });
    const r = await ts.request('POST', CRDS, crd);
    assertStatus(r, 422, 'Invalid');
    const P = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    assert.deepEqual(r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      `${P}[0].rule: Invalid value: "object": cel expression must evaluate to a bool`,
      `${P}[1].rule: Invalid value: "object": compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(string, int)'\n | self.a == 1\n | .......^`,
      `${P}[2].rule: Invalid value: "object": compilation failed: ERROR: <input>:1:20: found no matching overload for 'startsWith' applied to 'int.(string)'\n | self.num.startsWith("x")\n | ...................^`,
    ]);
    assert.equal((await ts.request('GET', `${CRDS}/typeds.typed.example.com`)).status, 404);
  });
});
