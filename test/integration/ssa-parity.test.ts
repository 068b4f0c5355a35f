/**
 * Server-side apply details checked against kube-apiserver 1.32: CRD schemas drive the merge, the configuration is
 * type-checked, duplicate keys, preconditions, object type, uid and the force parameter.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createNamespace, uniqueName } from './support.js';
import { installCRD } from './crd-support.js';

const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
let ts: TestServer;
let ns: string;

before(async () => {
  ts = await startTestServer();
  ns = await createNamespace(ts, 'ssap');
});
after(() => ts.stop());

function cmPath(name: string, query = ''): string {
  return `/api/v1/namespaces/${ns}/configmaps/${name}${query}`;
}

function apply(path: string, body: unknown, headers: Record<string, string> = {}) {
  return ts.request('PATCH', path, body, { headers: { ...APPLY, ...headers } });
}

function entryOf(obj: any, manager: string): any {
  return (obj.metadata.managedFields ?? []).find((e: any) => e.manager === manager);
}

describe('server-side apply of custom resources uses the CRD schema', () => {
  const group = 'ssaparity.example.com';
  const crdName = `widgets.${group}`;
  const schema = (amapAtomic: boolean) => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'integer' } } },
          },
          amap: { type: 'object', additionalProperties: { type: 'string' }, ...(amapAtomic ? { 'x-kubernetes-map-type': 'atomic' } : {}) },
        },
      },
    },
  });
  const crd = (amapAtomic: boolean) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema(amapAtomic) } }],
    },
  });
  const path = (name: string, query: string) => `/apis/${group}/v1/namespaces/${ns}/widgets/${name}${query}`;
  const widget = (name: string, spec: unknown) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec });

  before(async () => {
    await installCRD(ts, crd(true));
  });

  it('merges map lists by key and keeps atomic maps whole, and follows a schema change', async () => {
    const name = uniqueName('w');
    let r = await apply(path(name, '?fieldManager=m1'), widget(name, { items: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }], amap: { k: 'x' } }));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(entryOf(r.json, 'm1').fieldsV1, {
      'f:spec': {
        'f:amap': {},
        'f:items': { 'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:v': {} }, 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:v': {} } },
      },
    });
    r = await apply(path(name, '?fieldManager=m2'), widget(name, { items: [{ name: 'c', v: 3 }] }));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.spec.items.map((i: any) => i.name), ['a', 'b', 'c']);
    assert.deepEqual(entryOf(r.json, 'm2').fieldsV1, { 'f:spec': { 'f:items': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:v': {} } } } });

    // Without x-kubernetes-map-type the map is granular: a new definition, a new field manager.
    const current = (await ts.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`)).json;
    current.spec.versions[0].schema.openAPIV3Schema = schema(false);
    const u = await ts.request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`, current);
    assert.equal(u.status, 200, u.text);
    const name2 = uniqueName('w');
    for (let i = 0; ; i++) {
      r = await apply(path(name2, '?fieldManager=m1'), widget(name2, { amap: { k: 'x' } }));
      assert.ok(r.status === 200 || r.status === 201, r.text);
      if (entryOf(r.json, 'm1').fieldsV1['f:spec']['f:amap']['f:k'] !== undefined) break;
      assert.ok(i < 100, 'the schema change never took effect');
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.deepEqual(entryOf(r.json, 'm1').fieldsV1, { 'f:spec': { 'f:amap': { 'f:k': {} } } });
  });
});
