/** Server-side Table and PartialObjectMetadata output over real HTTPS (what kubectl get and metadata clients ask for). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace, openWatch } from './support.js';

const tableV1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
/** kubectl 1.32's Accept for get. */
const kubectlTableAccept = `${tableV1},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`;
const age = /^\d+s$/;

describe('table output', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'tables');
    await createConfigMap(ts, ns, 'c1', { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, { app: 'x' });
    await createConfigMap(ts, ns, 'c2');
    const s = await ts.request('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's1' }, data: { k: 'dg==' } });
    assert.equal(s.status, 201);
  });
  after(async () => {
    await ts?.stop();
  });

  const table = (path: string, accept = kubectlTableAccept) => ts.request('GET', path, undefined, { headers: { Accept: accept } });

  it('configmaps: Name, Data, Age; rows carry PartialObjectMetadata by default', async () => {
    const r = await table(`/api/v1/namespaces/${ns}/configmaps?limit=500`);
    assert.equal(r.status, 200, r.text);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal(r.json.kind, 'Table');
    assert.equal(r.json.apiVersion, 'meta.k8s.io/v1');
    assert.match(r.json.metadata.resourceVersion, /^\d+$/);
    const cols = r.json.columnDefinitions;
    assert.deepEqual(cols.map((c: any) => [c.name, c.type, c.format, c.priority]), [
      ['Name', 'string', 'name', 0],
      ['Data', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
    for (const c of cols) assert.equal(typeof c.description, 'string');
    assert.equal(r.json.rows.length, 2);
    const [row1, row2] = r.json.rows;
    assert.equal(row1.cells[0], 'c1');
    assert.equal(row1.cells[1], 3, 'data + binaryData entries');
    assert.match(row1.cells[2], age);
    assert.deepEqual(row2.cells.slice(0, 2), ['c2', 0]);
    assert.equal(row1.object.kind, 'PartialObjectMetadata');
    assert.equal(row1.object.apiVersion, 'meta.k8s.io/v1');
    assert.equal(row1.object.metadata.name, 'c1');
    assert.equal(row1.object.metadata.namespace, ns);
    assert.deepEqual(row1.object.metadata.labels, { app: 'x' });
    assert.equal(row1.object.data, undefined);
  });

  it('namespaces: Name, Status, Age', async () => {
    const r = await table(`/api/v1/namespaces?fieldSelector=${encodeURIComponent(`metadata.name=${ns}`)}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Age']);
    assert.deepEqual(r.json.rows[0].cells.slice(0, 2), [ns, 'Active']);
    assert.match(r.json.rows[0].cells[2], age);
  });

  it('secrets: Name, Type, Data, Age', async () => {
    const r = await table(`/api/v1/namespaces/${ns}/secrets`);
    assert.deepEqual(r.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Type', 'Data', 'Age']);
    assert.deepEqual(r.json.rows[0].cells.slice(0, 3), ['s1', 'Opaque', 1]);
  });

  it('a single GET as a Table has one row', async () => {
    const r = await table(`/api/v1/namespaces/${ns}/configmaps/c2`);
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'Table');
    assert.equal(r.json.rows.length, 1);
    assert.equal(r.json.rows[0].cells[0], 'c2');
  });

  it('includeObject=None drops the object; Object embeds the full object', async () => {
    const none = await table(`/api/v1/namespaces/${ns}/configmaps?includeObject=None`);
    assert.equal(none.status, 200);
    for (const row of none.json.rows) assert.ok(row.object === null || row.object === undefined, JSON.stringify(row));
    const full = await table(`/api/v1/namespaces/${ns}/configmaps?includeObject=Object`);
    const obj = full.json.rows[0].object;
    assert.equal(obj.kind, 'ConfigMap');
    assert.equal(obj.apiVersion, 'v1');
    assert.deepEqual(obj.data, { a: '1', b: '2' });
  });

  it('an unknown includeObject value is 400', async () => {
    const r = await table(`/api/v1/namespaces/${ns}/configmaps?includeObject=Bogus`);
    assertStatus(r, 400, 'BadRequest', `Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": must be 'Metadata', 'Object', 'None', or empty`);
    // Without a Table the parameter is not looked at.
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?includeObject=Bogus`)).status, 200);
  });

  it('a v1beta1 Table is labelled v1beta1 throughout', async () => {
    const r = await table(`/api/v1/namespaces/${ns}/configmaps`, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    assert.equal(r.status, 200);
    assert.equal(r.json.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(r.json.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
  });

  it('PartialObjectMetadata for a GET and PartialObjectMetadataList for a list', async () => {
    const one = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/c1`, undefined, {
      headers: { Accept: 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json' },
    });
    assert.equal(one.status, 200);
    assert.equal(one.json.kind, 'PartialObjectMetadata');
    assert.equal(one.json.apiVersion, 'meta.k8s.io/v1');
    assert.equal(one.json.metadata.name, 'c1');
    assert.equal(one.json.data, undefined);
    const list = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`, undefined, {
      headers: { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' },
    });
    assert.equal(list.json.kind, 'PartialObjectMetadataList');
    assert.equal(list.json.apiVersion, 'meta.k8s.io/v1');
    assert.match(list.json.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(list.json.items.map((i: any) => [i.kind, i.metadata.name]), [
      ['PartialObjectMetadata', 'c1'],
      ['PartialObjectMetadata', 'c2'],
    ]);
  });

  it('an Accept with nothing the server can produce is 406', async () => {
    for (const accept of ['application/xml', 'application/json;as=Table;v=v2;g=meta.k8s.io', 'text/html']) {
      const r = await table(`/api/v1/namespaces/${ns}/configmaps`, accept);
      assertStatus(r, 406, 'NotAcceptable', /^only the following media types are accepted: /);
    }
    // A Table request that falls back to plain JSON gets the plain list.
    const fallback = await table(`/api/v1/namespaces/${ns}/configmaps`, 'application/json;as=Table;v=v2;g=meta.k8s.io,application/json');
    assert.equal(fallback.json.kind, 'ConfigMapList');
  });

  it('a Table watch sends one-row Tables with column definitions only in the first event', async () => {
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=true`, { Accept: kubectlTableAccept });
    try {
      const [first, second] = await w.take(2);
      assert.equal(first!.type, 'ADDED');
      assert.equal(first!.object.kind, 'Table');
      assert.deepEqual(first!.object.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age']);
      assert.equal(first!.object.rows.length, 1);
      assert.equal(first!.object.rows[0].cells[0], 'c1');
      assert.equal(second!.object.kind, 'Table');
      assert.equal(second!.object.columnDefinitions, null, 'no headers after the first event (a nil slice upstream)');
      assert.equal(second!.object.rows[0].cells[0], 'c2');
      assert.equal(second!.object.rows[0].object.kind, 'PartialObjectMetadata');
    } finally {
      w.close();
    }
  });
});
