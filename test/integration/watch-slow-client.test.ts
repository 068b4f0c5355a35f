/**
 * Watch fan-out under a slow consumer: one client that stops reading must not hold up the others; once its unsent
 * backlog passes the limit it is dropped with an in-band 410 Expired, so it re-lists.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, Agent } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { createNamespace, openWatch } from './support.js';

let ts: TestServer;
before(async () => {
  ts = await startTestServer({ server: { watchBufferBytes: 4 * 1024 * 1024 } });
});
after(async () => {
  await ts.stop();
});

/** Opens a watch and immediately stops reading it (the socket's receive window fills, then the server's buffer). */
function openStalledWatch(path: string): Promise<{ res: IncomingMessage; agent: Agent }> {
  const pki = join(ts.rootDir, 'pki');
  const agent = new Agent({ ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) });
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, ts.url), { agent }, (res) => {
      res.pause();
      resolve({ res, agent });
    });
    req.on('error', reject);
    req.end();
  });
}

test('a stalled watcher is dropped with 410 while a reading watcher gets every event', async () => {
  const ns = await createNamespace(ts, 'slow');
  const list = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  const rv = list.json.metadata.resourceVersion;
  const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`;
  const stalled = await openStalledWatch(path);
  const reader = await openWatch(ts, path);

  const big = 'x'.repeat(100 * 1024);
  const count = 300;
  for (let i = 0; i < count; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `cm-${i + j}` }, data: { big } }).then((r) => assert.equal(r.status, 201)),
      ),
    );
  }
  const events = await reader.take(count, 30_000);
  assert.equal(events.length, count);
  assert.ok(events.every((e) => e.type === 'ADDED'));
  reader.close();

  // Drain the stalled watch: it ends, and its last event is an ERROR carrying 410 Expired.
  const text = await new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    stalled.res.on('data', (c: Buffer) => chunks.push(c));
    stalled.res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stalled.res.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stalled.res.resume();
  });
  stalled.agent.destroy();
  const lines = text.split('\n').filter((l) => l.trim());
  const last = JSON.parse(lines[lines.length - 1]!);
  assert.equal(last.type, 'ERROR');
  assert.equal(last.object.code, 410);
  assert.equal(last.object.reason, 'Expired');
  assert.ok(lines.length - 1 < count, `the stalled watcher was cut off early (${lines.length - 1} events)`);

  // The server is healthy afterwards.
  const r = await ts.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
  assert.equal(r.status, 200);
});

test('initial state larger than the limit is all delivered to a client that reads them (no 410)', async () => {
  const ns = await createNamespace(ts, 'big-initial');
  const big = 'x'.repeat(700 * 1024);
  // About 7 MB of state, above this server's 4 MiB limit.
  for (let i = 0; i < 10; i++) {
    const r = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `c${i}` }, data: { v: big } });
    assert.equal(r.status, 201, r.text);
  }
  // Watches that start with the current state (no resourceVersion, or "0"), which a client that re-lists after a 410
  // sends: dropping them for the size of the state itself would loop forever.
  for (const path of [`/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=2`, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=0&timeoutSeconds=2`]) {
    const w = await ts.request('GET', path);
    assert.equal(w.status, 200);
    const types = w.text.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type);
    assert.deepEqual(types.filter((t) => t === 'ERROR'), [], `${path}: no ERROR event`);
    assert.ok(types.filter((t) => t === 'ADDED').length >= 10, `${path}: ${types.join(',')}`);
  }
});
