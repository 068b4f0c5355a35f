/**
 * SPDY/3.1 framing and the server session (src/apiserver/streaming/spdy-*.ts): frames split across reads, header
 * blocks through the connection-long zlib streams (our stored-block compressor read back by a real inflater with the
 * SPDY/3 dictionary), and a session answering a client's SYN_STREAM, PING and DATA over an in-memory connection.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex, PassThrough } from 'node:stream';
import { constants, createDeflate, inflateSync } from 'node:zlib';
import {
  FrameType,
  HeaderCompressor,
  HeaderDecompressor,
  dataFrame,
  decodeHeaderBlock,
  encodeHeaderBlock,
  parseFrames,
  pingFrame,
  synStreamFrame,
} from '../../../src/apiserver/streaming/spdy-frames.js';
import { spdyHeaderDictionary } from '../../../src/apiserver/streaming/spdy-dictionary.js';
import { SpdySession, type SpdyStream } from '../../../src/apiserver/streaming/spdy-session.js';

/** A client's header compressor: real zlib with the dictionary and a sync flush per block, as Go's framer writes. */
function clientCompressor(): (block: Buffer) => Promise<Buffer> {
  const z = createDeflate({ dictionary: spdyHeaderDictionary });
  return (block) =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const onData = (c: Buffer) => chunks.push(c);
      z.on('data', onData);
      z.write(block);
      z.flush(constants.Z_SYNC_FLUSH, () => {
        z.off('data', onData);
        resolve(Buffer.concat(chunks));
      });
    });
}

describe('SPDY/3 header dictionary', () => {
  it('is the 1423 bytes of the spec, starting with the length-prefixed "options"', () => {
    assert.equal(spdyHeaderDictionary.length, 1423);
    assert.deepEqual([...spdyHeaderDictionary.subarray(0, 11)], [0, 0, 0, 7, ...Buffer.from('options')]);
    assert.equal(spdyHeaderDictionary.subarray(-8).toString('latin1'), '*,enq=0.');
    // Go's zlib reader (kubectl) checks the dictionary's Adler-32 named in the stream header: 0xe3c6a7c2 for SPDY/3's.
    assert.equal(new HeaderCompressor().compress(Buffer.alloc(0)).readUInt32BE(2).toString(16), 'e3c6a7c2');
  });
});

describe('SPDY frames', () => {
  it('parses frames split at any byte and keeps the rest', () => {
    const bytes = Buffer.concat([dataFrame(3, Buffer.from('hello'), true), pingFrame(7)]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const first = parseFrames(bytes.subarray(0, cut));
      const second = parseFrames(Buffer.concat([first.rest, bytes.subarray(cut)]));
      const frames = [...first.frames, ...second.frames];
      assert.equal(frames.length, 2, `cut at ${cut}`);
      assert.deepEqual(frames[0], { kind: 'data', streamId: 3, flags: 1, data: Buffer.from('hello') });
      assert.equal(frames[1]!.kind, 'control');
      assert.equal(second.rest.length, 0);
    }
  });

  it('round-trips header blocks, several values NUL-joined', () => {
    const headers = { streamtype: ['data'], port: ['8080'], requestid: ['0'], multi: ['a', 'b'] };
    assert.deepEqual(decodeHeaderBlock(encodeHeaderBlock(headers)), headers);
  });

  it('compresses as one continuous zlib stream a real inflater reads block by block', () => {
    const c = new HeaderCompressor();
    const blocks = [encodeHeaderBlock({}), encodeHeaderBlock({ a: ['1'] }), encodeHeaderBlock({ big: ['x'.repeat(70_000)] })];
    let sent = Buffer.alloc(0);
    let seen = 0;
    for (const block of blocks) {
      sent = Buffer.concat([sent, c.compress(block)]);
      // Everything so far inflates (with the dictionary) to exactly the blocks so far: no output is held back.
      const out = inflateSync(sent, { dictionary: spdyHeaderDictionary, finishFlush: constants.Z_SYNC_FLUSH });
      assert.deepEqual(out.subarray(seen), block);
      seen = out.length;
    }
  });

  it('decompresses a client stream of sync-flushed blocks one block at a time', async () => {
    const compress = clientCompressor();
    const d = new HeaderDecompressor();
    for (const h of [{ streamtype: ["error"] }, { streamtype: ["data"], port: ["80"] }] as Record<string, string[]>[]) {
      assert.deepEqual(decodeHeaderBlock(d.decompress(await compress(encodeHeaderBlock(h)))), h);
    }
  });
});

describe('SPDY server session', () => {
  it('replies to SYN_STREAM, echoes PING, delivers DATA and half-closes', async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const transport = Duplex.from({ readable: toServer, writable: toClient });
    const session = new SpdySession(transport);
    const streams: SpdyStream[] = [];
    const received: string[] = [];
    session.on('stream', (s: SpdyStream) => {
      streams.push(s);
      s.on('data', (b: Buffer) => {
        received.push(b.toString());
        s.write(Buffer.from(`echo ${b}`));
        s.end();
      });
    });
    const compress = clientCompressor();
    toServer.write(synStreamFrame(1, await compress(encodeHeaderBlock({ streamtype: ['data'], port: ['8080'] }))));
    toServer.write(pingFrame(5));
    toServer.write(dataFrame(1, Buffer.from('hi')));
    await new Promise((r) => setTimeout(r, 20));
    const { frames } = parseFrames(toClient.read() as Buffer);
    assert.equal(streams[0]!.header('port'), '8080');
    assert.deepEqual(received, ['hi']);
    const controls = frames.filter((f) => f.kind === 'control') as { type: number; payload: Buffer }[];
    assert.deepEqual(controls.map((f) => f.type), [FrameType.SynReply, FrameType.Ping]);
    assert.equal(controls[1]!.payload.readUInt32BE(0), 5);
    const data = frames.filter((f) => f.kind === 'data') as { streamId: number; flags: number; data: Buffer }[];
    assert.deepEqual(data.map((f) => [f.streamId, f.data.toString(), f.flags]), [[1, 'echo hi', 0], [1, '', 1]]);
    // The reply's header block is readable by the client's inflater: an empty header set.
    const reply = controls[0]!.payload;
    const inflated = inflateSync(reply.subarray(4), { dictionary: spdyHeaderDictionary, finishFlush: constants.Z_SYNC_FLUSH });
    assert.deepEqual(decodeHeaderBlock(inflated), {});
    session.close();
  });
});
