/** HTTP edge behaviour of kube-apiserver 1.32: health checks, timeouts, header limits, 404/405, rate limiting, Audit-ID. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';

describe('http edge', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
  });

  it('health roots list their named checks as upstream (ping, log, etcd; readyz adds etcd-readiness, informer-sync, shutdown)', async () => {
    const h = await ts.request('GET', '/healthz?verbose');
    assert.equal(h.status, 200);
    assert.equal(h.text, '[+]ping ok\n[+]log ok\n[+]etcd ok\nhealthz check passed\n');
    const l = await ts.request('GET', '/livez?verbose');
    assert.equal(l.text, '[+]ping ok\n[+]log ok\n[+]etcd ok\nlivez check passed\n');
    const r = await ts.request('GET', '/readyz?verbose');
    assert.equal(r.text, '[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
  });

  it('each check is served on its own; unknown ones are not', async () => {
    for (const p of ['/readyz/ping', '/livez/etcd', '/readyz/etcd', '/healthz/log', '/readyz/shutdown', '/readyz/informer-sync', '/healthz/ping']) {
      const r = await ts.request('GET', p);
      assert.equal(r.status, 200, p);
      assert.equal(r.text, 'ok', p);
    }
    assert.equal((await ts.request('GET', '/healthz/foo')).status, 404);
    assert.equal((await ts.request('GET', '/livez/shutdown')).status, 404);
  });

  it('?exclude= skips a check and warns about names that match none', async () => {
    const r = await ts.request('GET', '/readyz?verbose&exclude=etcd&exclude=foo');
    assert.equal(r.status, 200);
    assert.equal(
      r.text,
      '[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for "foo"\nreadyz check passed\n',
    );
    assert.equal((await ts.request('GET', '/readyz?exclude=etcd')).text, 'ok');
  });

  it('health paths ignore the method (PathRecorderMux)', async () => {
    const r = await ts.request('POST', '/healthz');
    assert.equal(r.status, 200);
    assert.equal(r.text, 'ok');
  });
});
