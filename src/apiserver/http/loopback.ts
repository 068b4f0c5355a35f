/**
 * The loopback: in-process connections to the server's own request handler, for the controllers that run in the same
 * process (the built-in ones, multi-cluster's push syncers, a simulated cluster's). They stay ordinary API clients —
 * the same HTTP requests, authentication by bearer token, authorization, admission and watch streams — but the bytes
 * go from one stream object to another instead of through TLS and the kernel's loopback device: a burst of controller
 * traffic spent a large part of the server's CPU encrypting, decrypting and copying what never leaves the process.
 * kube-apiserver's loopback client reaches it over TLS on 127.0.0.1; we deliberately skip that hop (nothing crosses
 * a trust boundary: the connection only exists inside the process).
 *
 * The protocol is HTTP/1.1, parsed by node:http's own server and client, so keep-alive, chunked watch streams and
 * upgrades behave as on the network.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';

/**
 * A connection that never touches the network (this loopback, or loopback-bridge.ts's across threads): what
 * node:http's agents and servers read and set on a socket. Nothing here times out or uses Nagle.
 */
export abstract class InProcessSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 0;
  readonly localAddress = '127.0.0.1';

  setTimeout(_ms: number, _callback?: () => void): this {
    return this;
  }
  setNoDelay(_noDelay?: boolean): this {
    return this;
  }
  setKeepAlive(_enable?: boolean, _delay?: number): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/**
 * One end of an in-memory connection. Writes become the peer's reads, with backpressure (a write waits until the
 * peer's reader asks for more); ending one side ends the peer's reading side; destroying one destroys both, as a
 * reset connection does.
 */
export class LoopbackSocket extends InProcessSocket {
  peer!: LoopbackSocket;
  /** The callback of a write the peer has not yet asked to read past. */
  private waitingWrite?: () => void;

  static pair(): [LoopbackSocket, LoopbackSocket] {
    const a = new LoopbackSocket();
    const b = new LoopbackSocket();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.peer.destroyed) {
      done(new Error('write after the loopback connection was closed'));
      return;
    }
    if (this.peer.push(chunk)) done();
    else this.peer.waitingWrite = () => done();
  }

  override _read(): void {
    const resume = this.waitingWrite;
    this.waitingWrite = undefined;
    resume?.();
  }

  override _final(done: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const resume = this.peer.waitingWrite;
    this.peer.waitingWrite = undefined;
    resume?.();
    if (!this.peer.destroyed) this.peer.destroy();
    done(error);
  }

}

export interface Loopback {
  /** A new connection to the server; the client side of it. */
  connect(): LoopbackSocket;
  /** Ends every loopback connection (the server is stopping). */
  close(): void;
}

/**
 * A loopback for a request handler (and its upgrade handler: exec, attach and port-forward streams).
 * The server object never listens: connections are handed to it as they are made.
 */
export function createLoopback(
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  settings: { maxHeaderSize: number },
): Loopback {
  const server: Server = createServer({ maxHeaderSize: settings.maxHeaderSize }, onRequest);
  server.on('upgrade', onUpgrade);
  // Watches are long-lived and the deadline of other requests is the handler's own, as on the TLS listener.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 0;
  const open = new Set<LoopbackSocket>();
  let closed = false;
  return {
    connect() {
      const [client, serverSide] = LoopbackSocket.pair();
      if (closed) {
        // As a stopped listener refuses a dial: the client sees the error once it has its handlers on.
        const refused = Object.assign(new Error('connect ECONNREFUSED: the server has stopped (loopback)'), { code: 'ECONNREFUSED' });
        process.nextTick(() => client.destroy(refused));
        return client;
      }
      open.add(serverSide);
      serverSide.once('close', () => open.delete(serverSide));
      server.emit('connection', serverSide);
      return client;
    },
    close() {
      closed = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
  };
}
