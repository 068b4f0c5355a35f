/**
 * atrium on etcd when etcd is missing or goes away: `atrium start` refuses to start with a clear error;
 * while etcd is down requests fail promptly with 503/504 Status and /readyz fails; when etcd returns,
 * service resumes by itself and no acknowledged write is lost.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/harness.js';
import { freePort, startEtcd } from '../helpers/etcd.js';
import { eventually } from '../helpers/eventually.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'atrium-etcd-outage-'));
  dirs.push(d);
  return d;
}

test('atrium start with an unreachable etcd exits 1 naming the endpoints and the cause', async () => {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'atrium'), 'start', '--root-dir', tempDir(), '--secure-port', '0', '--etcd-servers', endpoint], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`error: atrium failed to start: cannot reach etcd at ${endpoint.replace(/\./g, '\\.')}: .*(ECONNREFUSED|UNAVAILABLE)`));
});

test('etcd lost while running: 503/504 Status and failing readyz, then service resumes by itself', async () => {
  const etcd = await startEtcd();
  const rootDir = tempDir();
  const ts = await startTestServer({ rootDir, server: { etcd: { endpoints: etcd.endpoints, requestTimeoutMs: 2000, healthProbeIntervalMs: 200 } } });
  try {
    await ts.request('POST', '/api/v1/namespaces', { metadata: { name: 'outage' } });
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await ts.request('POST', '/api/v1/namespaces/outage/configmaps', { metadata: { name: `before-${i}` } });
      assert.equal(r.status, 201);
      acknowledged.push(`before-${i}`);
    }
    assert.equal((await ts.request('GET', '/readyz')).status, 200);

    await etcd.members[0]!.kill('SIGKILL');
    for (const [method, path, body] of [
      ['GET', '/api/v1/namespaces/outage/configmaps/before-0', undefined],
      ['GET', '/api/v1/namespaces/outage/configmaps', undefined],
      ['POST', '/api/v1/namespaces/outage/configmaps', { metadata: { name: 'during' } }],
    ] as const) {
      const started = Date.now();
      const r = await ts.request(method, path, body);
      assert.ok(Date.now() - started < 8000, `${method} ${path} answered within the deadline`);
      assert.ok([503, 504].includes(r.status), `${method} ${path}: ${r.status} ${r.text}`);
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.reason, r.status === 503 ? 'ServiceUnavailable' : 'Timeout');
    }
    await eventually('/readyz failing', async () => (await ts.request('GET', '/readyz')).status === 500, 10_000);
    // kube-apiserver's etcd check sits in healthz, livez and readyz; a failing root check is always verbose.
    const readyz = await ts.request('GET', '/readyz');
    assert.match(readyz.text, /^\[\+\]ping ok\n\[\+\]log ok\n\[-\]etcd failed: reason withheld\n\[-\]etcd-readiness failed: reason withheld\n[\s\S]*readyz check failed\n$/);
    for (const root of ['/livez', '/healthz']) {
      const r = await ts.request('GET', root);
      assert.equal(r.status, 500, `${root} fails while etcd is down`);
      assert.match(r.text, /\[-\]etcd failed: reason withheld\n/);
    }
    const single = await ts.request('GET', '/livez/etcd');
    assert.equal(single.status, 500);
    assert.match(single.text, /^internal server error: .+\n$/);
    const excluded = await ts.request('GET', '/livez?exclude=etcd');
    assert.equal(excluded.status, 200, excluded.text);

    await etcd.members[0]!.restart();
    await eventually('/readyz ok again', async () => (await ts.request('GET', '/readyz')).status === 200, 15_000);
    const created = await ts.request('POST', '/api/v1/namespaces/outage/configmaps', { metadata: { name: 'after' } });
    assert.equal(created.status, 201);
    acknowledged.push('after');
    const listed = await ts.request('GET', '/api/v1/namespaces/outage/configmaps');
    const names = listed.json.items.map((i: any) => i.metadata.name);
    for (const name of acknowledged) assert.ok(names.includes(name), `${name} survived`);
  } finally {
    await ts.stop();
    await etcd.stop();
  }
});
