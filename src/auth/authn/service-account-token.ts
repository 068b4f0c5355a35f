/**
 * ServiceAccount tokens: ES256-signed JWTs (JWS compact form) issued by TokenRequest and checked on every request.
 * Each token carries its logical cluster (kcp's workspace-scoped SA tokens): the ServiceAccount is looked up there, and
 * in any other workspace the token's user is authorized as any authenticated user (authz/scope.ts effectiveUsers), or
 * by its global name `system:kcp:serviceaccount:<cluster>:<namespace>:<name>`.
 * The signing key is <root-dir>/pki/service-account.key (PKCS#8 PEM, P-256), created on first start.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** The audiences a token gets when the request names none, and that the server accepts. */
export const DEFAULT_AUDIENCES = ['https://kubernetes.default.svc.cluster.local'];

export interface ServiceAccountClaims {
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
  audiences: string[];
  /** Lifetime in seconds. */
  expirationSeconds: number;
  /**
   * The object the token is bound to, as TokenRequest looked it up (pkg/serviceaccount/claims.go Claims): a Pod
   * (with the Node it runs on, when known), a Secret or a Node, each with the UID it has in storage. At most one of
   * pod/secret/node-alone; the authenticator refuses the token once that object is gone or has another UID.
   */
  pod?: BoundObjectClaim;
  secret?: BoundObjectClaim;
  node?: BoundObjectClaim;
  /** Seconds after which a (pod-bound, extended) token is stale: claims.go's warnafter. */
  warnAfterSeconds?: number;
}

/** A bound object in the claims: `{name, uid}`, uid left out when unknown (a pod's Node that does not exist). */
export interface BoundObjectClaim {
  name: string;
  uid?: string;
}

export interface VerifiedServiceAccountToken {
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
  audiences: string[];
  jti: string;
  expiresAt: Date;
  pod?: BoundObjectClaim;
  secret?: BoundObjectClaim;
  node?: BoundObjectClaim;
}

interface JwtPayload {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: BoundObjectClaim;
    secret?: BoundObjectClaim;
    node?: BoundObjectClaim;
    warnafter?: number;
    clusterName: string;
  };
}

/** claims.go's `ref` with omitempty on both fields. */
function refClaim(r: BoundObjectClaim): BoundObjectClaim {
  return r.uid ? { name: r.name, uid: r.uid } : { name: r.name };
}

/** A ref read back from a token: present only when it is an object (a malformed one names nothing). */
function readRef(v: unknown): BoundObjectClaim | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const r = v as { name?: unknown; uid?: unknown };
  return { name: typeof r.name === 'string' ? r.name : '', uid: typeof r.uid === 'string' ? r.uid : '' };
}

/** Loads the signing key, creating a new P-256 key when the file does not exist. */
export function loadOrCreateServiceAccountKey(path: string): KeyObject {
  if (!existsSync(path)) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  return createPrivateKey(readFileSync(path));
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

export class ServiceAccountTokens {
  private readonly publicKey: KeyObject;
  private readonly keyId: string;

  constructor(
    private readonly privateKey: KeyObject,
    readonly issuer = DEFAULT_ISSUER,
    readonly apiAudiences: readonly string[] = DEFAULT_AUDIENCES,
  ) {
    this.publicKey = createPublicKey(privateKey);
    this.keyId = b64url(this.publicKey.export({ type: 'spki', format: 'der' }).subarray(-16));
  }

  /** Issues a signed token; iat/nbf are now, exp now + expirationSeconds; the bound object's claims as given. */
  issue(c: ServiceAccountClaims, now = new Date()): { token: string; expiresAt: Date } {
    const iat = Math.floor(now.getTime() / 1000);
    const exp = iat + c.expirationSeconds;
    // Only the bound object's real name and UID go into the token (Claims: pod, secret, node, warnafter, in this
    // order), never a reference the caller made up: the authenticator checks exactly these against storage.
    if (c.secret && (c.pod || c.node)) throw new Error('internal error, token can only be bound to one object type');
    const k: JwtPayload['kubernetes.io'] = { namespace: c.namespace, serviceaccount: { name: c.name, uid: c.uid } } as JwtPayload['kubernetes.io'];
    if (c.pod) k.pod = refClaim(c.pod);
    if (c.secret) k.secret = refClaim(c.secret);
    if (c.node) k.node = refClaim(c.node);
    if (c.warnAfterSeconds) k.warnafter = iat + c.warnAfterSeconds;
    k.clusterName = c.cluster;
    const payload: JwtPayload = {
      iss: this.issuer,
      sub: `system:serviceaccount:${c.namespace}:${c.name}`,
      aud: c.audiences,
      exp,
      iat,
      nbf: iat,
      jti: randomUUID(),
      'kubernetes.io': k,
    };
    const signingInput = `${b64url(JSON.stringify({ alg: 'ES256', kid: this.keyId }))}.${b64url(JSON.stringify(payload))}`;
    // ieee-p1363 gives the raw r||s form JWS requires (not DER).
    const sig = sign('sha256', Buffer.from(signingInput), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return { token: `${signingInput}.${b64url(sig)}`, expiresAt: new Date(exp * 1000) };
  }

  /** Whether a bearer token looks like a JWT of ours (three dot-separated parts, header alg ES256). */
  looksLikeOurs(token: string): boolean {
    const parts = token.split('.');
    if (parts.length !== 3) return false;
    try {
      const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string };
      return header.alg === 'ES256';
    } catch {
      return false;
    }
  }

  /**
   * Checks signature, issuer, time window and audience (one of `audiences`, default the server's). Returns the
   * claims, or an error text (as TokenReview's status.error) when the token is not valid.
   */
  verify(token: string, audiences: readonly string[] = this.apiAudiences, now = new Date()): VerifiedServiceAccountToken | { error: string } {
    const parts = token.split('.');
    if (parts.length !== 3) return { error: 'token is not a JWT' };
    const ok = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2]!, 'base64url'));
    if (!ok) return { error: 'invalid bearer token, square/go-jose: error in cryptographic primitive' };
    let p: JwtPayload;
    try {
      p = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as JwtPayload;
    } catch {
      return { error: 'invalid bearer token, malformed claims' };
    }
    if (p.iss !== this.issuer) return { error: 'invalid bearer token, token issuer is not trusted' };
    const t = Math.floor(now.getTime() / 1000);
    if (typeof p.exp !== 'number' || t >= p.exp) return { error: 'invalid bearer token, square/go-jose/jwt: validation failed, token is expired (exp)' };
    if (typeof p.nbf === 'number' && t < p.nbf) return { error: 'invalid bearer token, square/go-jose/jwt: validation failed, token not valid yet (nbf)' };
    const aud = Array.isArray(p.aud) ? p.aud : [String(p.aud)];
    const matching = aud.filter((a) => audiences.includes(a));
    if (matching.length === 0) return { error: 'invalid bearer token, token audiences ' + JSON.stringify(aud) + ' is invalid for the target audiences ' + JSON.stringify(audiences) };
    const k = p['kubernetes.io'];
    if (!k?.namespace || !k.serviceaccount?.name || !k.clusterName) return { error: 'invalid bearer token, missing service account claims' };
    const out: VerifiedServiceAccountToken = { cluster: k.clusterName, namespace: k.namespace, name: k.serviceaccount.name, uid: k.serviceaccount.uid, audiences: matching, jti: p.jti, expiresAt: new Date(p.exp * 1000) };
    const pod = readRef(k.pod);
    const secret = readRef(k.secret);
    const node = readRef(k.node);
    if (pod) out.pod = pod;
    if (secret) out.secret = secret;
    if (node) out.node = node;
    return out;
  }
}
