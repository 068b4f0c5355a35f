/**
 * Classifies what the etcd3 client throws into the storage contract's StorageError codes, and decides
 * which failures are worth retrying on another member.
 */
import { StorageError } from '../errors.js';

/** gRPC status codes that matter here (grpc/status.h). */
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_RESOURCE_EXHAUSTED = 8;
const GRPC_OUT_OF_RANGE = 11;
const GRPC_UNAVAILABLE = 14;

/**
 * Maps an etcd client failure to a StorageError:
 * - "required revision has been compacted" → Compacted;
 * - "required revision is a future revision" → FutureRevision;
 * - a deadline, or etcd's own "request timed out" → Timeout (504);
 * - connection failures, "no leader", "leader changed", a stopping member → Unavailable (503);
 * - anything else → Unavailable with etcd's message (check isRequestTooLarge first: that is no outage).
 * A StorageError passes through unchanged.
 */
export function toStorageError(err: unknown, key: string, revision?: number): StorageError {
  if (err instanceof StorageError) return err;
  const message = messageOf(err);
  const code = grpcCode(err);
  if (message.includes('required revision has been compacted')) {
    return new StorageError('Compacted', key, `required revision ${revision ?? ''} has been compacted`.replace('  ', ' '));
  }
  if (message.includes('required revision is a future revision')) {
    return new StorageError('FutureRevision', key, `required revision ${revision ?? ''} is a future revision`.replace('  ', ' '));
  }
  if (code === GRPC_DEADLINE_EXCEEDED || /deadline exceeded|request timed out|DeadlineExceeded/i.test(message)) {
    return new StorageError('Timeout', key, `etcd request timed out: ${message}`);
  }
  return new StorageError('Unavailable', key, `etcd: ${message}`);
}

/**
 * True when etcd refused the request for its size: "etcdserver: request is too large" (over
 * --max-request-bytes) or the gRPC layer's "received message larger than max". kube-apiserver lets this
 * surface as an internal error with etcd's message; it is not a storage outage.
 */
export function isRequestTooLarge(err: unknown): boolean {
  const message = messageOf(err);
  return message.includes('request is too large') || (grpcCode(err) === GRPC_RESOURCE_EXHAUSTED && message.includes('larger than max'));
}

/**
 * Whether a failed call may be tried again (possibly on another member). A read may be repeated after any
 * transient failure. A write only when the failure proves it never left this process: no connection to
 * the member existed, the connection was refused, or the member's circuit breaker refused the call. A
 * connection lost after sending ("Connection dropped", ECONNRESET) or etcd's "leader changed" may follow
 * an applied write, and a blind retry could then apply it twice or report a stale NotFound/Conflict; like
 * clientv3, which retries mutations only when they were never sent, those surface as Unavailable.
 * Compaction, future revisions and size limits are permanent.
 */
export function isRetryable(err: unknown, write = false): boolean {
  if (err instanceof StorageError) return false;
  if (write) return neverSent(err);
  const message = messageOf(err);
  // "request timed out": etcd gave up waiting for the proposal, which may still be applied; retrying would also
  // outlast the caller's deadline.
  if (/compacted|future revision|too large|larger than max|request timed out/i.test(message)) return false;
  const code = grpcCode(err);
  if (code === GRPC_OUT_OF_RANGE) return false;
  return (
    code === GRPC_UNAVAILABLE ||
    /14 UNAVAILABLE|No connection established|ECONNREFUSED|ECONNRESET|etcd member skipped|no leader|leader changed|etcdserver: server stopped|connection closed|Connection dropped/i.test(
      message,
    )
  );
}

/**
 * grpc-js fails a call with "No connection established" when no subchannel was ready to carry it (whatever
 * the last connection error was); ECONNREFUSED comes only from a connect attempt; the host breaker
 * (etcd-client.ts) and etcd3's pool refuse before calling through.
 */
function neverSent(err: unknown): boolean {
  const message = messageOf(err);
  if (/No connection established|etcd member skipped|Connection pool has no hosts/i.test(message)) return true;
  return /ECONNREFUSED/.test(message) && !/ECONNRESET|Connection dropped|etcdserver:/i.test(message);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** etcd3 wraps gRPC errors in its own classes and drops `code`; the code survives in the message ("14 UNAVAILABLE: ..."). */
function grpcCode(err: unknown): number | undefined {
  const raw = (err as { code?: unknown }).code;
  if (typeof raw === 'number') return raw;
  const match = /^(?:\w+: )?(\d+) [A-Z_]+:/.exec(messageOf(err));
  return match ? Number(match[1]) : undefined;
}
