/**
 * The etcd backend against a real single-member etcd: the shared storage conformance suite, plus what
 * only etcd has (revisions equal to etcd's, paging messages, reconnecting watches across an etcd
 * restart, health, clear start-up errors).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import { isStorageError } from '../../../src/storage/errors.js';
import type { StorageWatchEvent } from '../../../src/storage/interface.js';
import { EtcdStore } from '../../../src/storage/etcd/etcd-store.js';
import { keyAfter, prefixRangeEnd } from '../../../src/storage/etcd/etcd-keys.js';
import { EtcdCompactor } from '../../../src/storage/etcd/etcd-compactor.js';
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

runStorageConformance('etcd (single member)', () => EtcdStore.connect({ endpoints: etcd.endpoints }));

describe('etcd key ranges', () => {
  const cases: Array<[string, number[]]> = [
    ['a', [0x62]],
    ['/registry/', [...Buffer.from('/registry0')]],
    ['a\u00ff', [0x61, 0xc3, 0xc0]],
    ['', [0]],
  ];
  for (const [prefix, end] of cases) {
    test(`prefixRangeEnd(${JSON.stringify(prefix)})`, () => {
      assert.deepEqual([...prefixRangeEnd(Buffer.from(prefix, 'utf8'))], end);
    });
  }
  test('prefixRangeEnd of all-0xff bytes is the end of the keyspace', () => {
    assert.deepEqual([...prefixRangeEnd(Buffer.from([0xff, 0xff]))], [0]);
  });
  test('keyAfter appends one zero byte', () => {
    assert.deepEqual([...keyAfter('ab')], [0x61, 0x62, 0]);
  });
});

describe('etcd backend specifics', () => {
  const prefix = () => `/registry/etcdtest/${randomBytes(4).toString('hex')}/`;

  test('modRevision is etcd mod_revision, as another etcd client sees it', async () => {
    const store = await EtcdStore.connect({ endpoints: etcd.endpoints });
    const raw = new Etcd3({ hosts: etcd.endpoints });
    try {
      const p = prefix();
      const kv = await store.create(`${p}a`, 'v1');
      const seen = await raw.get(`${p}a`).exec();
      assert.equal(Number(seen.kvs[0]!.mod_revision), kv.modRevision);
      assert.equal(Number(seen.header.revision), await store.currentRevision());
    } finally {
      raw.close();
      await store.close();
    }
  });

  test('an unlimited list is read in pages at one revision', async () => {
    const store = await EtcdStore.connect({ endpoints: etcd.endpoints, listPageSize: 3 });
    try {
      const p = prefix();
      for (let i = 0; i < 10; i++) await store.create(`${p}k${i}`, `v${i}`);
      const before = await store.currentRevision();
      const listed = await store.list(p);
      assert.equal(listed.items.length, 10);
      assert.equal(listed.more, false);
      assert.equal(listed.revision, before);
      const limited = await store.list(p, { limit: 4 });
      assert.deepEqual(
        { n: limited.items.length, more: limited.more, remaining: limited.remaining },
        { n: 4, more: true, remaining: 6 },
      );
    } finally {
      await store.close();
    }
  });

  test('a value over etcd\'s request size limit fails with etcd\'s message, not a hang', async () => {
    const store = await EtcdStore.connect({ endpoints: etcd.endpoints });
    try {
      await assert.rejects(store.create(`${prefix()}big`, 'x'.repeat(2 * 1024 * 1024)), /request is too large/);
      assert.ok(store.isHealthy(), 'a refused request does not make the store unhealthy');
    } finally {
      await store.close();
    }
  });

  test('connect fails with the endpoints and the cause when etcd is unreachable', async () => {
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const started = Date.now();
    await assert.rejects(EtcdStore.connect({ endpoints: [endpoint], requestTimeoutMs: 2000 }), (err: Error) => {
      assert.match(err.message, new RegExp(`cannot reach etcd at ${endpoint.replace(/[.]/g, '\\.')}: `));
      assert.match(err.message, /UNAVAILABLE|ECONNREFUSED|timed out|No connection/i);
      return true;
    });
    assert.ok(Date.now() - started < 10_000, 'fails within the deadline');
  });

  test('invalid endpoint and TLS options are refused before connecting', async () => {
    const cases: Array<[Parameters<typeof EtcdStore.connect>[0], RegExp]> = [
      [{ endpoints: [] }, /no etcd endpoints/],
      [{ endpoints: ['127.0.0.1:2379'] }, /invalid etcd endpoint "127\.0\.0\.1:2379"/],
      [{ endpoints: ['https://127.0.0.1:2379'], certFile: '/x.crt' }, /--etcd-certfile and --etcd-keyfile must be given together/],
      [{ endpoints: ['http://127.0.0.1:2379'], caFile: '/x.crt' }, /use https:\/\/ endpoints/],
      [{ endpoints: ['https://127.0.0.1:2379'], caFile: '/nonexistent/ca.crt' }, /cannot read --etcd-cafile \/nonexistent\/ca\.crt/],
    ];
    for (const [options, message] of cases) await assert.rejects(EtcdStore.connect(options), message);
  });
});

describe('etcd compaction between replicas', () => {
  test('one replica wins each round and compacts at the revision of the previous round', async () => {
    const s1 = await EtcdStore.connect({ endpoints: etcd.endpoints });
    const s2 = await EtcdStore.connect({ endpoints: etcd.endpoints });
    const c1 = new EtcdCompactor(s1);
    const c2 = new EtcdCompactor(s2);
    try {
      const p = `/registry/etcdtest/${randomBytes(4).toString('hex')}/`;
      // Round 1: c1 takes the key (no compaction on the first win); c2 loses and adopts the new version.
      assert.equal(await c1.round(), false);
      const r1 = await s1.currentRevision();
      assert.equal(await c2.round(), false);
      const v1 = await s1.create(`${p}a`, 'v1');
      await s1.update(`${p}a`, 'v2', v1.modRevision);
      // Round 2: both try; exactly one compacts, at a revision no newer than round 1 ended.
      const results = [await c1.round(), await c2.round()];
      assert.deepEqual(results.filter(Boolean).length, 1, `exactly one compaction per round: ${results}`);
      const compacted = await s1.compactedRevision();
      assert.ok(compacted >= r1 && compacted < v1.modRevision, `compacted at ${compacted}, round 1 at ${r1}`);
      await assert.rejects(s1.get(`${p}a`, compacted - 1), (err: unknown) => isStorageError(err, 'Compacted'));
      assert.equal((await s2.get(`${p}a`))!.value, 'v2', 'live data survives');
    } finally {
      await c1.stop();
      await c2.stop();
      await s1.close();
      await s2.close();
    }
  });
});

describe('etcd restart', () => {
  test('a watch resumes after etcd restarts; reads fail with 503-class errors meanwhile, then recover', async () => {
    const own = await startEtcd();
    const store = await EtcdStore.connect({ endpoints: own.endpoints, requestTimeoutMs: 1000, healthProbeIntervalMs: 100 });
    try {
      const p = prefix();
      const start = await store.currentRevision();
      const events: StorageWatchEvent[] = [];
      const errors: Error[] = [];
      const handle = store.watch(p, start, { onEvent: (e) => void events.push(e), onError: (e) => void errors.push(e) });
      const a = await store.create(`${p}a`, '1');
      await eventually('the first watch event', () => events.length === 1, 5000, 10);

      await own.members[0]!.kill();
      const failure = await store.get(`${p}a`).then(
        () => null,
        (err: unknown) => err,
      );
      assert.ok(isStorageError(failure, 'Unavailable') || isStorageError(failure, 'Timeout'), String(failure));
      await eventually('the store unhealthy', () => !store.isHealthy(), 5000, 10);
      assert.notEqual(store.healthMessage(), '');

      await own.members[0]!.restart();
      await eventually('the store healthy again', () => store.isHealthy(), 10_000, 10);
      const b = await store.update(`${p}a`, '2', a.modRevision);
      await eventually('the second watch event', () => events.length === 2, 10_000, 10);
      assert.deepEqual(
        events.map((e) => [e.type, e.revision]),
        [
          ['create', a.modRevision],
          ['update', b.modRevision],
        ],
      );
      assert.equal(errors.length, 0);
      handle.stop();
    } finally {
      await store.close();
      await own.stop();
    }
  });

  function prefix(): string {
    return `/registry/etcdtest/${randomBytes(4).toString('hex')}/`;
  }
});

