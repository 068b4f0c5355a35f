import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';
import { errors } from '../../apimachinery/status.js';
import type { UserInfo } from '../../registry/rest.js';

/** Static bearer tokens: token → user (the admin token, and later a token file). */
export type TokenTable = Map<string, UserInfo>;

export interface AuthenticatorOptions {
  tokens: TokenTable;
  anonymous: boolean;
}

function tokenEquals(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * Authenticates a request (k8s.io/apiserver pkg/authentication): a client certificate verified against our CA
 * (CN = user, O = groups), else a bearer token, else anonymous when enabled; otherwise 401. Every authenticated user
 * also gets system:authenticated.
 */
export function authenticate(req: IncomingMessage, opts: AuthenticatorOptions): UserInfo {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) {
      const token = m[1]!;
      for (const [t, user] of opts.tokens) {
        if (tokenEquals(t, token)) return withAuthenticated(user);
      }
    }
    // A presented but invalid credential is refused, even when anonymous access is enabled (as upstream).
    throw errors.unauthorized();
  }
  const socket = req.socket as TLSSocket;
  if (socket.authorized && typeof socket.getPeerCertificate === 'function') {
    // The peer certificate is fixed for the life of a TLS connection, and reading it is costly: once per socket.
    let user = certificateUsers.get(socket);
    if (user === undefined) {
      const cert = socket.getPeerCertificate();
      const cn = cert && cert.subject ? asList(cert.subject.CN)[0] : undefined;
      user = cn ? withAuthenticated({ username: cn, groups: asList(cert.subject.O) }) : null;
      certificateUsers.set(socket, user);
    }
    if (user) return user;
  }
  if (opts.anonymous) return { username: 'system:anonymous', groups: ['system:unauthenticated'] };
  throw errors.unauthorized();
}

const certificateUsers = new WeakMap<TLSSocket, UserInfo | null>();

function withAuthenticated(user: UserInfo): UserInfo {
  const groups = user.groups.includes('system:authenticated') ? user.groups : [...user.groups, 'system:authenticated'];
  return { ...user, groups };
}
