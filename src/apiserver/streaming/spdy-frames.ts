/**
 * SPDY/3.1 framing (draft-mbelshe-httpbis-spdy-00 plus 3.1's WINDOW_UPDATE), the server's half of what kubectl's
 * port-forward (and, before 1.30, exec and attach) speaks: moby/spdystream on the client. Pure encode/decode of
 * frames and header blocks; the session that uses them is spdy-session.ts.
 *
 * Header blocks are zlib-compressed with one zlib stream per direction for the whole connection and the SPDY/3
 * dictionary. Reading: the peer's blocks are appended to everything it sent so far and inflated from the start
 * (blocks are few and small: two per forwarded connection), which needs no zlib state kept across calls. Writing:
 * our blocks go out as stored (uncompressed) deflate blocks of one continuous zlib stream, which every inflater
 * accepts and which needs no state but "has the stream begun".
 */
import { constants, inflateSync } from 'node:zlib';
import { spdyHeaderDictionary } from './spdy-dictionary.js';

export const spdyVersion = 3;

export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

export const flagFin = 0x01;

/** RST_STREAM status codes. */
export const RstStatus = { ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, Cancel: 5, InternalError: 6, StreamInUse: 8, StreamAlreadyClosed: 9 } as const;

export type Headers = Record<string, string[]>;

export type Frame =
  | { kind: 'data'; streamId: number; flags: number; data: Buffer }
  | { kind: 'control'; type: number; flags: number; payload: Buffer };

/** Splits complete frames off the front of `buf`; returns them and the unconsumed rest. */
export function parseFrames(buf: Buffer): { frames: Frame[]; rest: Buffer } {
  const frames: Frame[] = [];
  let off = 0;
  while (buf.length - off >= 8) {
    const length = buf.readUIntBE(off + 5, 3);
    if (buf.length - off < 8 + length) break;
    const flags = buf[off + 4]!;
    const body = buf.subarray(off + 8, off + 8 + length);
    if (buf[off]! & 0x80) {
      frames.push({ kind: 'control', type: buf.readUInt16BE(off + 2), flags, payload: Buffer.from(body) });
    } else {
      frames.push({ kind: 'data', streamId: buf.readUInt32BE(off) & 0x7fffffff, flags, data: Buffer.from(body) });
    }
    off += 8 + length;
  }
  return { frames, rest: buf.subarray(off) };
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | spdyVersion, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt8(flags, 4);
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt8(fin ? flagFin : 0, 4);
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

const u32 = (...values: number[]): Buffer => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
};

export const rstStreamFrame = (streamId: number, status: number): Buffer => controlFrame(FrameType.RstStream, 0, u32(streamId & 0x7fffffff, status));
export const pingFrame = (id: number): Buffer => controlFrame(FrameType.Ping, 0, u32(id));
export const goAwayFrame = (lastStreamId: number, status = 0): Buffer => controlFrame(FrameType.GoAway, 0, u32(lastStreamId & 0x7fffffff, status));
export const synReplyFrame = (streamId: number, headerBlock: Buffer, fin = false): Buffer =>
  controlFrame(FrameType.SynReply, fin ? flagFin : 0, Buffer.concat([u32(streamId & 0x7fffffff), headerBlock]));
/** A client's SYN_STREAM (for tests and the client half of the unit tests). */
export const synStreamFrame = (streamId: number, headerBlock: Buffer, fin = false): Buffer =>
  controlFrame(FrameType.SynStream, fin ? flagFin : 0, Buffer.concat([u32(streamId & 0x7fffffff, 0), Buffer.from([0, 0]), headerBlock]));

/** The decoded payload of the control frames a server acts on. */
export function decodeSynStream(payload: Buffer): { streamId: number; headerBlock: Buffer } {
  return { streamId: payload.readUInt32BE(0) & 0x7fffffff, headerBlock: payload.subarray(10) };
}
export const decodeStreamId = (payload: Buffer): number => payload.readUInt32BE(0) & 0x7fffffff;

/** Serializes headers as SPDY/3's uncompressed name/value block (names lowercase; several values NUL-joined). */
export function encodeHeaderBlock(headers: Headers): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [u32(entries.length)];
  for (const [name, values] of entries) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): Headers {
  const headers: Headers = {};
  let off = 0;
  const count = block.readUInt32BE(off);
  off += 4;
  for (let i = 0; i < count; i++) {
    const nl = block.readUInt32BE(off);
    const name = block.subarray(off + 4, off + 4 + nl).toString('utf8').toLowerCase();
    off += 4 + nl;
    const vl = block.readUInt32BE(off);
    const value = block.subarray(off + 4, off + 4 + vl).toString('utf8');
    off += 4 + vl;
    (headers[name] ??= []).push(...value.split('\0'));
  }
  return headers;
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** A non-final stored (uncompressed) deflate block. */
function storedBlock(data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = 0; // BFINAL 0, BTYPE 00
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/** One direction's header compression: a continuous zlib stream of stored blocks (see the file comment). */
export class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      // CMF 0x78 (deflate, 32K window), FLG 0xBB (FDICT set, check bits), then the dictionary's Adler-32.
      parts.push(Buffer.from([0x78, 0xbb]), u32(adler32(spdyHeaderDictionary)));
      this.started = true;
    }
    for (let off = 0; off < block.length; off += 0xffff) parts.push(storedBlock(block.subarray(off, off + 0xffff)));
    // The empty stored block of a sync flush, as Go's zlib Flush writes: inflaters hand out a block's data only when
    // the next block starts (Go's flate does), so without it the peer would wait for more input.
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** The most compressed or inflated header bytes one SPDY session may carry. */
const MAX_HEADER_BYTES = 1 << 20;

/** The other direction: inflates each new block as the continuation of everything the peer compressed so far. */
export class HeaderDecompressor {
  private input: Buffer = Buffer.alloc(0);
  private produced = 0;

  decompress(compressed: Buffer): Buffer {
    this.input = Buffer.concat([this.input, compressed]);
    // A session's header blocks are a few streams' worth: more input or output is an attack (a zlib bomb), refused
    // by throwing, which ends the session (spdy-session.ts).
    if (this.input.length > MAX_HEADER_BYTES) throw new Error('spdy: too many header bytes');
    const out = inflateSync(this.input, { dictionary: spdyHeaderDictionary, finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: MAX_HEADER_BYTES });
    const fresh = out.subarray(this.produced);
    this.produced = out.length;
    return fresh;
  }
}
