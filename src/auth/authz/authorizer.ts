/**
 * The authorizer chain every request and every access review goes through, for one logical cluster (kcp's order):
 * 1. `system:masters` is allowed everything (AlwaysAllowGroups).
 * 2. Health and version paths are allowed to anyone authenticated or admitted anonymously (AlwaysAllowPaths).
 * 3. Scope: a user restricted to other logical clusters (SCOPES_EXTRA) has no opinion here ("out of scope").
 * 4. Workspace content: a user must hold the non-resource verb `access` on `/` in the cluster; service accounts of the
 *    cluster itself pass. Without it every request is refused with reason "workspace access not permitted".
 * 5. RBAC of the cluster. No opinion at the end means forbidden.
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
export const OUT_OF_SCOPE = 'out of scope';

/** Whether `user`'s scopes (if any) admit `cluster` (kcp's IsInScope). */
export function isInScope(user: UserInfo, cluster: string): boolean {
  const scopes = user.extra?.[SCOPES_EXTRA];
  if (scopes === undefined) return true;
  return scopes.every((value) => value.split(',').some((entry) => entry.trim() === `cluster:${cluster}`));
}

/** Whether the user is a ServiceAccount whose token was issued in this logical cluster. */
export function isServiceAccountOf(user: UserInfo, cluster: string): boolean {
  return user.username.startsWith('system:serviceaccount:') && (user.extra?.[CLUSTER_NAME_EXTRA] ?? []).includes(cluster);
}

export class ClusterAuthorizer implements Authorizer {
  constructor(private readonly rbac: RbacAuthorizer) {}

  /** Decides one request in a logical cluster. */
  authorize(cluster: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.user.groups.includes(SYSTEM_MASTERS)) return { decision: 'Allow', reason: '' };
    if (!attrs.resourceRequest && (attrs.verb === 'get' || attrs.verb === 'head') && isAlwaysAllowedPath(attrs.path)) {
      return { decision: 'Allow', reason: '' };
    }
    if (!isInScope(attrs.user, cluster)) return { decision: 'NoOpinion', reason: OUT_OF_SCOPE };
    if (!this.hasWorkspaceAccess(cluster, attrs.user)) return { decision: 'NoOpinion', reason: WORKSPACE_ACCESS_NOT_PERMITTED };
    return this.rbac.authorize(cluster, attrs);
  }

  /** kcp's workspace content check: `access` on `/`, which cluster-admin's `*` on `*` also grants. */
  hasWorkspaceAccess(cluster: string, user: UserInfo): boolean {
    if (user.groups.includes(SYSTEM_MASTERS)) return true;
    if (!isInScope(user, cluster)) return false;
    if (isServiceAccountOf(user, cluster)) return true;
    return this.rbac.authorize(cluster, nonResourceAttributes(user, 'access', '/')).decision === 'Allow';
  }

  /** The RBAC rule resolver, for rules reviews and escalation checks. */
  get rules(): RbacAuthorizer {
    return this.rbac;
  }
}
