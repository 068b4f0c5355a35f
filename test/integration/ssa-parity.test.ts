/**
 * Server-side apply details checked against kube-apiserver 1.32: CRD schemas drive the merge, the configuration is
 * type-checked, duplicate keys, preconditions, object type, uid and the force parameter.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
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
    await eventually('the schema change to take effect', async () => {
      r = await apply(path(name2, '?fieldManager=m1'), widget(name2, { amap: { k: 'x' } }));
      assert.ok(r.status === 200 || r.status === 201, r.text);
      return entryOf(r.json, 'm1').fieldsV1['f:spec']['f:amap']['f:k'] !== undefined;
    }, 2_000, 20);
    assert.deepEqual(entryOf(r.json, 'm1').fieldsV1, { 'f:spec': { 'f:amap': { 'f:k': {} } } });
  });
});

/** The 500 without a reason that ErrorToAPIStatus makes of a plain error. */
function assertUnknownError(r: { status: number; text: string; json: any }, message: string): void {
  assert.equal(r.status, 500, r.text);
  assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

describe('apply configurations are type-checked (smd ObjectToTyped)', () => {
  it('rejects values of the wrong type, listing every error, and stores nothing', async () => {
    const name = uniqueName('typed');
    const r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { x: true } }, data: { a: 1 } });
    assertUnknownError(
      r,
      `failed to create typed patch object (/${name}; /v1, Kind=ConfigMap): errors:\n` +
        '  .metadata.labels.x: expected string, got &value.valueUnstructured{Value:true}\n' +
        '  .data.a: expected string, got &value.valueUnstructured{Value:1}',
    );
    assert.equal((await ts.request('GET', cmPath(name))).status, 404);
    const one = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, immutable: 'yes' });
    assertUnknownError(one, `failed to create typed patch object (${ns}/${name}; /v1, Kind=ConfigMap): .immutable: expected boolean, got &{yes}`);
  });

  it('rejects duplicate map-list and set entries and undeclared fields, whatever the fieldValidation', async () => {
    const name = uniqueName('dups');
    const owners = [1, 2].map(() => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' }));
    let r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners } });
    assertUnknownError(r, `failed to create typed patch object (/${name}; /v1, Kind=ConfigMap): .metadata.ownerReferences: duplicate entries for key [uid="u1"]`);
    r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, finalizers: ['a/b', 'a/b'] } });
    assertUnknownError(r, `failed to create typed patch object (/${name}; /v1, Kind=ConfigMap): .metadata.finalizers: duplicate entries for key [="a/b"]`);
    for (const mode of ['', '&fieldValidation=Ignore', '&fieldValidation=Warn', '&fieldValidation=Strict']) {
      r = await apply(cmPath(name, `?fieldManager=m${mode}`), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, foo: 'x' });
      assertUnknownError(r, `failed to create typed patch object (/${name}; /v1, Kind=ConfigMap): .foo: field not declared in schema`);
    }
  });

  it('checks custom resources against their schema', async () => {
    const name = uniqueName('w');
    const base = { apiVersion: 'ssaparity.example.com/v1', kind: 'Widget', metadata: { name } };
    const path = `/apis/ssaparity.example.com/v1/namespaces/${ns}/widgets/${name}?fieldManager=m`;
    let r = await apply(path, { ...base, spec: { items: [{ name: 'a', v: 'one' }, { name: 'a' }], extra: 1 } });
    assertUnknownError(
      r,
      `failed to create typed patch object (/${name}; ssaparity.example.com/v1, Kind=Widget): errors:\n` +
        '  .spec.items[name="a"].v: expected numeric (int or float), got string\n' +
        '  .spec.items: duplicate entries for key [name="a"]\n' +
        '  .spec.extra: field not declared in schema',
    );
    r = await apply(path, { ...base, spec: { items: [{ v: 1 }] } });
    assertUnknownError(
      r,
      `failed to create typed patch object (/${name}; ssaparity.example.com/v1, Kind=Widget): .spec.items: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn't have default values for any key fields)`,
    );
  });
});

describe('apply configurations must be of the endpoint kind (versionCheckManager)', () => {
  it('answers 400 invalid object type', async () => {
    const name = uniqueName('kind');
    let r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'Secret', metadata: { name } });
    assertStatus(r, 400, 'BadRequest', 'invalid object type: /v1, Kind=Secret');
    r = await apply(cmPath(name, '?fieldManager=m'), { kind: 'ConfigMap', metadata: { name } });
    assertStatus(r, 400, 'BadRequest', 'invalid object type: /, Kind=ConfigMap');
    r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name } });
    assertStatus(r, 400, 'BadRequest', 'invalid object type: apps/v1, Kind=ConfigMap');
    r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'a/b/c', kind: 'ConfigMap', metadata: { name } });
    assertStatus(r, 400, 'BadRequest', 'invalid object type: /, Kind=');
  });
});

describe('duplicate keys in the apply body (yaml.UnmarshalStrict after the apply)', () => {
  const yamlBody = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n  b:\n    "3"\n  b: "4"\n`;

  it('Strict answers 400 naming every duplicate by line; Warn and the default warn; Ignore is silent', async () => {
    const name = uniqueName('dupkeys');
    let r = await apply(cmPath(name, '?fieldManager=m&fieldValidation=Strict'), yamlBody(name));
    assertStatus(
      r,
      400,
      'BadRequest',
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map\n  line 10: key "b" already set in map',
    );
    assert.equal((await ts.request('GET', cmPath(name))).status, 404);
    for (const query of ['?fieldManager=m&fieldValidation=Warn', '?fieldManager=m']) {
      r = await apply(cmPath(name, query), yamlBody(name));
      assert.ok(r.status === 201 || r.status === 200, r.text);
      assert.deepEqual(r.json.data, { a: '2', b: '4' });
      assert.equal(r.headers.warning, '299 - "line 7: key \\"a\\" already set in map", 299 - "line 10: key \\"b\\" already set in map"');
    }
    r = await apply(cmPath(name, '?fieldManager=m&fieldValidation=Ignore'), yamlBody(name));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.warning, undefined);
    // JSON is YAML: a one-line JSON body reports line 1.
    r = await apply(cmPath(name, '?fieldManager=m&fieldValidation=Strict'), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"x":"1","x":"2"}}`);
    assertStatus(r, 400, 'BadRequest', 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 1: key "x" already set in map');
  });
});

describe('apply preconditions', () => {
  it('metadata.resourceVersion must be the current one (409), also for an apply that changes nothing', async () => {
    const name = uniqueName('rv');
    const body = (rv?: string, v = '1') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, data: { a: v } });
    const created = await apply(cmPath(name, '?fieldManager=m'), body());
    assert.equal(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion;
    const stale = String(Number(rv) - 1);
    const message = `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;
    assertStatus(await apply(cmPath(name, '?fieldManager=m'), body(stale, '2')), 409, 'Conflict', message);
    assertStatus(await apply(cmPath(name, '?fieldManager=m'), body(stale)), 409, 'Conflict', message);
    const ok = await apply(cmPath(name, '?fieldManager=m'), body(rv, '2'));
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.data, { a: '2' });
  });

  it('an apply that creates the object must not specify a uid (409)', async () => {
    const name = uniqueName('newuid');
    const r = await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, uid: 'abc' } });
    assertStatus(r, 409, 'Conflict', `Operation cannot be fulfilled on configmaps "${name}": uid mismatch: the provided object specified uid abc, and no existing object was found`);
    assert.equal((await ts.request('GET', cmPath(name))).status, 404);
  });
});

describe('force is converted as the parameter codec converts booleans', () => {
  it('"0" and any capitalisation of "false" do not force; anything else does', async () => {
    const name = uniqueName('force');
    const body = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: v } });
    assert.equal((await apply(cmPath(name, '?fieldManager=owner'), body('1'))).status, 201);
    for (const f of ['False', 'FALSE', '0', 'false']) {
      const r = await apply(cmPath(name, `?fieldManager=other&force=${f}`), body(`x${f}`));
      assertStatus(r, 409, 'Conflict');
    }
    for (const f of ['yes', 'abc', 'True', '']) {
      const r = await apply(cmPath(name, `?fieldManager=other${f}&force=${f}`), body(`y${f}`));
      assert.equal(r.status, 200, `force=${f}: ${r.text}`);
    }
  });

  it('other boolean query parameters convert the same way (allowWatchBookmarks, orphanDependents)', async () => {
    const r = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?allowWatchBookmarks=Yes`);
    assert.equal(r.status, 200, r.text);
    const name = uniqueName('orphan');
    assert.equal((await apply(cmPath(name, '?fieldManager=m'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })).status, 201);
    const d = await ts.request('DELETE', cmPath(name, '?orphanDependents=FALSE'));
    assert.equal(d.status, 200, d.text);
  });
});

describe('namespace /status keeps metadata (namespaceStatusStrategy resets only spec)', () => {
  it('an apply through /status with labels stores them, as its managedFields say', async () => {
    const name = await createNamespace(ts, 'nsstatus');
    const r = await apply(`/api/v1/namespaces/${name}/status?fieldManager=st`, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { x: 'y' } },
      status: { conditions: [{ type: 'Custom', status: 'True' }] },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.metadata.labels.x, 'y');
    const entry = entryOf(r.json, 'st');
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(entry.fieldsV1['f:metadata'], { 'f:labels': { 'f:x': {} } });
    const got = (await ts.request('GET', `/api/v1/namespaces/${name}`)).json;
    assert.equal(got.metadata.labels.x, 'y');
    // Invalid label values are refused as for any metadata update.
    const bad = await ts.request('PATCH', `/api/v1/namespaces/${name}/status`, { metadata: { labels: { x: '-' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assertStatus(bad, 422, 'Invalid');
  });
});

describe('managedFields details', () => {
  it('an empty fieldManager falls back to the User-Agent prefix; without a User-Agent the manager is "unknown"', async () => {
    const name = uniqueName('mgr');
    const created = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }, { headers: { 'User-Agent': 'my-tool/1.2 (linux)' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.metadata.managedFields[0].manager, 'my-tool');
    const patched = await ts.request('PATCH', cmPath(name, '?fieldManager='), { data: { b: '2' } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    // kube-apiserver 1.32 (buildManagerInfo) names it "unknown" (found by test/differential).
    const anonymous = patched.json.metadata.managedFields.filter((e: any) => e.manager === 'unknown');
    assert.equal(anonymous.length, 1, JSON.stringify(patched.json.metadata.managedFields));
    assert.deepEqual(anonymous[0].fieldsV1, { 'f:data': { 'f:b': {} } });
  });

  it('a new manager applying values already there gets no time and sorts first among appliers', async () => {
    const name = uniqueName('notime');
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } };
    const first = await apply(cmPath(name, '?fieldManager=aa'), body);
    assert.equal(first.status, 201, first.text);
    const second = await apply(cmPath(name, '?fieldManager=zz-second'), body);
    assert.equal(second.status, 200, second.text);
    const entries = second.json.metadata.managedFields;
    assert.deepEqual(entries.map((e: any) => e.manager), ['zz-second', 'aa']);
    assert.equal('time' in entries[0], false, JSON.stringify(entries));
    assert.equal(entries[1].time, first.json.metadata.managedFields[0].time);
  });
});

describe('schema defaults go into the merged object, not into the apply configuration', () => {
  const group = 'ssadefaults.example.com';
  const path = (name: string, sub = '', query = '') => `/apis/${group}/v1/namespaces/${ns}/gadgets/${name}${sub}${query}`;
  before(async () => {
    await installCRD(ts, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { replicas: { type: 'integer', default: 1 }, size: { type: 'string' } } },
                  status: { type: 'object', properties: { replicas: { type: 'integer' } } },
                },
              },
            },
          },
        ],
      },
    });
  });

  it('a field the configuration leaves out is neither owned by the applier nor reset to its default', async () => {
    const name = uniqueName('g');
    const gadget = (spec: unknown) => ({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name }, spec });
    // Created by apply without replicas: the default is stored, but the applier does not own it.
    let r = await apply(path(name, '', '?fieldManager=gitops'), gadget({ size: 's' }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.replicas, 1);
    assert.deepEqual(entryOf(r.json, 'gitops').fieldsV1, { 'f:spec': { 'f:size': {} } });
    // Someone scales it; the next apply of the same configuration neither conflicts nor resets replicas.
    r = await ts.request('PATCH', path(name, '/scale'), { spec: { replicas: 4 } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.equal(r.status, 200, r.text);
    r = await apply(path(name, '', '?fieldManager=gitops'), gadget({ size: 'm' }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.replicas, 4);
    assert.equal(r.json.spec.size, 'm');
    assert.deepEqual(entryOf(r.json, 'gitops').fieldsV1, { 'f:spec': { 'f:size': {} } });
  });
});
