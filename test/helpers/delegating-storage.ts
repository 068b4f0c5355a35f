/**
 * A Storage that hands every call to a real backend, for tests that watch or hold back one aspect of it: subclasses
 * override the calls they observe and inherit the rest.
 */
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, WatchHandle } from '../../src/storage/interface.js';

export class DelegatingStorage implements Storage {
  constructor(protected readonly inner: Storage) {}

  create(key: string, value: string): Promise<KeyValue> {
    return this.inner.create(key, value);
  }
  get(key: string, revision?: number): Promise<KeyValue | null> {
    return this.inner.get(key, revision);
  }
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision);
  }
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedModRevision);
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options);
  }
  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    return this.inner.watch(prefix, fromRevision, callbacks);
  }
  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
