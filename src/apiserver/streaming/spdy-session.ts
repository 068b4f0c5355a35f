/**
 * The server side of a SPDY/3.1 connection as moby/spdystream's client expects it: every SYN_STREAM the client opens
 * is answered with a SYN_REPLY (the client waits for it) and handed to the caller as a SpdyStream; PINGs are echoed;
 * GOAWAY or the transport closing ends the session. spdystream does no flow control, so neither side sends
 * WINDOW_UPDATE and the ones received are ignored; backpressure is the transport's (write() returns false, 'drain').
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  FrameType,
  HeaderCompressor,
  HeaderDecompressor,
  RstStatus,
  dataFrame,
  decodeHeaderBlock,
  decodeStreamId,
  decodeSynStream,
  encodeHeaderBlock,
  flagFin,
  goAwayFrame,
  parseFrames,
  pingFrame,
  rstStreamFrame,
  synReplyFrame,
  type Headers,
} from './spdy-frames.js';

/** Largest DATA payload we send in one frame. */
const maxDataFrame = 32 * 1024;

/**
 * One stream: 'data' (Buffer) as the client sends, 'end' when it half-closes (FIN), 'close' once both sides are done
 * or it was reset.
 */
export class SpdyStream extends EventEmitter {
  private localClosed = false;
  private remoteClosed = false;
  private closed = false;

  constructor(
    readonly id: number,
    readonly headers: Headers,
    private readonly session: SpdySession,
  ) {
    super();
  }

  /** The first value of a header (names are lowercase). */
  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()]?.[0];
  }

  /** Sends data; false when the transport's buffer is full (wait for the session's 'drain'). */
  write(data: Buffer): boolean {
    if (this.localClosed || this.closed) return true;
    let ok = true;
    for (let off = 0; off < data.length; off += maxDataFrame) ok = this.session.send(dataFrame(this.id, data.subarray(off, off + maxDataFrame)));
    return ok;
  }

  /** Half-closes our side (an empty DATA frame with FIN). */
  end(): void {
    if (this.localClosed || this.closed) return;
    this.localClosed = true;
    this.session.send(dataFrame(this.id, Buffer.alloc(0), true));
    this.maybeClose();
  }

  /** Aborts the stream (RST_STREAM). */
  reset(status: number = RstStatus.Cancel): void {
    if (this.closed) return;
    this.session.send(rstStreamFrame(this.id, status));
    this.onReset();
  }

  /** @internal */
  onData(data: Buffer, fin: boolean): void {
    if (this.closed) return;
    if (data.length) this.emit('data', data);
    if (fin && !this.remoteClosed) {
      this.remoteClosed = true;
      this.emit('end');
      this.maybeClose();
    }
  }

  /** @internal */
  onReset(): void {
    if (this.closed) return;
    this.localClosed = this.remoteClosed = true;
    if (!this.closed) {
      this.closed = true;
      this.emit('reset');
      this.emit('close');
      this.session.forget(this.id);
    }
  }

  private maybeClose(): void {
    if (this.localClosed && this.remoteClosed && !this.closed) {
      this.closed = true;
      this.emit('close');
      this.session.forget(this.id);
    }
  }
}

/** A server session over an upgraded connection: emits 'stream' (SpdyStream), 'drain', and 'close' once. */
export class SpdySession extends EventEmitter {
  private readonly streams = new Map<number, SpdyStream>();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private pending: Buffer = Buffer.alloc(0);
  private lastStreamId = 0;
  private closed = false;

  constructor(private readonly transport: Duplex) {
    super();
    transport.on('data', (chunk: Buffer) => this.receive(chunk));
    transport.on('drain', () => this.emit('drain'));
    transport.on('error', () => this.close());
    transport.on('close', () => this.close());
    transport.on('end', () => this.close());
  }

  /** Writes raw frame bytes; false when the transport's buffer is full. */
  send(bytes: Buffer): boolean {
    if (this.closed || this.transport.destroyed) return true;
    return this.transport.write(bytes);
  }

  /** @internal */
  forget(id: number): void {
    this.streams.delete(id);
  }

  /** Says GOAWAY, resets the open streams and closes the transport. */
  close(): void {
    if (this.closed) return;
    if (!this.transport.destroyed) this.transport.write(goAwayFrame(this.lastStreamId));
    this.closed = true;
    for (const s of [...this.streams.values()]) s.onReset();
    this.transport.end();
    setTimeout(() => this.transport.destroy(), 1000).unref();
    this.emit('close');
  }

  private receive(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const { frames, rest } = parseFrames(this.pending);
    this.pending = Buffer.from(rest);
    for (const f of frames) {
      if (this.closed) return;
      try {
        this.handle(f);
      } catch {
        // A frame we cannot decode breaks the header-compression state for good: the session cannot go on.
        this.close();
        return;
      }
    }
  }

  private handle(f: ReturnType<typeof parseFrames>['frames'][number]): void {
    if (f.kind === 'data') {
      const s = this.streams.get(f.streamId);
      if (s) s.onData(f.data, (f.flags & flagFin) !== 0);
      else this.send(rstStreamFrame(f.streamId, RstStatus.InvalidStream));
      return;
    }
    switch (f.type) {
      case FrameType.SynStream: {
        const { streamId, headerBlock } = decodeSynStream(f.payload);
        const headers = decodeHeaderBlock(this.decompressor.decompress(headerBlock));
        if (this.streams.has(streamId)) {
          this.send(rstStreamFrame(streamId, RstStatus.StreamInUse));
          return;
        }
        this.lastStreamId = Math.max(this.lastStreamId, streamId);
        const stream = new SpdyStream(streamId, headers, this);
        this.streams.set(streamId, stream);
        // The client waits for the reply before it uses the stream (httpstream/spdy CreateStream).
        this.send(synReplyFrame(streamId, this.compressor.compress(encodeHeaderBlock({}))));
        this.emit('stream', stream);
        if (f.flags & flagFin) stream.onData(Buffer.alloc(0), true);
        return;
      }
      case FrameType.RstStream:
        this.streams.get(decodeStreamId(f.payload))?.onReset();
        return;
      case FrameType.Ping:
        this.send(pingFrame(f.payload.readUInt32BE(0)));
        return;
      case FrameType.GoAway:
        this.close();
        return;
      case FrameType.Headers:
        // Header blocks must be inflated in order even when ignored, or later blocks cannot be read.
        this.decompressor.decompress(f.payload.subarray(4));
        return;
      default:
        // SETTINGS, WINDOW_UPDATE and anything newer: nothing to do.
        return;
    }
  }
}
