/**
 * A raw connection to an API server, for what the REST client cannot carry: forwarding a request byte for byte
 * (streams through the control plane, src/multicluster/streams/). The caller writes the HTTP request itself, with
 * `authorization` as its Authorization header when set (the client certificate, if any, is already presented).
 */
import { connect, createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import type { RestClientConfig } from './rest-client.js';

export interface ApiServerConnection {
  socket: TLSSocket;
  /** The `Host` header for requests on it (`host:port`). */
  host: string;
  /** `Bearer <token>` when the credentials are a token. */
  authorization?: string;
}

/**
 * TLS sessions by server and client identity: a stream per `kubectl exec` or `logs` is a new connection each time,
 * and resuming the session skips most of the handshake (measured: about half the added latency of a forwarded
 * `logs -f`'s first line, bench/debug-streams.ts).
 */
const sessions = new Map<string, Buffer>();
const MAX_SESSIONS = 1000;

/**
 * TLS contexts by the same identity: building one parses the CA bundle, certificate and key, about a millisecond of
 * CPU that every dial would otherwise spend before its first byte.
 */
const contexts = new Map<string, SecureContext>();

function secureContextFor(key: string, config: Pick<RestClientConfig, 'ca' | 'cert' | 'key'>): SecureContext {
  let context = contexts.get(key);
  if (!context) {
    if (contexts.size >= MAX_SESSIONS) contexts.clear();
    context = createSecureContext({ ca: config.ca, cert: config.cert, key: config.key });
    contexts.set(key, context);
  }
  return context;
}

/** Opens a TLS connection to the server of `config` (its CA, client certificate and token); rejects on failure. */
export function dialApiServer(config: Pick<RestClientConfig, 'url' | 'ca' | 'cert' | 'key' | 'token'>, timeoutMs = 10_000): Promise<ApiServerConnection> {
  const url = new URL(config.url);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  const sessionKey = `${url.host}\n${config.cert ?? ''}\n${config.ca ?? ''}`;
  const secureContext = secureContextFor(`${config.cert ?? ''}\n${config.key ?? ''}\n${config.ca ?? ''}`, config);
  return new Promise((resolve, reject) => {
    const session = sessions.get(sessionKey);
    const socket = connect({
      ...(session ? { session } : {}),
      host: hostname,
      port,
      secureContext,
      ALPNProtocols: ['http/1.1'],
      ...(isIP(hostname) ? {} : { servername: hostname }),
    });
    socket.on('session', (s: Buffer) => {
      if (sessions.size >= MAX_SESSIONS) sessions.clear();
      sessions.set(sessionKey, s);
    });
    const timer = setTimeout(() => socket.destroy(new Error(`dial tcp ${url.host}: i/o timeout`)), timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.off('error', reject);
      socket.setNoDelay(true);
      resolve({ socket, host: url.host, ...(config.token ? { authorization: `Bearer ${config.token}` } : {}) });
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
