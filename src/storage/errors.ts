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
