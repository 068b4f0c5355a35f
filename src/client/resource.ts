/**
 * How a client names a resource and a request's scope. A GroupVersionResource plus a RequestScope (logical cluster,
 * namespace) is everything needed to build a REST path; `resourcePath` is the one function that does it.
 */

/** A resource as the REST API names it: group ("" for core), version, plural resource name. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Where a request goes: a logical cluster (`*` = every cluster, list/watch only) and a namespace. */
export interface RequestScope {
  /** Logical cluster; omitted = the client's default (none: the server's `root`). `*` is the wildcard. */
  cluster?: string;
  /** Namespace for namespaced resources; omitted or "" = all namespaces (list/watch) or cluster-scoped. */
  namespace?: string;
}

/** The cluster a wildcard-listed object came from (annotation the server adds on `/clusters/*` reads). */
export const CLUSTER_ANNOTATION = 'kcp.io/cluster';

/** `v1` for core, `<group>/<version>` otherwise. */
export function apiVersionOf(gvr: { group: string; version: string }): string {
  return gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
}

/** Splits an apiVersion (`v1`, `apps/v1`) into group and version. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `configmaps`, `deployments.apps`: how Kubernetes prints a GroupResource. */
export function groupResourceString(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
}

/**
 * The REST path of a collection, an object or an object's subresource:
 * `[/clusters/<c>]/api/<v>|/apis/<g>/<v>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]`.
 * Names are URI-encoded; the wildcard cluster `*` is kept literally.
 */
export function resourcePath(gvr: GroupVersionResource, scope: RequestScope & { name?: string; subresource?: string }): string {
  let p = scope.cluster ? `/clusters/${scope.cluster === '*' ? '*' : encodeURIComponent(scope.cluster)}` : '';
  p += gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  if (scope.namespace) p += `/namespaces/${encodeURIComponent(scope.namespace)}`;
  p += `/${gvr.resource}`;
  if (scope.name !== undefined) p += `/${encodeURIComponent(scope.name)}`;
  if (scope.subresource) p += `/${scope.subresource}`;
  return p;
}
