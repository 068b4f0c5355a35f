/**
 * Who a user is in a logical cluster (kcp's scoping: k8s.io/kubernetes pkg/registry/rbac/validation in kcp's fork):
 * itself when in scope there; a ServiceAccount of another workspace, or a user whose scopes name other clusters, is a
 * stranger RBAC matches only as `system:anonymous` in `system:authenticated`.
 */
import { CLUSTER_NAME_EXTRA, type UserInfo } from '../../apimachinery/user.js';

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

const AUTHENTICATED = 'system:authenticated';
const AUTHENTICATED_STRANGER: UserInfo = { username: 'system:anonymous', groups: [AUTHENTICATED] };
const UNAUTHENTICATED_STRANGER: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/**
 * A ServiceAccount's workspace-qualified name, `system:kcp:serviceaccount:<cluster>:<namespace>:<name>` (kcp's
 * global service accounts), when its token names exactly one workspace: RBAC anywhere can grant that one account.
 */
export function globalServiceAccountName(user: UserInfo): string | undefined {
  if (!user.username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const clusters = user.extra?.[CLUSTER_NAME_EXTRA];
  if (clusters?.length !== 1) return undefined;
  return `system:kcp:serviceaccount:${clusters[0]}:${user.username.slice(SERVICE_ACCOUNT_PREFIX.length)}`;
}

/**
 * Who RBAC subjects are matched against in `cluster` (kcp's EffectiveUsers, without warrants), any of which may match:
 * the user itself when in scope there, else `system:anonymous` in `system:authenticated` (`system:unauthenticated` for
 * a user without that group); and a ServiceAccount also by its global name (globalServiceAccountName, in
 * `system:authenticated`), wherever it is. The identity a request reports (audit, Forbidden messages,
 * SelfSubjectReview) stays the user's own.
 */
export function effectiveUsers(user: UserInfo, cluster: string): UserInfo[] {
  const inScope = isInScope(user, cluster);
  const users: UserInfo[] = inScope ? [user] : [];
  const authenticated = user.groups.includes(AUTHENTICATED);
  const global = globalServiceAccountName(user);
  if (global) users.push({ username: global, groups: authenticated ? [AUTHENTICATED] : [], ...(user.extra ? { extra: user.extra } : {}) });
  if (!inScope) users.push(authenticated ? AUTHENTICATED_STRANGER : UNAUTHENTICATED_STRANGER);
  return users;
}
