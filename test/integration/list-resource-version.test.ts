/**
 * List and watch resourceVersion rules that depend on storage history, on both backends (SQLite and etcd):
 * - a list with a limit and resourceVersion=N (no resourceVersionMatch, no continue) reads exactly at N, and
 *   410 "The resourceVersion for the provided list is too old." once N is compacted (kube-apiserver's legacy rule);
 * - a continue token whose revision was compacted answers 410 with the inconsistent-continue message and a token
 *   in ListMeta.continue that carries on from the same key at the latest revision;
 * - a watch from the revision just below the compaction point starts (events from the compaction point on), as
 *   kube-apiserver's etcd watch starts at resourceVersion + 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '../../src/storage/interface.js';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';

const listExpired = 'The resourceVersion for the provided list is too old.';
const inconsistentContinue =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

interface Backend {
  ts: TestServer;
  /** A client of the same storage the server uses, for compacting it. */
  storage: Storage;
  close(): Promise<void>;
}

const backends: Array<[string, () => Promise<Backend>]> = [
  [
    'sqlite',
    async () => {
      const rootDir = mkdtempSync(join(tmpdir(), 'atrium-list-rv-'));
      const storage = SqliteStore.open(join(rootDir, 'store.db'));
      const ts = await startTestServer({ rootDir, server: { storage } });
      return {
        ts,
        storage,
        async close() {
          await ts.stop();
          await storage.close();
          rmSync(rootDir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    'etcd',
    async () => {
      const etcd: EtcdCluster = await startEtcd();
      const rootDir = mkdtempSync(join(tmpdir(), 'atrium-list-rv-'));
      const ts = await startTestServer({ rootDir, server: { etcd: { endpoints: etcd.endpoints, compactionIntervalMs: 0 } } });
      const storage = await EtcdStore.connect({ endpoints: etcd.endpoints, healthProbeIntervalMs: 0 });
      return {
        ts,
        storage,
        async close() {
          await storage.close();
          await ts.stop();
          await etcd.stop();
          rmSync(rootDir, { recursive: true, force: true });
        },
      };
    },
  ],
];

for (const [name, open] of backends) {
  describe(`list and watch resourceVersion against history (${name})`, () => {
    let b: Backend;
    let ns = 0;
    before(async () => {
      b = await open();
    });
    after(async () => {
      await b?.close();
    });

    async function namespace(): Promise<string> {
      const n = `rv${++ns}`;
      assert.equal((await b.ts.request('POST', '/api/v1/namespaces', { metadata: { name: n } })).status, 201);
      return n;
    }
    async function createConfigMap(n: string, name: string): Promise<number> {
      const r = await b.ts.request('POST', `/api/v1/namespaces/${n}/configmaps`, { metadata: { name } });
      assert.equal(r.status, 201, r.text);
      return Number(r.json.metadata.resourceVersion);
    }
    const names = (r: { json: { items: Array<{ metadata: { name: string } }> } }) => r.json.items.map((i) => i.metadata.name);

    test('limit + resourceVersion=N reads exactly at N; without a limit or with NotOlderThan, the current state', async () => {
      const n = await namespace();
      const rvA = await createConfigMap(n, 'a');
      const rvB = await createConfigMap(n, 'b');

      const exact = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=10&resourceVersion=${rvA}`);
      assert.equal(exact.status, 200, exact.text);
      assert.equal(exact.json.metadata.resourceVersion, String(rvA));
      assert.deepEqual(names(exact), ['a']);

      // Paging from an exact first page stays at N.
      const c = await createConfigMap(n, 'c');
      assert.ok(c > rvB);
      const first = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=1&resourceVersion=${rvB}`);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(names(first), ['a']);
      assert.equal(first.json.metadata.resourceVersion, String(rvB));
      assert.equal(first.json.metadata.remainingItemCount, 1);
      const second = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=1&continue=${first.json.metadata.continue}`);
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(names(second), ['b']);
      assert.equal(second.json.metadata.continue, undefined);

      const notOlder = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?resourceVersion=${rvA}`);
      assert.equal(notOlder.status, 200);
      assert.deepEqual(names(notOlder), ['a', 'b', 'c']);
      const notOlderLimited = await b.ts.request(
        'GET',
        `/api/v1/namespaces/${n}/configmaps?limit=10&resourceVersion=${rvA}&resourceVersionMatch=NotOlderThan`,
      );
      assert.equal(notOlderLimited.status, 200);
      assert.deepEqual(names(notOlderLimited), ['a', 'b', 'c']);
    });

    test('lists from the watch cache: consistent reads see every write to the store, even another client’s', async () => {
      const n = await namespace();
      for (const name of ['a', 'b']) await createConfigMap(n, name);
      const base = `/api/v1/namespaces/${n}/configmaps`;
      assert.deepEqual(names(await b.ts.request('GET', base)), ['a', 'b']);
      const stored = (await b.storage.list('/registry/core/configmaps/')).items.find((kv) => kv.key.endsWith(`/${n}/a`))!;
      const keyOf = (name: string) => stored.key.replace(/\/a$/, `/${name}`);
      // Writes that bypass this server (on etcd: another client, as another replica would) show in the very next
      // list without a resourceVersion, at a resourceVersion not older than the write.
      for (let i = 0; i < 10; i++) {
        const name = `x${i}`;
        const obj = JSON.parse(stored.value);
        obj.metadata = { ...obj.metadata, name, uid: `uid-${i}` };
        const kv = await b.storage.create(keyOf(name), JSON.stringify(obj));
        const listed = await b.ts.request('GET', base);
        assert.equal(listed.status, 200, listed.text);
        assert.ok(names(listed).includes(name), `${name} listed right after its write: ${names(listed).join(',')}`);
        assert.ok(Number(listed.json.metadata.resourceVersion) >= kv.modRevision);
        const item = listed.json.items.find((o: { metadata: { name: string } }) => o.metadata.name === name);
        assert.equal(item.metadata.resourceVersion, String(kv.modRevision));
      }
      // A write to another resource moves the store's revision; a consistent list answers at least that revision.
      const other = await b.storage.create(keyOf('unrelated').replace('/configmaps/', '/secrets/'), JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated', namespace: n, uid: 'u' } }));
      const after = await b.ts.request('GET', base);
      assert.ok(Number(after.json.metadata.resourceVersion) >= other.modRevision, `${after.json.metadata.resourceVersion} ≥ ${other.modRevision}`);
      // A deletion by the other client is gone at once, too.
      await b.storage.delete(keyOf('x0'));
      assert.ok(!names(await b.ts.request('GET', base)).includes('x0'));
    });

    test('resourceVersion=0 lists from the cache unpaged (a limit is ignored); NotOlderThan a future revision is 504', async () => {
      const n = await namespace();
      for (const name of ['a', 'b', 'c']) await createConfigMap(n, name);
      const base = `/api/v1/namespaces/${n}/configmaps`;
      for (const query of ['resourceVersion=0&limit=1', 'resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=1']) {
        const r = await b.ts.request('GET', `${base}?${query}`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(names(r), ['a', 'b', 'c'], query);
        assert.equal(r.json.metadata.continue, undefined);
        assert.equal(r.json.metadata.remainingItemCount, undefined);
      }
      // Without resourceVersion=0 the limit pages, from the cache too.
      const paged = await b.ts.request('GET', `${base}?limit=1`);
      assert.deepEqual(names(paged), ['a']);
      assert.equal(paged.json.metadata.remainingItemCount, 2);
      const current = await b.storage.currentRevision();
      const future = current + 1000;
      const started = Date.now();
      const r = await b.ts.request('GET', `${base}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`);
      assert.equal(r.status, 504, r.text);
      assert.equal(r.json.reason, 'Timeout');
      assert.match(r.json.message, new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
      assert.ok(Number(/current: (\d+)/.exec(r.json.message)![1]) >= current);
      assert.deepEqual(r.json.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
      assert.equal(r.json.details.retryAfterSeconds, 1);
      assert.ok(Date.now() - started >= 2900, 'it waited upstream’s 3 s');
    });

    test('limit + a compacted resourceVersion is 410 Expired with the list message', async () => {
      const n = await namespace();
      const rvA = await createConfigMap(n, 'a');
      await createConfigMap(n, 'b');
      await b.storage.compact(await b.storage.currentRevision());
      for (const query of [`limit=10&resourceVersion=${rvA}`, `resourceVersion=${rvA}&resourceVersionMatch=Exact`]) {
        const r = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?${query}`);
        assert.equal(r.status, 410, `${query}: ${r.text}`);
        assert.equal(r.json.reason, 'Expired');
        assert.equal(r.json.message, listExpired);
      }
    });

    test('a compacted continue token is 410 with a token that continues at the latest revision', async () => {
      const n = await namespace();
      for (const name of ['a', 'b', 'c']) await createConfigMap(n, name);
      const first = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=1`);
      assert.deepEqual(names(first), ['a']);
      await b.ts.request('DELETE', `/api/v1/namespaces/${n}/configmaps/b`);
      const rvD = await createConfigMap(n, 'd');
      await b.storage.compact(await b.storage.currentRevision());

      const expired = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=1&continue=${first.json.metadata.continue}`);
      assert.equal(expired.status, 410, expired.text);
      assert.equal(expired.json.kind, 'Status');
      assert.equal(expired.json.reason, 'Expired');
      assert.equal(expired.json.message, inconsistentContinue);
      const token = expired.json.metadata.continue as string;
      assert.equal(typeof token, 'string');
      assert.notEqual(token, first.json.metadata.continue);

      // The new token reads the rest at the latest revision: the deletion and the new object show.
      const rest = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?continue=${token}`);
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(names(rest), ['c', 'd']);
      assert.ok(Number(rest.json.metadata.resourceVersion) >= rvD);
      const paged = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=1&continue=${token}`);
      assert.equal(paged.status, 200, paged.text);
      assert.deepEqual(names(paged), ['c']);
      const last = await b.ts.request('GET', `/api/v1/namespaces/${n}/configmaps?limit=1&continue=${paged.json.metadata.continue}`);
      assert.deepEqual(names(last), ['d']);
      assert.equal(last.json.metadata.resourceVersion, paged.json.metadata.resourceVersion);
    });

    test('a watch from just below the compacted revision starts with the event at it; one further below is 410', async () => {
      const n = await namespace();
      // Secrets are watched nowhere else in this server, so no watch cache window covers these revisions and the
      // watch is served by the storage backend.
      const first = await b.ts.request('POST', `/api/v1/namespaces/${n}/secrets`, { metadata: { name: 's1' } });
      const second = await b.ts.request('POST', `/api/v1/namespaces/${n}/secrets`, { metadata: { name: 's2' } });
      assert.equal(second.status, 201, second.text);
      const compacted = Number(second.json.metadata.resourceVersion);
      assert.equal(await b.storage.currentRevision(), compacted);
      await b.storage.compact(compacted);

      const w = await b.ts.request('GET', `/api/v1/namespaces/${n}/secrets?watch=1&resourceVersion=${compacted - 1}&timeoutSeconds=1`);
      assert.equal(w.status, 200, w.text);
      const events = w.text.trim().split('\n').map((line) => JSON.parse(line));
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
        [['ADDED', 's2', String(compacted)]],
      );

      const old = await b.ts.request('GET', `/api/v1/namespaces/${n}/secrets?watch=1&resourceVersion=${Number(first.json.metadata.resourceVersion) - 1}&timeoutSeconds=1`);
      const oldEvents = old.text.trim().split('\n').map((line) => JSON.parse(line));
      assert.equal(oldEvents.length, 1, old.text);
      assert.equal(oldEvents[0].type, 'ERROR');
      assert.equal(oldEvents[0].object.code, 410);
      assert.equal(oldEvents[0].object.reason, 'Expired');
    });
  });
}
