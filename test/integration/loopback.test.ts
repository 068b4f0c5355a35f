/**
 * The loopback (src/apiserver/http/loopback.ts): in-process connections to a server's own handlers, which its
 * controllers use instead of TLS. The same API answers over it — authentication, errors, writes, watches — and the
 * controllers of a server really do use it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Duplex } from 'node:stream';
import { StatusError } from '../../src/apimachinery/status.js';
import { RestClient } from '../../src/client/rest-client.js';
import { runControllers } from '../../src/controllers/manager.js';
import { namespaceControllerInstaller } from '../../src/controllers/namespace/controller.js';
import { LoopbackSocket } from '../../src/apiserver/http/loopback.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

let ts: TestServer;
before(async () => {
  ts = await startTestServer({ server: { builtinControllers: false } });
});
after(async () => {
  await ts?.stop();
});

function loopbackClient(token: string | undefined, connects: { count: number }): RestClient {
  return new RestClient({
    url: ts.url,
    ca: ts.server.caPem,
    ...(token ? { token } : {}),
    connect: () => {
      connects.count++;
      return ts.server.connectLoopback!();
    },
  });
}

test('requests, errors and watches go over the loopback, authenticated by the token', async () => {
  const connects = { count: 0 };
  const client = loopbackClient(ts.server.adminToken, connects);
  try {
    const created = await client.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-loopback', namespace: 'default' }, data: { a: '1' } });
    const watch = await client.watch(CONFIGMAPS, { namespace: 'default' }, { resourceVersion: (created.metadata as { resourceVersion?: string }).resourceVersion });
    const seen: string[] = [];
    const done = (async () => {
      for await (const event of watch) {
        seen.push(`${event.type} ${(event.object as any).data?.a}`);
        if (seen.length === 2) break;
      }
    })();
    await client.update(CONFIGMAPS, { ...created, data: { a: '2' } }, { namespace: 'default' });
    await client.delete(CONFIGMAPS, 'over-loopback', { namespace: 'default' });
    await done;
    watch.stop();
    assert.deepEqual(seen, ['MODIFIED 2', 'DELETED 2']);
    const missing = await client.get(CONFIGMAPS, 'over-loopback', { namespace: 'default' }).catch((err: unknown) => err);
    assert.ok(missing instanceof StatusError);
    assert.equal(missing.code, 404);
    assert.equal(missing.status.message, 'configmaps "over-loopback" not found');
    assert.ok(connects.count >= 2, `the client used the loopback (${connects.count} connections)`);
  } finally {
    client.close();
  }
});

test('without a credential the loopback answers as the TLS listener does', async () => {
  const client = loopbackClient(undefined, { count: 0 });
  try {
    const overTls = await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { anonymous: true });
    assert.ok(overTls.status >= 400);
    const err = await client.list(CONFIGMAPS, { namespace: 'default' }).catch((e: unknown) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, overTls.status);
    assert.equal(err.status.message, overTls.json.message);
  } finally {
    client.close();
  }
});

test('a server’s controllers run over its loopback', async () => {
  let connects = 0;
  const running = await runControllers({
    server: {
      url: ts.url,
      caPem: ts.server.caPem,
      adminToken: ts.server.adminToken,
      connectLoopback: (): Duplex => {
        connects++;
        return ts.server.connectLoopback!();
      },
    },
    userAgent: 'loopback-test',
    installers: [namespaceControllerInstaller],
  });
  try {
    const admin = new RestClient({ url: ts.url, ca: ts.server.caPem, token: ts.server.adminToken });
    await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'loopback-ns' } });
    await admin.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'loopback-ns' } });
    await admin.delete(NAMESPACES, 'loopback-ns');
    // The namespace controller empties and finalizes it: only its requests, over the loopback, can do that.
    await eventually('the namespace gone', async () => (await admin.get(NAMESPACES, 'loopback-ns').catch(() => undefined)) === undefined, 20_000);
    admin.close();
    assert.ok(connects > 0, 'the controllers connected over the loopback');
  } finally {
    await running.stop();
  }
});

test('a loopback socket: writes reach the peer in order with backpressure; ending and destroying reach it', async () => {
  const [a, b] = LoopbackSocket.pair();
  const chunks: string[] = [];
  b.on('data', (d: Buffer) => chunks.push(d.toString()));
  const big = Buffer.alloc(1 << 20, 'x');
  let accepted = 0;
  for (let i = 0; i < 8; i++) if (a.write(big)) accepted++;
  assert.ok(accepted < 8, 'a writer ahead of its reader is told to wait');
  a.end('tail');
  await new Promise((resolve) => b.once('end', resolve));
  const all = chunks.join('');
  assert.equal(all.length, 8 * (1 << 20) + 4);
  assert.ok(all.endsWith('tail'));
  const [c, d] = LoopbackSocket.pair();
  const closed = new Promise((resolve) => d.once('close', resolve));
  c.destroy();
  await closed;
  assert.equal(d.destroyed, true);
});

test('a stopped server refuses loopback connections, as its listener refuses dials', async () => {
  const other = await startTestServer({ server: { builtinControllers: false } });
  const client = new RestClient({ url: other.url, ca: other.server.caPem, token: other.server.adminToken, connect: () => other.server.connectLoopback!() });
  try {
    await client.list(CONFIGMAPS, { namespace: 'default' });
    await other.stop();
    const err = await client.list(CONFIGMAPS, { namespace: 'default' }).catch((e: unknown) => e);
    assert.ok(err instanceof Error && !(err instanceof StatusError), `a connection error, not an answer: ${String(err)}`);
  } finally {
    client.close();
  }
});
