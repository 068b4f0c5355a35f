import { errors, type GroupResource, StatusError } from '../../apimachinery/status.js';
import { isStorageError } from '../../storage/errors.js';

/**
 * The one seam where storage errors become Kubernetes Status errors (k8s.io/apiserver pkg/storage/errors).
 * Anything that is not a StorageError passes through unchanged.
 */
export function translateStorageError(err: unknown, gr: GroupResource, name: string): unknown {
  if (err instanceof StatusError || !isStorageError(err)) return err;
  switch (err.code) {
    case 'KeyExists':
      return errors.alreadyExists(gr, name);
    case 'NotFound':
      return errors.notFound(gr, name);
    case 'Conflict':
      return errors.conflictModified(gr, name);
    case 'Compacted':
      return errors.expired(`too old resource version: ${err.message}`);
    case 'FutureRevision':
      return errors.timeout(`Too large resource version: ${err.message}`, 1);
    case 'Timeout':
      return errors.timeout(err.message, 1);
    case 'Unavailable':
      return errors.serviceUnavailable(`storage is unavailable: ${err.message}`);
  }
}
