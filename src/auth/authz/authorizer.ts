/**
 * The authorizer chain every request and every access review goes through, for one logical cluster (kcp's order):
 * 1. `system:masters` is allowed everything (AlwaysAllowGroups).
 * 2. Health and version paths are allowed to anyone authenticated or admitted anonymously (AlwaysAllowPaths).
 * 3. Workspace content: a user must hold the non-resource verb `access` on `/` in the cluster; service accounts of the
 *    cluster itself pass. Without it every request is refused with reason "workspace access not permitted".
 * 4. RBAC of the cluster. No opinion at the end means forbidden.
 */
import type { UserInfo } from '../../registry/rest.js';
import { type AuthorizationAttributes, nonResourceAttributes } from './attributes.js';
import type { AuthorizationResult, RbacAuthorizer } from './rbac-authorizer.js';

export const SYSTEM_MASTERS = 'system:masters';
/** The extra key a ServiceAccount token's logical cluster is carried under (kcp's ClusterNameKey). */
export const CLUSTER_NAME_EXTRA = 'authentication.kubernetes.io/cluster-name';
export const WORKSPACE_ACCESS_NOT_PERMITTED = 'workspace access not permitted';

const alwaysAllowedPaths = ['/healthz', '/livez', '/readyz', '/version'];

function isAlwaysAllowedPath(path: string): boolean {
  return alwaysAllowedPaths.some((p) => path === p || path.startsWith(`${p}/`));
}

/** Whether the user is a ServiceAccount whose token was issued in this logical cluster. */
export function isServiceAccountOf(user: UserInfo, cluster: string): boolean {
  return (user.extra?.[CLUSTER_NAME_EXTRA] ?? []).includes(cluster);
}

export class Authorizer {
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
    if (user.groups.includes(SYSTEM_MASTERS) || isServiceAccountOf(user, cluster)) return true;
    return this.rbac.authorize(cluster, nonResourceAttributes(user, 'access', '/')).decision === 'Allow';
  }

  /** The RBAC rule resolver, for rules reviews and escalation checks. */
  get rules(): RbacAuthorizer {
    return this.rbac;
  }
}
