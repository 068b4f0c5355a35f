/**
 * The messages between ThreadedStorage (the server's thread) and the storage worker (storage-worker.ts). Both sides
 * send arrays of messages: everything one side produces in one turn of its event loop goes in one postMessage, so a
 * burst of requests or events costs one structured clone and one wake-up of the other thread, not one per message.
 * One MessagePort carries requests, replies and watch events alike, so the worker's order is the order seen here.
 */
import type { EtcdStoreOptions } from '../etcd/etcd-store.js';
import type { SqliteStoreOptions } from '../sqlite/sqlite-store.js';
import type { StorageErrorCode } from '../errors.js';
import type { KeyValue, ListOptions, StorageWatchEvent } from '../interface.js';

/** What the worker hosts: the etcd backend (its gRPC client and codec), or the SQLite file (its commits and fsyncs). */
export type StorageWorkerConfig =
  | {
      backend: 'etcd';
      etcd: EtcdStoreOptions;
      /** Run etcd's compaction rounds in the worker (etcd-compactor.ts), every intervalMs (default 5 min); absent: none. */
      compaction?: { intervalMs?: number };
    }
  | { backend: 'sqlite'; path: string; options?: SqliteStoreOptions };

/** Calls the server's thread makes, each answered by exactly one Reply with the same id. */
export type Call =
  | { op: 'create'; key: string; value: string }
  | { op: 'get'; key: string; revision?: number }
  | { op: 'update'; key: string; value: string; expected: number }
  | { op: 'delete'; key: string; expected?: number }
  | { op: 'list'; prefix: string; options?: ListOptions }
  | { op: 'count'; prefix: string }
  | { op: 'currentRevision' }
  | { op: 'compactedRevision' }
  | { op: 'compact'; revision: number }
  | { op: 'close' };

export type ToWorker =
  | { t: 'call'; id: number; call: Call }
  | { t: 'watch'; watch: number; prefix: string; from: number }
  | { t: 'progress'; watch: number }
  | { t: 'unwatch'; watch: number };

/** A StorageError as data (structured clone keeps no class); anything else travels as its message. */
export interface ErrorData {
  storage?: { code: StorageErrorCode; key: string; current?: KeyValue; revision?: number };
  message: string;
}

export type FromWorker =
  | { t: 'ready'; progressNotifyReliable: boolean }
  | { t: 'startFailed'; message: string }
  | { t: 'reply'; id: number; value?: unknown; error?: ErrorData }
  | { t: 'event'; watch: number; event: StorageWatchEvent }
  | { t: 'watchProgress'; watch: number; revision: number }
  | { t: 'watchError'; watch: number; error: ErrorData }
  | { t: 'health'; healthy: boolean; message: string };
