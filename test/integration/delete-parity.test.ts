/**
 * DELETE and deletecollection parity with kube-apiserver 1.32 over real HTTPS: which verbs namespaces serve, how a
 * repeated DELETE recomputes the garbage-collection finalizers, the namespace's own delete rules, deletecollection
 * paging and its response, where DeleteOptions come from, and the 202 for orphanDependents=false.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { createConfigMap, createNamespace } from './support.js';

describe('delete parity', () => {
  let ts: TestServer;
  before(async () => {
    // Only the namespace controller: a garbage collector would act on the foregroundDeletion finalizers asserted here.
    ts = await startTestServer({ server: { builtinControllers: ['namespace'] } });
  });
  after(async () => {
    await ts?.stop();
  });

  it('namespaces serve no deletecollection: discovery omits it and DELETE on the collection is go-restful\'s 405', async () => {
    const ns = await createNamespace(ts, 'nodc');
    const disc = await ts.request('GET', '/api/v1');
    assert.equal(disc.status, 200);
    const res = disc.json.resources.find((r: any) => r.name === 'namespaces');
    assert.deepEqual(res.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);

    const r = await ts.request('DELETE', '/api/v1/namespaces');
    assert.equal(r.status, 405, r.text);
    assert.deepEqual(r.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: {},
      code: 405,
    });
    const still = await ts.request('GET', `/api/v1/namespaces/${ns}`);
    assert.equal(still.status, 200);
    assert.equal(still.json.metadata.deletionTimestamp, undefined);
    assert.equal(still.json.status.phase, 'Active');
  });

  it('a repeated DELETE recomputes the orphan / foregroundDeletion finalizers of an object already being deleted', async () => {
    const ns = await createNamespace(ts, 'regc');
    const path = (n: string) => `/api/v1/namespaces/${ns}/configmaps/${n}`;
    await createConfigMap(ts, ns, 'p3');
    const fg = await ts.request('DELETE', path('p3'), { propagationPolicy: 'Foreground' });
    assert.equal(fg.status, 200, fg.text);
    assert.deepEqual(fg.json.metadata.finalizers, ['foregroundDeletion']);
    const ts0 = fg.json.metadata.deletionTimestamp;
    const orphan = await ts.request('DELETE', path('p3'), { propagationPolicy: 'Orphan' });
    assert.equal(orphan.status, 200, orphan.text);
    assert.deepEqual(orphan.json.metadata.finalizers, ['orphan'], 'Orphan replaces foregroundDeletion');
    assert.equal(orphan.json.metadata.deletionTimestamp, ts0, 'the first deletionTimestamp stays');
    const none = await ts.request('DELETE', path('p3'));
    assert.equal(none.status, 200);
    assert.deepEqual(none.json.metadata.finalizers, ['orphan'], 'no policy keeps what is there');
    assert.equal(none.json.metadata.resourceVersion, orphan.json.metadata.resourceVersion);
    const bg = await ts.request('DELETE', path('p3'), { propagationPolicy: 'Background' });
    assert.equal(bg.status, 200, bg.text);
    assert.equal(bg.json.kind, 'Status', 'Background removes the last finalizer, so the object goes');
    assert.equal((await ts.request('GET', path('p3'))).status, 404);

    await createConfigMap(ts, ns, 'held', { metadata: { name: 'held', finalizers: ['x.io/f'] } });
    const first = await ts.request('DELETE', path('held'));
    assert.deepEqual(first.json.metadata.finalizers, ['x.io/f']);
    const fg2 = await ts.request('DELETE', `${path('held')}?propagationPolicy=Foreground`);
    assert.equal(fg2.status, 200, fg2.text);
    assert.deepEqual(fg2.json.metadata.finalizers, ['x.io/f', 'foregroundDeletion']);
    assert.equal(fg2.json.metadata.deletionTimestamp, first.json.metadata.deletionTimestamp);
    const od = await ts.request('DELETE', path('held'), { orphanDependents: false });
    assert.deepEqual(od.json.metadata.finalizers, ['x.io/f'], 'orphanDependents=false removes both');

    await createConfigMap(ts, ns, 'fresh', { metadata: { name: 'fresh', finalizers: ['x.io/f', 'foregroundDeletion'] } });
    const bg2 = await ts.request('DELETE', path('fresh'), { propagationPolicy: 'Background' });
    assert.equal(bg2.status, 200, bg2.text);
    assert.deepEqual(bg2.json.metadata.finalizers, ['x.io/f'], 'Background removes foregroundDeletion');
    assert.ok(bg2.json.metadata.deletionTimestamp);
  });

  it('a terminating namespace whose spec.finalizers remain is answered unchanged, whatever the policy', async () => {
    const ns = await createNamespace(ts, 'nsgc');
    const first = await ts.request('DELETE', `/api/v1/namespaces/${ns}`);
    assert.equal(first.status, 200, first.text);
    const again = await ts.request('DELETE', `/api/v1/namespaces/${ns}`, { propagationPolicy: 'Foreground' });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.equal(again.json.metadata.finalizers, undefined);
  });

  it('the first DELETE of a namespace with empty spec.finalizers only marks it; the controller empties and removes it', async () => {
    const ns = await createNamespace(ts, 'fin0');
    await createConfigMap(ts, ns, 'left-behind');
    const get = await ts.request('GET', `/api/v1/namespaces/${ns}`);
    const fin = structuredClone(get.json);
    fin.spec.finalizers = [];
    const put = await ts.request('PUT', `/api/v1/namespaces/${ns}/finalize`, fin);
    assert.equal(put.status, 200, put.text);
    // spec.finalizers is omitempty: the emptied list is not stored (kube-apiserver answers `spec: {}`), and nothing
    // is owned through /finalize.
    assert.deepEqual(put.json.spec, {});
    assert.equal(put.json.metadata.managedFields.some((e: { subresource?: string }) => e.subresource === 'finalize'), false);

    const d = await ts.request('DELETE', `/api/v1/namespaces/${ns}`);
    assert.equal(d.status, 200, d.text);
    assert.equal(d.json.kind, 'Namespace');
    assert.ok(d.json.metadata.deletionTimestamp, d.text);
    assert.equal(d.json.metadata.deletionGracePeriodSeconds, undefined, 'namespace REST.Delete sets no grace period');
    assert.equal(d.json.status.phase, 'Terminating');
    const after = await ts.request('GET', `/api/v1/namespaces/${ns}`);
    assert.equal(after.status, 200, 'the namespace stays after its first DELETE');
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps/left-behind`)).status, 200);

    // The namespace controller (after its grace period) deletes the content, then the namespace.
    await eventually('the namespace removed', async () => (await ts.request('GET', `/api/v1/namespaces/${ns}`)).status === 404, 20_000, 200);
    const again = await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    assert.equal(again.status, 201, again.text);
    const list = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.deepEqual(list.json.items.map((i: any) => i.metadata.name), [], 'a recreated namespace does not show the old content');
  });

  it('deletecollection honours limit and continue and answers the list as listed', async () => {
    const ns = await createNamespace(ts, 'dclimit');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (const n of ['a', 'b', 'c']) await createConfigMap(ts, ns, n, { metadata: { name: n, labels: { grp: 'x' }, finalizers: ['x.io/f'] } });
    await createConfigMap(ts, ns, 'other', {}, { grp: 'y' });
    const r = await ts.request('DELETE', `${base}?labelSelector=grp%3Dx&limit=1`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'ConfigMapList');
    assert.equal(r.json.apiVersion, 'v1');
    assert.match(r.json.metadata.resourceVersion, /^\d+$/);
    assert.equal(typeof r.json.metadata.continue, 'string');
    assert.ok(r.json.metadata.continue.length > 0);
    assert.deepEqual(r.json.items.map((i: any) => i.metadata.name), ['a']);
    assert.equal(r.json.items[0].metadata.deletionTimestamp, undefined, 'items come back as they were listed');
    assert.ok(r.json.items[0].metadata.resourceVersion);
    const live = await ts.request('GET', `${base}?labelSelector=grp%3Dx`);
    assert.deepEqual(
      live.json.items.map((i: any) => [i.metadata.name, !!i.metadata.deletionTimestamp]),
      [['a', true], ['b', false], ['c', false]],
      'only the first page was deleted',
    );
    const next = await ts.request('DELETE', `${base}?labelSelector=grp%3Dx&limit=1&continue=${encodeURIComponent(r.json.metadata.continue)}`);
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(next.json.items.map((i: any) => i.metadata.name), ['b']);

    // Without a limit: every match, list metadata with a resourceVersion, items before deletion.
    const all = await ts.request('DELETE', `${base}?labelSelector=grp%3Dy`);
    assert.equal(all.status, 200, all.text);
    assert.match(all.json.metadata.resourceVersion, /^\d+$/);
    assert.equal(all.json.metadata.continue, undefined);
    assert.deepEqual(all.json.items.map((i: any) => i.metadata.name), ['other']);
  });

  it('deletecollection hands its preconditions to every delete unchanged', async () => {
    const ns = await createNamespace(ts, 'dcpre');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const a = await createConfigMap(ts, ns, 'a', {}, { grp: 'z' });
    await createConfigMap(ts, ns, 'b', {}, { grp: 'z' });
    const r = await ts.request('DELETE', `${base}?labelSelector=grp%3Dz`, { preconditions: { uid: a.metadata.uid } });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.reason, 'Conflict');
    assert.match(r.json.message, /^Operation cannot be fulfilled on ConfigMap "b": the UID in the precondition/);
    assert.equal((await ts.request('GET', `${base}/a`)).status, 404, 'the object the precondition names was deleted');
    assert.equal((await ts.request('GET', `${base}/b`)).status, 200);
  });

  it('namespace DELETE precondition failures are worded as namespace REST.Delete words them', async () => {
    const ns = await createNamespace(ts, 'nspre');
    const cur = await ts.request('GET', `/api/v1/namespaces/${ns}`);
    const uid = cur.json.metadata.uid;
    const badUid = await ts.request('DELETE', `/api/v1/namespaces/${ns}`, { preconditions: { uid: 'abc' } });
    assert.equal(badUid.status, 409, badUid.text);
    assert.deepEqual(badUid.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on namespaces "${ns}": Precondition failed: UID in precondition: abc, UID in object meta: ${uid}`,
      reason: 'Conflict',
      details: { name: ns, kind: 'namespaces' },
      code: 409,
    });
    const badRv = await ts.request('DELETE', `/api/v1/namespaces/${ns}`, { preconditions: { resourceVersion: '1' } });
    assert.equal(badRv.status, 409, badRv.text);
    assert.equal(
      badRv.json.message,
      `Operation cannot be fulfilled on namespaces "${ns}": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${cur.json.metadata.resourceVersion}`,
    );
    assert.equal(badRv.json.details.kind, 'namespaces');
    assert.equal((await ts.request('GET', `/api/v1/namespaces/${ns}`)).json.metadata.deletionTimestamp, undefined);
  });

  it('DeleteOptions come from the body when one is sent, else from the query, never both', async () => {
    const ns = await createNamespace(ts, 'opts');
    const path = (n: string) => `/api/v1/namespaces/${ns}/configmaps/${n}`;
    await createConfigMap(ts, ns, 'q1');
    const notDry = await ts.request('DELETE', `${path('q1')}?dryRun=All`, '{}');
    assert.equal(notDry.status, 200, notDry.text);
    assert.equal(notDry.json.kind, 'Status');
    assert.equal((await ts.request('GET', path('q1'))).status, 404, 'a body was sent, so ?dryRun=All does not apply');

    await createConfigMap(ts, ns, 'q2', { metadata: { name: 'q2', finalizers: ['x.io/f'] } });
    const bodyWins = await ts.request('DELETE', `${path('q2')}?propagationPolicy=Orphan`, '{}');
    assert.equal(bodyWins.status, 200, bodyWins.text);
    assert.deepEqual(bodyWins.json.metadata.finalizers, ['x.io/f']);

    await createConfigMap(ts, ns, 'q3', { metadata: { name: 'q3', finalizers: ['x.io/f'] } });
    const fromQuery = await ts.request('DELETE', `${path('q3')}?propagationPolicy=Orphan`);
    assert.equal(fromQuery.status, 200, fromQuery.text);
    assert.deepEqual(fromQuery.json.metadata.finalizers, ['x.io/f', 'orphan']);

    await createConfigMap(ts, ns, 'q4');
    const dryFromQuery = await ts.request('DELETE', `${path('q4')}?dryRun=All`);
    assert.equal(dryFromQuery.status, 200, dryFromQuery.text);
    assert.equal((await ts.request('GET', path('q4'))).status, 200, 'without a body ?dryRun=All applies');
  });

  it('ValidateDeleteOptions reports every problem in upstream order', async () => {
    const ns = await createNamespace(ts, 'optval');
    await createConfigMap(ts, ns, 'v');
    const path = `/api/v1/namespaces/${ns}/configmaps/v`;
    const both = await ts.request('DELETE', path, { propagationPolicy: 'Bogus', orphanDependents: true });
    assert.equal(both.status, 422, both.text);
    assert.equal(
      both.json.message,
      'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Bogus": orphanDependents and deletionPropagation cannot be both set, ' +
        'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"]',
    );
    assert.deepEqual(both.json.details, {
      group: 'meta.k8s.io',
      kind: 'DeleteOptions',
      causes: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: "Bogus": orphanDependents and deletionPropagation cannot be both set', field: 'propagationPolicy' },
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"', field: 'propagationPolicy' },
      ],
    });
    const withDryRun = await ts.request('DELETE', `${path}?propagationPolicy=Sometimes&dryRun=Bogus`);
    assert.equal(withDryRun.status, 422, withDryRun.text);
    assert.equal(
      withDryRun.json.message,
      'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil", ' +
        'dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"]',
    );
    assert.equal((await ts.request('GET', path)).status, 200);
  });

  it('orphanDependents=false on an object not removed yet answers 202', async () => {
    const ns = await createNamespace(ts, 'accepted');
    const path = (n: string) => `/api/v1/namespaces/${ns}/configmaps/${n}`;
    await createConfigMap(ts, ns, 'held', { metadata: { name: 'held', finalizers: ['x.io/f'] } });
    const body = await ts.request('DELETE', path('held'), { orphanDependents: false });
    assert.equal(body.status, 202, body.text);
    assert.equal(body.json.kind, 'ConfigMap');
    assert.ok(body.json.metadata.deletionTimestamp);
    const query = await ts.request('DELETE', `${path('held')}?orphanDependents=false`);
    assert.equal(query.status, 202, query.text);
    const policy = await ts.request('DELETE', path('held'), { propagationPolicy: 'Background' });
    assert.equal(policy.status, 200, 'only the deprecated field turns the answer into 202');

    await createConfigMap(ts, ns, 'free');
    const gone = await ts.request('DELETE', path('free'), { orphanDependents: false });
    assert.equal(gone.status, 200, gone.text);
    assert.equal(gone.json.kind, 'Status');

    const target = await createNamespace(ts, 'accepted-ns');
    const nsDel = await ts.request('DELETE', `/api/v1/namespaces/${target}`, { orphanDependents: false });
    assert.equal(nsDel.status, 202, nsDel.text);
    assert.equal(nsDel.json.status.phase, 'Terminating');
  });
});
