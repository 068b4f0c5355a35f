/**
 * The SQLite backend on a worker thread (ThreadedStorage, what `atrium start` uses by default): the storage
 * conformance suite, and that an acknowledged write is in the file when the store is closed and opened again —
 * on the thread and on the server's thread alike (they share the file format).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.js';
import { ThreadedStorage } from '../../../src/storage/threaded/threaded-storage.js';
import { runStorageConformance } from '../../../src/storage/testing/conformance.js';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-sqlite-threaded-'));
  tempDirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

runStorageConformance('sqlite (file) on a worker thread', () => ThreadedStorage.start({ backend: 'sqlite', path: join(tempDir(), 'store.db') }));

describe('sqlite on a worker thread', () => {
  test('acknowledged writes survive closing and reopening, on the thread or not', async () => {
    const path = join(tempDir(), 'store.db');
    const first = await ThreadedStorage.start({ backend: 'sqlite', path });
    const writes = await Promise.all(Array.from({ length: 50 }, (_, i) => first.create(`/registry/t/k${i}`, `v${i}`)));
    const last = await first.update('/registry/t/k0', 'changed', writes[0]!.modRevision);
    await first.close();

    const again = await ThreadedStorage.start({ backend: 'sqlite', path });
    assert.equal((await again.get('/registry/t/k0'))!.value, 'changed');
    assert.equal(await again.count('/registry/t/'), 50);
    assert.equal(await again.currentRevision(), last.modRevision);
    await again.close();

    const direct = SqliteStore.open(path);
    assert.equal((await direct.list('/registry/t/')).items.length, 50);
    await direct.close();
  });

  test('a file that cannot be opened fails the start with SQLite\'s message', async () => {
    await assert.rejects(ThreadedStorage.start({ backend: 'sqlite', path: join(tempDir(), 'missing-dir', 'x', 'store.db') }), /directory does not exist|unable to open/i);
  });
});
