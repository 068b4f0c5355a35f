/**
 * The HTTPS host: the listener and the filter chain every request passes, written out in one place (handle()), as
 * upstream's DefaultBuildHandlerChain: Audit-ID → request info (the path parsed once) → request deadline →
 * authentication → flow control → interception (kcp's home workspace) → logical cluster → authorization → routing.
 * Who the user is, which cluster a request addresses and what it may do are the `RequestFilters` the composition
 * root hands in; the host knows none of the features that implement them.
 */
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../apimachinery/object.js';
import { errors, StatusError } from '../apimachinery/status.js';
import type { UserInfo } from '../apimachinery/user.js';
import { logger } from '../logging/logger.js';
import type { RequestContext, ResourceDefinition } from '../registry/rest.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { Admission } from './admission/admission.js';
import { healthChecks } from './health.js';
import { servesProtobuf, writeObject } from './handlers/render.js';
import { writeError, writeRaw } from './http/response.js';
import { adaptHttp2, configureSession, http2Limits, http2ServerOptions, isHttp2 } from './http/http2.js';
import { createLoopback, type LoopbackSocket } from './http/loopback.js';
import { negotiateObjectOutput, statusInProtobuf } from './http/negotiation.js';
import type { OpenAPIService } from './openapi/service.js';
import { answerTimeout, isLongRunning, requestDeadlineMs } from './request-deadline.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { hasInvalidPathEscape, parseRequestUrl } from './request-url.js';
import { route } from './router.js';
import type { ConnectHandler, UpgradeConnection } from './connect.js';
import { matchPublicEndpoint, type PublicEndpoint } from './public-endpoint.js';
import type { VirtualWorkspaceResolver, VirtualWorkspaceRoute } from './virtual-workspace.js';

/** The paths of APF's `probes` FlowSchema (exempt from flow control), GET only. */
const probePaths = new Set(['/healthz', '/readyz', '/livez']);

/** What RequestFilters.intercept answers with instead of routing. */
export type InterceptAnswer = { object: KubeObject; def: ResourceDefinition } | { code: number; text: string; headers?: Record<string, string> };

/** The pluggable steps of the filter chain, in the order they run. */
export interface RequestFilters {
  /** Who sent the request; throws a 401 Status for bad credentials. */
  authenticate(req: IncomingMessage): Promise<UserInfo>;
  /** Flow control: throws a 429 Status when the user is over their rate. Health probes are exempt. */
  admitRate?(user: UserInfo): void;
  /**
   * Answers a request itself instead of routing it, e.g. kcp's `workspaces/~`: an object to write with 200, or a
   * plain-text answer as Go's http.Error writes one.
   */
  intercept?(req: IncomingMessage, info: RequestInfo, user: UserInfo): Promise<InterceptAnswer | undefined>;
  /** The logical cluster the request addresses (sets `info.cluster`); throws a Status when there is none. */
  resolveCluster(info: RequestInfo, user: UserInfo): string;
  /** Authorizes the request in its cluster and returns the user it acts as (impersonation); throws 403. */
  authorize(req: IncomingMessage, info: RequestInfo, user: UserInfo): Promise<UserInfo>;
  /**
   * Virtual workspaces (kcp's `/services/...`): a request under one is parsed from the route's own path, authorized
   * by the route instead of resolveCluster and authorize, and served from the route's view of the resources.
   */
  virtualWorkspace?: VirtualWorkspaceResolver;
}

export interface HostOptions {
  bindAddress: string;
  /** 0 picks a free port. */
  securePort: number;
  tls: { keyPem: string; certPem: string; caPem: string };
  filters: RequestFilters;
  registry: ResourceRegistry;
  admission: Admission;
  openapi: OpenAPIService;
  /** Why storage is unhealthy now ('' when healthy): fails /healthz, /livez and /readyz (the etcd checks). */
  storageProblem(): string;
  /** Paths plugins answer themselves (streaming subresources; connect.ts). */
  connect?: readonly ConnectHandler[];
  /** Paths plugins answer before authentication (public static content: the console; public-endpoint.ts). */
  publicEndpoints?: readonly PublicEndpoint[];
}

export interface RunningHost {
  /** https://host:port (127.0.0.1 for a wildcard bind address). */
  url: string;
  port: number;
  /** An in-process connection to the same handlers (plain HTTP/1.1, no TLS): for controllers in this process. */
  connectLoopback(): LoopbackSocket;
  /** Marks the server ready (/readyz's informer-sync check passes). */
  setReady(): void;
  /** Fails /readyz, stops listening and closes every connection, including watches. */
  close(): Promise<void>;
}

/** Starts listening with the filter chain below; resolves once the port is bound. */
export async function startHost(opts: HostOptions): Promise<RunningHost> {
  const { filters, registry } = opts;
  let ready = false;
  let stopping = false;
  const health = healthChecks({ storageProblem: opts.storageProblem, started: () => ready, shuttingDown: () => stopping });
  const publicEndpoints = opts.publicEndpoints ?? [];
  const deps = { registry, admission: opts.admission, openapi: opts.openapi, health, connect: opts.connect ?? [] };

  const handle = async (req: IncomingMessage, res: ServerResponse, upgrade?: UpgradeConnection): Promise<void> => {
    const started = Date.now();
    let ctx: RequestContext | undefined;
    let deadline: NodeJS.Timeout | undefined;
    let timedOut = false;
    // audit_init.go: every response carries the request's Audit-ID, the client's own or a new UUID.
    const auditId = req.headers['audit-id'];
    res.setHeader('Audit-ID', typeof auditId === 'string' && auditId ? auditId : randomUUID());
    if (hasInvalidPathEscape(req.url)) {
      // Go's server rejects the request line itself: plain 400, connection closed.
      res.removeHeader('Audit-ID');
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('400 Bad Request');
      return;
    }
    try {
      const url = parseRequestUrl(req.url);
      // Public content (the console's assets) is answered before authentication: the same for everybody.
      const pub = !upgrade && publicEndpoints.length > 0 ? matchPublicEndpoint(publicEndpoints, url.pathname) : undefined;
      if (pub) {
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          writeRaw(res, 405, 'Method Not Allowed\n', 'text/plain; charset=utf-8', { Allow: 'GET, HEAD' });
        } else if (pub.rest === undefined) {
          const query = url.searchParams.toString();
          res.writeHead(301, { Location: `${pub.endpoint.prefix}${query ? `?${query}` : ''}` });
          res.end();
        } else {
          pub.endpoint.serve(req, res, pub.rest);
        }
        return;
      }
      let vw: VirtualWorkspaceRoute | undefined;
      if (url.pathname.startsWith('/services/')) {
        vw = filters.virtualWorkspace?.(url.pathname);
        if (!vw) {
          writeRaw(res, 404, '404 page not found\n', 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
          return;
        }
      }
      const info = parseRequestInfo(req.method ?? 'GET', vw ? vw.path : url.pathname, url.searchParams);
      // WithRequestDeadline + WithTimeoutForNonLongRunningRequests: before authentication, as upstream's chain.
      // An upgrade request becomes a stream (the tunnel of multicluster/streams too): no deadline, as upstream's
      // streaming subresources, which are the only upgrades it serves.
      if (!upgrade && !isLongRunning(info)) {
        const ms = requestDeadlineMs(url.searchParams);
        deadline = setTimeout(() => {
          timedOut = true;
          answerTimeout(req, res);
        }, ms);
        deadline.unref();
        res.once('close', () => clearTimeout(deadline));
      }
      const user = await filters.authenticate(req);
      // APF's `probes` FlowSchema puts GET /healthz, /readyz and /livez in the exempt priority level; a rejected request
      // gets APF's plain-text 429 (maxinflight.go tooManyRequests), not a Status.
      if (filters.admitRate && !(req.method === 'GET' && probePaths.has(url.pathname))) {
        try {
          filters.admitRate(user);
        } catch (err) {
          if (!(err instanceof StatusError) || err.status.code !== 429) throw err;
          writeRaw(res, 429, 'Too many requests, please try again later.\n', 'text/plain; charset=utf-8', { 'Retry-After': String(err.headers?.['Retry-After'] ?? '1'), 'X-Content-Type-Options': 'nosniff' });
          return;
        }
      }
      if (vw) {
        ctx = vw.authorize(info, user);
        info.cluster = ctx.cluster;
        await route(req, res, info, url.searchParams, ctx, { ...deps, registry: vw.resources }, upgrade);
        return;
      }
      const answered = await filters.intercept?.(req, info, user);
      if (answered && 'text' in answered) {
        writeRaw(res, answered.code, `${answered.text}\n`, 'text/plain; charset=utf-8', { ...answered.headers, 'X-Content-Type-Options': 'nosniff' });
        return;
      }
      if (answered) {
        const output = negotiateObjectOutput(req.headers.accept, url.searchParams.get('includeObject'), true, servesProtobuf(answered.def));
        writeObject(res, 200, answered.object, output, answered.def);
        return;
      }
      info.cluster = filters.resolveCluster(info, user);
      // Credential scope, impersonation, rate limit, authorization, object quota: all before any object is read.
      ctx = { cluster: info.cluster, user: await filters.authorize(req, info, user) };
      await route(req, res, info, url.searchParams, ctx, deps, upgrade);
    } catch (err) {
      if (timedOut) return; // already answered 504; whatever the handler ran into afterwards is moot
      if (err instanceof StatusError || !res.headersSent) writeError(res, err, { method: req.method, url: req.url }, statusInProtobuf(req.headers.accept));
      else {
        logger.error('internal error after response started', { url: req.url, error: (err as Error).stack });
        res.end();
      }
    } finally {
      if (deadline && !timedOut && res.writableEnded) clearTimeout(deadline);
      // Request lines are debug-level: no listener per request unless they are written.
      if (logger.enabled('debug')) {
        res.once('finish', () => {
          logger.debug('request', { method: req.method, url: req.url, code: res.statusCode, user: ctx?.user.username, ms: Date.now() - started });
        });
      }
    }
  };

  const onRequest = (rawReq: IncomingMessage | Http2ServerRequest, rawRes: ServerResponse | Http2ServerResponse): void => {
    const { req, res } = isHttp2(rawReq) ? adaptHttp2(rawReq, rawRes as Http2ServerResponse) : { req: rawReq, res: rawRes as ServerResponse };
    handle(req, res).catch((err) => {
      logger.error('unhandled request failure', { error: (err as Error).stack });
      try {
        writeError(res, errors.internal('unhandled failure'));
      } catch {
        /* connection already gone */
      }
    });
  };
  // A request asking to switch protocols (kubectl exec/attach/port-forward: WebSocket, or SPDY/3.1 as the fallback)
  // passes the same filter chain; its response is bound to the raw socket, which a connect handler may take over
  // with a 101. Any other answer closes the connection, as Go's server does after a refused upgrade.
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    res.once('finish', () => socket.end());
    socket.on('error', () => socket.destroy());
    handle(req, res, { socket, head }).catch((err) => {
      logger.error('unhandled upgrade failure', { error: (err as Error).stack });
      socket.destroy();
    });
  };

  // One TLS listener for both protocols, as Go's server with http2.ConfigureServer: ALPN `h2` gets HTTP/2 (client-go,
  // kubectl and every Go client multiplex their requests on one connection), `http/1.1` or no ALPN gets HTTP/1.1,
  // which is also the only protocol of the upgrades below (kubectl's exec, attach, port-forward; the syncer's tunnel).
  const server: Http2SecureServer = createSecureServer(
    {
      key: opts.tls.keyPem,
      cert: opts.tls.certPem,
      ca: opts.tls.caPem,
      requestCert: true,
      rejectUnauthorized: false,
      // TCP_NODELAY on every accepted connection, as Go sets by default and node:http's own servers do (a TLS or HTTP/2
      // server leaves Nagle on): a watch stream's small event frames otherwise wait for the client's delayed ACK,
      // up to 40 ms on Linux, whenever an earlier frame is still unacknowledged.
      noDelay: true,
      ...http2ServerOptions(),
    },
    onRequest,
  );
  server.on('session', configureSession);
  // The HTTP/1.1 side reads node:http's settings from the server object: kube-apiserver's MaxHeaderBytes
  // (secure_serving.go): 1 MiB of request line and headers, not node's 16 KiB.
  const http1 = server as unknown as { maxHeaderSize: number; keepAliveTimeout: number; headersTimeout: number; requestTimeout: number };
  http1.maxHeaderSize = http2Limits.maxHeaderBytes;
  server.on('upgrade', onUpgrade);
  // The same handlers for the process's own controllers, without TLS or sockets (http/loopback.ts).
  const loopback = createLoopback(onRequest, onUpgrade, { maxHeaderSize: http2Limits.maxHeaderBytes });
  http1.keepAliveTimeout = 65_000;
  http1.headersTimeout = 66_000;
  // Watches are long-lived: the deadline of other requests is handle()'s (request-deadline.ts), as upstream's filters.
  http1.requestTimeout = 0;
  const sockets = new Set<Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.securePort, opts.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
  return {
    url: `https://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`,
    port,
    connectLoopback: () => loopback.connect(),
    setReady: () => {
      ready = true;
    },
    close: async () => {
      stopping = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Watches never end on their own: close idle and streaming connections so shutdown is prompt.
        for (const s of sockets) s.destroy();
        loopback.close();
      });
    },
  };
}
