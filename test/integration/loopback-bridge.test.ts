/**
 * The loopback carried across threads (src/apiserver/http/loopback-bridge.ts) and the multi-cluster controllers on a
 * thread of their own (src/multicluster/thread/): the same API answers through the bridge — writes, errors, large
 * bodies, watches, a stopped server — and controllers on their thread do their work through it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { StatusError } from '../../src/apimachinery/status.js';
import { RestClient } from '../../src/client/rest-client.js';
import { loopbackBridgeClient, serveLoopbackBridge } from '../../src/apiserver/http/loopback-bridge.js';
import { LoopbackSocket } from '../../src/apiserver/http/loopback.js';
import { multiclusterServerOptions } from '../../src/multicluster/server-options.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const SYNC_TARGETS = { group: 'workload.kcp.io', version: 'v1alpha1', resource: 'synctargets' };

let ts: TestServer;
before(async () => {
  ts = await startTestServer({ server: { builtinControllers: false } });
});
after(async () => {
  await ts?.stop();
});

/** A client whose connections cross a MessagePort to the server's loopback (both ends on this thread: same code). */
function bridged(server: TestServer): { client: RestClient; close(): void; connects: () => number } {
  const channel = new MessageChannel();
  const serving = serveLoopbackBridge(channel.port1, () => server.server.connectLoopback!());
  const bridge = loopbackBridgeClient(channel.port2);
  let connects = 0;
  const client = new RestClient({
    url: server.url,
    ca: server.server.caPem,
    token: server.server.adminToken,
    connect: () => {
      connects++;
      return bridge.connect();
    },
  });
  return {
    client,
    connects: () => connects,
    close() {
      client.close();
      bridge.close();
      serving.close();
    },
  };
}

test('requests, errors, large bodies and watches go through the bridge', async () => {
  const b = bridged(ts);
  try {
    const big = 'x'.repeat(600_000);
    const created = await b.client.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bridged', namespace: 'default' }, data: { big } });
    assert.equal((created.data as { big: string }).big, big, 'a body of several frames arrives whole');
    const watch = await b.client.watch(CONFIGMAPS, { namespace: 'default' }, { resourceVersion: (created.metadata as { resourceVersion?: string }).resourceVersion });
    const seen: string[] = [];
    const done = (async () => {
      for await (const event of watch) {
        seen.push(`${event.type} ${(event.object.data as { a?: string } | undefined)?.a}`);
        if (seen.length === 2) break;
      }
    })();
    await b.client.update(CONFIGMAPS, { ...created, data: { a: '2' } }, { namespace: 'default' });
    await b.client.delete(CONFIGMAPS, 'bridged', { namespace: 'default' });
    await done;
    watch.stop();
    assert.deepEqual(seen, ['MODIFIED 2', 'DELETED 2']);
    const missing = await b.client.get(CONFIGMAPS, 'bridged', { namespace: 'default' }).catch((err: unknown) => err);
    assert.ok(missing instanceof StatusError);
    assert.equal(missing.code, 404);
    assert.equal(missing.status.message, 'configmaps "bridged" not found');
    // Many requests at once share the client's kept-alive connections.
    await Promise.all(Array.from({ length: 50 }, (_, i) => b.client.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `many-${i}`, namespace: 'default' } })));
    const list = await b.client.list(CONFIGMAPS, { namespace: 'default' });
    assert.equal(list.items.filter((c) => c.metadata?.name?.startsWith('many-')).length, 50);
    assert.ok(b.connects() >= 2 && b.connects() < 60, `connections were made and reused (${b.connects()})`);
  } finally {
    b.close();
  }
});

test('a connection the server side ends and closes still delivers everything it sent to a slow reader', async () => {
  const channel = new MessageChannel();
  const chunk = Buffer.alloc(4096, 'y');
  const serving = serveLoopbackBridge(channel.port1, () => {
    const [client, server] = LoopbackSocket.pair();
    // As a response followed by `Connection: close`: everything written, ended, then the connection closed.
    setImmediate(() => {
      for (let i = 0; i < 1000; i++) server.write(chunk);
      server.end(() => server.destroy());
    });
    return client;
  });
  const bridge = loopbackBridgeClient(channel.port2);
  try {
    const socket = bridge.connect();
    let received = 0;
    socket.on('data', (d: Buffer) => {
      received += d.length;
      // A reader that falls behind: paused for a while after the first 16 KiB.
      if (received === 16_384) {
        socket.pause();
        setTimeout(() => socket.resume(), 200);
      }
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('end', resolve);
      socket.once('close', () => reject(new Error(`closed before its end after ${received} bytes`)));
    });
    assert.equal(received, 1000 * 4096);
  } finally {
    bridge.close();
    serving.close();
  }
});

test('a stopped server ends the bridged connections: the next request fails as a lost connection', async () => {
  const other = await startTestServer({ server: { builtinControllers: false } });
  const b = bridged(other);
  try {
    await b.client.list(CONFIGMAPS, { namespace: 'default' });
    await other.stop();
    const err = await b.client.list(CONFIGMAPS, { namespace: 'default' }).catch((e: unknown) => e);
    assert.ok(err instanceof Error && !(err instanceof StatusError), `a connection error, not an answer: ${String(err)}`);
  } finally {
    b.close();
  }
});

test('the multi-cluster controllers on their own thread reconcile through the bridge, and stop with the server', async () => {
  const mc = await startTestServer({ server: { builtinControllers: false, ...multiclusterServerOptions({ controllersThread: true }) } });
  let stopped = false;
  try {
    const admin = new RestClient({ url: mc.url, ca: mc.server.caPem, token: mc.server.adminToken });
    await admin.create(SYNC_TARGETS, { apiVersion: 'workload.kcp.io/v1alpha1', kind: 'SyncTarget', metadata: { name: 'nowhere' }, spec: {} });
    // Only the SyncTarget controller writes this condition: it ran, on its thread, as an API client.
    const st = await eventually('the SyncTarget reconciled', async () => {
      const got = await admin.get(SYNC_TARGETS, 'nowhere');
      const cond = ((got.status as { conditions?: { type: string; reason?: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === 'SyncerReady');
      return cond?.reason === 'SyncerNotConnected' ? got : undefined;
    }, 20_000);
    assert.ok(st.metadata?.finalizers?.includes('workload.kcp.io/synctarget'));
    admin.close();
    await mc.stop();
    stopped = true;
  } finally {
    if (!stopped) await mc.stop();
  }
});
