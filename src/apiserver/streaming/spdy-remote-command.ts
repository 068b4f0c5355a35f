/**
 * The server side of kubectl exec and attach over SPDY/3.1, as kubelet's cri-streaming remotecommand serves client-go's
 * SPDY executor (remotecommand.NewSPDYExecutor: kubectl before 1.30, kubectl 1.30+ with
 * KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false, upstream's e2e framework, many operators). The protocol is negotiated
 * through `X-Stream-Protocol-Version` (v4.channel.k8s.io, v3, v2, channel.k8s.io; the client's order). The client
 * then opens one stream per channel, told apart by its `streamType` header (error, stdin, stdout, stderr, and resize
 * from v3 on with a TTY); the command starts once all the expected streams are there (kubelet's waitForStreams:
 * error, plus one per requested stdin/stdout/stderr, plus resize for a TTY from v3; stderr is never expected with a
 * TTY) and the session is dropped when they are not within 30 s (DefaultStreamCreationTimeout). The resize stream
 * carries a sequence of JSON TerminalSize objects. Channel v1 half-closes the stdin stream and resets the error stream
 * as soon as the streams are there, so it reports nothing, as kubelet's v1ProtocolHandler. At the end the outcome goes
 * on the error stream (v4: the metav1.Status in JSON; v2/v3: a failure's message), then, as kubelet's
 * connection.Close(), every stream is reset and the session says GOAWAY and closes.
 */
import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { type CommandOutcome, type RemoteCommandRequest, type RemoteCommandStreams, type TerminalSize, outcomeMessage, protocolVersion } from './remote-command.js';
import { SpdySession, type SpdyStream } from './spdy-session.js';

/** The protocols kubelet serves over SPDY (remotecommand.SupportedStreamingProtocols), in its order. */
export const spdyRemoteCommandProtocols = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];

/** How long the client has to open its streams (remotecommand.DefaultStreamCreationTimeout). */
export const streamCreationTimeoutMs = 30_000;

/** The streams kubelet waits for: error, one per requested standard stream, resize for a TTY from v3. */
export function expectedStreams(request: RemoteCommandRequest, v: number): number {
  return 1 + Number(request.stdin) + Number(request.stdout) + Number(request.stderr && !request.tty) + Number(request.tty && v >= 3);
}

const MAX_PENDING_JSON = 4096;

/** Splits a byte stream into the JSON values it carries one after another (Go's json.Decoder over a stream). */
class JsonSequence {
  private buf = '';
  private broken = false;

  /** The complete values in `chunk` (with what came before); after a malformed one, nothing more. */
  push(chunk: Buffer): unknown[] {
    if (this.broken) return [];
    this.buf += chunk.toString('utf8');
    // A TerminalSize is a few dozen bytes: a value this long is no resize, and would be rescanned on every chunk.
    if (this.buf.length > MAX_PENDING_JSON) {
      this.broken = true;
      this.buf = '';
      return [];
    }
    const out: unknown[] = [];
    for (;;) {
      const end = this.valueEnd();
      if (end < 0) break;
      const text = this.buf.slice(0, end);
      this.buf = this.buf.slice(end);
      try {
        out.push(JSON.parse(text));
      } catch {
        this.broken = true;
        break;
      }
    }
    return out;
  }

  /** Where the first complete object or array ends (-1 if not yet complete). */
  private valueEnd(): number {
    let depth = 0;
    let inString = false;
    let started = false;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
        continue;
      }
      if (!started && /\s/.test(c)) continue;
      if (!started && c !== '{' && c !== '[') {
        // Go's decoder would read a bare value; a TerminalSize is an object, so anything else ends the stream.
        this.broken = true;
        return -1;
      }
      started = true;
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
}

/** A TerminalSize field as Go's decoder matches it (names case-insensitively). */
function sizeField(obj: Record<string, unknown>, name: string): number {
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? 0 : Number(obj[key]);
  return Number.isFinite(v) ? v : 0;
}

/** One exec or attach session on an accepted SPDY connection, once the client's streams are there. */
export class SpdyRemoteCommandSession extends EventEmitter implements RemoteCommandStreams {
  stdin?: PassThrough;
  stdout?: Writable;
  stderr?: Writable;
  private errorStream?: SpdyStream;
  private readonly streams: SpdyStream[] = [];
  private done = false;
  /** The protocol's version: 1 for channel.k8s.io, else vN's N. */
  private readonly v: number;

  constructor(
    private readonly spdy: SpdySession,
    readonly protocol: string,
    readonly request: RemoteCommandRequest,
  ) {
    super();
    this.v = protocolVersion(protocol);
    spdy.once('close', () => {
      this.stdin?.end();
      if (!this.done) {
        this.done = true;
        this.emit('close');
      }
    });
  }

  get open(): boolean {
    return !this.done;
  }

  /**
   * Takes a stream the client opened; whether it is one kubelet counts (a known streamType; resize from v3). What
   * arrives on it before the command starts is kept (stdin) or acted on (resize).
   */
  adopt(stream: SpdyStream): boolean {
    this.streams.push(stream);
    switch (stream.header('streamtype')) {
      case 'error':
        this.errorStream = stream;
        return true;
      case 'stdin': {
        const stdin = (this.stdin = new PassThrough());
        stream.on('data', (chunk: Buffer) => stdin.write(chunk));
        stream.once('end', () => stdin.end());
        stream.once('close', () => stdin.end());
        return true;
      }
      case 'stdout':
        this.stdout = this.streamWriter(stream);
        return true;
      case 'stderr':
        this.stderr = this.streamWriter(stream);
        return true;
      case 'resize': {
        if (this.v < 3) return false;
        const decoder = new JsonSequence();
        stream.on('data', (chunk: Buffer) => {
          for (const size of decoder.push(chunk)) {
            if (size === null || typeof size !== 'object' || Array.isArray(size)) continue;
            const obj = size as Record<string, unknown>;
            this.emit('resize', { width: sizeField(obj, 'width'), height: sizeField(obj, 'height') } satisfies TerminalSize);
          }
        });
        return true;
      }
      default:
        return false;
    }
  }

  /** All the expected streams are there: v1 half-closes stdin and drops the error stream, as kubelet's v1 handler. */
  start(): void {
    if (this.v !== 1) return;
    this.streams.find((s) => s.header('streamtype') === 'stdin')?.end();
    this.errorStream?.reset();
  }

  /** Reports how the command ended on the error stream, resets every stream and closes the connection. */
  finish(outcome: CommandOutcome): void {
    if (this.done) return;
    this.done = true;
    const flushOutputs = [this.stdout, this.stderr].filter((w): w is Writable => !!w).map((w) => new Promise<void>((r) => (w.writableFinished ? r() : w.end(r))));
    void Promise.all(flushOutputs).then(() => {
      const message = outcomeMessage(this.v, outcome);
      if (message && this.errorStream) this.errorStream.write(message);
      for (const s of this.streams) s.reset();
      this.spdy.close();
    });
  }

  /** Writes to a stream with the transport's backpressure; a closed session takes (and drops) everything. */
  private streamWriter(stream: SpdyStream): Writable {
    const spdy = this.spdy;
    let closed = false;
    spdy.once('close', () => (closed = true));
    return new Writable({
      highWaterMark: 256 * 1024,
      write(chunk: Buffer, _enc, cb) {
        if (closed || stream.write(chunk)) return cb();
        const go = () => {
          spdy.off('drain', go);
          spdy.off('close', go);
          cb();
        };
        spdy.on('drain', go);
        spdy.on('close', go);
      },
    });
  }
}

/**
 * Runs the SPDY side of exec/attach on a connection already answered with 101 for `protocol`: waits for the client's
 * streams. Resolves with the session, or undefined when the client went away or did not open its streams in time
 * (the connection is then closed).
 */
export function serveSpdyRemoteCommand(
  spdy: SpdySession,
  protocol: string,
  request: RemoteCommandRequest,
  timeoutMs = streamCreationTimeoutMs,
): Promise<SpdyRemoteCommandSession | undefined> {
  const session = new SpdyRemoteCommandSession(spdy, protocol, request);
  const expected = expectedStreams(request, protocolVersion(protocol));
  return new Promise((resolve) => {
    let received = 0;
    const settle = (result: SpdyRemoteCommandSession | undefined) => {
      clearTimeout(timer);
      spdy.off('stream', onStream);
      spdy.off('close', onClose);
      resolve(result);
    };
    const onStream = (stream: SpdyStream) => {
      if (session.adopt(stream)) received++;
      if (received < expected) return;
      settle(session);
      // Streams opened later have nobody to serve them.
      spdy.on('stream', (late: SpdyStream) => late.reset());
      session.start();
    };
    const onClose = () => settle(undefined);
    const timer = setTimeout(() => {
      settle(undefined);
      spdy.close();
    }, timeoutMs);
    timer.unref();
    spdy.on('stream', onStream);
    spdy.once('close', onClose);
  });
}
