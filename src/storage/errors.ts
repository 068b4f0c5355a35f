import type { KeyValue } from './interface.js';

export type StorageErrorCode =
  | 'KeyExists'
  | 'NotFound'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Unavailable'
  | 'Timeout';

/** The only error type storage backends throw for expected conditions; the registry maps it to a Status. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Conflict: the current value; for Compacted: nothing. */
    readonly current?: KeyValue,
    /** For Compacted / FutureRevision: the revision the store has (compacted or current). */
    readonly revision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

/** NotFound for a key the operation needs to exist. */
export function keyNotFound(key: string): StorageError {
  return new StorageError('NotFound', key, `key ${key} not found`);
}

/** Conflict: the key's current value has another modRevision than the one the write expected. */
export function modRevisionConflict(key: string, current: KeyValue, expected: number | undefined): StorageError {
  return new StorageError('Conflict', key, `key ${key} has modRevision ${current.modRevision}, expected ${expected}`, current);
}

/** Compacted: reading from `required` needs history that compaction (through `compacted`) removed. */
export function revisionCompacted(key: string, required: number, compacted: number): StorageError {
  return new StorageError('Compacted', key, `required revision ${required} has been compacted (compacted revision ${compacted})`, undefined, compacted);
}
