/**
 * The forwarding half of the proxy subresources (pods/proxy, services/proxy), as apimachinery's UpgradeAwareHandler
 * with kube-apiserver's proxy transport does it once the backend is chosen: the caller's request — any method, the
 * path below `proxy`, its own query, its headers minus credentials and hop-by-hop ones, plus X-Forwarded-* — is sent
 * to the backend connection and the answer streamed back with its status and headers. A GET or HEAD of the bare
 * `…/proxy` is redirected to `…/proxy/` first (upstream's issue 4958 hack); a backend that cannot be reached is a 503
 * "error trying to reach service". An upgrade (a WebSocket through the proxy) becomes a raw pipe once its head is
 * sent. Not done: rewriting links in text/html answers and the Location of redirects, which upstream's transport does.
 */
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { errors } from '../../apimachinery/status.js';
import type { ConnectRequest } from '../connect.js';

export interface ProxyBackend {
  /** `http` or `https`: TLS to the backend, its certificate unchecked, as kube-apiserver's proxy transport dials pods. */
  scheme: string;
  /** `ip:port`, for the error messages. */
  address: string;
  /** Connects to the backend; rejects with the reason it cannot be reached. */
  dial(): Promise<Duplex>;
}

/** Credentials of the caller (authentication and impersonation consumed them) and pseudo-headers of HTTP/2. */
const dropped = /^(authorization|proxy-authorization|impersonate-.*|:.*)$/i;
/** Hop-by-hop headers (RFC 9110 7.6.1), which Go's ReverseProxy removes both ways. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The admitted options' `path` (the URL below `proxy`, see connect-options.ts proxyOptions). */
export function proxyPath(r: ConnectRequest): string {
  const p = r.options?.path;
  return typeof p === 'string' ? p : '';
}

/** Go's URL.EscapedPath of a cleaned path: every byte escaped but unreserved ones and `$&+,/:;=@`. */
function escapePath(path: string): string {
  return encodeURIComponent(path).replace(/%(24|26|2B|2C|2F|3A|3B|3D|40)/gi, (m) => decodeURIComponent(m));
}

/** net.JoinPreservingTrailingSlash("", path) as the backend's request path: cleaned, absolute, trailing slash kept. */
export function backendPath(path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const joined = `/${segments.join('/')}`;
  return escapePath(joined.length > 1 && path.endsWith('/') ? `${joined}/` : joined);
}

/** The request's path and query as the client sent them (the logical-cluster prefix included). */
function requestTarget(r: ConnectRequest): { path: string; query: string } {
  const url = r.req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/**
 * Answers upstream's 301 for a GET or HEAD of `…/proxy` without a path (a relative link in the backend's page would
 * otherwise resolve above it); true when it did. Called once the backend is known: errors finding it come first.
 */
export function redirectToRoot(r: ConnectRequest): boolean {
  const method = r.req.method ?? 'GET';
  if (proxyPath(r) !== '' || (method !== 'GET' && method !== 'HEAD') || r.upgrade) return false;
  const { path, query } = requestTarget(r);
  r.res.writeHead(301, { Location: `${path}/${query ? `?${query}` : ''}` });
  r.res.end();
  return true;
}

function unreachable(err: unknown) {
  return errors.serviceUnavailable(`error trying to reach service: ${(err as Error).message}`);
}

async function dialBackend(backend: ProxyBackend): Promise<Duplex> {
  const raw = await backend.dial().catch((err) => Promise.reject(unreachable(err)));
  if (backend.scheme !== 'https') return raw;
  return new Promise<Duplex>((resolve, reject) => {
    const tls = tlsConnect({ socket: raw as Socket, rejectUnauthorized: false });
    tls.once('secureConnect', () => resolve(tls));
    tls.once('error', (err) => {
      raw.destroy();
      reject(unreachable(err));
    });
  });
}

/** The head's headers for the backend: the caller's, minus what must not travel, plus X-Forwarded-*. */
function forwardedHeaders(r: ConnectRequest, upgrade: boolean): [string, string][] {
  const raw = r.req.rawHeaders;
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'connection') for (const t of raw[i + 1]!.split(',')) named.add(t.trim().toLowerCase());
  const out: [string, string][] = [];
  let forwardedFor = '';
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (dropped.test(name)) continue;
    if (lower === 'x-forwarded-for') {
      forwardedFor = forwardedFor ? `${forwardedFor}, ${raw[i + 1]}` : raw[i + 1]!;
      continue;
    }
    if (lower.startsWith('x-forwarded-')) continue;
    // An upgrade keeps Connection and Upgrade: the backend must see the switch asked for.
    if (!upgrade && (hopByHop.has(lower) || named.has(lower))) continue;
    out.push([name, raw[i + 1]!]);
  }
  const host = r.req.headers.host ?? String(r.req.headers[':authority'] ?? '');
  if (host && !out.some(([n]) => n.toLowerCase() === 'host')) out.unshift(['Host', host]);
  const client = r.req.socket?.remoteAddress;
  if (client) out.push(['X-Forwarded-For', forwardedFor ? `${forwardedFor}, ${client}` : client]);
  out.push(['X-Forwarded-Uri', requestTarget(r).path]);
  if (host) out.push(['X-Forwarded-Host', host]);
  out.push(['X-Forwarded-Proto', (r.req.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http']);
  return out;
}

/** Sends `r` to `backend` at `path` (backendPath) with the request's query and relays the answer. */
export async function proxyRequest(r: ConnectRequest, backend: ProxyBackend, path: string): Promise<void> {
  const { query } = requestTarget(r);
  const target = query ? `${path}?${query}` : path;
  const conn = await dialBackend(backend);
  return r.upgrade ? pipeUpgrade(r, conn, target) : relay(r, conn, target);
}

function pipeUpgrade(r: ConnectRequest, conn: Duplex, target: string): void {
  const socket = r.upgrade!.socket;
  if (r.res.socket === socket) r.res.detachSocket(socket as Socket);
  let head = `${r.req.method ?? 'GET'} ${target} HTTP/1.1\r\n`;
  for (const [n, v] of forwardedHeaders(r, true)) if (!/[\r\n]/.test(n + v)) head += `${n}: ${v}\r\n`;
  conn.write(`${head}\r\n`, 'latin1');
  if (r.upgrade!.head.length) conn.write(r.upgrade!.head);
  socket.pipe(conn).pipe(socket);
  const close = () => {
    socket.destroy();
    conn.destroy();
  };
  socket.once('close', close).once('error', close);
  conn.once('close', close).once('error', close);
}

function relay(r: ConnectRequest, conn: Duplex, target: string): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  for (const [n, v] of forwardedHeaders(r, false)) {
    const k = n.toLowerCase();
    const prev = headers[k];
    headers[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [String(prev), v];
  }
  headers.connection = 'close';
  return new Promise<void>((resolve, reject) => {
    const upstream = httpRequest({ method: r.req.method ?? 'GET', path: target, headers, createConnection: () => conn as never });
    r.res.once('close', () => {
      if (!r.res.writableFinished) upstream.destroy();
      resolve();
    });
    upstream.once('response', (down) => {
      const out: IncomingHttpHeaders = {};
      const named = new Set(String(down.headers.connection ?? '').split(',').map((t) => t.trim().toLowerCase()));
      for (const [k, v] of Object.entries(down.headers)) if (!hopByHop.has(k) && !named.has(k) && v !== undefined) out[k] = v;
      r.res.writeHead(down.statusCode ?? 502, out as Record<string, string | string[]>);
      r.res.flushHeaders();
      down.pipe(r.res);
      // Cut off mid-answer: the client's answer is cut off too, so it sees an error, not a complete-looking body.
      down.once('aborted', () => r.res.destroy());
      down.once('error', () => r.res.destroy());
    });
    upstream.once('error', (err) => {
      if (!r.res.headersSent) reject(unreachable(err));
      else r.res.destroy();
    });
    r.req.pipe(upstream);
  });
}

export interface ProxyName {
  scheme: string;
  name: string;
  port: string;
}

/** utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port`, scheme `http` or `https`; else undefined. */
export function splitSchemeNamePort(id: string): ProxyName | undefined {
  const parts = id.split(':');
  const [scheme, name, port] = parts.length === 1 ? ['', parts[0]!, ''] : parts.length === 2 ? ['', parts[0]!, parts[1]!] : parts.length === 3 ? [parts[0]!, parts[1]!, parts[2]!] : ['', '', ''];
  return name && (scheme === '' || scheme === 'http' || scheme === 'https') ? { scheme, name, port } : undefined;
}
