/**
 * Turns the `/clusters/<x>` part of a request into the logical cluster the request works on (kcp's local proxy +
 * WithClusterScope): a path such as `root:org:team` is resolved through the workspace tree, a logical cluster name is
 * taken as is. The rules that keep tenants from learning what exists:
 *   - a malformed value is a 400 (`invalid cluster: "X" does not match the regex`), for everyone;
 *   - an unknown path or name is answered exactly like a workspace the caller may not enter (403, "workspace access
 *     not permitted"), unless the caller is privileged (system:masters): then an unknown path is a 404, and a bare
 *     name is served as kcp's shards do (system clusters such as `system:admin` included);
 *   - `/clusters/*` (list/watch across every workspace) is for privileged callers only.
 */
import { StatusError, type Status } from '../apimachinery/status.js';
import { errors } from '../apimachinery/status.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import type { UserInfo } from '../apimachinery/user.js';
import { isClusterName, isSystemCluster, isValidPath } from './paths.js';
import { isSystemPrivileged } from './workspace-admission.js';
import type { WorkspaceIndex } from './workspace-index.js';

/** kcp's workspace content authorizer reason for a workspace the caller may not enter. */
export const WORKSPACE_ACCESS_NOT_PERMITTED = 'workspace access not permitted';

/**
 * kube-apiserver's authorization-denied error (responsewriters.Forbidden + forbiddenMessage): `forbidden: User "u"
 * cannot get path "/api": <reason>` for non-resource requests, `<resource>.<group> "name" is forbidden: User "u"
 * cannot <verb> resource "<r>[/<sub>]" in API group "<g>" in the namespace "<ns>"|at the cluster scope: <reason>`.
 */
export function authorizationDenied(info: RequestInfo, user: UserInfo, reason: string): StatusError {
  let what: string;
  let message: string;
  const details: Status['details'] = {};
  if (!info.isResourceRequest) {
    what = `User ${JSON.stringify(user.username)} cannot ${info.verb} path ${JSON.stringify(info.path)}`;
    message = `forbidden: ${what}: ${reason}`;
  } else {
    const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    what = info.namespace
      ? `User ${JSON.stringify(user.username)} cannot ${info.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(info.apiGroup)} in the namespace ${JSON.stringify(info.namespace)}`
      : `User ${JSON.stringify(user.username)} cannot ${info.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(info.apiGroup)} at the cluster scope`;
    const qualified = info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource;
    message = info.name ? `${qualified} ${JSON.stringify(info.name)} is forbidden: ${what}: ${reason}` : `${qualified} is forbidden: ${what}: ${reason}`;
    if (info.name) details.name = info.name;
    if (info.apiGroup) details.group = info.apiGroup;
    details.kind = info.resource;
  }
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
}

/**
 * The logical cluster name a request addresses ('*' for the wildcard). Throws the StatusError to answer with when the
 * request may not proceed; see the module comment for the rules.
 */
export function resolveRequestCluster(index: WorkspaceIndex, info: RequestInfo, user: UserInfo): string {
  const privileged = isSystemPrivileged(user);
  if (info.wildcardCluster) {
    if (!privileged) throw authorizationDenied(info, user, 'wildcard access to all workspaces is restricted to privileged users');
    return '*';
  }
  const raw = info.cluster;
  if (!isValidPath(raw) && !isSystemCluster(raw)) throw errors.badRequest(`invalid cluster: ${JSON.stringify(raw)} does not match the regex`);
  if (isSystemCluster(raw)) {
    if (privileged) return raw;
    throw authorizationDenied(info, user, WORKSPACE_ACCESS_NOT_PERMITTED);
  }
  const name = index.resolve(raw);
  if (name !== undefined) return name;
  if (!privileged) throw authorizationDenied(info, user, WORKSPACE_ACCESS_NOT_PERMITTED);
  if (isClusterName(raw)) return raw;
  throw errors.notFoundPath();
}
