/**
 * The storage conformance suite: the behaviour every Storage backend (SQLite, etcd, ...) must show,
 * registered as node:test tests. A backend's test file calls runStorageConformance once.
 *
 * Every test writes under its own random key prefix and only compares revisions relative to ones it
 * observed, so a backend shared between tests (an etcd server) works as well as a fresh one per test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test, type TestContext } from 'node:test';
import { isStorageError, type StorageErrorCode } from '../errors.js';
import type { KeyValue, Storage, StorageWatchEvent, WatchHandle } from '../interface.js';

export interface StorageConformanceOptions {
  /** Skip tests that compact history (for a backend shared with tests that must not lose history). */
  skipCompaction?: boolean;
}

/**
 * Registers the suite under describe(name). open() must return a ready Storage; each test opens its own
 * and closes it at the end.
 */
export function runStorageConformance(name: string, open: () => Promise<Storage>, opts: StorageConformanceOptions = {}): void {
  /** Runs body against a freshly opened store under a unique key prefix, then closes the store. */
  function storeTest(title: string, body: (s: Storage, p: string, t: TestContext) => Promise<void>): void {
    test(title, async (t) => {
      const storage = await open();
      try {
        await body(storage, `/registry/conformance/${randomBytes(4).toString('hex')}/`, t);
      } finally {
        await storage.close();
      }
    });
  }

  describe(`storage conformance: ${name}`, () => {
    storeTest('create assigns one new revision as both createRevision and modRevision', async (s, p) => {
      const before = await s.currentRevision();
      const kv = await s.create(`${p}a`, 'v1');
      assert.equal(kv.key, `${p}a`);
      assert.equal(kv.value, 'v1');
      assert.ok(kv.modRevision > before, 'revision moves forward');
      assert.equal(kv.createRevision, kv.modRevision);
      assert.ok((await s.currentRevision()) >= kv.modRevision);
    });

    storeTest('create of an existing key fails with KeyExists and changes nothing', async (s, p) => {
      const first = await s.create(`${p}a`, 'v1');
      await expectStorageError(s.create(`${p}a`, 'v2'), 'KeyExists');
      assert.deepEqual(await s.get(`${p}a`), first);
    });

    storeTest('get returns the current value, or null for an absent key', async (s, p) => {
      assert.equal(await s.get(`${p}missing`), null);
      const created = await s.create(`${p}a`, 'v1');
      assert.deepEqual(await s.get(`${p}a`), created);
      const updated = await s.update(`${p}a`, 'v2', created.modRevision);
      assert.deepEqual(await s.get(`${p}a`), updated);
    });

    storeTest('get at an older revision returns the value as of that revision', async (s, p) => {
      const before = await s.currentRevision();
      const v1 = await s.create(`${p}a`, 'v1');
      const v2 = await s.update(`${p}a`, 'v2', v1.modRevision);
      const deleted = await s.delete(`${p}a`);
      assert.deepEqual(await s.get(`${p}a`, v1.modRevision), v1);
      assert.deepEqual(await s.get(`${p}a`, v2.modRevision), v2);
      assert.equal(await s.get(`${p}a`, deleted.modRevision), null);
      assert.equal(await s.get(`${p}a`), null);
      if (before > 0) assert.equal(await s.get(`${p}a`, before), null, 'absent before it was created');
    });

    storeTest('get and list above the current revision fail with FutureRevision', async (s, p) => {
      const kv = await s.create(`${p}a`, 'v1');
      const future = (await s.currentRevision()) + 1000;
      await expectStorageError(s.get(kv.key, future), 'FutureRevision');
      await expectStorageError(s.list(p, { revision: future }), 'FutureRevision');
    });

    storeTest('update is compare-and-swap on modRevision', async (s, p) => {
      const v1 = await s.create(`${p}a`, 'v1');
      const v2 = await s.update(`${p}a`, 'v2', v1.modRevision);
      assert.equal(v2.value, 'v2');
      assert.equal(v2.createRevision, v1.createRevision);
      assert.ok(v2.modRevision > v1.modRevision);

      const err = await expectStorageError(s.update(`${p}a`, 'stale', v1.modRevision), 'Conflict');
      assert.deepEqual(err.current, v2, 'Conflict carries the current value');
      assert.deepEqual(await s.get(`${p}a`), v2);

      await expectStorageError(s.update(`${p}missing`, 'x', 1), 'NotFound');
    });

    storeTest('delete without precondition returns the last value at the deletion revision', async (s, p) => {
      const v1 = await s.create(`${p}a`, 'v1');
      const deleted = await s.delete(`${p}a`);
      assert.equal(deleted.key, `${p}a`);
      assert.equal(deleted.value, 'v1');
      assert.equal(deleted.createRevision, v1.createRevision);
      assert.ok(deleted.modRevision > v1.modRevision);
      assert.equal(await s.currentRevision() >= deleted.modRevision, true);
      assert.equal(await s.get(`${p}a`), null);
      await expectStorageError(s.delete(`${p}a`), 'NotFound');
    });

    storeTest('delete with a precondition succeeds only while it matches', async (s, p) => {
      const v1 = await s.create(`${p}a`, 'v1');
      const v2 = await s.update(`${p}a`, 'v2', v1.modRevision);
      const err = await expectStorageError(s.delete(`${p}a`, v1.modRevision), 'Conflict');
      assert.deepEqual(err.current, v2);
      assert.deepEqual(await s.get(`${p}a`), v2, 'a failed delete keeps the key');
      const deleted = await s.delete(`${p}a`, v2.modRevision);
      assert.equal(deleted.value, 'v2');
      await expectStorageError(s.delete(`${p}missing`, 1), 'NotFound');
    });

    storeTest('re-create after delete starts a new incarnation with a new createRevision', async (s, p) => {
      const first = await s.create(`${p}a`, 'v1');
      const deleted = await s.delete(`${p}a`);
      const second = await s.create(`${p}a`, 'v2');
      assert.ok(second.createRevision > deleted.modRevision);
      assert.equal(second.createRevision, second.modRevision);
      assert.notEqual(second.createRevision, first.createRevision);
      assert.deepEqual(await s.get(`${p}a`), second);
    });

    storeTest('list returns keys under the prefix in key order, and only those', async (s, p) => {
      for (const k of ['b', 'a', 'c/x', 'c/y']) await s.create(`${p}ns/${k}`, k);
      await s.create(`${p}ns-other/a`, 'sibling');
      await s.create(`${p}n`, 'shorter');
      const listed = await s.list(`${p}ns/`);
      assert.deepEqual(
        listed.items.map((i) => i.key),
        ['a', 'b', 'c/x', 'c/y'].map((k) => `${p}ns/${k}`),
      );
      assert.equal(listed.more, false);
      assert.equal(listed.revision, await s.currentRevision());
      assert.deepEqual(listed.items[0], await s.get(`${p}ns/a`));
      assert.equal((await s.list(`${p}nothing/`)).items.length, 0);
    });

    storeTest('list pages with limit and afterKey, reporting more and remaining', async (s, p) => {
      const keys = Array.from({ length: 7 }, (_, i) => `${p}k${i}`);
      for (const k of keys) await s.create(k, k);
      const seen: string[] = [];
      let afterKey: string | undefined;
      const pages: Array<{ n: number; more: boolean; remaining?: number }> = [];
      for (;;) {
        const page = await s.list(p, { limit: 3, afterKey });
        pages.push({ n: page.items.length, more: page.more, remaining: page.remaining });
        seen.push(...page.items.map((i) => i.key));
        if (!page.more) break;
        afterKey = page.items[page.items.length - 1]!.key;
      }
      assert.deepEqual(seen, keys);
      assert.deepEqual(pages, [
        { n: 3, more: true, remaining: 4 },
        { n: 3, more: true, remaining: 1 },
        { n: 1, more: false, remaining: undefined },
      ]);
      const exact = await s.list(p, { limit: 7 });
      assert.equal(exact.items.length, 7);
      assert.equal(exact.more, false);
    });

    storeTest('paging at a fixed revision is a consistent snapshot while writes continue', async (s, p) => {
      const initial: KeyValue[] = [];
      for (let i = 0; i < 10; i++) initial.push(await s.create(`${p}k${i}`, `v${i}`));
      const first = await s.list(p, { limit: 4 });
      const at = first.revision;
      // Writes after the snapshot: update, delete, create before and after the page boundary.
      await s.update(`${p}k5`, 'changed', initial[5]!.modRevision);
      await s.delete(`${p}k6`);
      await s.delete(`${p}k1`);
      await s.create(`${p}k45`, 'new-in-middle');
      await s.create(`${p}k99`, 'new-at-end');
      const rest: KeyValue[] = [];
      let afterKey = first.items[first.items.length - 1]!.key;
      for (;;) {
        const page = await s.list(p, { revision: at, limit: 4, afterKey });
        assert.equal(page.revision, at);
        rest.push(...page.items);
        if (!page.more) break;
        afterKey = page.items[page.items.length - 1]!.key;
      }
      assert.deepEqual([...first.items, ...rest], initial, 'the pages together are the list as of the first page');
      const head = await s.list(p);
      assert.deepEqual(
        head.items.map((i) => i.key),
        ['k0', 'k2', 'k3', 'k4', 'k45', 'k5', 'k7', 'k8', 'k9', 'k99'].map((k) => `${p}${k}`),
      );
    });

    storeTest('count counts live keys under the prefix', async (s, p) => {
      assert.equal(await s.count(p), 0);
      for (let i = 0; i < 5; i++) await s.create(`${p}x/${i}`, 'v');
      await s.create(`${p}y/0`, 'v');
      await s.delete(`${p}x/3`);
      assert.equal(await s.count(`${p}x/`), 4);
      assert.equal(await s.count(p), 5);
    });

    storeTest('watch replays history after the revision, then delivers live events', async (s, p) => {
      const start = await s.currentRevision();
      const a1 = await s.create(`${p}a`, 'a1');
      const a2 = await s.update(`${p}a`, 'a2', a1.modRevision);
      await s.create(`${p}-outside`, 'not watched');
      const watcher = collect(s, `${p}w/`, start);
      const aWatcher = collect(s, `${p}a`, start);
      const b1 = await s.create(`${p}w/b`, 'b1');
      const b2 = await s.update(`${p}w/b`, 'b2', b1.modRevision);
      const bDel = await s.delete(`${p}w/b`);
      const b3 = await s.create(`${p}w/b`, 'b3');
      const events = await watcher.waitFor(4);
      assert.deepEqual(events, [
        { type: 'create', key: `${p}w/b`, value: 'b1', revision: b1.modRevision, createRevision: b1.createRevision },
        { type: 'update', key: `${p}w/b`, value: 'b2', prevValue: 'b1', revision: b2.modRevision, createRevision: b1.createRevision },
        { type: 'delete', key: `${p}w/b`, value: 'b2', prevValue: 'b2', revision: bDel.modRevision, createRevision: b1.createRevision },
        { type: 'create', key: `${p}w/b`, value: 'b3', revision: b3.modRevision, createRevision: b3.createRevision },
      ]);
      const replayed = await aWatcher.waitFor(2);
      assert.deepEqual(replayed, [
        { type: 'create', key: `${p}a`, value: 'a1', revision: a1.modRevision, createRevision: a1.createRevision },
        { type: 'update', key: `${p}a`, value: 'a2', prevValue: 'a1', revision: a2.modRevision, createRevision: a1.createRevision },
      ]);
      watcher.handle.stop();
      aWatcher.handle.stop();
      await s.update(`${p}w/b`, 'after-stop', b3.modRevision);
      await settle();
      assert.equal(watcher.events.length, 4, 'no events after stop');
      assert.equal(watcher.errors.length, 0);
    });

    storeTest('watch delivers every event exactly once, in order, when writes race with its replay', async (s, p) => {
      const start = await s.currentRevision();
      const written: number[] = [];
      // History the watch must replay.
      for (let i = 0; i < 40; i++) written.push((await s.create(`${p}k${i}`, `v${i}`)).modRevision);
      // Queued but not yet committed when the watch starts: they commit while the replay is pending.
      const racing: Promise<KeyValue>[] = [];
      for (let i = 40; i < 80; i++) racing.push(s.create(`${p}k${i}`, `v${i}`));
      const watcher = collect(s, p, start);
      written.push(...(await Promise.all(racing)).map((kv) => kv.modRevision));
      // And live writes after that.
      for (let i = 80; i < 120; i++) written.push((await s.create(`${p}k${i}`, `v${i}`)).modRevision);
      const events = await watcher.waitFor(120);
      assert.deepEqual(
        events.map((e) => e.revision),
        [...written].sort((x, y) => x - y),
      );
      await settle();
      assert.equal(watcher.events.length, 120, 'no duplicates');
      watcher.handle.stop();
    });

    storeTest('watch from the current revision delivers only later events; it never calls back synchronously', async (s, p) => {
      await s.create(`${p}old`, 'old');
      const now = await s.currentRevision();
      let synchronous = true;
      const events: StorageWatchEvent[] = [];
      const handle = s.watch(p, now, {
        onEvent: (e) => {
          assert.equal(synchronous, false);
          events.push(e);
        },
        onError: (err) => assert.fail(err),
      });
      synchronous = false;
      await settle();
      assert.equal(events.length, 0);
      const kv = await s.create(`${p}new`, 'new');
      await waitUntil(() => events.length === 1);
      assert.equal(events[0]!.revision, kv.modRevision);
      handle.stop();
      handle.stop();
    });

    storeTest('requestProgress answers with a revision through which every event under the prefix was delivered', async (s, p, t) => {
      // A backend that says its notifications are not reliable (etcd before 3.4.25/3.5.8 may notify ahead of its
      // events, or not at all while a member lags) does not give this guarantee; consistent lists then bypass the
      // watch cache (GenericStore), so nothing relies on it.
      if (s.progressNotifyReliable?.() === false) {
        t.skip('this etcd answers progress requests before delivering its events (fixed in 3.4.25/3.5.8)');
        return;
      }
      const start = await s.currentRevision();
      const events: StorageWatchEvent[] = [];
      /** Each notification's revision, and how many events had arrived before it. */
      const progress: { revision: number; seen: number }[] = [];
      const handle = s.watch(`${p}mine/`, start, {
        onEvent: (e) => void events.push(e),
        onError: (err) => assert.fail(err),
        onProgress: (revision) => void progress.push({ revision, seen: events.length }),
      });
      assert.ok(handle.requestProgress, 'the backend supports progress requests');
      const mine = await s.create(`${p}mine/a`, 'v');
      // Writes elsewhere move the store's revision without an event for this watch; progress reports them.
      await s.create(`${p}other/b`, 'v');
      const head = await s.currentRevision();
      // Asked again until answered: a backend answers only once the watch has caught up.
      await waitUntil(() => {
        if (progress.some((n) => n.revision >= head)) return true;
        handle.requestProgress!();
        return false;
      });
      // The event at or below the reported revision came before the notification, and no other.
      assert.equal(progress.find((n) => n.revision >= head)!.seen, 1);
      assert.deepEqual(
        events.map((e) => e.revision),
        [mine.modRevision],
      );
      handle.stop();
    });

    if (!opts.skipCompaction) {
      storeTest('watch and reads below the compacted revision fail with Compacted', async (s, p) => {
        const v0 = await s.create(`${p}a`, 'v0');
        const v1 = await s.update(`${p}a`, 'v1', v0.modRevision);
        const v2 = await s.update(`${p}a`, 'v2', v1.modRevision);
        await s.compact(v2.modRevision);
        assert.ok((await s.compactedRevision()) >= v2.modRevision);

        // A watch from v0 needs the event at v1, which is gone.
        let synchronous = true;
        const failure = new Promise<Error>((resolve, reject) => {
          s.watch(p, v0.modRevision, {
            onEvent: () => reject(new Error('no event may precede Compacted')),
            onError: (err) => (synchronous ? reject(new Error('onError called synchronously')) : resolve(err)),
          });
        });
        synchronous = false;
        const err = await failure;
        assert.ok(isStorageError(err, 'Compacted'), `expected Compacted, got ${String(err)}`);

        await expectStorageError(s.get(`${p}a`, v1.modRevision), 'Compacted');
        await expectStorageError(s.list(p, { revision: v1.modRevision }), 'Compacted');

        // A watch from just below the compacted revision starts with the event at it (its previous value
        // may be gone with the history).
        const fromBelow = collect(s, p, v1.modRevision);
        const [atCompacted] = await fromBelow.waitFor(1);
        assert.deepEqual(
          { type: atCompacted!.type, key: atCompacted!.key, value: atCompacted!.value, revision: atCompacted!.revision },
          { type: 'update', key: `${p}a`, value: 'v2', revision: v2.modRevision },
        );
        fromBelow.handle.stop();

        // At the compacted revision itself everything is still readable and watchable.
        assert.deepEqual(await s.get(`${p}a`, v2.modRevision), v2);
        const watcher = collect(s, p, v2.modRevision);
        const v3 = await s.update(`${p}a`, 'v3', v2.modRevision);
        assert.deepEqual(await watcher.waitFor(1), [
          { type: 'update', key: `${p}a`, value: 'v3', prevValue: 'v2', revision: v3.modRevision, createRevision: v1.createRevision },
        ]);
        watcher.handle.stop();
      });

      storeTest('compaction keeps every live value and the history above it', async (s, p) => {
        const live = new Map<string, KeyValue>();
        for (let i = 0; i < 30; i++) live.set(`${p}k${i}`, await s.create(`${p}k${i}`, `v${i}`));
        for (let i = 0; i < 30; i += 2) {
          const kv = live.get(`${p}k${i}`)!;
          live.set(kv.key, await s.update(kv.key, `${kv.value}-b`, kv.modRevision));
        }
        for (let i = 0; i < 30; i += 3) {
          await s.delete(`${p}k${i}`);
          live.delete(`${p}k${i}`);
        }
        const middle = await s.currentRevision();
        const later = await s.update(`${p}k1`, 'v1-c', live.get(`${p}k1`)!.modRevision);
        await s.compact(middle);
        assert.deepEqual(
          (await s.list(p, { revision: middle })).items,
          [...live.values()].sort((x, y) => (x.key < y.key ? -1 : 1)),
        );
        live.set(later.key, later);
        assert.deepEqual((await s.list(p)).items, [...live.values()].sort((x, y) => (x.key < y.key ? -1 : 1)));
        assert.equal(await s.count(p), live.size);
        await s.compact(await s.currentRevision());
        assert.deepEqual(await s.get(`${p}k1`), later);
      });
    }

    storeTest('concurrent updates with the same expected revision: exactly one wins', async (s, p) => {
      const base = await s.create(`${p}a`, 'base');
      const attempts = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => s.update(`${p}a`, `writer-${i}`, base.modRevision)),
      );
      const winners = attempts.filter((r): r is PromiseFulfilledResult<KeyValue> => r.status === 'fulfilled');
      assert.equal(winners.length, 1);
      for (const r of attempts) {
        if (r.status === 'rejected') assert.ok(isStorageError(r.reason, 'Conflict'), String(r.reason));
      }
      assert.deepEqual(await s.get(`${p}a`), winners[0]!.value);
    });

    storeTest('revisions strictly increase across writes of all kinds', async (s, p) => {
      let last = await s.currentRevision();
      const step = (kv: KeyValue) => {
        assert.ok(kv.modRevision > last, `${kv.modRevision} > ${last}`);
        last = kv.modRevision;
        return kv;
      };
      const a = step(await s.create(`${p}a`, '1'));
      step(await s.create(`${p}b`, '1'));
      const a2 = step(await s.update(`${p}a`, '2', a.modRevision));
      step(await s.delete(`${p}b`));
      step(await s.delete(`${p}a`, a2.modRevision));
      step(await s.create(`${p}a`, '3'));
      await expectStorageError(s.create(`${p}a`, 'x'), 'KeyExists');
      assert.equal(await s.currentRevision() >= last, true);
      step(await s.create(`${p}c`, '1'));
    });

    storeTest('many concurrent creates are all acknowledged with distinct revisions', async (s, p) => {
      const n = 500;
      const created = await Promise.all(Array.from({ length: n }, (_, i) => s.create(`${p}${String(i).padStart(4, '0')}`, `v${i}`)));
      assert.equal(new Set(created.map((kv) => kv.modRevision)).size, n);
      assert.equal(await s.count(p), n);
      const listed = await s.list(p);
      assert.deepEqual(listed.items, [...created].sort((x, y) => (x.key < y.key ? -1 : 1)));
    });

    storeTest('a failing write in a concurrent burst does not fail the others', async (s, p) => {
      const existing = await s.create(`${p}exists`, 'v');
      const results = await Promise.allSettled([
        s.create(`${p}x`, '1'),
        s.create(`${p}exists`, 'dup'),
        s.update(`${p}exists`, 'stale', existing.modRevision - 1),
        s.create(`${p}y`, '1'),
        s.update(`${p}exists`, 'fresh', existing.modRevision),
      ]);
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as { code?: string }).code)),
        ['ok', 'KeyExists', 'Conflict', 'ok', 'ok'],
      );
      assert.equal((await s.get(`${p}exists`))!.value, 'fresh');
    });

    storeTest('keys with non-ASCII characters stay inside their prefix', async (s, p) => {
      const keys = [`${p}ns/a`, `${p}ns/\u00e9`, `${p}ns/\uffef`, `${p}ns/\u{1f600}`, `${p}ns/\u{10ffff}`];
      for (const k of keys) await s.create(k, 'v');
      await s.create(`${p}ns0`, 'outside');
      await s.create(`${p}nt`, 'outside');
      const listed = (await s.list(`${p}ns/`)).items.map((i) => i.key);
      assert.deepEqual(new Set(listed), new Set(keys));
      assert.equal(await s.count(`${p}ns/`), keys.length);
    });
  });
}

/** Awaits a rejection and asserts it is a StorageError with code; returns it. */
export async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode) {
  try {
    await promise;
  } catch (err) {
    assert.ok(isStorageError(err, code), `expected StorageError ${code}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

interface Collector {
  events: StorageWatchEvent[];
  errors: Error[];
  handle: WatchHandle;
  /** Resolves with the first n events (fails after a timeout or on a watch error). */
  waitFor(n: number): Promise<StorageWatchEvent[]>;
}

function collect(s: Storage, prefix: string, fromRevision: number): Collector {
  const events: StorageWatchEvent[] = [];
  const errors: Error[] = [];
  const handle = s.watch(prefix, fromRevision, {
    onEvent: (e) => void events.push(e),
    onError: (err) => void errors.push(err),
  });
  return {
    events,
    errors,
    handle,
    async waitFor(n) {
      await waitUntil(() => events.length >= n || errors.length > 0);
      if (errors.length > 0) throw errors[0];
      return events.slice(0, n);
    },
  };
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Lets pending replays and deliveries run. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 30));
}
