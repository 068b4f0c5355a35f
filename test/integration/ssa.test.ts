/**
 * Server-side apply over HTTP: create-on-apply, managedFields for every write, conflicts and force, pruning, dry-run,
 * the request errors kube-apiserver answers, and the client-side to server-side migration kubectl performs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createNamespace, uniqueName } from './support.js';

const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
let ts: TestServer;
let ns: string;

before(async () => {
  ts = await startTestServer();
  ns = await createNamespace(ts, 'ssa');
});
after(() => ts.stop());

function cmPath(name: string, query = ''): string {
  return `/api/v1/namespaces/${ns}/configmaps/${name}${query}`;
}

function cm(name: string, data: Record<string, string>, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data };
}

function apply(name: string, body: unknown, query: string) {
  return ts.request('PATCH', cmPath(name, query), body, { headers: APPLY });
}

function managers(obj: any): string[] {
  return (obj.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}`);
}

describe('server-side apply', () => {
  it('creates a missing object (201) and records an Apply entry; a second apply answers 200', async () => {
    const name = uniqueName('create');
    const r = await apply(name, cm(name, { a: '1' }), '?fieldManager=mgr');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.data, { a: '1' });
    const [entry] = r.json.metadata.managedFields;
    assert.equal(entry.manager, 'mgr');
    assert.equal(entry.operation, 'Apply');
    assert.equal(entry.apiVersion, 'v1');
    assert.equal(entry.fieldsType, 'FieldsV1');
    assert.deepEqual(entry.fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const again = await apply(name, cm(name, { a: '1' }), '?fieldManager=mgr');
    assert.equal(again.status, 200);
    assert.equal(again.json.metadata.resourceVersion, r.json.metadata.resourceVersion, 'an unchanged apply writes nothing');
  });

  it('re-applying an unchanged configuration answers the stored object as GET does, also for dry-run and force', async () => {
    const name = uniqueName('steady');
    const config = cm(name, { a: '1' }, { labels: { l: 'v' } });
    assert.equal((await apply(name, config, '?fieldManager=mgr')).status, 201);
    assert.equal((await ts.request('PATCH', cmPath(name, '?fieldManager=labeler'), { metadata: { labels: { x: 'y' } } }, { headers: { 'Content-Type': 'application/merge-patch+json' } })).status, 200);
    const stored = (await ts.request('GET', cmPath(name))).json;
    for (const query of ['?fieldManager=mgr', '?fieldManager=mgr&dryRun=All', '?fieldManager=mgr&force=true&fieldValidation=Strict']) {
      const r = await apply(name, config, query);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json, stored, query);
    }
    assert.deepEqual((await ts.request('GET', cmPath(name))).json, stored, 'nothing was written');
    // A changed value after the no-ops still goes through the write path.
    const changed = await apply(name, cm(name, { a: '2' }, { labels: { l: 'v' } }), '?fieldManager=mgr');
    assert.equal(changed.status, 200, changed.text);
    assert.notEqual(changed.json.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.deepEqual(managers(changed.json).sort(), ['labeler/Update', 'mgr/Apply']);
  });

  it('accepts YAML bodies', async () => {
    const name = uniqueName('yaml');
    const r = await apply(name, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`, '?fieldManager=mgr');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.data, { k: 'v' });
  });

  it('records Update entries for create, PUT, merge and strategic patches and status-less kinds', async () => {
    const name = uniqueName('upd');
    const created = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=creator`, cm(name, { a: '1' }));
    assert.equal(created.status, 201);
    assert.deepEqual(created.json.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.fieldsV1]), [
      ['creator', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }],
    ]);
    const patched = await ts.request('PATCH', cmPath(name, '?fieldManager=patcher'), { data: { b: '2' } }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assert.deepEqual(managers(patched.json), ['creator/Update', 'patcher/Update']);
    const put = await ts.request('PUT', cmPath(name, '?fieldManager=putter'), { ...patched.json, data: { a: '9', b: '2' } });
    assert.equal(put.status, 200, put.text);
    const byManager = Object.fromEntries(put.json.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    assert.deepEqual(byManager.putter, { 'f:data': { 'f:a': {} } });
    // The creator still owns the data map itself: a member with no children is `{}`.
    assert.deepEqual(byManager.creator, { 'f:data': {} });
    const defaulted = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm(uniqueName('ua'), { a: '1' }), { headers: { 'User-Agent': 'my-tool/1.0 (linux)' } });
    assert.equal(defaulted.json.metadata.managedFields[0].manager, 'my-tool', 'the default manager is the User-Agent up to "/"');
  });

  it('answers 409 with FieldManagerConflict causes, and force=true takes ownership', async () => {
    const name = uniqueName('conflict');
    await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=owner`, cm(name, { key: 'a' }));
    const r = await apply(name, cm(name, { key: 'b' }), '?fieldManager=applier');
    assertStatus(r, 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "owner" using v1: .data.key');
    assert.deepEqual(r.json.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "owner" using v1', field: '.data.key' }] });
    const forced = await apply(name, cm(name, { key: 'b' }), '?fieldManager=applier&force=true');
    assert.equal(forced.status, 200, forced.text);
    assert.equal(forced.json.data.key, 'b');
    assert.deepEqual(managers(forced.json), ['applier/Apply', 'owner/Update']);
    assert.deepEqual(forced.json.metadata.managedFields[1].fieldsV1, { 'f:data': {} }, 'the owner keeps only the map itself');
  });

  it('removes fields the applier dropped unless another manager owns them', async () => {
    const name = uniqueName('prune');
    await apply(name, cm(name, { a: '1', b: '2' }), '?fieldManager=one');
    await apply(name, cm(name, { b: '2' }), '?fieldManager=two');
    const r = await apply(name, cm(name, {}), '?fieldManager=one');
    assert.deepEqual(r.json.data, { b: '2' });
  });

  it('dryRun=All computes but does not persist', async () => {
    const name = uniqueName('dry');
    const r = await apply(name, cm(name, { a: '1' }), '?fieldManager=mgr&dryRun=All');
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.managedFields[0].manager, 'mgr');
    assert.equal((await ts.request('GET', cmPath(name))).status, 404);
  });

  it('applies to custom-less built-ins with list semantics (finalizers are a set)', async () => {
    const name = uniqueName('fin');
    await apply(name, cm(name, {}, { finalizers: ['example.com/a'] }), '?fieldManager=one');
    const r = await apply(name, cm(name, {}, { finalizers: ['example.com/b'] }), '?fieldManager=two');
    assert.deepEqual(r.json.metadata.finalizers, ['example.com/a', 'example.com/b']);
    const cleared = await apply(name, cm(name, {}), '?fieldManager=one');
    assert.deepEqual(cleared.json.metadata.finalizers, ['example.com/b']);
    await apply(name, cm(name, {}), '?fieldManager=two');
  });

  it('managedFields: [{}] in an update resets them', async () => {
    const name = uniqueName('reset');
    const created = await apply(name, cm(name, { a: '1' }), '?fieldManager=mgr');
    const r = await ts.request('PUT', cmPath(name), { ...created.json, metadata: { ...created.json.metadata, managedFields: [{}] } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.metadata.managedFields, undefined);
  });

  it('JSON patches of managedFields are persisted (kubectl csaupgrade)', async () => {
    const name = uniqueName('jp');
    const created = await apply(name, cm(name, { a: '1' }), '?fieldManager=mgr');
    const entry = { ...created.json.metadata.managedFields[0], manager: 'renamed' };
    const r = await ts.request(
      'PATCH',
      cmPath(name),
      [
        { op: 'test', path: '/metadata/resourceVersion', value: created.json.metadata.resourceVersion },
        { op: 'replace', path: '/metadata/managedFields', value: [entry] },
      ],
      { headers: { 'Content-Type': 'application/json-patch+json' } },
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(managers((await ts.request('GET', cmPath(name))).json), ['renamed/Apply']);
  });

  const badRequests: { name: string; query: string; body: unknown; code: number; reason: string; message: string | RegExp }[] = [
    {
      name: 'no fieldManager',
      query: '',
      body: cm('x', {}),
      code: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    },
    { name: 'wrong apiVersion', query: '?fieldManager=m', body: { ...cm('x', {}), apiVersion: 'v2' }, code: 400, reason: 'BadRequest', message: 'invalid object type: /v2, Kind=ConfigMap' },
    { name: 'no apiVersion', query: '?fieldManager=m', body: { kind: 'ConfigMap', metadata: { name: 'x' } }, code: 400, reason: 'BadRequest', message: 'invalid object type: /, Kind=ConfigMap' },
    { name: 'managedFields in the body', query: '?fieldManager=m', body: cm('x', {}, { managedFields: [] }), code: 400, reason: 'BadRequest', message: 'metadata.managedFields must be nil' },
    { name: 'name mismatch', query: '?fieldManager=m', body: cm('y', {}), code: 400, reason: 'BadRequest', message: 'the name of the object (y) does not match the name on the URL (x)' },
    { name: 'malformed YAML', query: '?fieldManager=m', body: 'a: [', code: 400, reason: 'BadRequest', message: /^error decoding YAML: / },
    { name: 'a YAML list', query: '?fieldManager=m', body: '- a\n', code: 400, reason: 'BadRequest', message: /cannot unmarshal array into Go value of type map\[string\]interface \{\}$/ },
    { name: 'wrong kind', query: '?fieldManager=m', body: { ...cm('x', {}), kind: 'Secret' }, code: 400, reason: 'BadRequest', message: 'invalid object type: /v1, Kind=Secret' },
  ];
  for (const c of badRequests) {
    it(`rejects: ${c.name}`, async () => {
      assertStatus(await apply('x', c.body, c.query), c.code, c.reason, c.message);
    });
  }

  it('rejects force on a non-apply patch', async () => {
    const name = uniqueName('force');
    await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm(name, {}));
    const r = await ts.request('PATCH', cmPath(name, '?force=true'), { data: {} }, { headers: { 'Content-Type': 'application/merge-patch+json' } });
    assertStatus(r, 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });
});
