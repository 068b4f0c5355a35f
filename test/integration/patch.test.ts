/** PATCH over real HTTPS: merge, JSON and strategic merge patches, preconditions and patch option errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace } from './support.js';

const merge = 'application/merge-patch+json';
const jsonPatch = 'application/json-patch+json';
const strategic = 'application/strategic-merge-patch+json';

describe('patch', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'patch');
  });
  after(async () => {
    await ts?.stop();
  });

  const patch = (path: string, contentType: string, body: unknown) =>
    ts.request('PATCH', path, typeof body === 'string' ? body : JSON.stringify(body), { headers: { 'Content-Type': contentType } });
  const cmPath = (name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

  it('merge patch sets and deletes keys (null removes)', async () => {
    const cm = await createConfigMap(ts, ns, 'mp', { data: { a: '1', keep: 'k' } });
    const r = await patch(cmPath('mp'), merge, { data: { a: null, b: '2' }, metadata: { labels: { l: 'v' } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.data, { keep: 'k', b: '2' });
    assert.deepEqual(r.json.metadata.labels, { l: 'v' });
    assert.equal(r.json.metadata.uid, cm.metadata.uid);
    assert.ok(Number(r.json.metadata.resourceVersion) > Number(cm.metadata.resourceVersion));
    const got = await ts.request('GET', cmPath('mp'));
    assert.deepEqual(got.json.data, { keep: 'k', b: '2' });
  });

  it('a patch that changes nothing does not write (resourceVersion unchanged)', async () => {
    const cm = await createConfigMap(ts, ns, 'noop', { data: { a: '1' } });
    const r = await patch(cmPath('noop'), merge, { data: { a: '1' } });
    assert.equal(r.status, 200);
    assert.equal(r.json.metadata.resourceVersion, cm.metadata.resourceVersion);
  });

  it('JSON patch applies operations in order; a failing test op is 422 and changes nothing', async () => {
    const cm = await createConfigMap(ts, ns, 'jp', { data: { a: '1' } });
    const ok = await patch(cmPath('jp'), jsonPatch, [
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'replace', path: '/data/a', value: 'x' },
      { op: 'add', path: '/data/b', value: 'y' },
    ]);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.data, { a: 'x', b: 'y' });

    const failed = await patch(cmPath('jp'), jsonPatch, [
      { op: 'replace', path: '/data/b', value: 'changed' },
      { op: 'test', path: '/data/a', value: 'wrong' },
    ]);
    assertStatus(failed, 422, 'Invalid');
    const after = await ts.request('GET', cmPath('jp'));
    assert.deepEqual(after.json.data, { a: 'x', b: 'y' });
    assert.equal(after.json.metadata.uid, cm.metadata.uid);

    const missingPath = await patch(cmPath('jp'), jsonPatch, [{ op: 'remove', path: '/data/nope' }]);
    assert.equal(missingPath.status, 422, missingPath.text);
  });

  it('strategic merge patch unions finalizers where a merge patch replaces them', async () => {
    await createConfigMap(ts, ns, 'smp', { data: { a: '1' } });
    const first = await patch(cmPath('smp'), merge, { metadata: { finalizers: ['example.com/a'] } });
    assert.deepEqual(first.json.metadata.finalizers, ['example.com/a']);
    const smp = await patch(cmPath('smp'), strategic, { metadata: { finalizers: ['example.com/b'] }, data: { b: '2' } });
    assert.equal(smp.status, 200, smp.text);
    // Upstream mergeSlice dedups original+patch, then normalizeElementOrder/mergeSortedSlice puts a server-only item
    // after a patch item it cannot order against: the patch's finalizer comes first.
    assert.deepEqual(smp.json.metadata.finalizers, ['example.com/b', 'example.com/a']);
    assert.deepEqual(smp.json.data, { a: '1', b: '2' });
    const replaced = await patch(cmPath('smp'), merge, { metadata: { finalizers: ['example.com/c'] } });
    assert.deepEqual(replaced.json.metadata.finalizers, ['example.com/c']);
    const cleared = await patch(cmPath('smp'), merge, { metadata: { finalizers: null } });
    assert.equal(cleared.json.metadata.finalizers, undefined);
  });

  it('a resourceVersion inside the patch is a precondition', async () => {
    const cm = await createConfigMap(ts, ns, 'pre', { data: { a: '1' } });
    const ok = await patch(cmPath('pre'), merge, { data: { a: '2' }, metadata: { resourceVersion: cm.metadata.resourceVersion } });
    assert.equal(ok.status, 200, ok.text);
    const stale = await patch(cmPath('pre'), merge, { data: { a: '3' }, metadata: { resourceVersion: cm.metadata.resourceVersion } });
    assertStatus(
      stale,
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "pre": the object has been modified; please apply your changes to the latest version and try again',
    );
    const smpStale = await patch(cmPath('pre'), strategic, { data: { a: '3' }, metadata: { resourceVersion: cm.metadata.resourceVersion } });
    assert.equal(smpStale.status, 409);
    assert.equal((await ts.request('GET', cmPath('pre'))).json.data.a, '2');
  });

  it('patching a missing object is 404', async () => {
    const r = await patch(cmPath('missing'), merge, { data: { a: '1' } });
    assertStatus(r, 404, 'NotFound', 'configmaps "missing" not found');
  });

  it("a Content-Type that is no patch type is the route's plain 415, as kube-apiserver's go-restful answers", async () => {
    await createConfigMap(ts, ns, 'ct');
    for (const ct of ['application/json', 'text/plain', 'application/foo+json']) {
      const r = await patch(cmPath('ct'), ct, { data: { a: '1' } });
      assertStatus(r, 415, 'UnsupportedMediaType', '415: Unsupported Media Type');
    }
  });

  it('force on a non-apply patch is 422', async () => {
    await createConfigMap(ts, ns, 'force');
    const r = await ts.request('PATCH', `${cmPath('force')}?force=true`, '{"data":{"a":"1"}}', { headers: { 'Content-Type': merge } });
    assertStatus(r, 422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('a malformed patch body is 400', async () => {
    await createConfigMap(ts, ns, 'malformed');
    const r = await patch(cmPath('malformed'), merge, '{"data": ');
    assertStatus(r, 400, 'BadRequest');
  });

  it('a patch that produces an invalid object is 422 and is not stored', async () => {
    await createConfigMap(ts, ns, 'invalid', { data: { a: '1' } });
    const r = await patch(cmPath('invalid'), merge, { data: { 'bad key': 'x' } });
    assertStatus(r, 422, 'Invalid', /^ConfigMap "invalid" is invalid: data\[bad key\]: Invalid value: "bad key"/);
    assert.deepEqual((await ts.request('GET', cmPath('invalid'))).json.data, { a: '1' });
  });

  it('patches work on cluster-scoped namespaces (labels via merge and strategic)', async () => {
    const target = await createNamespace(ts, 'patched');
    const r = await patch(`/api/v1/namespaces/${target}`, strategic, { metadata: { labels: { team: 'a' } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.metadata.labels, { 'kubernetes.io/metadata.name': target, team: 'a' });
    const m = await patch(`/api/v1/namespaces/${target}`, merge, { metadata: { labels: { team: null } } });
    assert.deepEqual(m.json.metadata.labels, { 'kubernetes.io/metadata.name': target });
  });
});
