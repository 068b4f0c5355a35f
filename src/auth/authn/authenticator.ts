/**
 * Request authentication (k8s.io/apiserver pkg/authentication), in upstream's order: a client certificate verified
 * against our CA (CN = user, O = groups), else a bearer token (static tokens, then ServiceAccount JWTs), else
 * anonymous when enabled; otherwise 401. A presented but invalid credential (certificate or bearer token) is refused
 * even when anonymous access is enabled. Every authenticated user also gets system:authenticated.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';
import { errors } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { CLUSTER_NAME_EXTRA } from '../../apimachinery/user.js';
import type { ServiceAccountTokens } from './service-account-token.js';

/** Static bearer tokens: token → user (the admin token and the --token-auth-file users). */
export type TokenTable = Map<string, UserInfo>;

/** Reads a ServiceAccount of a logical cluster; undefined when it does not exist. */
export type ServiceAccountGetter = (cluster: string, namespace: string, name: string) => Promise<KubeObject | undefined>;

/**
 * Reads a core/v1 object (`secrets`, `pods`, `nodes`; namespace '' for nodes) of a logical cluster; undefined when it
 * does not exist or the cluster does not serve that resource at all (the control plane serves no pods or nodes).
 */
export type CoreObjectGetter = (cluster: string, resource: string, namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface AuthenticatorOptions {
  tokens: TokenTable;
  serviceAccountTokens: ServiceAccountTokens;
  getServiceAccount: ServiceAccountGetter;
  /** Looks up the object a token is bound to (Secret, Pod, Node). */
  getCoreObject: CoreObjectGetter;
  anonymous: boolean;
}

export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

function tokenEquals(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** Adds system:authenticated unless present. */
export function withAuthenticated(user: UserInfo): UserInfo {
  return user.groups.includes('system:authenticated') ? user : { ...user, groups: [...user.groups, 'system:authenticated'] };
}

/** The identity of a ServiceAccount, as its tokens authenticate. */
export function serviceAccountUser(cluster: string, namespace: string, name: string, uid: string, jti?: string): UserInfo {
  const extra: Record<string, string[]> = { [CLUSTER_NAME_EXTRA]: [cluster] };
  if (jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${jti}`];
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    extra,
  };
}

/** What a connection's client certificate says: a user, no opinion (none, or no CN), or a failed verification. */
type CertificateResult = { user: UserInfo } | { error: true } | null;
const certificateResults = new WeakMap<object, CertificateResult>();

/**
 * The bearer token of an Authorization header as bearertoken.Authenticator reads it: the trimmed value split on
 * single spaces (at most three parts), scheme `bearer` in any case, the second part non-empty. Anything else (Basic,
 * an empty token) is no opinion, never an error.
 */
function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? '').trim();
  if (!auth) return undefined;
  const parts = auth.split(' ');
  const [scheme, token] = [parts[0]!, parts[1]];
  if (token === undefined || scheme.toLowerCase() !== 'bearer') return undefined;
  return token || undefined;
}

export class Authenticator {
  constructor(private readonly opts: AuthenticatorOptions) {}

  /**
   * Authenticates an HTTP request; throws 401 when it cannot. As upstream's chain: the client certificate, then the
   * bearer token; the first that authenticates wins. A credential that fails (a certificate our CA did not sign or that
   * expired, an unknown token) makes the request 401 unless another one authenticates it — anonymous access never
   * covers it (union.NewFailOnError). A request with no credential (or an Authorization scheme other than Bearer) is
   * anonymous when enabled, else 401. A ServiceAccount token authenticates in every workspace, its own named in
   * extra[CLUSTER_NAME_EXTRA]: elsewhere the authorizer matches it as any authenticated user (as kcp does).
   */
  async authenticate(req: IncomingMessage): Promise<UserInfo> {
    const cert = this.certificateUser(req);
    if (cert && 'user' in cert) return cert.user;
    let failed = cert !== null;
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined) {
      const r = await this.authenticateToken(token);
      if ('user' in r) return r.user;
      failed = true;
    }
    if (!failed && this.opts.anonymous) return ANONYMOUS;
    throw errors.unauthorized();
  }

  private certificateUser(req: IncomingMessage): CertificateResult {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return null;
    // A connection's peer certificate never changes and reading it is costly (it showed at ~8% of a create's CPU):
    // work the user out once per TLS connection. Over HTTP/2, req.socket is a proxy made for each stream; the
    // session's socket proxy is made once per connection, so that is the key.
    const connection = (req as { stream?: { session?: { socket?: object } } }).stream?.session?.socket ?? socket;
    const cached = certificateResults.get(connection);
    if (cached !== undefined) return cached;
    let result: CertificateResult = null;
    if (socket.authorized) {
      const cert = socket.getPeerCertificate();
      const cn = cert?.subject ? asList(cert.subject.CN)[0] : undefined;
      if (cn) result = { user: withAuthenticated({ username: cn, groups: asList(cert.subject.O) }) };
    } else {
      // Presented but not verified against our CA: an authentication error, not an absent credential.
      const cert = socket.getPeerCertificate();
      if (cert && Object.keys(cert).length > 0) result = { error: true };
    }
    certificateResults.set(connection, result);
    return result;
  }

  /**
   * Authenticates a bearer token (also TokenReview's job, in whichever workspace it is asked: kcp's authenticator
   * is the server's, not the workspace's): static tokens first, then ServiceAccount tokens, whose ServiceAccount, and
   * the Secret, Pod or Node the token is bound to, must still exist in the token's workspace with the same uid.
   */
  async authenticateToken(token: string, audiences?: readonly string[], now = new Date()): Promise<{ user: UserInfo; audiences?: string[] } | { error: string }> {
    for (const [t, user] of this.opts.tokens) {
      if (tokenEquals(t, token)) return { user: withAuthenticated(user) };
    }
    const sat = this.opts.serviceAccountTokens;
    if (!sat.looksLikeOurs(token)) return { error: 'invalid bearer token' };
    const v = sat.verify(token, audiences, now);
    if ('error' in v) return v;
    // pkg/serviceaccount/claims.go validator.Validate: the ServiceAccount and the object the token is bound to must
    // still exist with the UIDs in the claims. Something deleted (deletionTimestamp set, finalizers pending) counts
    // as gone once its deletionTimestamp is more than jwt.DefaultLeeway (1 minute) in the past.
    const invalidIfDeletedBefore = now.getTime() - 60_000;
    const deletedBefore = (o: KubeObject): boolean => {
      const ts = o.metadata?.deletionTimestamp;
      return typeof ts === 'string' && Date.parse(ts) < invalidIfDeletedBefore;
    };
    const sa = await this.opts.getServiceAccount(v.cluster, v.namespace, v.name);
    if (!sa) return { error: `invalid bearer token, serviceaccounts ${JSON.stringify(v.name)} not found` };
    if (sa.metadata?.uid !== v.uid) return { error: `invalid bearer token, service account UID (${sa.metadata?.uid ?? ''}) does not match claim (${v.uid})` };
    if (deletedBefore(sa)) return { error: `invalid bearer token, service account ${v.namespace}/${v.name} has been deleted` };
    const invalidated = { error: 'invalid bearer token, service account token has been invalidated' };
    const extra: Record<string, string[]> = {};
    if (v.secret) {
      const secret = await this.opts.getCoreObject(v.cluster, 'secrets', v.namespace, v.secret.name);
      if (!secret) return invalidated;
      if (secret.metadata?.uid !== v.secret.uid) return { error: `invalid bearer token, secret UID (${secret.metadata?.uid ?? ''}) does not match service account secret ref claim (${v.secret.uid ?? ''})` };
      if (deletedBefore(secret)) return invalidated;
    }
    if (v.pod) {
      const pod = await this.opts.getCoreObject(v.cluster, 'pods', v.namespace, v.pod.name);
      if (!pod) return invalidated;
      if (pod.metadata?.uid !== v.pod.uid) return { error: `invalid bearer token, pod UID (${pod.metadata?.uid ?? ''}) does not match service account pod ref claim (${v.pod.uid ?? ''})` };
      if (deletedBefore(pod)) return invalidated;
      if (v.pod.name && v.pod.uid) {
        extra['authentication.kubernetes.io/pod-name'] = [v.pod.name];
        extra['authentication.kubernetes.io/pod-uid'] = [v.pod.uid];
      }
    }
    if (v.node) {
      // A pod-bound token only reports the node its pod ran on; a node-bound one needs the Node itself.
      if (!v.pod) {
        const node = await this.opts.getCoreObject(v.cluster, 'nodes', '', v.node.name);
        if (!node) return invalidated;
        if (node.metadata?.uid !== v.node.uid) return { error: `invalid bearer token, node UID (${node.metadata?.uid ?? ''}) does not match service account node ref claim (${v.node.uid ?? ''})` };
        if (deletedBefore(node)) return invalidated;
      }
      if (v.node.name) {
        extra['authentication.kubernetes.io/node-name'] = [v.node.name];
        if (v.node.uid) extra['authentication.kubernetes.io/node-uid'] = [v.node.uid];
      }
    }
    const user = serviceAccountUser(v.cluster, v.namespace, v.name, v.uid, v.jti);
    if (Object.keys(extra).length) {
      // ServiceAccountInfo.UserInfo's extras; keys sorted as Go writes a map.
      const all = { ...user.extra, ...extra };
      user.extra = Object.fromEntries(Object.keys(all).sort().map((key) => [key, all[key]!]));
    }
    return { user, audiences: v.audiences };
  }
}
