/**
 * Updates start from the watch cache's copy of the object (as upstream's GuaranteedUpdate takes the cacher's), and
 * whatever an attempt concludes from a copy that is behind storage is checked against a fresh read. The server runs on
 * a real SqliteStore whose watch deliveries for ConfigMaps this test can hold back (SQLite otherwise publishes a
 * commit's events before the write returns, so the cache would never be behind): every HTTP answer must be the one a
 * server reading storage for each update gives.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, WatchHandle } from '../../src/storage/interface.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { DelegatingStorage } from '../helpers/delegating-storage.js';
import { startTestServer, type TestServer } from '../helpers/harness.js';

/** A real store whose watches of one prefix can be held: events and progress notifications queue, in order. */
class HoldableWatchStorage extends DelegatingStorage {
  private held: string | undefined;
  private readonly queued: Array<() => void> = [];
  /** Keys read with get(), in order. */
  readonly gets: string[] = [];

  hold(prefix: string): void {
    this.held = prefix;
  }

  release(): void {
    this.held = undefined;
    for (const deliver of this.queued.splice(0)) deliver();
  }

  override watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    const gate = (deliver: () => void) => {
      if (this.held !== undefined && prefix.startsWith(this.held)) this.queued.push(deliver);
      else deliver();
    };
    return this.inner.watch(prefix, fromRevision, {
      onEvent: (e) => gate(() => callbacks.onEvent(e)),
      onError: (err) => callbacks.onError(err),
      ...(callbacks.onProgress ? { onProgress: (r: number) => gate(() => callbacks.onProgress!(r)) } : {}),
    });
  }

  override get(key: string, revision?: number): Promise<KeyValue | null> {
    this.gets.push(key);
    return this.inner.get(key, revision);
  }
}

describe('updates from the watch cache', () => {
  let ts: TestServer;
  let storage: HoldableWatchStorage;
  let rootDir: string;
  let ns = 0;

  before(async () => {
    rootDir = mkdtempSync(join(tmpdir(), 'atrium-update-cache-'));
    storage = new HoldableWatchStorage(SqliteStore.open(join(rootDir, 'store.db')));
    ts = await startTestServer({ rootDir, server: { storage } });
  });
  after(async () => {
    storage?.release();
    await ts?.stop();
    await storage?.close();
    rmSync(rootDir, { recursive: true, force: true });
  });

  /** A namespace with ConfigMap `cm` at its first revision, the ConfigMaps loaded in the cache, then held. */
  async function staleSetup(): Promise<{ base: string; first: any; second: any }> {
    const n = `uc${++ns}`;
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: n } })).status, 201);
    const base = `/api/v1/namespaces/${n}/configmaps`;
    const first = await ts.request('POST', base, { metadata: { name: 'cm' }, data: { v: '1' } });
    assert.equal(first.status, 201, first.text);
    // A list loads the ConfigMaps into the cache and waits until it holds the create.
    assert.equal((await ts.request('GET', base)).status, 200);
    storage.hold('/registry/core/configmaps/');
    // Written while the cache cannot see it: the cache still holds revision `first`.
    const second = await ts.request('PUT', `${base}/cm`, { metadata: { name: 'cm', resourceVersion: first.json.metadata.resourceVersion }, data: { v: '2' } });
    assert.equal(second.status, 200, second.text);
    return { base, first: first.json, second: second.json };
  }

  test('an update whose cached copy is current does not read storage', async () => {
    const n = `uc${++ns}`;
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { metadata: { name: n } })).status, 201);
    const base = `/api/v1/namespaces/${n}/configmaps`;
    const created = await ts.request('POST', base, { metadata: { name: 'cm' }, data: { v: '1' } });
    assert.equal((await ts.request('GET', base)).status, 200);
    storage.gets.length = 0;
    const updated = await ts.request('PUT', `${base}/cm`, { metadata: { name: 'cm', resourceVersion: created.json.metadata.resourceVersion }, data: { v: '2' } });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(storage.gets.filter((k) => k.endsWith(`/${n}/cm`)), []);
  });

  test('an update with the current resourceVersion succeeds while the cache is behind', async () => {
    const { base, second } = await staleSetup();
    try {
      const third = await ts.request('PUT', `${base}/cm`, { metadata: { name: 'cm', resourceVersion: second.metadata.resourceVersion }, data: { v: '3' } });
      assert.equal(third.status, 200, third.text);
      assert.deepEqual(third.json.data, { v: '3' });
      assert.ok(Number(third.json.metadata.resourceVersion) > Number(second.metadata.resourceVersion));
    } finally {
      storage.release();
    }
    const got = await ts.request('GET', `${base}/cm`);
    assert.deepEqual(got.json.data, { v: '3' });
  });

  test('an update with the resourceVersion the cache holds is still a conflict', async () => {
    const { base, first } = await staleSetup();
    try {
      const stale = await ts.request('PUT', `${base}/cm`, { metadata: { name: 'cm', resourceVersion: first.metadata.resourceVersion }, data: { v: 'x' } });
      assert.equal(stale.status, 409, stale.text);
      assert.equal(stale.json.reason, 'Conflict');
      assert.equal(stale.json.message, 'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again');
    } finally {
      storage.release();
    }
  });

  test('an update that changes nothing answers the current object, not the cached one', async () => {
    const { base, second } = await staleSetup();
    try {
      // The body equals what storage holds, so nothing is written; against the cached copy it would look like a change.
      const same = await ts.request('PUT', `${base}/cm`, { metadata: { name: 'cm' }, data: { v: '2' } });
      assert.equal(same.status, 200, same.text);
      assert.equal(same.json.metadata.resourceVersion, second.metadata.resourceVersion);
      // And a body equal to the cached copy is a real change back.
      const back = await ts.request('PUT', `${base}/cm`, { metadata: { name: 'cm' }, data: { v: '1' } });
      assert.equal(back.status, 200, back.text);
      assert.ok(Number(back.json.metadata.resourceVersion) > Number(second.metadata.resourceVersion));
      assert.deepEqual(back.json.data, { v: '1' });
    } finally {
      storage.release();
    }
  });

  test('a patch and a dry run see the current object, not the cached one', async () => {
    const { base, second } = await staleSetup();
    try {
      const patched = await ts.request('PATCH', `${base}/cm`, { data: { w: 'p' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.json.data, { v: '2', w: 'p' });
    } finally {
      storage.release();
    }
    const { base: base2, second: second2 } = await staleSetup();
    try {
      const dry = await ts.request('PUT', `${base2}/cm?dryRun=All`, { metadata: { name: 'cm', resourceVersion: second2.metadata.resourceVersion }, data: { v: 'dry' } });
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.json.metadata.resourceVersion, second2.metadata.resourceVersion);
    } finally {
      storage.release();
    }
    void second;
  });
});
