/**
 * The etcd backend on a 3-member cluster: the conformance suite, and killing the leader while writes
 * are in flight. Every acknowledged write must still be there afterwards, writes must resume on the new
 * leader, and a watch opened before the kill must deliver every acknowledged write exactly once, in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KeyValue, StorageWatchEvent } from '../../../src/storage/interface.js';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { runStorageConformance } from '../../../src/storage/testing/conformance.js';
import { startEtcd, type EtcdCluster } from '../../helpers/etcd.js';

let cluster: EtcdCluster;
before(async () => {
  cluster = await startEtcd({ members: 3 });
});
after(async () => {
  await cluster?.stop();
});

runStorageConformance('etcd (3 members)', () => EtcdStore.connect({ endpoints: cluster.endpoints }), { skipCompaction: true });

describe('etcd leader loss', () => {
  test('killing the leader during writes loses no acknowledged write; writes and the watch continue', async () => {
    const store = await EtcdStore.connect({ endpoints: cluster.endpoints, requestTimeoutMs: 3000 });
    try {
      const prefix = '/registry/leaderloss/';
      const start = await store.currentRevision();
      const watched: StorageWatchEvent[] = [];
      const watchErrors: Error[] = [];
      const handle = store.watch(prefix, start, { onEvent: (e) => void watched.push(e), onError: (e) => void watchErrors.push(e) });

      const acknowledged: KeyValue[] = [];
      const failures: string[] = [];
      let killedAt = 0;
      let stop = false;
      const writer = async (id: number) => {
        for (let i = 0; !stop; i++) {
          try {
            acknowledged.push(await store.create(`${prefix}w${id}-${String(i).padStart(5, '0')}`, `value-${id}-${i}`));
          } catch (err) {
            failures.push(String(err));
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await new Promise((r) => setTimeout(r, 800));
      const leader = await cluster.leader();
      const beforeKill = acknowledged.length;
      await leader.kill('SIGKILL');
      killedAt = acknowledged.length;
      // Keep writing until the survivors have acknowledged a good number of writes (an election on a busy
      // machine can take seconds; requests in flight meanwhile time out unacknowledged, which is allowed).
      const writeDeadline = Date.now() + 20_000;
      while (acknowledged.length < killedAt + 40 && Date.now() < writeDeadline) await new Promise((r) => setTimeout(r, 50));
      stop = true;
      await Promise.all(writers);

      assert.ok(beforeKill > 10, `writes before the kill: ${beforeKill}`);
      assert.ok(acknowledged.length > killedAt + 10, `writes resumed after the kill (${acknowledged.length - killedAt} more; failures: ${failures.slice(0, 3).join(' | ')})`);

      // A fresh client on the survivors reads every acknowledged write back, unchanged.
      const survivors = cluster.members.filter((m) => m.running()).map((m) => m.clientUrl);
      const reader = await EtcdStore.connect({ endpoints: survivors });
      try {
        const listed = new Map((await reader.list(prefix)).items.map((kv) => [kv.key, kv]));
        for (const kv of acknowledged) assert.deepEqual(listed.get(kv.key), kv, `acknowledged write ${kv.key} is present`);
      } finally {
        await reader.close();
      }

      // The watch (whatever member it was on) delivered every acknowledged write once, in revision order.
      const deadline = Date.now() + 10_000;
      const wanted = new Set(acknowledged.map((kv) => kv.modRevision));
      while (Date.now() < deadline && watched.filter((e) => wanted.has(e.revision)).length < wanted.size) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(watchErrors, []);
      const revisions = watched.map((e) => e.revision);
      assert.deepEqual(revisions, [...revisions].sort((a, b) => a - b), 'in order');
      assert.equal(new Set(revisions).size, revisions.length, 'no duplicates');
      for (const rev of wanted) assert.ok(revisions.includes(rev), `watch delivered revision ${rev}`);
      handle.stop();
    } finally {
      await store.close();
    }
  });
});
