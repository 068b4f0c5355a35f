/**
 * atrium's etcd Range/Txn codec against an independent encoder and decoder: protobufjs loading etcd's own proto files
 * (as shipped with the etcd3 client). Requests atrium encodes must read back as the fields meant (a zero
 * create_revision in a Compare included: it is a oneof member, so etcd needs it on the wire), and responses protobufjs
 * encodes (revisions beyond 2^32, non-ASCII keys, unknown fields) must decode to the same values.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { decodeRangeResponse, decodeTxnResponse, encodeRangeRequest, encodeTxnRequest } from '../../../src/storage/etcd/etcd-kv-codec.js';

const protoDir = join(dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto');
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(protoDir, target.replace(/^.*\//, ''));
root.loadSync(['rpc.proto', 'kv.proto'], { keepCase: true });
const T = (name: string) => root.lookupType(name);
const toObject = (type: string, bytes: Buffer) => T(type).toObject(T(type).decode(bytes), { longs: String, bytes: String, defaults: false, oneofs: true });
const b = (s: string) => Buffer.from(s, 'utf8');

test('a Range request reads back with every field it sets', () => {
  const o = toObject('etcdserverpb.RangeRequest', encodeRangeRequest({ key: b('/registry/a'), rangeEnd: b('/registry/b'), limit: 1000, revision: 2 ** 40 + 7, countOnly: true }));
  assert.deepEqual(o, {
    key: b('/registry/a').toString('base64'),
    range_end: b('/registry/b').toString('base64'),
    limit: '1000',
    revision: String(2 ** 40 + 7),
    count_only: true,
  });
});

test('a Txn request reads back: compares (a zero revision included), put, range and delete operations', () => {
  const k = b('/registry/core/configmaps/c/ns/é');
  const bytes = encodeTxnRequest({
    compare: [
      { key: k, target: 'create', result: 'equal', revision: 0 },
      { key: k, target: 'mod', result: 'equal', revision: 2 ** 35 },
      { key: k, target: 'create', result: 'greater', revision: 0 },
    ],
    success: [{ put: { key: k, value: b('{"v":"ü"}'), prevKv: true } }, { deleteRange: { key: k, prevKv: true } }],
    failure: [{ range: { key: k } }],
  });
  const o = toObject('etcdserverpb.TxnRequest', bytes) as any;
  const key = k.toString('base64');
  assert.deepEqual(o.compare, [
    { target: 1, key, create_revision: '0', target_union: 'create_revision' },
    { target: 2, key, mod_revision: String(2 ** 35), target_union: 'mod_revision' },
    { result: 1, target: 1, key, create_revision: '0', target_union: 'create_revision' },
  ]);
  assert.deepEqual(o.success, [
    { request_put: { key, value: b('{"v":"ü"}').toString('base64'), prev_kv: true }, request: 'request_put' },
    { request_delete_range: { key, prev_kv: true }, request: 'request_delete_range' },
  ]);
  assert.deepEqual(o.failure, [{ request_range: { key }, request: 'request_range' }]);
});

test('a Range response decodes revisions beyond 2^32, UTF-8 keys and values, more and count; unknown fields are skipped', () => {
  const kv = (key: string, value: string, create: number, mod: number) => ({ key: b(key), value: b(value), create_revision: create, mod_revision: mod, version: 3, lease: 9 });
  const message = T('etcdserverpb.RangeResponse').fromObject({
    header: { cluster_id: '18446744073709551615', member_id: 5, revision: 2 ** 45 + 1, raft_term: 4 },
    kvs: [kv('/k/ä', '{"a":"ß"}', 2 ** 33, 2 ** 34 + 3), kv('/k/b', '', 1, 2)],
    more: true,
    count: 12345678901,
  });
  const decoded = decodeRangeResponse(Buffer.from(T('etcdserverpb.RangeResponse').encode(message).finish()));
  assert.deepEqual(decoded, {
    revision: 2 ** 45 + 1,
    kvs: [
      { key: '/k/ä', value: '{"a":"ß"}', createRevision: 2 ** 33, modRevision: 2 ** 34 + 3 },
      { key: '/k/b', value: '', createRevision: 1, modRevision: 2 },
    ],
    more: true,
    count: 12345678901,
  });
});

test('a Txn response decodes succeeded and each operation: range, put with prev_kv, delete with prev_kvs', () => {
  const prev = { key: b('/k'), value: b('old'), create_revision: 10, mod_revision: 11 };
  const message = T('etcdserverpb.TxnResponse').fromObject({
    header: { revision: 99 },
    succeeded: true,
    responses: [
      { response_put: { header: { revision: 99 }, prev_kv: prev } },
      { response_delete_range: { header: { revision: 99 }, deleted: 1, prev_kvs: [prev] } },
      { response_range: { header: { revision: 99 }, kvs: [prev], count: 1 } },
      { response_put: { header: { revision: 99 } } },
    ],
  });
  const decoded = decodeTxnResponse(Buffer.from(T('etcdserverpb.TxnResponse').encode(message).finish()));
  const prevKv = { key: '/k', value: 'old', createRevision: 10, modRevision: 11 };
  assert.deepEqual(decoded, {
    revision: 99,
    succeeded: true,
    responses: [
      { put: { prevKv } },
      { deleteRange: { deleted: 1, prevKvs: [prevKv] } },
      { range: { revision: 99, kvs: [prevKv], more: false, count: 1 } },
      { put: {} },
    ],
  });
  // A failed transaction (succeeded absent on the wire) with an empty range.
  const failed = T('etcdserverpb.TxnResponse').fromObject({ header: { revision: 5 }, responses: [{ response_range: { header: { revision: 5 } } }] });
  assert.deepEqual(decodeTxnResponse(Buffer.from(T('etcdserverpb.TxnResponse').encode(failed).finish())), {
    revision: 5,
    succeeded: false,
    responses: [{ range: { revision: 5, kvs: [], more: false, count: 0 } }],
  });
});

test('a truncated response is an error, not a wrong value', () => {
  const message = T('etcdserverpb.RangeResponse').fromObject({ header: { revision: 7 }, kvs: [{ key: b('/k'), value: b('v'), create_revision: 1, mod_revision: 2 }] });
  const bytes = Buffer.from(T('etcdserverpb.RangeResponse').encode(message).finish());
  assert.throws(() => decodeRangeResponse(bytes.subarray(0, bytes.length - 1)), /truncated/);
});
