/**
 * DELETE and deletecollection parity with kube-apiserver 1.32 over real HTTPS: which verbs namespaces serve, how a
 * repeated DELETE recomputes the garbage-collection finalizers, the namespace's own delete rules, deletecollection
 * paging and its response, where DeleteOptions come from, and the 202 for orphanDependents=false.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
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
});
