/**
 * The storage contract every backend (SQLite, etcd) implements. It knows keys, opaque values and
 * revisions; it never speaks HTTP and never parses objects. Errors are StorageError (see errors.ts),
 * translated to Kubernetes Status at exactly one seam in the registry.
 *
 * Revisions are one global, strictly increasing counter (etcd's revision). Every successful write
 * (create, update, delete) takes exactly one new revision. A key's modRevision is the revision of its
 * last write; createRevision that of the write that created its current incarnation.
 */
export interface KeyValue {
  key: string;
  /** The stored bytes as text (atrium stores JSON). */
  value: string;
  createRevision: number;
  modRevision: number;
}

export type WatchEventType = 'create' | 'update' | 'delete';

export interface StorageWatchEvent {
  type: WatchEventType;
  key: string;
  /** The new value; for 'delete', the value the key held just before deletion. */
  value: string;
  /** The value before this event; absent for 'create'. */
  prevValue?: string;
  /** The revision of this write (for a delete, the revision of the deletion itself). */
  revision: number;
  createRevision: number;
}

export interface ListOptions {
  /** Read at this revision (snapshot). 0 or undefined = current. Older than the compacted revision → Compacted. */
  revision?: number;
  /** Maximum number of items; 0 or undefined = no limit. */
  limit?: number;
  /** Exclusive lower bound: only keys strictly greater than this are returned (for paging). */
  afterKey?: string;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when more keys under the prefix exist after the last returned one. */
  more: boolean;
  /** When `more`, how many keys remain after the last returned one (best effort). */
  remaining?: number;
}

export interface WatchHandle {
  /** Stops delivering events. Idempotent. */
  stop(): void;
  /**
   * Asks for an onProgress call with a revision through which every event under the prefix has been delivered
   * (etcd's WatchProgressRequest). Best effort: the answer may never come (etcd answers only a watch that has caught
   * up), so a caller that needs it asks again.
   */
  requestProgress?(): void;
}

export interface WatchCallbacks {
  /** Events in revision order, each delivered exactly once. */
  onEvent(event: StorageWatchEvent): void;
  /** Terminal error (Compacted when fromRevision is too old, Unavailable when the backend is lost). No events follow. */
  onError(err: Error): void;
  /** Optional progress notification: every event up to this revision under the prefix has been delivered. */
  onProgress?(revision: number): void;
}

export interface Storage {
  /** Creates key only when it does not exist (or exists only as a deleted tombstone). Throws KeyExists. */
  create(key: string, value: string): Promise<KeyValue>;
  /** The current value, or the value as of `revision` when given. null when absent. */
  get(key: string, revision?: number): Promise<KeyValue | null>;
  /**
   * Compare-and-swap update: succeeds only when the key's current modRevision equals expectedModRevision.
   * Throws NotFound when the key is absent, Conflict (carrying the current KeyValue) when it moved.
   */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /**
   * Deletes key; with expectedModRevision, only when it still matches (Conflict otherwise). Returns the
   * deleted value with modRevision set to the revision of the deletion. Throws NotFound when absent.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Keys starting with prefix, in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** How many live keys start with prefix. */
  count(prefix: string): Promise<number>;
  /**
   * Events for keys under prefix with revision > fromRevision, in order, then live events.
   * The first revision it needs, fromRevision + 1, older than the compacted revision → onError(Compacted);
   * a watch from just below the compacted revision starts (kube watches from resourceVersion + 1). A
   * deletion at exactly the compacted revision is gone from history, as in etcd.
   */
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** The newest revision (0 for an empty store). */
  currentRevision(): Promise<number>;
  /**
   * Whether a watch's progress notification means every event up to its revision has been delivered. etcd before
   * 3.4.25 and 3.5.8 may answer a progress request ahead of the events (etcd issue 15220); a consistent list must
   * then not be served from a watch cache that caught up by one (kube-apiserver reads etcd then). Unset: reliable.
   */
  progressNotifyReliable?(): boolean;
  /** The oldest revision still readable (history before it is gone). */
  compactedRevision(): Promise<number>;
  /** Drops history at and before `revision` (never the live value of a key). */
  compact(revision: number): Promise<void>;
  /** Flushes and releases resources. Pending writes are either committed or rejected, never lost silently. */
  close(): Promise<void>;
}
