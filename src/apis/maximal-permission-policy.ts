/**
 * kcp's maximal permission policy (`spec.maximalPermissionPolicy.local` of an APIExport): a request to a resource a
 * workspace bound from such an export must, besides the workspace's own RBAC, be allowed by the RBAC of the export's
 * workspace for the same user and groups prefixed `apis.kcp.io:binding:` (e.g. a ClusterRoleBinding there to
 * `apis.kcp.io:binding:system:authenticated`). system:masters is not limited, as kcp's privileged identities are not.
 * Run after the request's own authorization, for requests within one logical cluster (the APIExport virtual
 * workspace has its own authorization).
 */
import type { UserInfo } from '../apimachinery/user.js';
import { attributesFromRequest, type Authorizer } from '../apiserver/authorization.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import { forbiddenError } from '../auth/authz/forbidden.js';
import { globalServiceAccountName, SCOPES_EXTRA } from '../auth/authz/scope.js';
import type { BoundAPIs } from './bound-apis.js';

export const BINDING_USER_PREFIX = 'apis.kcp.io:binding:';

export function checkMaximalPermissionPolicy(bound: BoundAPIs, authorizer: Authorizer, info: RequestInfo, user: UserInfo): void {
  if (!info.isResourceRequest || info.wildcardCluster || (user.groups ?? []).includes('system:masters')) return;
  const bindings = bound.bindings.get(info.cluster);
  if (!bindings) return;
  for (const b of bindings.values()) {
    if (!b.status?.boundResources?.some((r) => r.group === info.apiGroup && r.resource === info.resource)) continue;
    const exportCluster = b.status.apiExportClusterName ?? '';
    const exportName = b.spec?.reference?.export?.name ?? '';
    const ex = bound.exports.get(exportCluster)?.get(exportName);
    if (!ex?.spec?.maximalPermissionPolicy?.local) return;
    const prefixed = prefixUser(user, BINDING_USER_PREFIX);
    const decision = authorizer.authorize(exportCluster, attributesFromRequest(info, prefixed));
    if (decision.decision === 'Allow') return;
    const path = b.spec?.reference?.export?.path;
    throw forbiddenError(attributesFromRequest(info, user), `access denied by the maximal permission policy of APIExport ${path ? `${path}:` : ''}${exportName}`);
  }
}

/**
 * kcp's PrefixUser for the policy check, followed by its scope stripping for ServiceAccounts: name and groups prefixed;
 * a ServiceAccount by its global name (`<prefix>system:kcp:serviceaccount:<cluster>:<namespace>:<name>`, so the
 * export's workspace can grant one account of another workspace) without the scopes that confine it to its own
 * workspace; one naming no single workspace as `<prefix>system:anonymous`.
 */
function prefixUser(user: UserInfo, prefix: string): UserInfo {
  const groups = user.groups ?? [];
  if (user.username.startsWith('system:serviceaccount:')) {
    const global = globalServiceAccountName(user);
    if (!global) {
      const authenticated = groups.includes('system:authenticated');
      return { username: `${prefix}system:anonymous`, groups: [`${prefix}${authenticated ? 'system:authenticated' : 'system:unauthenticated'}`] };
    }
    const { [SCOPES_EXTRA]: _scopes, ...extra } = user.extra ?? {};
    void _scopes;
    return { username: `${prefix}${global}`, groups: groups.map((g) => `${prefix}${g}`), ...(Object.keys(extra).length ? { extra } : {}) };
  }
  return { ...user, username: `${prefix}${user.username}`, groups: groups.map((g) => `${prefix}${g}`) };
}
