/**
 * The server's loopback (loopback.ts) carried to another thread of the same process: a client on a worker thread (the
 * multi-cluster controllers: multicluster/controllers-thread.ts) opens connections whose bytes cross a MessagePort to
 * the server's thread, where each becomes a loopback connection to the server's handler. Still an ordinary API
 * client — HTTP/1.1 parsed by node:http on both ends, bearer-token authentication, watch streams, upgrades — without
 * TLS or the kernel, as on the loopback itself.
 *
 * Frames are `[connection, kind, bytes?]`; those of one turn of the event loop go as one message. The bytes are
 * copied once into a buffer of their own, which is transferred, not cloned again. There is no flow control across the
 * port: the server's thread reads its loopback side as fast as it writes, and the other side queues what its thread
 * has not read yet (a watch's slow-consumer limit does not apply to a client on another thread; it reads everything).
 */
import type { MessagePort } from 'node:worker_threads';
import type { Duplex } from 'node:stream';
import { InProcessSocket } from './loopback.js';

const OPEN = 0;
const DATA = 1;
const END = 2;
const CLOSE = 3;
type Frame = [connection: number, kind: typeof OPEN | typeof DATA | typeof END | typeof CLOSE, bytes?: Uint8Array];

/** Frames sent together once per turn of the event loop. */
class Outbox {
  private frames: Frame[] = [];
  private transfer: ArrayBuffer[] = [];
  private closed = false;

  constructor(private readonly port: MessagePort) {}

  send(connection: number, kind: Frame[1], chunk?: Buffer | string): void {
    if (this.closed) return;
    if (this.frames.length === 0) setImmediate(() => this.flush());
    if (chunk === undefined) {
      this.frames.push([connection, kind]);
      return;
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const own = new Uint8Array(bytes.byteLength);
    own.set(bytes);
    this.frames.push([connection, kind, own]);
    this.transfer.push(own.buffer);
  }

  private flush(): void {
    if (this.frames.length === 0 || this.closed) return;
    const frames = this.frames;
    const transfer = this.transfer;
    this.frames = [];
    this.transfer = [];
    this.port.postMessage(frames, transfer);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}

/** The client's end of one bridged connection. */
class BridgedSocket extends InProcessSocket {
  /** Set once the server's side said it closed: nothing more is sent for this connection. */
  remoteClosed = false;
  /** Set once the server's side ended its writing: what came before is still to be read. */
  remoteEnded = false;

  constructor(
    private readonly id: number,
    private readonly outbox: Outbox,
    private readonly forget: (id: number) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.remoteClosed) {
      done(new Error('write after the bridged loopback connection was closed'));
      return;
    }
    this.outbox.send(this.id, DATA, chunk);
    done();
  }

  override _read(): void {}

  override _final(done: (error?: Error | null) => void): void {
    if (!this.remoteClosed) this.outbox.send(this.id, END);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (!this.remoteClosed) this.outbox.send(this.id, CLOSE);
    this.forget(this.id);
    done(error);
  }
}

/** A client's side of the bridge: connect() opens a connection to the server on the other end of `port`. */
export interface LoopbackBridgeClient {
  connect(): Duplex;
  /** Destroys every open connection and stops using the port. */
  close(): void;
}

/** The side of the bridge a client thread uses (`port` is the one serveLoopbackBridge was not given). */
export function loopbackBridgeClient(port: MessagePort): LoopbackBridgeClient {
  const outbox = new Outbox(port);
  const open = new Map<number, BridgedSocket>();
  let next = 1;
  port.on('message', (frames: Frame[]) => {
    for (const [id, kind, bytes] of frames) {
      const socket = open.get(id);
      if (!socket) continue;
      if (kind === DATA && bytes) socket.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else if (kind === END) {
        socket.remoteEnded = true;
        socket.push(null);
      } else if (kind === CLOSE) {
        socket.remoteClosed = true;
        // A close after an end (a response, then `Connection: close`) must not drop what the client has not read yet:
        // the socket goes once its reader reached the end, as a TCP socket's does after a FIN.
        if (socket.remoteEnded && !socket.readableEnded) socket.once('end', () => socket.destroy());
        else socket.destroy();
      }
    }
  });
  return {
    connect() {
      const id = next++;
      const socket = new BridgedSocket(id, outbox, (gone) => open.delete(gone));
      open.set(id, socket);
      outbox.send(id, OPEN);
      return socket;
    },
    close() {
      for (const socket of [...open.values()]) socket.destroy();
      open.clear();
      outbox.close();
      port.close();
    },
  };
}

/**
 * The server's side: every connection the other end opens becomes `connect()` (the server's loopback) here. Returns
 * a stop that closes every bridged connection.
 */
export function serveLoopbackBridge(port: MessagePort, connect: () => Duplex): { close(): void } {
  const outbox = new Outbox(port);
  const open = new Map<number, Duplex>();
  port.on('message', (frames: Frame[]) => {
    for (const [id, kind, bytes] of frames) {
      if (kind === OPEN) {
        const socket = connect();
        open.set(id, socket);
        socket.on('data', (chunk: Buffer | string) => outbox.send(id, DATA, chunk));
        socket.on('end', () => outbox.send(id, END));
        socket.on('error', () => {});
        socket.on('close', () => {
          // Told only when the close is ours (the server closed it): a close the client asked for is already known.
          if (open.delete(id)) outbox.send(id, CLOSE);
        });
        continue;
      }
      const socket = open.get(id);
      if (!socket) continue;
      if (kind === DATA && bytes) socket.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      else if (kind === END) socket.end();
      else if (kind === CLOSE) {
        open.delete(id);
        socket.destroy();
      }
    }
  });
  return {
    close() {
      for (const socket of [...open.values()]) socket.destroy();
      open.clear();
      outbox.close();
      port.close();
    },
  };
}
