/**
 * A deliberately small HTTP/1.1-over-TLS load generator for benchmarks whose figure must be the server's cost,
 * not the client's. node:https spends more CPU per request than a lean API server does to answer it, and on a
 * machine with few cores the benchmark's own client then competes with the server it measures. This client
 * keeps one request in flight per keep-alive TLS connection, writes each request as one pre-assembled buffer,
 * and only parses the status line and Content-Length of the answer (it refuses chunked answers: the API
 * server's object responses always carry a Content-Length).
 */
import { connect, type TLSSocket } from 'node:tls';

export interface LeanClientOptions {
  /** https://host:port of the server. */
  url: string;
  /** PEM CA, client certificate and key (the admin credentials of the server under test). */
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  /** Keep-alive connections to open (= the most requests in flight). */
  connections: number;
}

interface Pending {
  resolve: (status: number) => void;
  reject: (err: Error) => void;
}

/** One keep-alive connection with at most one outstanding request. */
class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Pending | undefined;
  private failure: Error | undefined;

  constructor(readonly socket: TLSSocket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  send(request: Buffer): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(request);
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headerEnd = this.buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = this.buffer.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.fail(new Error(`answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const total = headerEnd + 4 + Number(length[1]);
    if (this.buffer.length < total) return;
    const status = Number(head.slice(9, 12));
    this.buffer = this.buffer.subarray(total);
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve(status);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(err);
  }
}

/** A pool of lean connections; requests beyond the pool size wait in FIFO order for a free connection. */
export class LeanHttpsClient {
  private readonly idle: Connection[] = [];
  private readonly all: Connection[] = [];
  private readonly queue: Array<(c: Connection) => void> = [];
  private readonly hostHeader: string;

  private constructor(private readonly url: URL) {
    this.hostHeader = url.host;
  }

  /** Opens every connection (TLS handshakes done) before returning, so the first measured request pays none. */
  static async open(opts: LeanClientOptions): Promise<LeanHttpsClient> {
    const url = new URL(opts.url);
    const client = new LeanHttpsClient(url);
    const sockets = await Promise.all(
      Array.from(
        { length: opts.connections },
        () =>
          new Promise<TLSSocket>((resolve, reject) => {
            const s = connect({ host: url.hostname, port: Number(url.port), ca: opts.ca, cert: opts.cert, key: opts.key, ALPNProtocols: ['http/1.1'] }, () => resolve(s));
            s.once('error', reject);
          }),
      ),
    );
    for (const s of sockets) {
      const c = new Connection(s);
      client.all.push(c);
      client.idle.push(c);
    }
    return client;
  }

  /** A POST request with a JSON body, assembled once into the bytes sent on the wire. */
  post(path: string, body: Buffer): Buffer {
    const head = `POST ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    return Buffer.concat([Buffer.from(head, 'latin1'), body]);
  }

  /** Sends a request built by post() and resolves with the answer's status code once the whole answer arrived. */
  async send(request: Buffer): Promise<number> {
    const c = this.idle.pop() ?? (await new Promise<Connection>((resolve) => this.queue.push(resolve)));
    try {
      return await c.send(request);
    } finally {
      const waiter = this.queue.shift();
      if (waiter) waiter(c);
      else this.idle.push(c);
    }
  }

  close(): void {
    for (const c of this.all) c.socket.destroy();
  }
}
