/**
 * Authentication and authorization for every logical cluster, assembled in one place for the server's handler
 * chain: authenticate → (cluster resolution, by the server) → credential scope → impersonation → rate limit →
 * authorization → object quota. RBAC objects live in each cluster's storage and apply only there.
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { errors } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import type { AdmissionPlugin } from '../apiserver/admission/admission.js';
import type { ResourceDefinition } from '../registry/rest.js';
import type { UserInfo } from '../apimachinery/user.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { rbacResources } from '../registry/builtin/rbac.js';
import { Authenticator, type TokenTable } from './authn/authenticator.js';
import { impersonate } from './authn/impersonation.js';
import { ServiceAccountTokens, loadOrCreateServiceAccountKey } from './authn/service-account-token.js';
import { loadTokenFile } from './authn/token-file.js';
import { attributesFromRequest } from '../apiserver/authorization.js';
import { ClusterAuthorizer } from './authz/authorizer.js';
import { ClusterRoleAggregator } from './authz/aggregation.js';
import { RbacEscalationAdmission } from './authz/escalation.js';
import { forbiddenError } from './authz/forbidden.js';
import { RbacAuthorizer } from './authz/rbac-authorizer.js';
import { RbacIndex } from './authz/rbac-index.js';
import { ObjectCountLimit } from './quota/object-count-limit.js';
import { PerUserRateLimiter } from './quota/rate-limiter.js';
import { reviewResources, tokenRequestCreate, type ReviewServices } from './reviews/review-resources.js';

export interface AuthOptions {
  /** <root-dir>/pki: holds service-account.key. */
  pkiDir: string;
  /** Static tokens known before the token file (the admin token). */
  tokens: TokenTable;
  /** kube's CSV token file: token,user,uid,"group1,group2". */
  tokenAuthFile?: string;
  /** Admit requests without credentials as system:anonymous (default false). */
  anonymous?: boolean;
  /** Objects one logical cluster may hold; 0 or undefined = unlimited. */
  maxObjectsPerWorkspace?: number;
  /** Requests per second one user may make; 0 or undefined = unlimited. */
  maxRequestsPerSecondPerUser?: number;
}

export class AuthSystem {
  readonly index: RbacIndex;
  readonly authorizer: ClusterAuthorizer;
  readonly authenticator: Authenticator;
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** RBAC escalation prevention; add it to the admission chain. */
  readonly admission: AdmissionPlugin;
  private readonly rateLimiter: PerUserRateLimiter | undefined;
  private readonly objectLimit: ObjectCountLimit | undefined;
  private readonly reviewServices: ReviewServices;

  constructor(
    private readonly registry: ResourceRegistry,
    opts: AuthOptions,
  ) {
    const tokens: TokenTable = new Map(opts.tokens);
    if (opts.tokenAuthFile) for (const [t, u] of loadTokenFile(opts.tokenAuthFile)) tokens.set(t, u);
    this.serviceAccountTokens = new ServiceAccountTokens(loadOrCreateServiceAccountKey(join(opts.pkiDir, 'service-account.key')));
    // core/v1 objects the token path reads: ServiceAccounts, and the Secrets, Pods and Nodes tokens are bound to.
    const getCoreObject = async (cluster: string, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> => {
      const store = registry.lookup(cluster, '', 'v1', resource);
      if (!store) return undefined;
      try {
        return await store.get({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } }, namespace, name);
      } catch (err) {
        if ((err as { reason?: string }).reason === 'NotFound') return undefined;
        throw err;
      }
    };
    const getServiceAccount = (cluster: string, namespace: string, name: string) => getCoreObject(cluster, 'serviceaccounts', namespace, name);
    this.authenticator = new Authenticator({ tokens, serviceAccountTokens: this.serviceAccountTokens, getServiceAccount, getCoreObject, anonymous: opts.anonymous ?? false });
    this.index = new RbacIndex(registry.storage);
    this.authorizer = new ClusterAuthorizer(new RbacAuthorizer(this.index));
    this.admission = new RbacEscalationAdmission(this.authorizer, registry);
    this.rateLimiter = opts.maxRequestsPerSecondPerUser ? new PerUserRateLimiter(opts.maxRequestsPerSecondPerUser) : undefined;
    this.objectLimit = opts.maxObjectsPerWorkspace ? new ObjectCountLimit(registry, opts.maxObjectsPerWorkspace) : undefined;
    this.reviewServices = { authorizer: this.authorizer, authenticator: this.authenticator, serviceAccountTokens: this.serviceAccountTokens, getServiceAccount, getCoreObject };
    new ClusterRoleAggregator(registry, this.index);
  }

  /** The resources auth serves: RBAC kinds and the review kinds. Register them as built-ins. */
  resources(): ResourceDefinition[] {
    return [...rbacResources, ...reviewResources(this.reviewServices)];
  }

  /** Adds TokenRequest (serviceaccounts/<name>/token) to the core serviceaccounts definition; others pass unchanged. */
  withSubresources(def: ResourceDefinition): ResourceDefinition {
    if (def.group !== '' || def.resource !== 'serviceaccounts') return def;
    return { ...def, computedCreates: { ...(def.computedCreates ?? {}), token: tokenRequestCreate(this.reviewServices) } };
  }

  /** Loads the RBAC index; call before serving. */
  async start(): Promise<void> {
    await this.index.start();
  }

  stop(): void {
    this.index.stop();
  }

  /** Who sent the request (401 when no credential is acceptable). */
  authenticate(req: IncomingMessage): Promise<UserInfo> {
    return this.authenticator.authenticate(req);
  }

  /** The per-user rate limit (429), right after authentication: before any work a request may cause, homes included. */
  admitRate(user: UserInfo): void {
    this.rateLimiter?.admit(user);
  }

  /** Whom the request acts as in `cluster` (its Impersonate-* headers, authorized there; 403 when they may not be). */
  impersonated(req: IncomingMessage, cluster: string, authenticated: UserInfo): UserInfo {
    return impersonate(req, authenticated, cluster, this.authorizer);
  }

  /**
   * Everything after authentication, once the request's logical cluster is known; returns the user the request acts
   * as. A ServiceAccount token of another workspace authenticates, and is authorized there as any authenticated user
   * (authz/scope.ts effectiveUsers, as kcp); then impersonation,
   * authorization (403 before any object is looked up) and, for creates, the object quota (403). The rate limit is
   * admitRate's, earlier.
   */
  async authorize(req: IncomingMessage, info: RequestInfo, authenticated: UserInfo): Promise<UserInfo> {
    const cluster = info.cluster;
    const user = impersonate(req, authenticated, cluster, this.authorizer);
    const attrs = attributesFromRequest(info, user);
    const decision = this.authorizer.authorize(cluster, attrs);
    if (decision.decision !== 'Allow') throw forbiddenError(attrs, decision.reason);
    if (this.objectLimit && info.isResourceRequest && info.verb === 'create' && !info.subresource) {
      const def = this.registry.resources(cluster).find((d) => d.group === info.apiGroup && d.version === info.apiVersion && d.resource === info.resource);
      if (def && !def.computedCreates?.['']) await this.objectLimit.admitCreate({ cluster, user }, info.apiGroup, info.resource);
    }
    return user;
  }
}
