import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { prefixUpperBound } from '../../../src/storage/sqlite/key-range.js';
import { openSqliteDatabase } from '../../../src/storage/sqlite/sqlite-driver.js';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { runStorageConformance } from '../../../src/storage/testing/conformance.js';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-sqlite-'));
  tempDirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

runStorageConformance('sqlite (file)', async () => SqliteStore.open(join(tempDir(), 'store.db')));
runStorageConformance('sqlite (memory, NORMAL)', async () => SqliteStore.open(':memory:', { synchronous: 'NORMAL' }));

describe('prefixUpperBound', () => {
  const cases: Array<[string, string | null]> = [
    ['', null],
    ['/registry/', '/registry0'],
    ['a', 'b'],
    ['a\u{10ffff}', 'b'],
    ['\u{10ffff}', null],
    ['x\ud7ff', 'x\ue000'],
    ['x\uffff', 'x\u{10000}'],
    ['x\u{1f600}', 'x\u{1f601}'],
  ];
  for (const [prefix, bound] of cases) {
    test(`${JSON.stringify(prefix)} → ${JSON.stringify(bound)}`, () => {
      assert.equal(prefixUpperBound(prefix), bound);
    });
  }
});

describe('SqliteStore durability and history', () => {
  test('restart keeps data, history and the revision counter', async () => {
    const path = join(tempDir(), 'restart.db');
    const s1 = SqliteStore.open(path);
    const a = await s1.create('/registry/core/pods/c/ns/a', 'a1');
    const a2 = await s1.update(a.key, 'a2', a.modRevision);
    await s1.create('/registry/core/pods/c/ns/b', 'b1');
    const bDeleted = await s1.delete('/registry/core/pods/c/ns/b');
    await s1.close();

    const s2 = SqliteStore.open(path);
    assert.equal(await s2.currentRevision(), bDeleted.modRevision, 'a trailing delete still counts');
    assert.deepEqual(await s2.get(a.key), a2);
    assert.deepEqual(await s2.get(a.key, a.modRevision), a);
    const c = await s2.create('/registry/core/pods/c/ns/c', 'c1');
    assert.equal(c.modRevision, bDeleted.modRevision + 1);
    await s2.close();
  });

  test('revisions move forward after compaction removed the newest rows', async () => {
    const path = join(tempDir(), 'compact-restart.db');
    const s1 = SqliteStore.open(path);
    await s1.create('/registry/core/pods/c/ns/a', 'a1');
    await s1.create('/registry/core/pods/c/ns/b', 'b1');
    const deleted = await s1.delete('/registry/core/pods/c/ns/b');
    await s1.compact(deleted.modRevision);
    await s1.close();

    assert.equal(countLogRows(path, 'rev > 1'), 0, 'the tombstone and what it superseded are gone');
    const s2 = SqliteStore.open(path);
    assert.equal(await s2.currentRevision(), deleted.modRevision);
    assert.equal(await s2.compactedRevision(), deleted.modRevision);
    const next = await s2.create('/registry/core/pods/c/ns/b', 'b2');
    assert.equal(next.modRevision, deleted.modRevision + 1);
    await s2.close();
  });

  test('compaction deletes superseded history and tombstones but keeps live values', async () => {
    const path = join(tempDir(), 'compact.db');
    const s = SqliteStore.open(path, { compactionBatch: 7 });
    const live = new Map<string, string>();
    for (let i = 0; i < 50; i++) {
      const key = `/registry/core/configmaps/c/ns/k${String(i).padStart(2, '0')}`;
      let kv = await s.create(key, `v${i}`);
      for (let u = 0; u < 3; u++) kv = await s.update(key, `v${i}.${u}`, kv.modRevision);
      if (i % 5 === 0) await s.delete(key);
      else live.set(key, kv.value);
    }
    const head = await s.currentRevision();
    // Writes keep flowing while the compaction works through its batches.
    const compaction = s.compact(head);
    const during = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.create(`/registry/core/configmaps/c/other/n${i}`, 'x')),
    );
    await compaction;
    assert.equal(during.length, 20);
    const listed = await s.list('/registry/core/configmaps/c/ns/');
    assert.deepEqual(new Map(listed.items.map((i) => [i.key, i.value])), live);
    await s.close();
    assert.equal(countLogRows(path, `rev <= ${head}`), live.size, 'only the live row of each key remains');
  });

  test('a child killed with SIGKILL loses none of the writes it acknowledged', async () => {
    const path = join(tempDir(), 'crash.db');
    const storeModule = fileURLToPath(new URL('../../../src/storage/sqlite/sqlite-store.js', import.meta.url));
    const script = `
      const { SqliteStore } = await import(${JSON.stringify(storeModule)});
      const store = SqliteStore.open(process.argv[1]);
      const value = 'x'.repeat(1024);
      let next = 0;
      async function writer() {
        for (;;) {
          const key = '/registry/core/pods/c/ns/p' + next++;
          const kv = await store.create(key, value);
          process.stdout.write('ack ' + key + ' ' + kv.modRevision + '\\n');
        }
      }
      for (let i = 0; i < 16; i++) writer();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked = new Map<string, number>();
    let partial = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const [, key, rev] = line.split(' ');
        acked.set(key!, Number(rev));
      }
      if (acked.size >= 2000 && !child.killed) child.kill('SIGKILL');
    });
    const signal = await exited;
    assert.equal(signal, 'SIGKILL');
    assert.ok(acked.size >= 2000, `child acknowledged ${acked.size} writes`);

    const s = SqliteStore.open(path);
    try {
      for (const [key, rev] of acked) {
        const kv = await s.get(key);
        assert.ok(kv, `acknowledged ${key} survived`);
        assert.equal(kv.modRevision, rev);
      }
      assert.ok((await s.currentRevision()) >= Math.max(...acked.values()));
    } finally {
      await s.close();
    }
  });

  test('close commits writes that were still queued', async () => {
    const path = join(tempDir(), 'close.db');
    const s1 = SqliteStore.open(path);
    const pending = Array.from({ length: 10 }, (_, i) => s1.create(`/registry/core/pods/c/ns/q${i}`, 'v'));
    await s1.close();
    const committed = await Promise.all(pending);
    assert.equal(committed.length, 10);
    await assert.rejects(s1.create('/registry/core/pods/c/ns/late', 'v'), { code: 'Unavailable' });
    const s2 = SqliteStore.open(path);
    assert.equal(await s2.count('/registry/core/pods/'), 10);
    await s2.close();
  });

  test('watches are ended with Unavailable on close', async () => {
    const s = SqliteStore.open(':memory:');
    const failure = new Promise<Error>((resolve) => s.watch('/registry/', 0, { onEvent() {}, onError: resolve }));
    await new Promise((resolve) => setImmediate(resolve));
    await s.close();
    assert.equal(((await failure) as { code?: string }).code, 'Unavailable');
  });
});

function countLogRows(path: string, where: string): number {
  const db = openSqliteDatabase(path);
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM log WHERE ${where}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}
