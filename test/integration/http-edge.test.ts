/** HTTP edge behaviour of kube-apiserver 1.32: health checks, timeouts, header limits, 404/405, rate limiting, Audit-ID. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/harness.js';

/** A raw request with the admin certificate whose body the test writes (or never finishes) itself. */
function rawRequest(ts: TestServer, method: string, path: string, headers: Record<string, string> = {}): { req: ClientRequest; response: Promise<{ res: IncomingMessage; text: string }> } {
  const pki = join(ts.rootDir, 'pki');
  const opts: RequestOptions = {
    method,
    headers,
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
    agent: false,
  };
  let req!: ClientRequest;
  const response = new Promise<{ res: IncomingMessage; text: string }>((resolve, reject) => {
    req = httpsRequest(new URL(path, ts.url), opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ res, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return { req, response };
}

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

  it('an invalid ?timeout= is 400 with the Go duration error', async () => {
    for (const [value, why] of [
      ['abc', 'time: invalid duration "abc"'],
      ['5', 'time: missing unit in duration "5"'],
      ['5x', 'time: unknown unit "x" in duration "5x"'],
    ]) {
      const r = await ts.request('GET', `/api/v1/namespaces?timeout=${value}`);
      assert.equal(r.status, 400, value);
      assert.equal(r.json.reason, 'BadRequest');
      assert.equal(r.json.message, `invalid timeout specified in the request URL - ${why}`);
    }
    assert.equal((await ts.request('GET', '/api/v1/namespaces?timeout=1m30s')).status, 200);
    assert.equal((await ts.request('GET', '/api/v1/namespaces?timeout=-1s')).status, 200);
  });

  it('a request whose body never completes gets 504 at its ?timeout= deadline', { timeout: 8000 }, async () => {
    const started = Date.now();
    const { req, response } = rawRequest(ts, 'POST', '/api/v1/namespaces/default/configmaps?timeout=1s', { 'Content-Type': 'application/json', 'Content-Length': '100' });
    req.write('{"metadata":');
    const { res, text } = await response;
    assert.equal(res.statusCode, 504);
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(JSON.parse(text), {
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    req.destroy();
  });

  it('watches are long-running: ?timeout= does not cut them', async () => {
    const { req, response } = rawRequest(ts, 'GET', '/api/v1/namespaces/default/configmaps?watch=true&timeout=500ms');
    req.end();
    const outcome = await Promise.race([response.then(({ res }) => `ended ${res.statusCode}`), new Promise((r) => setTimeout(() => r('open'), 1500))]);
    req.destroy();
    await response.catch(() => undefined);
    assert.equal(outcome, 'open');
  });

  it('a client that aborts its request body is not logged as an internal error', async () => {
    const captured: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: any, ...rest: any[]) => {
      captured.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      const { req, response } = rawRequest(ts, 'POST', '/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json', 'Content-Length': '100' });
      response.catch(() => undefined);
      req.write('{"metadata":');
      await new Promise((r) => setTimeout(r, 200));
      req.destroy();
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      process.stderr.write = write;
    }
    assert.ok(!captured.some((l) => l.includes('internal error')), captured.join(''));
  });

  it('request headers up to 1 MiB are accepted (MaxHeaderBytes), not 431', async () => {
    const r = await ts.request('GET', '/api/v1/namespaces', undefined, { headers: { 'X-Padding': 'a'.repeat(100 * 1024) } });
    assert.equal(r.status, 200);
  });

  it('the per-user rate limit exempts health probes and rejects with the plain-text APF 429', async () => {
    const limited = await startTestServer({ server: { anonymous: true, maxRequestsPerSecondPerUser: 1 } });
    try {
      for (let i = 0; i < 5; i++) {
        const r = await limited.request('GET', '/readyz', undefined, { anonymous: true });
        assert.equal(r.status, 200, `probe ${i}: ${r.text}`);
      }
      let rejected;
      for (let i = 0; i < 5 && !rejected; i++) {
        const r = await limited.request('GET', '/version', undefined, { anonymous: true });
        if (r.status === 429) rejected = r;
      }
      assert.ok(rejected, 'a flood of /version is throttled');
      assert.equal(rejected.text, 'Too many requests, please try again later.\n');
      assert.equal(rejected.headers['content-type'], 'text/plain; charset=utf-8');
      assert.ok(Number(rejected.headers['retry-after']) >= 1);
    } finally {
      await limited.stop();
    }
  });

  it('paths outside the served group/versions get Go\'s plain 404; those inside keep the Status', async () => {
    for (const p of ['/foo', '/healthz/foo', '/openapi/foo', '/apis/foo', '/apis/foo/v1/bar', '/clusters/root/foo']) {
      const r = await ts.request('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.text, '404 page not found\n', p);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8', p);
    }
    for (const p of ['/api/v1/foos', '/api/v2/configmaps', '/apis/rbac.authorization.k8s.io/v1/foos']) {
      const r = await ts.request('GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.json.message, 'the server could not find the requested resource', p);
    }
  });

  it('non-GET on discovery routes is go-restful\'s generic 405', async () => {
    for (const p of ['/version', '/api', '/apis', '/api/v1', '/apis/rbac.authorization.k8s.io', '/apis/rbac.authorization.k8s.io/v1']) {
      const r = await ts.request('POST', p, {});
      assert.equal(r.status, 405, p);
      assert.deepEqual(r.json, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server does not allow this method on the requested resource',
        reason: 'MethodNotAllowed',
        details: {},
        code: 405,
      }, p);
    }
  });

  it('every response carries Audit-ID: the client\'s own, else a new UUID', async () => {
    for (const p of ['/version', '/api/v1/namespaces/default/configmaps/missing', '/foo']) {
      const r = await ts.request('GET', p);
      assert.match(String(r.headers['audit-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, p);
    }
    const own = await ts.request('GET', '/version', undefined, { headers: { 'Audit-ID': 'my-audit-id' } });
    assert.equal(own.headers['audit-id'], 'my-audit-id');
  });

  it('invalid percent-encoding in the path is a bare 400 Bad Request', async () => {
    const r = await ts.request('GET', '/api/v1/namespaces/%zz/configmaps');
    assert.equal(r.status, 400);
    assert.equal(r.text, '400 Bad Request');
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
  });
});
