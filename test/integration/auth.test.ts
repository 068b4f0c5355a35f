/** Authentication over real HTTPS: client certificates, bearer tokens, anonymous requests. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';

const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

describe('authentication', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  for (const path of ['/api/v1/namespaces', '/api', '/version', '/healthz', '/api/v1/namespaces/default/configmaps/x']) {
    it(`no credentials on ${path} → 401 Unauthorized Status`, async () => {
      const r = await ts.request('GET', path, undefined, { anonymous: true });
      assert.equal(r.status, 401);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(r.json, unauthorized);
    });
  }

  it('a bad bearer token → 401, even on a write', async () => {
    const r = await ts.request('GET', '/api/v1/namespaces', undefined, { token: 'not-a-real-token' });
    assert.equal(r.status, 401);
    assert.deepEqual(r.json, unauthorized);
    const w = await ts.request('POST', '/api/v1/namespaces', { metadata: { name: 'sneaky' } }, { token: 'not-a-real-token' });
    assert.equal(w.status, 401);
    const check = await ts.request('GET', '/api/v1/namespaces/sneaky');
    assert.equal(check.status, 404);
  });

  it('a malformed Authorization header → 401', async () => {
    const r = await ts.request('GET', '/api/v1/namespaces', undefined, { anonymous: true, headers: { Authorization: 'Basic YWRtaW46YWRtaW4=' } });
    assert.equal(r.status, 401);
  });

  it('the admin token from <rootDir>/admin.token works', async () => {
    const token = readFileSync(join(ts.rootDir, 'admin.token'), 'utf8').trim();
    assert.ok(token.length >= 16);
    assert.equal(token, ts.server.adminToken);
    const r = await ts.request('GET', '/api/v1/namespaces/default', undefined, { token });
    assert.equal(r.status, 200, r.text);
    const w = await ts.request('POST', '/api/v1/namespaces', { metadata: { name: 'via-token' } }, { token });
    assert.equal(w.status, 201, w.text);
  });

  it('the admin client certificate works', async () => {
    const r = await ts.request('GET', '/api/v1/namespaces/kube-system');
    assert.equal(r.status, 200);
  });

  it('kubectl with the generated admin kubeconfig reaches the server', async () => {
    const r = await ts.kubectl(['get', 'namespace', 'default', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'namespace/default');
  });
});
