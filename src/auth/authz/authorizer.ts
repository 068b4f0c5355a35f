/**
 * The authorizer chain every request and every access review goes through, for one logical cluster (kcp's order):
 * 1. `system:masters` is allowed everything (AlwaysAllowGroups).
 * 2. Health and version paths are allowed to anyone authenticated or admitted anonymously (AlwaysAllowPaths).
 * 3. Workspace content: a user must hold the non-resource verb `access` on `/` in the cluster; service accounts of the
 *    cluster itself pass. Without it every request is refused with reason "workspace access not permitted".
 * 4. RBAC of the cluster. No opinion at the end means forbidden.
 * A user out of scope in the cluster — a ServiceAccount of another workspace, or a user whose scopes (SCOPES_EXTRA)
 * do not name it — is neither refused nor itself: steps 3 and 4 match RBAC subjects against it as `system:anonymous`
 * in `system:authenticated` (scope.ts effectiveUsers, kcp's EffectiveUsers), so a workspace grants other workspaces'
 * identities what it grants every authenticated user — and a ServiceAccount what it grants its global name,
 * `system:kcp:serviceaccount:<cluster>:<namespace>:<name>`.
 */
import type { UserInfo } from '../../apimachinery/user.js';
import { type AuthorizationAttributes, type AuthorizationResult, type Authorizer, nonResourceAttributes } from '../../apiserver/authorization.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';

import { SYSTEM_MASTERS } from '../../apimachinery/user.js';
import { isServiceAccountOf } from './scope.js';


export const WORKSPACE_ACCESS_NOT_PERMITTED = 'workspace access not permitted';

const alwaysAllowedPaths = ['/healthz', '/livez', '/readyz', '/version'];

function isAlwaysAllowedPath(path: string): boolean {
  return alwaysAllowedPaths.some((p) => path === p || path.startsWith(`${p}/`));
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
