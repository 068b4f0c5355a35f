/**
 * HTTP/1.1 request heads, written and read by hand: a forwarded stream is bytes after its head, so atrium and the
 * syncer only ever touch the head (path, credentials) and pipe everything else untouched.
 */
import type { Duplex } from 'node:stream';

export type HeaderList = [name: string, value: string][];

export interface RequestHead {
  method: string;
  path: string;
  headers: HeaderList;
}

/** Headers that describe the caller to the server it called; never forwarded to another server. */
const credentialHeaders = /^(authorization|proxy-authorization|impersonate-.*|host)$/i;
/** Hop-by-hop headers of one connection (RFC 9110 7.6.1), dropped when a plain request is sent on another one. */
const hopByHop = /^(connection|keep-alive|proxy-connection|te|trailer|transfer-encoding|upgrade)$/i;

/** Pairs of Node's rawHeaders (names as the client spelled them, repeated headers kept). */
export function headerPairs(raw: string[]): HeaderList {
  const out: HeaderList = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/**
 * The head to send to another server: the caller's headers minus its credentials (and, for a plain request, the
 * hop-by-hop ones, plus `Connection: close`: the connection carries this one request), with `host` and
 * `authorization` of the new hop.
 */
export function forwardedHead(method: string, path: string, headers: HeaderList, hop: { host: string; authorization?: string; upgrade: boolean }): RequestHead {
  // A request that came over HTTP/2 (kubectl logs) carries pseudo-headers (:method, :path, :authority, :scheme),
  // which an HTTP/1.1 head cannot.
  const kept = headers.filter(([n]) => !n.startsWith(':') && !credentialHeaders.test(n) && (hop.upgrade || !hopByHop.test(n)));
  return {
    method,
    path,
    headers: [['Host', hop.host], ...(hop.authorization ? [['Authorization', hop.authorization] as [string, string]] : []), ...kept, ...(hop.upgrade ? [] : [['Connection', 'close'] as [string, string]])],
  };
}

export function formatHead(h: RequestHead): Buffer {
  let text = `${h.method} ${h.path} HTTP/1.1\r\n`;
  for (const [n, v] of h.headers) if (!/[\r\n]/.test(n + v)) text += `${n}: ${v}\r\n`;
  return Buffer.from(`${text}\r\n`, 'latin1');
}

const MAX_HEAD_BYTES = 1 << 20;

/** Reads one request head from `stream`; resolves with it and the bytes read past it. */
export function readRequestHead(stream: Duplex): Promise<{ head: RequestHead; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const done = (err?: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onEnd);
      stream.off('close', onClose);
      if (err) reject(err);
    };
    const onEnd = (err?: Error) => done(err ?? new Error('connection closed before a request head'));
    // A connection destroyed before its head (an unused stream let go) may close without 'end'.
    const onClose = () => onEnd();
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > MAX_HEAD_BYTES) done(new Error('request head too large'));
        return;
      }
      stream.pause();
      done();
      const lines = buffered.subarray(0, end).toString('latin1').split('\r\n');
      const [method = '', path = ''] = lines[0]!.split(' ');
      const headers: HeaderList = [];
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
      }
      resolve({ head: { method, path, headers }, rest: buffered.subarray(end + 4) });
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onEnd);
    stream.once('close', onClose);
  });
}

/**
 * Connects two streams both ways. When one closes, the other is ended at once (what was already written to it is
 * still flushed, then it is destroyed); when one fails, the other is destroyed outright.
 */
export function splice(a: Duplex, b: Duplex, onClose?: () => void): void {
  let closed = false;
  const finish = (other: Duplex, err?: Error) => {
    if (!closed) {
      closed = true;
      onClose?.();
    }
    if (err || other.destroyed) return void other.destroy();
    other.end();
    other.once('finish', () => other.destroy());
    setTimeout(() => other.destroy(), 2000).unref();
  };
  a.once('close', () => finish(b));
  b.once('close', () => finish(a));
  a.once('error', (err) => finish(b, err));
  b.once('error', (err) => finish(a, err));
  a.pipe(b);
  b.pipe(a);
}
