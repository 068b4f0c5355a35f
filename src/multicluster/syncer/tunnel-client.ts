/**
 * The syncer's side of the tunnel (protocol: api/tunnel.ts), for pull and none modes where atrium cannot reach the
 * cluster: holds a control connection to its SyncTarget's `tunnel` endpoint, reconnecting with backoff while it is
 * down, and per `open` message dials atrium back and forwards the one request atrium writes on that connection to
 * the cluster's API server with the syncer's own credentials (pod streams, reads of the metrics API and of Nodes
 * only), then pipes the bytes both ways. Connections to the cluster are dialled ahead of need (warm-pool.ts).
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { dialApiServer, type ApiServerConnection } from '../../client/dial.js';
import type { RestClientConfig } from '../../client/rest-client.js';
import { logger } from '../../logging/logger.js';
import { encodeMessage, isTunnelledRequest, readMessages, TUNNEL_CONTROL_PROTOCOL, TUNNEL_PING_INTERVAL_MS, TUNNEL_PING_TIMEOUT_MS, TUNNEL_STREAM_PROTOCOL, TUNNEL_SUBRESOURCE } from '../api/tunnel.js';
import { formatHead, forwardedHead, readRequestHead, splice } from '../streams/http-head.js';
import { WarmPool } from '../streams/warm-pool.js';

export interface TunnelClientOptions {
  /** atrium, with the syncer's credentials. */
  upstream: RestClientConfig;
  /** The SyncTarget's logical cluster and name. */
  cluster: string;
  syncTargetName: string;
  /** The cluster's API server, with the syncer's credentials there. */
  downstream: RestClientConfig;
}

const MAX_BACKOFF_MS = 30_000;

export class TunnelClient {
  private control?: Duplex;
  private stopped = false;
  private failures = 0;
  private retry?: NodeJS.Timeout;
  /** Connections are never reused (each becomes a stream), but the agent resumes TLS sessions for every dial back. */
  private readonly agent: Agent;
  /** Connections to the cluster dialled ahead, so a stream's request goes out at once (warm-pool.ts). */
  private readonly downstream: WarmPool<ApiServerConnection>;

  constructor(private readonly opts: TunnelClientOptions) {
    this.agent = new Agent({ ca: opts.upstream.ca, cert: opts.upstream.cert, key: opts.upstream.key, keepAlive: false, maxCachedSessions: 16 });
    this.downstream = new WarmPool(() => dialApiServer(opts.downstream));
  }

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.agent.destroy();
    this.downstream.stop();
    clearTimeout(this.retry);
    this.control?.destroy();
  }

  private endpoint(stream?: string): string {
    const base = `/clusters/${encodeURIComponent(this.opts.cluster)}/apis/workload.kcp.io/v1alpha1/synctargets/${encodeURIComponent(this.opts.syncTargetName)}/${TUNNEL_SUBRESOURCE}`;
    return stream ? `${base}?stream=${encodeURIComponent(stream)}` : base;
  }

  /** An upgraded connection to atrium (`protocol`), or a rejection saying why not. */
  private upgrade(path: string, protocol: string): Promise<Duplex> {
    const { url, ca, cert, key, token } = this.opts.upstream;
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const req = httpsRequest({
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: Number(u.port || 443),
        path,
        method: 'GET',
        ca,
        cert,
        key,
        agent: this.agent,
        headers: { Connection: 'Upgrade', Upgrade: protocol, 'User-Agent': `atrium-syncer/${this.opts.syncTargetName}`, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        timeout: 10_000,
      });
      req.once('upgrade', (_res, socket, head) => {
        socket.setTimeout(0);
        // Stream bytes go out as written (an exec's small frames would otherwise wait on Nagle and delayed ACKs).
        socket.setNoDelay(true);
        if (head.length) socket.unshift(head);
        resolve(socket);
      });
      req.once('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.once('end', () => reject(new Error(`atrium answered ${res.statusCode}: ${statusMessage(body)}`)));
      });
      req.once('timeout', () => req.destroy(new Error('timed out')));
      req.once('error', reject);
      req.end();
    });
  }

  private connect(): void {
    if (this.stopped) return;
    this.upgrade(this.endpoint(), TUNNEL_CONTROL_PROTOCOL).then(
      (socket) => {
        if (this.stopped) return void socket.destroy();
        this.failures = 0;
        this.control = socket;
        logger.info('syncer tunnel connected', { syncTarget: this.opts.syncTargetName, cluster: this.opts.cluster });
        let lastHeard = Date.now();
        const pinger = setInterval(() => {
          if (Date.now() - lastHeard > TUNNEL_PING_TIMEOUT_MS) socket.destroy(new Error('no answer to pings'));
          else socket.write(encodeMessage({ type: 'ping' }));
        }, TUNNEL_PING_INTERVAL_MS);
        pinger.unref();
        readMessages(socket, (m) => {
          lastHeard = Date.now();
          if (m.type === 'ping') socket.write(encodeMessage({ type: 'pong' }));
          else if (m.type === 'open' && typeof m.id === 'string') void this.serveStream(m.id);
        });
        socket.on('error', (err) => logger.warn('syncer tunnel failed', { syncTarget: this.opts.syncTargetName, error: err.message }));
        socket.once('close', () => {
          clearInterval(pinger);
          this.control = undefined;
          if (!this.stopped) {
            logger.warn('syncer tunnel closed; reconnecting', { syncTarget: this.opts.syncTargetName });
            this.scheduleReconnect();
          }
        });
      },
      (err: Error) => {
        this.failures++;
        if (this.failures === 1 || this.failures % 10 === 0) logger.warn('syncer tunnel: cannot connect; retrying', { syncTarget: this.opts.syncTargetName, failures: this.failures, error: err.message });
        this.scheduleReconnect();
      },
    );
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.failures, 7));
    this.retry = setTimeout(() => this.connect(), delay);
    this.retry.unref?.();
  }

  /** Dials atrium back for stream `id` and forwards the request it carries to the cluster. */
  private async serveStream(id: string): Promise<void> {
    let back: Duplex;
    try {
      back = await this.upgrade(this.endpoint(id), TUNNEL_STREAM_PROTOCOL);
    } catch (err) {
      logger.warn('syncer tunnel: cannot dial back', { syncTarget: this.opts.syncTargetName, error: (err as Error).message });
      return;
    }
    let request;
    try {
      request = await readRequestHead(back);
    } catch (err) {
      // atrium opens streams ahead of need and closes those it did not use: nothing was asked on this one.
      logger.debug('syncer tunnel: a stream closed before its request', { syncTarget: this.opts.syncTargetName, error: (err as Error).message });
      back.destroy();
      return;
    }
    try {
      const { head, rest } = request;
      if (!isTunnelledRequest(head.method, head.path)) {
        back.end(httpError(403, `the syncer forwards pod streams and reads of metrics and nodes only, not ${head.method} ${head.path}`));
        return;
      }
      let down;
      try {
        down = await this.downstream.take();
      } catch (err) {
        back.end(httpError(500, `error dialing backend: ${(err as Error).message}`));
        return;
      }
      // Only the credentials change (upgrade: true keeps every other header, a plain request's `Connection: close`).
      const forwarded = forwardedHead(head.method, head.path, head.headers, { host: down.host, authorization: down.authorization, upgrade: true });
      down.socket.write(formatHead(forwarded));
      if (rest.length) down.socket.write(rest);
      splice(back, down.socket);
      back.resume();
    } catch (err) {
      logger.warn('syncer tunnel: stream failed', { syncTarget: this.opts.syncTargetName, error: (err as Error).message });
      back.destroy();
    }
  }
}

function statusMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body.trim();
  }
}

/** A Status response on a raw connection. */
function httpError(code: number, message: string): string {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code });
  return `HTTP/1.1 ${code} ${code === 403 ? 'Forbidden' : 'Internal Server Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
