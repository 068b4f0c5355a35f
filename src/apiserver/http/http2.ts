/**
 * HTTP/2 next to HTTP/1.1 on one TLS listener (ALPN `h2`, falling back to `http/1.1`), with kube-apiserver's HTTP/2
 * settings (k8s.io/apiserver pkg/server/secure_serving.go), and the one place where an HTTP/2 request and response
 * are made to look like the node:http ones every handler takes.
 */
import type { IncomingMessage, ServerResponse, OutgoingHttpHeaders } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, Http2Session, SecureServerOptions } from 'node:http2';

/**
 * secure_serving.go: 256 KiB frames and per-stream upload buffer ("at least 99% of serialized resources ... smaller
 * than 256kb"), MaxConcurrentStreams 100 when --http2-max-streams-per-connection is 0 (kube-apiserver's default; the
 * aggregated servers' RecommendedOptions say 1000), a connection window of 100 × 256 KiB, an idle timeout of 90 s,
 * and MaxHeaderBytes 1 MiB.
 */
export const http2Limits = {
  maxConcurrentStreams: 100,
  frameBytes: 256 * 1024,
  idleTimeoutMs: 90_000,
  maxHeaderBytes: 1 << 20,
} as const;

/** The server options for node:http2's createSecureServer that give kube-apiserver's settings. */
export function http2ServerOptions(): Pick<SecureServerOptions, 'allowHTTP1' | 'settings' | 'maxSessionMemory'> {
  return {
    allowHTTP1: true,
    settings: {
      maxConcurrentStreams: http2Limits.maxConcurrentStreams,
      maxFrameSize: http2Limits.frameBytes,
      initialWindowSize: http2Limits.frameBytes,
      maxHeaderListSize: http2Limits.maxHeaderBytes,
    },
    // Watches of slow clients hold their unsent events in the session: node's 10 MB default would refuse new streams
    // long before the connection window (25 MiB) is used.
    maxSessionMemory: 64,
  };
}

/**
 * Per session: the connection window kube-apiserver gives (MaxUploadBufferPerConnection = 256 KiB × streams), and
 * Go's IdleTimeout — the session is closed (GOAWAY) after 90 s without an open stream. (node's own session timeout
 * counts inactivity of the socket, which would cut a quiet watch.)
 */
export function configureSession(session: Http2Session): void {
  try {
    session.setLocalWindowSize(http2Limits.frameBytes * http2Limits.maxConcurrentStreams);
  } catch {
    /* session already closing */
  }
  let open = 0;
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    idle = setTimeout(() => {
      if (open === 0 && !session.closed && !session.destroyed) session.close();
    }, http2Limits.idleTimeoutMs);
    idle.unref();
  };
  arm();
  session.on('stream', (stream) => {
    open++;
    clearTimeout(idle);
    stream.once('close', () => {
      if (--open === 0) arm();
    });
  });
  session.once('close', () => clearTimeout(idle));
}

/** Connection-specific headers HTTP/2 forbids (RFC 9113 8.2.2); node's http2 refuses a response carrying them. */
const connectionSpecific = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

function withoutConnectionHeaders(headers: OutgoingHttpHeaders | undefined): OutgoingHttpHeaders | undefined {
  if (!headers || Array.isArray(headers)) return headers;
  let out: OutgoingHttpHeaders | undefined;
  for (const name of Object.keys(headers)) {
    if (connectionSpecific.has(name.toLowerCase())) {
      out ??= { ...headers };
      delete out[name];
    }
  }
  return out ?? headers;
}

/** Whether a request arrived over HTTP/2. */
export function isHttp2(req: IncomingMessage | Http2ServerRequest): req is Http2ServerRequest {
  return req.httpVersionMajor === 2;
}

/**
 * Makes an HTTP/2 exchange usable where node:http's IncomingMessage and ServerResponse are expected: the handlers set
 * `Connection: close` or `Transfer-Encoding: chunked` where HTTP/1.1 needs them (dropped here: every HTTP/2 response
 * is framed and the connection is never the request's to close), read `Host` (HTTP/2's `:authority`) and
 * `headersDistinct`, and ask whether the response is `destroyed`. Everything else they use (writeHead, setHeader, write, end, flushHeaders,
 * writableLength, 'drain' and 'close', the socket's peer certificate) node's compatibility API already provides.
 */
export function adaptHttp2(req: Http2ServerRequest, res: Http2ServerResponse): { req: IncomingMessage; res: ServerResponse } {
  const authority = req.headers[':authority'];
  if (req.headers.host === undefined && typeof authority === 'string') req.headers.host = authority;
  // node:http's `headersDistinct` (every value of a repeated header: Impersonate-Group, Impersonate-Extra-*), which the
  // compatibility API lacks; without it impersonation would silently not happen over HTTP/2.
  const distinct: Record<string, string[]> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (!name.startsWith(':')) (distinct[name] ??= []).push(req.rawHeaders[i + 1]!);
  }
  Object.defineProperty(req, 'headersDistinct', { value: distinct, configurable: true });
  const setHeader = res.setHeader.bind(res);
  const writeHead = res.writeHead.bind(res) as (code: number, a?: unknown, b?: unknown) => Http2ServerResponse;
  const patched = res as unknown as Record<string, unknown>;
  patched.setHeader = (name: string, value: number | string | readonly string[]) => (connectionSpecific.has(name.toLowerCase()) ? res : setHeader(name, value));
  patched.writeHead = (code: number, a?: unknown, b?: unknown) =>
    typeof a === 'string' ? writeHead(code, a, withoutConnectionHeaders(b as OutgoingHttpHeaders)) : writeHead(code, withoutConnectionHeaders(a as OutgoingHttpHeaders));
  Object.defineProperty(res, 'destroyed', { get: () => res.stream.destroyed, configurable: true });
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse };
}
