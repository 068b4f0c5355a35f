/**
 * The protobuf encoding of the etcd KV calls on the hot path (Range and Txn, with the put, range and delete
 * operations a single-key transaction uses), written straight from and into atrium's own shapes. etcd3's client
 * goes through @grpc/proto-loader, which converts every message to and from plain objects (int64s as strings, bytes
 * as Buffers copied out of the message); on atrium over etcd that conversion was a tenth of a create's CPU. Keys and
 * values are decoded from the message's bytes as UTF-8 strings at once, revisions as numbers (etcd's revisions stay
 * far below 2^53).
 *
 * Field numbers are etcd's api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto (v3.5).
 */
import type { KeyValue } from '../interface.js';

export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
}

export interface Compare {
  key: Buffer;
  target: 'create' | 'mod';
  result: 'equal' | 'greater';
  /** The create_revision or mod_revision compared with (always sent, 0 included: it is a oneof member). */
  revision: number;
}

export type RequestOp =
  | { range: RangeRequest }
  | { put: { key: Buffer; value: Buffer; prevKv?: boolean } }
  | { deleteRange: { key: Buffer; prevKv?: boolean } };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface RangeResponse {
  /** The store revision the response header carries. */
  revision: number;
  kvs: KeyValue[];
  more: boolean;
  count: number;
}

export interface ResponseOp {
  range?: RangeResponse;
  put?: { prevKv?: KeyValue };
  deleteRange?: { deleted: number; prevKvs: KeyValue[] };
}

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

// --- encoding -------------------------------------------------------------------------------------------------

class Writer {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** An int64, uint64, bool or enum field (wire type 0). */
  uint(field: number, n: number): void {
    this.tag(field, 0);
    this.varint(n);
  }

  /** A bytes or embedded-message field (wire type 2). */
  bytes(field: number, bytes: Buffer): void {
    this.tag(field, 2);
    this.varint(bytes.length);
    this.ensure(bytes.length);
    bytes.copy(this.buf, this.pos);
    this.pos += bytes.length;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

function rangeRequestBytes(r: RangeRequest): Buffer {
  const w = new Writer();
  w.bytes(1, r.key);
  if (r.rangeEnd) w.bytes(2, r.rangeEnd);
  if (r.limit) w.uint(3, r.limit);
  if (r.revision) w.uint(4, r.revision);
  if (r.countOnly) w.uint(9, 1);
  return w.finish();
}

export function encodeRangeRequest(r: RangeRequest): Buffer {
  return rangeRequestBytes(r);
}

function compareBytes(c: Compare): Buffer {
  const w = new Writer();
  if (c.result === 'greater') w.uint(1, 1);
  w.uint(2, c.target === 'create' ? 1 : 2);
  w.bytes(3, c.key);
  w.uint(c.target === 'create' ? 5 : 6, c.revision);
  return w.finish();
}

function requestOpBytes(op: RequestOp): Buffer {
  const w = new Writer();
  if ('range' in op) {
    w.bytes(1, rangeRequestBytes(op.range));
  } else if ('put' in op) {
    const p = new Writer();
    p.bytes(1, op.put.key);
    p.bytes(2, op.put.value);
    if (op.put.prevKv) p.uint(4, 1);
    w.bytes(2, p.finish());
  } else {
    const d = new Writer();
    d.bytes(1, op.deleteRange.key);
    if (op.deleteRange.prevKv) d.uint(3, 1);
    w.bytes(3, d.finish());
  }
  return w.finish();
}

export function encodeTxnRequest(t: TxnRequest): Buffer {
  const w = new Writer();
  for (const c of t.compare) w.bytes(1, compareBytes(c));
  for (const op of t.success) w.bytes(2, requestOpBytes(op));
  for (const op of t.failure) w.bytes(3, requestOpBytes(op));
  return w.finish();
}

// --- decoding -------------------------------------------------------------------------------------------------

class Reader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  more(): boolean {
    return this.pos < this.end;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('etcd response: truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
  }

  /** The [start, end) of a length-delimited field's bytes, moving past them. */
  span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('etcd response: truncated field');
    return [start, this.pos];
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.span();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`etcd response: unsupported wire type ${wireType}`);
  }
}

function headerRevision(buf: Buffer, [start, end]: [number, number]): number {
  const r = new Reader(buf, start, end);
  let revision = 0;
  while (r.more()) {
    const tag = r.varint();
    if (tag === (3 << 3)) revision = r.varint();
    else r.skip(tag & 7);
  }
  return revision;
}

function keyValue(buf: Buffer, [start, end]: [number, number]): KeyValue {
  const r = new Reader(buf, start, end);
  let key = '';
  let value = '';
  let createRevision = 0;
  let modRevision = 0;
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2: {
        const [s, e] = r.span();
        key = buf.toString('utf8', s, e);
        break;
      }
      case 2 << 3:
        createRevision = r.varint();
        break;
      case 3 << 3:
        modRevision = r.varint();
        break;
      case (5 << 3) | 2: {
        const [s, e] = r.span();
        value = buf.toString('utf8', s, e);
        break;
      }
      default:
        r.skip(tag & 7);
    }
  }
  return { key, value, createRevision, modRevision };
}

function rangeResponse(buf: Buffer, start: number, end: number): RangeResponse {
  const r = new Reader(buf, start, end);
  const out: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        out.revision = headerRevision(buf, r.span());
        break;
      case (2 << 3) | 2:
        out.kvs.push(keyValue(buf, r.span()));
        break;
      case 3 << 3:
        out.more = r.varint() !== 0;
        break;
      case 4 << 3:
        out.count = r.varint();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

export function decodeRangeResponse(buf: Buffer): RangeResponse {
  return rangeResponse(buf, 0, buf.length);
}

function responseOp(buf: Buffer, [start, end]: [number, number]): ResponseOp {
  const r = new Reader(buf, start, end);
  const out: ResponseOp = {};
  while (r.more()) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) {
      const [s, e] = r.span();
      out.range = rangeResponse(buf, s, e);
    } else if (tag === ((2 << 3) | 2)) {
      const p = new Reader(buf, ...r.span());
      const put: { prevKv?: KeyValue } = {};
      while (p.more()) {
        const t = p.varint();
        if (t === ((2 << 3) | 2)) put.prevKv = keyValue(buf, p.span());
        else p.skip(t & 7);
      }
      out.put = put;
    } else if (tag === ((3 << 3) | 2)) {
      const d = new Reader(buf, ...r.span());
      const del = { deleted: 0, prevKvs: [] as KeyValue[] };
      while (d.more()) {
        const t = d.varint();
        if (t === 2 << 3) del.deleted = d.varint();
        else if (t === ((3 << 3) | 2)) del.prevKvs.push(keyValue(buf, d.span()));
        else d.skip(t & 7);
      }
      out.deleteRange = del;
    } else {
      r.skip(tag & 7);
    }
  }
  return out;
}

export function decodeTxnResponse(buf: Buffer): TxnResponse {
  const r = new Reader(buf, 0, buf.length);
  const out: TxnResponse = { revision: 0, succeeded: false, responses: [] };
  while (r.more()) {
    const tag = r.varint();
    switch (tag) {
      case (1 << 3) | 2:
        out.revision = headerRevision(buf, r.span());
        break;
      case 2 << 3:
        out.succeeded = r.varint() !== 0;
        break;
      case (3 << 3) | 2:
        out.responses.push(responseOp(buf, r.span()));
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}
