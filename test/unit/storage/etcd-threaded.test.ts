/**
 * The etcd backend on a worker thread (ThreadedStorage, what `atrium start --etcd-servers` uses): the same storage
 * conformance suite as the backend on the server's thread, plus what the thread adds — StorageErrors that keep their
 * code and current value across it, health and start-up errors as the backend reports them, compaction rounds run
 * in the worker, and a dead worker failing calls and watches with Unavailable instead of leaving them hanging.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { isStorageError, StorageError } from '../../../src/storage/errors.js';
import type { StorageWatchEvent } from '../../../src/storage/interface.js';
import { ThreadedStorage } from '../../../src/storage/threaded/threaded-storage.js';
import { runStorageConformance } from '../../../src/storage/testing/conformance.js';
import { freePort, startEtcd, type EtcdCluster } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';

let etcd: EtcdCluster;
before(async () => {
  etcd = await startEtcd();
});
after(async () => {
  await etcd?.stop();
});

const open = (extra: { compaction?: { intervalMs?: number } } = {}) => ThreadedStorage.start({ backend: 'etcd', etcd: { endpoints: etcd.endpoints }, ...extra });
const prefix = () => `/registry/threadtest/${randomBytes(4).toString('hex')}/`;

runStorageConformance('etcd on a worker thread', () => open());

describe('etcd on a worker thread', () => {
  test('a Conflict crosses the thread with its code, key and current value', async () => {
    const store = await open();
    try {
      const key = `${prefix()}a`;
      const v1 = await store.create(key, 'one');
      const v2 = await store.update(key, 'two', v1.modRevision);
      const err = await store.update(key, 'three', v1.modRevision).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof StorageError && err.code === 'Conflict', String(err));
      assert.equal(err.key, key);
      assert.deepEqual(err.current, v2);
      await assert.rejects(store.create(key, 'again'), (e: unknown) => isStorageError(e, 'KeyExists'));
      await assert.rejects(store.create(`${prefix()}big`, 'x'.repeat(2 * 1024 * 1024)), /request is too large/);
      assert.ok(store.isHealthy());
    } finally {
      await store.close();
    }
  });

  test('start-up fails with the backend\'s own message', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    await assert.rejects(ThreadedStorage.start({ backend: 'etcd', etcd: { endpoints: [endpoint], requestTimeoutMs: 2000 } }), (err: Error) => {
      assert.match(err.message, new RegExp(`cannot reach etcd at ${endpoint.replace(/[.]/g, '\\.')}: `));
      return true;
    });
    await assert.rejects(ThreadedStorage.start({ backend: 'etcd', etcd: { endpoints: ['127.0.0.1:2379'] } }), /invalid etcd endpoint "127\.0\.0\.1:2379"/);
  });

  test('compaction rounds run in the worker', async () => {
    const store = await open({ compaction: { intervalMs: 300 } });
    try {
      const key = `${prefix()}a`;
      let kv = await store.create(key, '0');
      const first = kv.modRevision;
      // The first round only records a revision; a later one compacts at it.
      await eventually(
        'a compaction past the first write',
        async () => {
          kv = await store.update(key, String(Number(kv.value) + 1), kv.modRevision);
          return (await store.compactedRevision()) >= first;
        },
        10_000,
        200,
      );
      await assert.rejects(store.get(key, first - 1), (e: unknown) => isStorageError(e, 'Compacted'));
    } finally {
      await store.close();
    }
  });

  test('health follows etcd, and a watch resumes across an etcd restart', async () => {
    const own = await startEtcd();
    const store = await ThreadedStorage.start({ backend: 'etcd', etcd: { endpoints: own.endpoints, requestTimeoutMs: 1000, healthProbeIntervalMs: 100 } });
    try {
      const p = prefix();
      const events: StorageWatchEvent[] = [];
      const errors: Error[] = [];
      store.watch(p, await store.currentRevision(), { onEvent: (e) => void events.push(e), onError: (e) => void errors.push(e) });
      const a = await store.create(`${p}a`, '1');
      await eventually('the first event', () => events.length === 1, 5000, 10);
      await own.members[0]!.kill();
      await eventually('the store unhealthy', () => !store.isHealthy(), 5000, 10);
      assert.notEqual(store.healthMessage(), '');
      await own.members[0]!.restart();
      await eventually('the store healthy again', () => store.isHealthy(), 10_000, 10);
      const b = await store.update(`${p}a`, '2', a.modRevision);
      await eventually('the second event', () => events.length === 2, 10_000, 10);
      assert.deepEqual(events.map((e) => [e.type, e.revision]), [['create', a.modRevision], ['update', b.modRevision]]);
      assert.equal(errors.length, 0);
    } finally {
      await store.close();
      await own.stop();
    }
  });

  test('a worker that dies fails pending calls, open watches and later calls with Unavailable', async () => {
    const store = await open();
    const p = prefix();
    const errors: Error[] = [];
    store.watch(p, await store.currentRevision(), { onEvent: () => undefined, onError: (e) => void errors.push(e) });
    const pending = store.list(p);
    // The worker is killed as a crash would end it (the only way to reach it from outside is its private field).
    await (store as unknown as { worker: Worker }).worker.terminate();
    await assert.rejects(pending, (e: unknown) => isStorageError(e, 'Unavailable'));
    await eventually('the watch ended', () => errors.length === 1, 2000, 10);
    assert.ok(isStorageError(errors[0], 'Unavailable'));
    await assert.rejects(store.get(`${p}a`), (e: unknown) => isStorageError(e, 'Unavailable'));
    assert.equal(store.isHealthy(), false);
    await store.close();
  });
});
