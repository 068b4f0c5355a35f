/** Deletion over real HTTPS: finalizers, DeleteOptions (body and preconditions), deletecollection. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { assertStatus, createConfigMap, createNamespace, openWatch } from './support.js';

describe('delete', () => {
  let ts: TestServer;
  let ns: string;
  before(async () => {
    ts = await startTestServer();
    ns = await createNamespace(ts, 'delete');
  });
  after(async () => {
    await ts?.stop();
  });

  const cmPath = (name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;
  const mergePatch = (name: string, body: unknown) =>
    ts.request('PATCH', cmPath(name), JSON.stringify(body), { headers: { 'Content-Type': 'application/merge-patch+json' } });

  it('an object with finalizers gets a deletionTimestamp and stays until the last finalizer goes', async () => {
    const cm = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'fin', finalizers: ['example.com/f'] }, data: { a: '1' } });
    assert.equal(cm.status, 201);
    const w = await openWatch(ts, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${cm.json.metadata.resourceVersion}`);
    try {
      const d = await ts.request('DELETE', cmPath('fin'));
      assert.equal(d.status, 200, d.text);
      assert.equal(d.json.kind, 'ConfigMap', 'the object comes back, not a Status');
      assert.match(d.json.metadata.deletionTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      assert.equal(d.json.metadata.deletionGracePeriodSeconds, 0);
      assert.deepEqual(d.json.metadata.finalizers, ['example.com/f']);
      assert.equal((await w.next()).type, 'MODIFIED');

      const again = await ts.request('DELETE', cmPath('fin'));
      assert.equal(again.status, 200);
      assert.equal(again.json.metadata.deletionTimestamp, d.json.metadata.deletionTimestamp);
      assert.equal(again.json.metadata.resourceVersion, d.json.metadata.resourceVersion, 'a repeated delete changes nothing');

      // Updates may change other things but cannot add finalizers or clear the deletionTimestamp.
      const edit = structuredClone(d.json);
      edit.data.a = '2';
      delete edit.metadata.deletionTimestamp;
      const u = await ts.request('PUT', cmPath('fin'), edit);
      assert.equal(u.status, 200, u.text);
      assert.equal(u.json.metadata.deletionTimestamp, d.json.metadata.deletionTimestamp);
      const added = await mergePatch('fin', { metadata: { finalizers: ['example.com/f', 'example.com/g'] } });
      assertStatus(added, 422, 'Invalid', /^ConfigMap "fin" is invalid: metadata\.finalizers: Forbidden: no new finalizers can be added if the object is being deleted/);

      const removed = await mergePatch('fin', { metadata: { finalizers: null } });
      assert.equal(removed.status, 200, removed.text);
      assertStatus(await ts.request('GET', cmPath('fin')), 404, 'NotFound');
      const types = [(await w.next()).type, (await w.next()).type];
      assert.deepEqual(types, ['MODIFIED', 'DELETED']);
    } finally {
      w.close();
    }
  });

  it('DeleteOptions preconditions: a uid or resourceVersion mismatch is 409 and deletes nothing', async () => {
    const cm = await createConfigMap(ts, ns, 'pre');
    const uid = cm.metadata.uid;
    const badUid = await ts.request('DELETE', cmPath('pre'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } });
    assertStatus(
      badUid,
      409,
      'Conflict',
      `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (not-the-uid) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
    const badRv = await ts.request('DELETE', cmPath('pre'), { preconditions: { resourceVersion: '1' } });
    assertStatus(
      badRv,
      409,
      'Conflict',
      `Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${cm.metadata.resourceVersion}). The object might have been modified`,
    );
    assert.equal((await ts.request('GET', cmPath('pre'))).status, 200);
    const ok = await ts.request('DELETE', cmPath('pre'), {
      kind: 'DeleteOptions',
      apiVersion: 'meta.k8s.io/v1',
      preconditions: { uid, resourceVersion: cm.metadata.resourceVersion },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.status, 'Success');
  });

  it('kubectl\'s DeleteOptions body (no kind) and propagationPolicy in the query are accepted', async () => {
    await createConfigMap(ts, ns, 'kubectl-style');
    const r = await ts.request('DELETE', cmPath('kubectl-style'), { propagationPolicy: 'Background' });
    assert.equal(r.status, 200, r.text);
    await createConfigMap(ts, ns, 'query-style');
    const q = await ts.request('DELETE', `${cmPath('query-style')}?propagationPolicy=Background&gracePeriodSeconds=0`);
    assert.equal(q.status, 200, q.text);
  });

  it('an invalid propagationPolicy is 422', async () => {
    await createConfigMap(ts, ns, 'policy');
    const r = await ts.request('DELETE', cmPath('policy'), { propagationPolicy: 'Sometimes' });
    assertStatus(r, 422, 'Invalid', /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes"/);
    assert.equal((await ts.request('GET', cmPath('policy'))).status, 200);
  });

  it('a DeleteOptions body of another kind is 400', async () => {
    await createConfigMap(ts, ns, 'wrong-kind');
    const r = await ts.request('DELETE', cmPath('wrong-kind'), { kind: 'ConfigMap', apiVersion: 'v1' });
    assertStatus(r, 400, 'BadRequest');
  });

  it('deletecollection deletes what the label selector picks and returns the list', async () => {
    const target = await createNamespace(ts, 'collection');
    for (const [name, labels] of [['a', { del: 'yes' }], ['b', { del: 'yes' }], ['c', { del: 'no' }], ['d', {}]] as const) {
      await createConfigMap(ts, target, name, {}, labels);
    }
    const base = `/api/v1/namespaces/${target}/configmaps`;
    const dry = await ts.request('DELETE', `${base}?labelSelector=del%3Dyes&dryRun=All`);
    assert.equal(dry.status, 200, dry.text);
    assert.equal((await ts.request('GET', base)).json.items.length, 4, 'dry run deleted nothing');

    const r = await ts.request('DELETE', `${base}?labelSelector=del%3Dyes`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'ConfigMapList');
    assert.deepEqual(r.json.items.map((i: any) => i.metadata.name).sort(), ['a', 'b']);
    const left = await ts.request('GET', base);
    assert.deepEqual(left.json.items.map((i: any) => i.metadata.name), ['c', 'd']);

    const fs = await ts.request('DELETE', `${base}?fieldSelector=metadata.name%3Dc`);
    assert.equal(fs.status, 200);
    assert.deepEqual((await ts.request('GET', base)).json.items.map((i: any) => i.metadata.name), ['d']);
  });

  it('deleting a namespace with content: content creation refused, namespace reported Terminating', async () => {
    const target = await createNamespace(ts, 'ns-content');
    await createConfigMap(ts, target, 'inside');
    const d = await ts.request('DELETE', `/api/v1/namespaces/${target}`);
    assert.equal(d.status, 200);
    assert.equal(d.json.status.phase, 'Terminating');
    assert.deepEqual(d.json.spec.finalizers, ['kubernetes']);
    const create = await ts.request('POST', `/api/v1/namespaces/${target}/configmaps`, { metadata: { name: 'late' } });
    assert.equal(create.status, 403);
  });
});
