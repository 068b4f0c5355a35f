/**
 * The part of the `ws` package (a runtime dependency, pinned in package.json) that atrium uses: the server side of
 * the WebSocket upgrade and message exchange. `ws` ships no types and @types/ws is not installed, so this declares
 * just what src/apiserver/streaming/websocket.ts calls, and the client side the tests open.
 */
declare module 'ws' {
  import type { ClientRequest, IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';
  import { EventEmitter } from 'node:events';

  /** A client's options (the TLS ones are node:tls's). */
  export interface ClientOptions {
    ca?: string;
    cert?: string;
    key?: string;
    headers?: Record<string, string>;
  }

  export class WebSocket extends EventEmitter {
    constructor(address: string, protocols?: string | string[], options?: ClientOptions);
    static readonly OPEN: number;
    readonly readyState: number;
    readonly protocol: string;
    readonly bufferedAmount: number;
    send(data: Buffer | string, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'open', listener: () => void): this;
    on(event: 'unexpected-response', listener: (req: ClientRequest, res: IncomingMessage) => void): this;
  }

  export interface ServerOptions {
    noServer: true;
    handleProtocols?: (protocols: Set<string>, request: IncomingMessage) => string | false;
    maxPayload?: number;
    perMessageDeflate?: boolean;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: ServerOptions);
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, callback: (ws: WebSocket, request: IncomingMessage) => void): void;
  }
}
