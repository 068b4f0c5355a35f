/**
 * An etcd write whose reply is lost after etcd applied it: a TCP proxy between the store and a real etcd
 * forwards the request, then resets the client connection instead of forwarding etcd's answer. The write
 * must not be retried blindly (a retry reports NotFound for a delete it made itself, or Conflict for an
 * update it made itself) and must surface as Unavailable, since its outcome is unknown to the store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { isStorageError } from '../../../src/storage/errors.js';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { startEtcd, type EtcdCluster } from '../../helpers/etcd.js';

let etcd: EtcdCluster;
let proxy: Server;
let proxied: EtcdStore;
let direct: EtcdStore;
/** When set, the next reply etcd sends on any proxied connection is dropped and that client connection reset. */
let dropNextReply: (() => void) | undefined;
/** Whether dropNextReply takes any next frame from etcd (a fresh connection's SETTINGS), not only a reply. */
let dropAnyFrame = false;
const clients = new Set<Socket>();

before(async () => {
  etcd = await startEtcd();
  const target = new URL(etcd.endpoints[0]!);
  proxy = createServer((client: Socket) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    const upstream = connect(Number(target.port), target.hostname);
    client.on('data', (d) => upstream.write(d));
    // etcd's side is a sequence of HTTP/2 frames; only a reply (HEADERS or DATA on a stream) is dropped, as
    // SETTINGS, PING and WINDOW_UPDATE frames may come before the reply.
    let pending = Buffer.alloc(0);
    upstream.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 9) {
        const size = 9 + pending.readUIntBE(0, 3);
        if (pending.length < size) return;
        const frame = pending.subarray(0, size);
        pending = pending.subarray(size);
        const type = frame[3]!;
        const stream = frame.readUInt32BE(5) & 0x7fffffff;
        const cut = dropNextReply;
        if (cut && (dropAnyFrame || (stream !== 0 && (type === 0 || type === 1)))) {
          dropNextReply = undefined;
          client.resetAndDestroy();
          upstream.destroy();
          cut();
          return;
        }
        client.write(frame);
      }
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as { port: number }).port;
  proxied = await EtcdStore.connect({ endpoints: [`http://127.0.0.1:${port}`], healthProbeIntervalMs: 0 });
  direct = await EtcdStore.connect({ endpoints: etcd.endpoints, healthProbeIntervalMs: 0 });
});

after(async () => {
  await proxied?.close();
  await direct?.close();
  proxy?.close();
  await etcd?.stop();
});

/** Runs write with etcd's reply dropped; onCut runs the moment the connection is cut. Returns what write threw. */
async function withLostReply(write: () => Promise<unknown>, onCut: () => void = () => undefined): Promise<unknown> {
  // On a fresh connection the first bytes from etcd are its HTTP/2 settings, cut before the request goes out
  // (a write that may be retried); a read first makes the next bytes the write's reply.
  await proxied.currentRevision();
  let cut = false;
  dropNextReply = () => {
    cut = true;
    onCut();
  };
  const outcome = await write().then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );
  dropNextReply = undefined;
  assert.ok(cut, 'the proxy cut the connection');
  assert.ok('err' in outcome, `the write reported success: ${JSON.stringify(outcome)}`);
  return outcome.err;
}

describe('etcd write whose reply is lost', () => {
  const prefix = () => `/registry/lostreply/${randomBytes(4).toString('hex')}/`;

  test('a conditional delete is Unavailable, not retried into NotFound', async () => {
    const key = `${prefix()}d`;
    const kv = await proxied.create(key, '{"metadata":{"uid":"u1"}}');
    const err = await withLostReply(() => proxied.delete(key, kv.modRevision));
    assert.ok(isStorageError(err, 'Unavailable'), String(err));
    assert.equal(await direct.get(key), null, 'etcd applied the delete');
  });

  test('an unconditional delete is Unavailable, not retried into NotFound', async () => {
    const key = `${prefix()}d`;
    await proxied.create(key, '{"metadata":{"uid":"u2"}}');
    const err = await withLostReply(() => proxied.delete(key));
    assert.ok(isStorageError(err, 'Unavailable'), String(err));
    assert.equal(await direct.get(key), null, 'etcd applied the delete');
  });

  test('an update overtaken by another writer is Unavailable, not a Conflict with its own write', async () => {
    const key = `${prefix()}u`;
    const kv = await proxied.create(key, '{"v":0}');
    let other: Promise<unknown> = Promise.resolve();
    const err = await withLostReply(
      () => proxied.update(key, '{"v":1}', kv.modRevision),
      () => {
        other = direct.update(key, '{"v":"other writer"}', kv.modRevision + 1);
      },
    );
    await other;
    assert.ok(isStorageError(err, 'Unavailable'), String(err));
    assert.equal((await direct.get(key, kv.modRevision + 1))?.value, '{"v":1}', 'etcd applied the update');
    assert.equal((await direct.get(key))?.value, '{"v":"other writer"}');
  });

  test('a write cut off before it was sent is retried and succeeds', async () => {
    const key = `${prefix()}s`;
    // The next call then opens a fresh connection, whose first bytes from etcd are cut before the request is sent.
    for (const socket of clients) socket.resetAndDestroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    let cut = false;
    dropNextReply = () => void (cut = true);
    dropAnyFrame = true;
    const kv = await proxied.create(key, '{"metadata":{"uid":"u4"}}').finally(() => (dropAnyFrame = false));
    assert.ok(cut, 'the proxy cut the fresh connection');
    assert.equal((await direct.get(key))?.modRevision, kv.modRevision);
  });

  test('a create is Unavailable; the store works again afterwards', async () => {
    const key = `${prefix()}c`;
    const err = await withLostReply(() => proxied.create(key, '{"metadata":{"uid":"u3"}}'));
    assert.ok(isStorageError(err, 'Unavailable'), String(err));
    assert.equal((await direct.get(key))?.value, '{"metadata":{"uid":"u3"}}', 'etcd applied the create');
    // Reads through the same store reconnect.
    assert.equal((await proxied.get(key))?.value, '{"metadata":{"uid":"u3"}}');
  });
});
