/**
 * Forwards one request to a cluster's API server over a DownstreamConnection, without understanding its protocol:
 * an upgrade (WebSocket or SPDY exec, attach, port-forward; logs over WebSocket) becomes a raw pipe once the head is
 * sent, the cluster's own `101 Switching Protocols` (or refusal) reaching the client byte for byte; a plain request (logs) is sent on and
 * its response streamed back as it comes, chunk by chunk. Either side closing ends the other at once.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectRequest } from '../../apiserver/connect.js';
import { logger } from '../../logging/logger.js';
import type { DownstreamConnection } from './downstream-dialer.js';
import { formatHead, forwardedHead, headerPairs, splice } from './http-head.js';
import { TunnelClosedError } from './tunnel-hub.js';

/** Takes an upgrade request's connection over from its response object: from now on the caller writes on it. */
export function takeOver(r: ConnectRequest): Duplex {
  const socket = r.upgrade!.socket;
  if (r.res.socket === socket) r.res.detachSocket(socket as Socket);
  (socket as Partial<Socket>).setNoDelay?.(true);
  return socket;
}

/** Sends `r` to `path` on the cluster over `conn` and relays the answer until either side is done. */
export function forwardRequest(r: ConnectRequest, path: string, conn: DownstreamConnection): Promise<void> {
  return r.upgrade ? forwardUpgrade(r, path, conn) : forwardPlain(r, path, conn);
}

async function forwardUpgrade(r: ConnectRequest, path: string, conn: DownstreamConnection): Promise<void> {
  const head = forwardedHead(r.req.method ?? 'GET', path, headerPairs(r.req.rawHeaders), { host: conn.host, authorization: conn.authorization, upgrade: true });
  const client = takeOver(r);
  conn.socket.write(formatHead(head));
  if (r.upgrade!.head.length) conn.socket.write(r.upgrade!.head);
  conn.socket.once('error', (err) => {
    if (err instanceof TunnelClosedError) logger.info('stream ended: the syncer tunnel closed', { path: r.req.url, error: err.message });
  });
  splice(client, conn.socket);
}

const responseHopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'trailer', 'upgrade']);

function forwardPlain(r: ConnectRequest, path: string, conn: DownstreamConnection): Promise<void> {
  const head = forwardedHead(r.req.method ?? 'GET', path, headerPairs(r.req.rawHeaders), { host: conn.host, authorization: conn.authorization, upgrade: false });
  const headers: Record<string, string | string[]> = {};
  for (const [n, v] of head.headers) {
    const k = n.toLowerCase();
    const prev = headers[k];
    headers[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return new Promise<void>((resolve) => {
    const upstream = httpRequest({ method: head.method, path, headers, createConnection: () => conn.socket as never });
    const abort = () => {
      upstream.destroy();
      conn.socket.destroy();
    };
    // The client went away: the cluster's stream (a `logs -f`) ends at once.
    r.res.once('close', () => {
      if (!r.res.writableFinished) abort();
      resolve();
    });
    upstream.once('response', (down) => {
      const out: IncomingHttpHeaders = {};
      for (const [k, v] of Object.entries(down.headers)) if (!responseHopByHop.has(k) && v !== undefined) out[k] = v;
      r.res.writeHead(down.statusCode ?? 502, out as Record<string, string | string[]>);
      r.res.flushHeaders();
      down.on('data', (chunk: Buffer) => {
        if (!r.res.write(chunk)) {
          down.pause();
          r.res.once('drain', () => down.resume());
        }
      });
      down.once('end', () => r.res.end());
      // Cut off mid-stream (the tunnel dropped, the cluster went away): the client's response is cut off too, so it
      // sees an error rather than a complete-looking stream.
      down.once('aborted', () => r.res.destroy());
      down.once('error', () => r.res.destroy());
    });
    upstream.once('error', (err) => {
      if (!r.res.headersSent) {
        const message = err instanceof TunnelClosedError ? err.message : `error dialing backend: ${err.message}`;
        r.res.writeHead(500, { 'Content-Type': 'application/json' });
        r.res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 }));
      } else r.res.destroy();
    });
    r.req.pipe(upstream);
  });
}
