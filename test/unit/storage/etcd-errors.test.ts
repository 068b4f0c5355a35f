/** How etcd client failures map onto the storage contract's codes, and which ones are retried. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GRPCDeadlineExceededError, GRPCOutOfRangeError, GRPCUnavailableError, EtcdError, GRPCResourceExhastedError } from 'etcd3';
import { StorageError } from '../../../src/storage/errors.js';
import { isRequestTooLarge, isRetryable, toStorageError } from '../../../src/storage/etcd/etcd-errors.js';

const cases: Array<{ name: string; err: Error; code: string; retry: boolean; tooLarge?: boolean }> = [
  { name: 'compacted read', err: new GRPCOutOfRangeError('11 OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted'), code: 'Compacted', retry: false },
  { name: 'future revision', err: new GRPCOutOfRangeError('11 OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision'), code: 'FutureRevision', retry: false },
  { name: 'client deadline', err: new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded after 5.000s'), code: 'Timeout', retry: false },
  { name: 'etcd request timed out', err: new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: request timed out'), code: 'Timeout', retry: false },
  { name: 'connection refused', err: new GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379'), code: 'Unavailable', retry: true },
  { name: 'no leader', err: new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: no leader'), code: 'Unavailable', retry: true },
  { name: 'leader changed', err: new EtcdError('etcdserver: leader changed'), code: 'Unavailable', retry: true },
  { name: 'request too large', err: new EtcdError('3 INVALID_ARGUMENT: etcdserver: request is too large'), code: 'Unavailable', retry: false, tooLarge: true },
  { name: 'gRPC size limit', err: new GRPCResourceExhastedError('8 RESOURCE_EXHAUSTED: grpc: received message larger than max (2097278 vs. 2097152)'), code: 'Unavailable', retry: false, tooLarge: true },
];

for (const c of cases) {
  test(`${c.name} → ${c.code}${c.retry ? ', retried' : ''}`, () => {
    const mapped = toStorageError(c.err, '/k');
    assert.ok(mapped instanceof StorageError);
    assert.equal(mapped.code, c.code);
    assert.equal(mapped.key, '/k');
    assert.equal(isRetryable(c.err), c.retry);
    assert.equal(isRequestTooLarge(c.err), c.tooLarge ?? false);
  });
}

// A write is retried only when the failure proves it was never sent; otherwise it may have been applied.
const writes: Array<{ name: string; err: Error; retry: boolean }> = [
  { name: 'no connection established', err: new GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: read ECONNRESET'), retry: true },
  { name: 'connection refused', err: new GRPCUnavailableError('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:2379'), retry: true },
  { name: 'member skipped by the breaker', err: new Error('etcd member skipped after repeated connection failures'), retry: true },
  { name: 'connection reset after sending', err: new GRPCUnavailableError('14 UNAVAILABLE: read ECONNRESET'), retry: false },
  { name: 'connection dropped', err: new GRPCUnavailableError('14 UNAVAILABLE: Connection dropped'), retry: false },
  { name: 'leader changed', err: new EtcdError('etcdserver: leader changed'), retry: false },
  { name: 'no leader', err: new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: no leader'), retry: false },
  { name: 'server stopped', err: new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: server stopped'), retry: false },
];

for (const c of writes) {
  test(`write: ${c.name} → ${c.retry ? 'retried' : 'not retried'}; a read is retried`, () => {
    assert.equal(isRetryable(c.err, true), c.retry);
    assert.equal(isRetryable(c.err, false), true);
  });
}

test('a StorageError passes through and is never retried', () => {
  const err = new StorageError('Conflict', '/k', 'moved');
  assert.equal(toStorageError(err, '/other'), err);
  assert.equal(isRetryable(err), false);
});
