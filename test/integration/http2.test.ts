/**
 * HTTP/2 on the API server (ALPN h2, as kube-apiserver with Go's http2.ConfigureServer) next to HTTP/1.1: node's
 * http2 client gets h2 with kube-apiserver's settings, client certificates and bearer tokens authenticate on it,
 * watches stream event by event on a stream of a shared connection, the request deadline and the rate limit apply per
 * stream, and HTTP/1.1 clients (and their upgrades) still work on the same port.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { request as httpsRequest } from 'node:https';
import { startTestServer, type TestServer } from '../helpers/harness.js';

interface H2Response {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function pki(ts: TestServer, withCert: boolean) {
  const dir = join(ts.rootDir, 'pki');
  return {
    ca: readFileSync(join(dir, 'ca.crt')),
    ...(withCert ? { cert: readFileSync(join(dir, 'admin.crt')), key: readFileSync(join(dir, 'admin.key')) } : {}),
  };
}

function h2Session(ts: TestServer, withCert = true): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = connect(ts.url, pki(ts, withCert));
    s.once('remoteSettings', () => resolve(s));
    s.once('error', reject);
  });
}

function h2Request(s: ClientHttp2Session, method: string, path: string, body?: unknown, headers: Record<string, string | string[]> = {}): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':method': method, ':path': path, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers });
    let status = 0;
    let hdrs: IncomingHttpHeaders = {};
    req.on('response', (h) => {
      status = Number(h[':status']);
      hdrs = h;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status, headers: hdrs, text: Buffer.concat(chunks).toString() }));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('HTTP/2', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer({ tokens: ['bob-token,bob,bob-uid,"devs"'] });
  });
  after(async () => {
    await ts?.stop();
  });

  it('ALPN offers h2 first and http/1.1 as the fallback; a client without ALPN gets HTTP/1.1', async () => {
    const alpn = (protocols: string[] | undefined) =>
      new Promise<string | false>((resolve, reject) => {
        const s = tlsConnect({ host: '127.0.0.1', port: ts.server.port, ...pki(ts, false), servername: 'localhost', ...(protocols ? { ALPNProtocols: protocols } : {}) }, () => {
          resolve(s.alpnProtocol ?? false);
          s.destroy();
        });
        s.on('error', reject);
      });
    assert.equal(await alpn(['h2', 'http/1.1']), 'h2');
    assert.equal(await alpn(['http/1.1']), 'http/1.1');
    assert.equal(await alpn(undefined), false);
    const r = await ts.request('GET', '/api/v1/namespaces/default');
    assert.equal(r.status, 200);
    assert.equal(r.json.metadata.name, 'default');
  });

  it('serves requests over h2 with kube-apiserver\'s settings (100 streams, 256 KiB frames and stream window)', async () => {
    const s = await h2Session(ts);
    try {
      assert.equal(s.alpnProtocol, 'h2');
      assert.equal(s.remoteSettings.maxConcurrentStreams, 100);
      assert.equal(s.remoteSettings.maxFrameSize, 256 * 1024);
      assert.equal(s.remoteSettings.initialWindowSize, 256 * 1024);
      const r = await h2Request(s, 'GET', '/api/v1/namespaces/default');
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.text).metadata.name, 'default');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(String(r.headers['audit-id']), /^[0-9a-f-]{36}$/);
      assert.equal(r.headers.connection, undefined);
      // A create with a body, a 404 Status, and Go's plain 404 for an unknown path.
      const c = await h2Request(s, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h2-cm' }, data: { a: 'b' } });
      assert.equal(c.status, 201, c.text);
      const missing = await h2Request(s, 'GET', '/api/v1/namespaces/default/configmaps/nope');
      assert.equal(missing.status, 404);
      assert.equal(JSON.parse(missing.text).reason, 'NotFound');
      const plain = await h2Request(s, 'GET', '/foo');
      assert.equal(plain.status, 404);
      assert.equal(plain.text, '404 page not found\n');
    } finally {
      s.close();
    }
  });

  it('multiplexes 300 concurrent requests on one connection', async () => {
    const s = await h2Session(ts);
    try {
      const results = await Promise.all(Array.from({ length: 300 }, (_, i) => h2Request(s, 'GET', i % 2 ? '/api/v1/namespaces/default' : '/version')));
      assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    } finally {
      s.close();
    }
  });

  it('authenticates client certificates and bearer tokens on h2', async () => {
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    const withCert = await h2Session(ts);
    const withToken = await h2Session(ts, false);
    try {
      const admin = await h2Request(withCert, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review);
      assert.equal(admin.status, 201, admin.text);
      assert.equal(JSON.parse(admin.text).status.userInfo.username, 'admin');
      const bob = await h2Request(withToken, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review, { authorization: 'Bearer bob-token' });
      assert.equal(bob.status, 201, bob.text);
      assert.equal(JSON.parse(bob.text).status.userInfo.username, 'bob');
      const bad = await h2Request(withToken, 'GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer wrong' });
      assert.equal(bad.status, 401);
    } finally {
      withCert.close();
      withToken.close();
    }
  });

  it('impersonates on h2 as on HTTP/1.1: Impersonate-User, every Impersonate-Group value, Impersonate-Extra-*', async () => {
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    const s = await h2Session(ts);
    try {
      const r = await h2Request(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review, {
        'impersonate-user': 'alice',
        'impersonate-group': ['devs', 'qa'],
        'impersonate-extra-team': 'blue',
      });
      assert.equal(r.status, 201, r.text);
      const user = JSON.parse(r.text).status.userInfo;
      assert.equal(user.username, 'alice');
      assert.deepEqual(user.groups, ['devs', 'qa', 'system:authenticated']);
      assert.deepEqual(user.extra, { team: ['blue'] });
    } finally {
      s.close();
    }
  });

  it('streams a watch event by event on one stream while other requests share the connection', async () => {
    const s = await h2Session(ts);
    try {
      const watch = s.request({ ':method': 'GET', ':path': '/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dh2-watched' });
      let buffered = '';
      const events: any[] = [];
      let headers: IncomingHttpHeaders = {};
      watch.on('response', (h) => {
        headers = h;
      });
      watch.setEncoding('utf8');
      watch.on('data', (c: string) => {
        buffered += c;
        let nl;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffered.slice(0, nl)));
          buffered = buffered.slice(nl + 1);
        }
      });
      watch.end();
      await new Promise((r) => setTimeout(r, 200));
      const c = await h2Request(s, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h2-watched' } });
      assert.equal(c.status, 201);
      const deadline = Date.now() + 5000;
      while (!events.some((e) => e.type === 'ADDED') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(headers[':status'], 200);
      assert.equal(headers['transfer-encoding'], undefined);
      assert.equal(events[0]?.type, 'ADDED');
      assert.equal(events[0]?.object.metadata.name, 'h2-watched');
      watch.close();
    } finally {
      s.close();
    }
  });

  it('a request whose body never completes gets 504 at its ?timeout= deadline, and the connection lives on', { timeout: 8000 }, async () => {
    const s = await h2Session(ts);
    try {
      const req = s.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps?timeout=1s', 'content-type': 'application/json' });
      req.write('{"metadata":');
      const status = await new Promise<number>((resolve, reject) => {
        req.on('response', (h) => resolve(Number(h[':status'])));
        req.on('error', reject);
      });
      assert.equal(status, 504);
      req.on('error', () => undefined);
      const after = await h2Request(s, 'GET', '/version');
      assert.equal(after.status, 200);
    } finally {
      s.close();
    }
  });

  it('the per-user rate limit answers 429 per stream', async () => {
    const limited = await startTestServer({ server: { anonymous: true, maxRequestsPerSecondPerUser: 1 } });
    const s = await h2Session(limited, false);
    try {
      const rs = await Promise.all(Array.from({ length: 5 }, () => h2Request(s, 'GET', '/version')));
      const rejected = rs.find((r) => r.status === 429);
      assert.ok(rejected, 'a flood of /version is throttled');
      assert.equal(rejected.text, 'Too many requests, please try again later.\n');
      assert.ok(rs.some((r) => r.status === 200));
    } finally {
      s.close();
      await limited.stop();
    }
  });

  it('HTTP/1.1 keeps working, including upgrade requests, on the same port', async () => {
    const get = await new Promise<{ version: string; status: number }>((resolve, reject) => {
      const req = httpsRequest(new URL('/version', ts.url), { ...pki(ts, true), agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve({ version: res.httpVersion, status: res.statusCode ?? 0 }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual(get, { version: '1.1', status: 200 });
    // An upgrade passes the filter chain on HTTP/1.1: here refused (no pod), answered with a Status, connection closed.
    const text = await new Promise<string>((resolve, reject) => {
      const sock = tlsConnect({ host: '127.0.0.1', port: ts.server.port, ...pki(ts, true), servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
        sock.write('GET /api/v1/namespaces/default/pods/nope/exec?command=ls&stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n');
      });
      let out = '';
      sock.setEncoding('utf8');
      sock.on('data', (c: string) => (out += c));
      sock.on('end', () => resolve(out));
      sock.on('error', reject);
    });
    assert.match(text, /^HTTP\/1\.1 404 /);
  });
});
