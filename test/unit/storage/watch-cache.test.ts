import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EventRing } from '../../../src/storage/cacher/event-ring.js';
import { resourceRootOf } from '../../../src/storage/cacher/resource-root.js';
import { WatchCache } from '../../../src/storage/cacher/watch-cache.js';
import { isStorageError } from '../../../src/storage/errors.js';
import type {
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageWatchEvent,
  WatchCallbacks,
  WatchHandle,
} from '../../../src/storage/interface.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { DelegatingStorage } from '../../helpers/delegating-storage.js';
import { eventually } from '../../helpers/eventually.js';

/** A real SqliteStore that records which prefixes were watched and how many storage watches are open. */
class WatchCountingStorage extends DelegatingStorage {
  readonly watchCalls: Array<{ prefix: string; fromRevision: number }> = [];
  open = 0;
  listCalls = 0;
  /** When false, watches do not pass progress requests on (a backend without them). */
  progress = true;

  override watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    this.watchCalls.push({ prefix, fromRevision });
    this.open++;
    let ended = false;
    const end = () => {
      if (!ended) {
        ended = true;
        this.open--;
      }
    };
    const handle = this.inner.watch(prefix, fromRevision, {
      onEvent: (e) => callbacks.onEvent(e),
      onError: (err) => {
        end();
        callbacks.onError(err);
      },
      ...(callbacks.onProgress ? { onProgress: (r: number) => callbacks.onProgress!(r) } : {}),
    });
    return {
      stop: () => {
        end();
        handle.stop();
      },
      ...(this.progress ? { requestProgress: () => handle.requestProgress?.() } : {}),
    };
  }

  override list(prefix: string, options?: ListOptions): Promise<ListResult> {
    this.listCalls++;
    return this.inner.list(prefix, options);
  }
}

interface Recorder {
  events: StorageWatchEvent[];
  errors: Error[];
  handle: WatchHandle;
}

function record(cache: WatchCache, prefix: string, fromRevision: number, onEvent?: (e: StorageWatchEvent) => void): Recorder {
  const events: StorageWatchEvent[] = [];
  const errors: Error[] = [];
  const handle = cache.watch(prefix, fromRevision, {
    onEvent: (e) => {
      events.push(e);
      onEvent?.(e);
    },
    onError: (err) => void errors.push(err),
  });
  return { events, errors, handle };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const pods = '/registry/core/pods/';
const pod = (ns: string, name: string) => `${pods}c1/${ns}/${name}`;

describe('resourceRootOf', () => {
  const cases: Array<[string, string | null]> = [
    ['/registry/core/pods/', '/registry/core/pods/'],
    ['/registry/core/pods/c1/ns/', '/registry/core/pods/'],
    ['/registry/apps/deployments/c1/ns/name', '/registry/apps/deployments/'],
    ['/registry/core/pods', null],
    ['/registry/core/', null],
    ['/registry/', null],
    ['', null],
    ['/registry//pods/x/', null],
    ['registry/core/pods/', null],
  ];
  for (const [prefix, root] of cases) {
    test(`${JSON.stringify(prefix)} → ${JSON.stringify(root)}`, () => assert.equal(resourceRootOf(prefix), root));
  }
});

describe('EventRing', () => {
  const ev = (revision: number): StorageWatchEvent => ({ type: 'create', key: `/k${revision}`, value: '', revision, createRevision: revision });

  test('serves events after a revision until they are evicted', () => {
    const ring = new EventRing(3, 10);
    assert.deepEqual(ring.since(10), []);
    for (const r of [11, 13, 14]) ring.push(ev(r));
    assert.deepEqual(ring.since(10)!.map((e) => e.revision), [11, 13, 14]);
    assert.deepEqual(ring.since(12)!.map((e) => e.revision), [13, 14]);
    assert.deepEqual(ring.since(14), []);
    assert.deepEqual(ring.since(99), []);
    assert.equal(ring.since(9), undefined);
    ring.push(ev(20));
    assert.equal(ring.coveredFrom, 11);
    assert.equal(ring.since(10), undefined);
    assert.deepEqual(ring.since(11)!.map((e) => e.revision), [13, 14, 20]);
    for (const r of [21, 22, 23, 24]) ring.push(ev(r));
    assert.equal(ring.size, 3);
    assert.deepEqual(ring.since(21)!.map((e) => e.revision), [22, 23, 24]);
  });

  test('rejects a capacity below one', () => {
    assert.throws(() => new EventRing(0, 0), RangeError);
  });
});

describe('WatchCache over a real SqliteStore', () => {
  let storage: WatchCountingStorage;
  let cache: WatchCache;

  beforeEach(() => {
    storage = new WatchCountingStorage(SqliteStore.open(':memory:'));
    cache = new WatchCache(storage, { historySize: 50 });
  });
  afterEach(async () => {
    cache.stop();
    await storage.close();
  });

  test('many watchers on one resource share one storage watch', async () => {
    const start = await cache.currentRevision();
    const watchers = Array.from({ length: 40 }, (_, i) => record(cache, i % 2 ? pods : `${pods}c1/ns${i % 4}/`, start));
    const created: KeyValue[] = [];
    for (let i = 0; i < 4; i++) created.push(await storage.create(pod(`ns${i}`, 'a'), `v${i}`));
    await eventually('4 events to odd watchers, 1 to even ones', () => watchers.every((w, i) => w.events.length === (i % 2 ? 4 : 1)), 5000, 2);
    assert.deepEqual(storage.watchCalls, [{ prefix: pods, fromRevision: start }]);
    assert.deepEqual(cache.stats(), { roots: 1, watchers: 40 });
    for (const w of watchers) w.handle.stop();
    assert.deepEqual(cache.stats(), { roots: 1, watchers: 0 });
    assert.equal(storage.open, 1, 'the shared storage watch outlives its watchers so the ring stays warm');
  });

  test('each resource gets its own storage watch, and only its events', async () => {
    const start = await cache.currentRevision();
    const p = record(cache, pods, start);
    const cm = record(cache, '/registry/core/configmaps/', start);
    const podKv = await storage.create(pod('ns', 'a'), 'pod');
    const cmKv = await storage.create('/registry/core/configmaps/c1/ns/a', 'cm');
    await eventually('one event to each watcher', () => p.events.length === 1 && cm.events.length === 1, 5000, 2);
    await settle();
    assert.deepEqual(p.events.map((e) => e.revision), [podKv.modRevision]);
    assert.deepEqual(cm.events.map((e) => e.revision), [cmKv.modRevision]);
    assert.deepEqual(storage.watchCalls.map((c) => c.prefix).sort(), ['/registry/core/configmaps/', pods]);
  });

  test('namespace prefixes only see their namespace', async () => {
    const start = await cache.currentRevision();
    const ns1 = record(cache, `${pods}c1/ns1/`, start);
    const ns10 = record(cache, `${pods}c1/ns10/`, start);
    const otherCluster = record(cache, `${pods}c2/ns1/`, start);
    await storage.create(pod('ns1', 'a'), '1');
    await storage.create(pod('ns10', 'a'), '10');
    await storage.create(pod('ns1', 'b'), '1');
    await storage.create(`${pods}c2/ns1/a`, 'c2');
    await eventually('2 events to ns1, 1 to ns10 and 1 to the other cluster', () => ns1.events.length === 2 && ns10.events.length === 1 && otherCluster.events.length === 1, 5000, 2);
    await settle();
    assert.deepEqual(ns1.events.map((e) => e.key), [pod('ns1', 'a'), pod('ns1', 'b')]);
    assert.deepEqual(ns10.events.map((e) => e.key), [pod('ns10', 'a')]);
    assert.deepEqual(otherCluster.events.map((e) => e.key), [`${pods}c2/ns1/a`]);
  });

  test('resumes from the ring without a new storage watch', async () => {
    const start = await cache.currentRevision();
    const first = record(cache, pods, start);
    const revisions: number[] = [];
    let kv = await storage.create(pod('ns', 'a'), '0');
    revisions.push(kv.modRevision);
    for (let i = 1; i < 10; i++) {
      kv = await storage.update(kv.key, String(i), kv.modRevision);
      revisions.push(kv.modRevision);
    }
    await eventually('10 events to the first watcher', () => first.events.length === 10, 5000, 2);

    const resumed = record(cache, `${pods}c1/ns/`, revisions[4]!);
    const atHead = record(cache, pods, revisions[9]!);
    await settle();
    assert.deepEqual(resumed.events.map((e) => e.revision), revisions.slice(5));
    assert.equal(resumed.events[0]!.prevValue, '4');
    assert.equal(atHead.events.length, 0, 'nothing to replay when resuming at the newest revision');
    const live = await storage.update(kv.key, 'live', kv.modRevision);
    await eventually('6 events to the resumed watcher, 1 to the one at the head', () => resumed.events.length === 6 && atHead.events.length === 1, 5000, 2);
    assert.equal(resumed.events[5]!.revision, live.modRevision);
    assert.equal(atHead.events[0]!.revision, live.modRevision);
    assert.equal(storage.watchCalls.length, 1);
  });

  test('resumes older than the ring through a direct storage watch', async () => {
    const small = new WatchCache(storage, { historySize: 5 });
    try {
      const start = await small.currentRevision();
      const warm = record(small, pods, start);
      const revisions: number[] = [];
      for (let i = 0; i < 12; i++) revisions.push((await storage.create(pod('ns', `p${i}`), String(i))).modRevision);
      await eventually('12 events to the warm watcher', () => warm.events.length === 12, 5000, 2);

      const old = record(small, `${pods}c1/ns/`, revisions[2]!);
      await eventually('9 events to the old watcher', () => old.events.length === 9, 5000, 2);
      assert.deepEqual(old.events.map((e) => e.revision), revisions.slice(3));
      assert.deepEqual(storage.watchCalls.slice(1), [{ prefix: `${pods}c1/ns/`, fromRevision: revisions[2]! }]);
      const live = await storage.create(pod('ns', 'live'), 'live');
      await eventually('10 events to the old watcher', () => old.events.length === 10, 5000, 2);
      assert.equal(old.events[9]!.revision, live.modRevision);
      old.handle.stop();
      assert.equal(storage.open, 1, 'stopping the direct watch closes its storage watch');
    } finally {
      small.stop();
    }
  });

  test('answers Compacted for revisions older than the ring when storage fallback is off', async () => {
    const strict = new WatchCache(storage, { historySize: 3, fallbackToStorage: false });
    try {
      const start = await strict.currentRevision();
      const warm = record(strict, pods, start);
      for (let i = 0; i < 6; i++) await storage.create(pod('ns', `p${i}`), String(i));
      await eventually('6 events to the warm watcher', () => warm.events.length === 6, 5000, 2);
      const old = record(strict, pods, start + 1);
      await eventually('an error to the old watcher', () => old.errors.length === 1, 5000, 2);
      assert.ok(isStorageError(old.errors[0], 'Compacted'));
      assert.equal(old.events.length, 0);
      const inRing = record(strict, pods, start + 3);
      await eventually('3 events to the watcher inside the ring', () => inRing.events.length === 3, 5000, 2);
    } finally {
      strict.stop();
    }
  });

  test('a revision below the store compaction fails with Compacted', async () => {
    const a = await storage.create(pod('ns', 'a'), '1');
    const b = await storage.update(a.key, '2', a.modRevision);
    await storage.compact(b.modRevision);
    const w = record(cache, pods, a.modRevision - 1);
    await eventually('an error to the watcher', () => w.errors.length === 1, 5000, 2);
    assert.ok(isStorageError(w.errors[0], 'Compacted'));
  });

  test('a throwing watcher is stopped without affecting the others', async () => {
    const start = await cache.currentRevision();
    const originalWrite = process.stderr.write;
    const logged: string[] = [];
    process.stderr.write = ((chunk: string) => {
      logged.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const bad = record(cache, pods, start, () => {
        throw new Error('boom');
      });
      const good = record(cache, pods, start);
      await storage.create(pod('ns', 'a'), '1');
      await storage.create(pod('ns', 'b'), '2');
      await eventually('2 events to the good watcher', () => good.events.length === 2, 5000, 2);
      await settle();
      assert.equal(bad.events.length, 1, 'the thrower got its first event only');
      assert.equal(bad.errors.length, 0);
      assert.ok(logged.some((l) => l.includes('boom')));
      assert.deepEqual(cache.stats(), { roots: 1, watchers: 1 });
    } finally {
      process.stderr.write = originalWrite;
    }
  });

  test('watchers joining while writes flow see every event once, in order', async () => {
    const start = await cache.currentRevision();
    const early = record(cache, pods, start);
    const joiners: Recorder[] = [];
    const writes: Promise<KeyValue>[] = [];
    for (let i = 0; i < 30; i++) {
      writes.push(storage.create(pod('ns', `p${i}`), String(i)));
      if (i % 10 === 5) joiners.push(record(cache, pods, start));
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const revisions = (await Promise.all(writes)).map((kv) => kv.modRevision).sort((x, y) => x - y);
    await eventually('30 events to every watcher', () => [early, ...joiners].every((w) => w.events.length >= 30), 5000, 2);
    await settle();
    for (const w of [early, ...joiners]) assert.deepEqual(w.events.map((e) => e.revision), revisions);
    assert.equal(storage.watchCalls.length, 1);
  });

  test('prefixes wider than one resource are watched directly', async () => {
    const start = await cache.currentRevision();
    const wide = record(cache, '/registry/core/', start);
    await storage.create(pod('ns', 'a'), 'pod');
    await storage.create('/registry/core/configmaps/c1/ns/a', 'cm');
    await eventually('2 events to the wide watcher', () => wide.events.length === 2, 5000, 2);
    assert.deepEqual(storage.watchCalls, [{ prefix: '/registry/core/', fromRevision: start }]);
  });

  test('stop ends every watcher with Unavailable and closes the storage watches', async () => {
    const start = await cache.currentRevision();
    const w = record(cache, pods, start);
    await storage.create(pod('ns', 'a'), '1');
    await eventually('an event to the watcher', () => w.events.length === 1, 5000, 2);
    cache.stop();
    assert.equal(w.errors.length, 1);
    assert.ok(isStorageError(w.errors[0], 'Unavailable'));
    assert.equal(storage.open, 0);
    const late = record(cache, pods, start);
    await eventually('an error to the late watcher', () => late.errors.length === 1, 5000, 2);
  });

  test('losing the store fails the watchers of a resource', async () => {
    const start = await cache.currentRevision();
    const w = record(cache, pods, start);
    await storage.create(pod('ns', 'a'), '1');
    await eventually('an event to the watcher', () => w.events.length === 1, 5000, 2);
    await storage.close();
    assert.equal(w.errors.length, 1);
    assert.ok(isStorageError(w.errors[0], 'Unavailable'));
    assert.deepEqual(cache.stats(), { roots: 0, watchers: 0 });
    storage = new WatchCountingStorage(SqliteStore.open(':memory:'));
  });
});

describe('WatchCache.list (lists served from the cache)', () => {
  let storage: WatchCountingStorage;
  let cache: WatchCache;
  const cms = '/registry/core/configmaps/';

  beforeEach(() => {
    storage = new WatchCountingStorage(SqliteStore.open(':memory:'));
    cache = new WatchCache(storage, { historySize: 50, freshTimeoutMs: 300 });
  });
  afterEach(async () => {
    cache.stop();
    await storage.close();
  });

  const keys = (l: { items: KeyValue[] } | undefined) => l!.items.map((i) => i.key);

  test('the first list loads the resource from storage; later ones follow its watch without reading storage', async () => {
    await storage.create(pod('ns', 'a'), 'a1');
    await storage.create(pod('ns', 'b'), 'b1');
    const first = await cache.list(pods, await storage.currentRevision());
    assert.deepEqual(keys(first), [pod('ns', 'a'), pod('ns', 'b')]);
    assert.equal(storage.listCalls, 1);
    const b = await storage.get(pod('ns', 'b'));
    const updated = await storage.update(pod('ns', 'b'), 'b2', b!.modRevision);
    await storage.delete(pod('ns', 'a'));
    const created = await storage.create(pod('ns', 'c'), 'c1');
    const second = await cache.list(pods, await storage.currentRevision());
    assert.deepEqual(
      second!.items.map((i) => [i.key, i.value, i.modRevision]),
      [
        [pod('ns', 'b'), 'b2', updated.modRevision],
        [pod('ns', 'c'), 'c1', created.modRevision],
      ],
    );
    assert.equal(second!.items[1]!.createRevision, created.modRevision);
    assert.equal(second!.revision, created.modRevision);
    assert.equal(storage.listCalls, 1, 'no second storage read');
    // A list is a snapshot: later writes do not change the items it returned.
    await storage.create(pod('ns', 'd'), 'd1');
    assert.deepEqual(keys(second), [pod('ns', 'b'), pod('ns', 'c')]);
  });

  test('a consistent list after writes to other resources waits for a progress notification, not for an event', async () => {
    await cache.list(pods, 0);
    const other = await storage.create(`${cms}c1/ns/x`, 'cm');
    const listed = await cache.list(pods, await storage.currentRevision());
    assert.ok(listed!.revision >= other.modRevision, `the cache caught up (${listed!.revision} ≥ ${other.modRevision})`);
  });

  test('without progress notifications, a revision the resource never reaches is FutureRevision after the timeout', async () => {
    storage.progress = false;
    await cache.list(pods, 0);
    const other = await storage.create(`${cms}c1/ns/x`, 'cm');
    const started = Date.now();
    const err = await cache.list(pods, other.modRevision).then(
      () => assert.fail('expected FutureRevision'),
      (e: unknown) => e,
    );
    assert.ok(isStorageError(err, 'FutureRevision'), String(err));
    assert.equal(err.revision, other.modRevision - 1, "the cache's own revision");
    assert.match(err.message, new RegExp(`^Too large resource version: ${other.modRevision}, current: ${other.modRevision - 1}$`));
    assert.ok(Date.now() - started >= 250, 'it waited');
    // An event of the resource releases a waiting list at once.
    const waiting = cache.list(pods, other.modRevision + 1);
    const kv = await storage.create(pod('ns', 'late'), 'v');
    assert.deepEqual(keys(await waiting), [pod('ns', 'late')]);
    assert.equal(kv.modRevision, other.modRevision + 1);
  });

  test('a revision beyond the store is FutureRevision even with progress notifications', async () => {
    const head = await storage.currentRevision();
    await assert.rejects(cache.list(pods, head + 10), (e: unknown) => isStorageError(e, 'FutureRevision'));
  });

  test('prefixes select their namespace or cluster in byte order, as storage lists them', async () => {
    const names = [pod('ns', 'a'), pod('ns', 'b\u00e9'), pod('ns', 'b\uffef'), pod('ns', 'b\u{1f600}'), pod('ns10', 'a'), `${pods}c2/ns/a`];
    for (const k of [...names].reverse()) await storage.create(k, 'v');
    await cache.list(pods, 0);
    for (const prefix of [pods, `${pods}c1/ns/`, `${pods}c1/ns10/`, `${pods}c2/`, `${pods}c3/`]) {
      const fromStorage = (await storage.list(prefix)).items.map((i) => i.key);
      assert.deepEqual(keys(await cache.list(prefix, await storage.currentRevision())), fromStorage, prefix);
    }
  });

  test('writes racing with the first load are all in the cache, once', async () => {
    const writes: Promise<KeyValue>[] = [];
    for (let i = 0; i < 200; i++) writes.push(storage.create(pod('ns', `p${String(i).padStart(3, '0')}`), `v${i}`));
    const listing = cache.list(pods, 0);
    for (let i = 200; i < 400; i++) writes.push(storage.create(pod('ns', `p${String(i).padStart(3, '0')}`), `v${i}`));
    await Promise.all(writes);
    await listing;
    const all = await cache.list(pods, await storage.currentRevision());
    assert.equal(all!.items.length, 400);
    assert.deepEqual(all!.items, (await storage.list(pods)).items);
  });

  test('prefixes wider than one resource, and a cache over its budget, leave the list to storage', async () => {
    assert.equal(await cache.list('/registry/core/', 0), undefined);
    const small = new WatchCache(storage, { listBudgetBytes: 1 });
    try {
      await storage.create(pod('ns', 'a'), 'v');
      assert.deepEqual(keys(await small.list(pods, 0)), [pod('ns', 'a')], 'the first root still loads (the budget is not yet used)');
      assert.equal(await small.list(`${cms}c1/`, 0), undefined, 'the next root does not');
    } finally {
      small.stop();
    }
  });

  test('losing the store fails a waiting list, and the next list starts over', async () => {
    storage.progress = false;
    await cache.list(pods, 0);
    const other = await storage.create(`${cms}c1/ns/x`, 'cm');
    const waiting = cache.list(pods, other.modRevision);
    await storage.close();
    await assert.rejects(waiting, (e: unknown) => isStorageError(e, 'Unavailable'));
    storage = new WatchCountingStorage(SqliteStore.open(':memory:'));
  });
});
