import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from '../../../src/client/work-queue.js';
import { Store, formatObjectKey, parseObjectKey, keyOf } from '../../../src/client/store.js';

describe('WorkQueue', () => {
  it('dedups waiting keys and hands them out in order', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
  });

  it('a key added while processing is queued again only after done()', async () => {
    const q = new WorkQueue();
    q.add('a');
    const k = await q.get();
    q.add('a');
    assert.equal(q.length, 0, 'not handed to a second worker while in process');
    q.done(k!);
    assert.equal(q.length, 1);
    assert.equal(await q.get(), 'a');
  });

  it('waiting get() receives a key added later; shutDown releases waiters with undefined', async () => {
    const q = new WorkQueue();
    const p = q.get();
    q.add('x');
    assert.equal(await p, 'x');
    const w = q.get();
    q.shutDown();
    assert.equal(await w, undefined);
    q.add('y');
    assert.equal(await q.get(), undefined);
  });

  it('backoff grows per key, is capped, and forget() resets it', () => {
    const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 100 });
    const table: [number, number][] = [
      [0, 10],
      [1, 20],
      [2, 40],
      [3, 80],
      [4, 100],
      [40, 100],
    ];
    for (const [n, ms] of table) assert.equal(q.backoff(n), ms, `failure ${n}`);
    q.addRateLimited('k');
    q.addRateLimited('k');
    assert.equal(q.numRequeues('k'), 2);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
    q.shutDown();
  });

  it('addAfter delivers after the delay, keeping the earliest of two schedules', async () => {
    const q = new WorkQueue();
    // The queue's timers are unref'd (they must not keep a server alive); keep the test process alive meanwhile.
    const keepAlive = setTimeout(() => {}, 1_000);
    const started = Date.now();
    q.addAfter('k', 200);
    q.addAfter('k', 30);
    assert.equal(await q.get(), 'k');
    clearTimeout(keepAlive);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 25 && elapsed < 190, `delivered after ${elapsed} ms`);
    q.shutDown();
  });
});

describe('Store', () => {
  it('keys objects by cluster, namespace and name, reading the wildcard annotation', () => {
    const table: [any, string][] = [
      [{ metadata: { name: 'a', namespace: 'ns' } }, 'root|ns/a'],
      [{ metadata: { name: 'n' } }, 'root|/n'],
      [{ metadata: { name: 'a', namespace: 'ns', annotations: { 'kcp.io/cluster': 'c1' } } }, 'c1|ns/a'],
    ];
    for (const [obj, key] of table) {
      assert.equal(keyOf(obj), key);
      assert.deepEqual(formatObjectKey(parseObjectKey(key)), key);
    }
  });

  it('keeps indices in step with upserts and removals', () => {
    const s = new Store<any>((o) => keyOf(o));
    s.addIndexer('owner', (o) => (o.metadata.ownerReferences ?? []).map((r: any) => r.uid));
    s.upsert({ metadata: { name: 'a', ownerReferences: [{ uid: 'u1' }] } });
    s.upsert({ metadata: { name: 'b', ownerReferences: [{ uid: 'u1' }, { uid: 'u2' }] } });
    assert.deepEqual(s.byIndex('owner', 'u1').map((o) => o.metadata.name).sort(), ['a', 'b']);
    s.upsert({ metadata: { name: 'b', ownerReferences: [{ uid: 'u2' }] } });
    assert.deepEqual(s.byIndex('owner', 'u1').map((o) => o.metadata.name), ['a']);
    s.remove('root|/a');
    assert.deepEqual(s.byIndex('owner', 'u1'), []);
    assert.equal(s.size, 1);
    assert.throws(() => s.byIndex('nope', 'x'), /no index named "nope"/);
  });
});
