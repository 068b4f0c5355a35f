/**
 * Accepting a request's switch of protocols for the streaming subresources, as kube-apiserver 1.32 does for kubectl:
 * a WebSocket upgrade with a negotiated subprotocol (k8s.io/apimachinery util/httpstream/wsstream), else SPDY/3.1
 * with `X-Stream-Protocol-Version` negotiation (util/httpstream.Handshake + spdy.NewResponseUpgrader). The WebSocket
 * side is the `ws` package.
 */
import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { errors } from '../../apimachinery/status.js';
import type { UpgradeConnection } from '../connect.js';

export type UpgradeKind = 'websocket' | 'spdy' | 'none';

/** What the request asks to switch to. */
export function upgradeKind(req: IncomingMessage, upgrade: UpgradeConnection | undefined): UpgradeKind {
  if (!upgrade) return 'none';
  const connection = String(req.headers.connection ?? '').toLowerCase();
  const to = String(req.headers.upgrade ?? '').toLowerCase();
  if (!connection.split(',').some((t) => t.trim() === 'upgrade')) return 'none';
  if (to === 'websocket') return 'websocket';
  if (to.startsWith('spdy/3.1')) return 'spdy';
  return 'none';
}

/**
 * Completes the WebSocket handshake, choosing the first of the client's subprotocols we support (the client's order,
 * as wsstream); `''` stands for "no subprotocol offered". Throws upstream's 400 when none is supported, before
 * anything is written, so the caller answers it and kubectl falls back to SPDY.
 */
export function acceptWebSocket(req: IncomingMessage, upgrade: UpgradeConnection, supported: readonly string[]): Promise<WebSocket & { negotiatedProtocol: string }> {
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const chosen = offered.length === 0 ? (supported.includes('') ? '' : undefined) : offered.find((p) => supported.includes(p));
  if (chosen === undefined) {
    throw errors.badRequest(`unable to upgrade: unable to negotiate protocol: client supports ${JSON.stringify(offered)}, server supports ${JSON.stringify(supported.filter(Boolean))}`);
  }
  // A server per handshake (noServer listens on nothing). `ws` accepts only RFC 7230 tokens as subprotocols and
  // "SPDY/3.1+portforward.k8s.io" has a '/', which Go's server allows: we negotiate ourselves, hide the header from
  // `ws` and add our answer to its response.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  delete req.headers['sec-websocket-protocol'];
  if (chosen) wss.on('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${chosen}`));
  return new Promise((resolve) => wss.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => resolve(Object.assign(ws, { negotiatedProtocol: chosen }))));
}

/**
 * Answers a SPDY/3.1 upgrade with 101 for the first of the client's `X-Stream-Protocol-Version`s we support; throws
 * a 400 when there is none in common (upstream's httpstream.Handshake answers 403 in plain text).
 */
export function acceptSpdy(req: IncomingMessage, upgrade: UpgradeConnection, supported: readonly string[]): { socket: Duplex; protocol: string } {
  const offered = ([] as string[]).concat(req.headers['x-stream-protocol-version'] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const protocol = offered.find((p) => supported.includes(p));
  if (!protocol) {
    throw errors.badRequest(`unable to upgrade: unable to negotiate protocol: client supports ${JSON.stringify(offered)}, server supports ${JSON.stringify(supported)}`);
  }
  const { socket, head } = upgrade;
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  if (head.length) socket.unshift(head);
  return { socket, protocol };
}

/**
 * A WebSocket carrying a byte stream in binary messages (client-go's TunnelingConnection: SPDY inside WebSocket for
 * port-forward), as a Duplex.
 */
export function webSocketTunnel(ws: WebSocket): Duplex {
  const duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      if (ws.readyState !== 1) return cb();
      ws.send(chunk, (err) => cb(err ?? null));
    },
    final(cb) {
      ws.close(1000);
      cb();
    },
    destroy(err, cb) {
      ws.terminate();
      cb(err);
    },
  });
  ws.on('message', (data: Buffer) => duplex.push(data));
  ws.on('close', () => {
    duplex.push(null);
    duplex.destroy();
  });
  ws.on('error', () => duplex.destroy());
  return duplex;
}
