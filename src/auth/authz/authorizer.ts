/**
 * The authorizer chain every request and every access review goes through, for one logical cluster (kcp's order):
 * 1. `system:masters` is allowed everything (AlwaysAllowGroups).
 * 2. Health and version paths are allowed to anyone authenticated or admitted anonymously (AlwaysAllowPaths).
 * 3. Workspace content: a user must hold the non-resource verb `access` on `/` in the cluster; service accounts of the
 *    cluster itself pass. Without it every request is refused with reason "workspace access not permitted".
 * 4. RBAC of the cluster. No opinion at the end means forbidden.
 * A user out of scope in the cluster — a ServiceAccount of another workspace, or a user whose scopes (SCOPES_EXTRA)
 * do not name it — is neither refused nor itself: steps 3 and 4 match RBAC subjects against it as `system:anonymous`
 * in `system:authenticated` (effectiveUser, kcp's EffectiveUsers), so a workspace grants other workspaces' identities
 * what it grants every authenticated user.
 */
import type { UserInfo } from '../../apimachinery/user.js';
import { type AuthorizationAttributes, type AuthorizationResult, type Authorizer, nonResourceAttributes } from '../../apiserver/authorization.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';

import { CLUSTER_NAME_EXTRA, SYSTEM_MASTERS } from '../../apimachinery/user.js';

export const WORKSPACE_ACCESS_NOT_PERMITTED = 'workspace access not permitted';

const alwaysAllowedPaths = ['/healthz', '/livez', '/readyz', '/version'];

function isAlwaysAllowedPath(path: string): boolean {
  return alwaysAllowedPaths.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * The extra key that restricts a user to logical clusters (kcp's ScopeExtraKey): each value lists `cluster:<name>`
 * entries separated by commas, any of which admits; several values must all admit. Impersonation by anyone but
 * system:masters adds `cluster:<where it happened>`, so an identity made up in one's own workspace (where a workspace
 * owner may impersonate anyone) counts for nothing in any other.
 */
export const SCOPES_EXTRA = 'authentication.kcp.io/scopes';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/**
 * Whether a ServiceAccount user belongs to another logical cluster than `cluster` (kcp's IsForeign): its token's
 * cluster (CLUSTER_NAME_EXTRA) is another, or it names several. One naming none is local (a SubjectAccessReview
 * about a ServiceAccount names no cluster).
 */
function isForeignServiceAccount(user: UserInfo, cluster: string): boolean {
  if (!user.username.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
  const clusters = user.extra?.[CLUSTER_NAME_EXTRA];
  if (!clusters || clusters.length === 0) return false;
  return clusters.length !== 1 || clusters[0] !== cluster;
}

/** Whether `user` is itself in `cluster` (kcp's IsInScope): not another workspace's ServiceAccount, and its scopes (if any) admit the cluster. */
export function isInScope(user: UserInfo, cluster: string): boolean {
  if (isForeignServiceAccount(user, cluster)) return false;
  const scopes = user.extra?.[SCOPES_EXTRA];
  if (scopes === undefined) return true;
  return scopes.every((value) => value.split(',').some((entry) => entry.trim() === `cluster:${cluster}`));
}

/** Whether the user is a ServiceAccount of this logical cluster (kcp: `isServiceAccount && isInScope`). */
export function isServiceAccountOf(user: UserInfo, cluster: string): boolean {
  return user.username.startsWith(SERVICE_ACCOUNT_PREFIX) && isInScope(user, cluster);
}

const AUTHENTICATED_STRANGER: UserInfo = { username: 'system:anonymous', groups: ['system:authenticated'] };
const UNAUTHENTICATED_STRANGER: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * Who RBAC subjects are matched against in `cluster` (kcp's EffectiveUsers, without warrants): the user itself when
 * in scope there, else `system:anonymous` in `system:authenticated` (or `system:unauthenticated` for a user without
 * that group). The identity a request reports (audit, Forbidden messages, SelfSubjectReview) stays the user's own.
 */
export function effectiveUser(user: UserInfo, cluster: string): UserInfo {
  if (isInScope(user, cluster)) return user;
  return user.groups.includes('system:authenticated') ? AUTHENTICATED_STRANGER : UNAUTHENTICATED_STRANGER;
}

export class ClusterAuthorizer implements Authorizer {
  constructor(private readonly rbac: RbacAuthorizer) {}

  /** Decides one request in a logical cluster. */
  authorize(cluster: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.user.groups.includes(SYSTEM_MASTERS)) return { decision: 'Allow', reason: '' };
    if (!attrs.resourceRequest && (attrs.verb === 'get' || attrs.verb === 'head') && isAlwaysAllowedPath(attrs.path)) {
      return { decision: 'Allow', reason: '' };
    }
    if (!this.hasWorkspaceAccess(cluster, attrs.user)) return { decision: 'NoOpinion', reason: WORKSPACE_ACCESS_NOT_PERMITTED };
    return this.rbac.authorize(cluster, attrs);
  }

  /** kcp's workspace content check: `access` on `/`, which cluster-admin's `*` on `*` also grants. */
  hasWorkspaceAccess(cluster: string, user: UserInfo): boolean {
    if (user.groups.includes(SYSTEM_MASTERS)) return true;
    if (isServiceAccountOf(user, cluster)) return true;
    return this.rbac.authorize(cluster, nonResourceAttributes(user, 'access', '/')).decision === 'Allow';
  }

  /** The RBAC rule resolver, for rules reviews and escalation checks. */
  get rules(): RbacAuthorizer {
    return this.rbac;
  }
}
