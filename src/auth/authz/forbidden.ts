/**
 * The 403 a refused request gets (k8s.io/apiserver pkg/endpoints/handlers/responsewriters.Forbidden): which user may not
 * do what, then `: <reason>` when the authorizers gave one.
 */
import { StatusError, errors } from '../../apimachinery/status.js';
import type { AuthorizationAttributes } from '../../apiserver/authorization.js';

/** `User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"` and its variants. */
export function forbiddenMessage(attrs: AuthorizationAttributes): string {
  const user = JSON.stringify(attrs.user.username);
  if (!attrs.resourceRequest) return `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const head = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)}`;
  return attrs.namespace ? `${head} in the namespace ${JSON.stringify(attrs.namespace)}` : `${head} at the cluster scope`;
}

/** The Status error for a refused request. Non-resource requests have no group/resource: `forbidden: ...`. */
export function forbiddenError(attrs: AuthorizationAttributes, reason: string): StatusError {
  const msg = reason ? `${forbiddenMessage(attrs)}: ${reason}` : forbiddenMessage(attrs);
  if (!attrs.resourceRequest || !attrs.resource) {
    return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `forbidden: ${msg}`, reason: 'Forbidden', details: {}, code: 403 });
  }
  return errors.forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, msg);
}
