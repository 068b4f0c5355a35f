/**
 * Parses a request path once (k8s.io/apiserver pkg/endpoints/request/requestinfo.go); nothing below the filters parses the
 * URL again. Also strips the `/clusters/<path>` logical-cluster prefix (kcp's WithClusterScope).
 */
export interface RequestInfo {
  /** The logical cluster the request addresses; `root` when the path has no /clusters/ prefix. */
  cluster: string;
  /** True when /clusters/* (wildcard across all logical clusters). */
  wildcardCluster: boolean;
  /** The path with any /clusters/<x> prefix removed. */
  path: string;
  isResourceRequest: boolean;
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection; lowercase HTTP method for non-resource paths. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

/** Splits off `/clusters/<name>` and returns [cluster, wildcard, rest-of-path]. */
export function splitClusterPath(path: string): { cluster: string; wildcard: boolean; rest: string } {
  if (path.startsWith('/clusters/')) {
    const after = path.slice('/clusters/'.length);
    const slash = after.indexOf('/');
    // Decoded like every other path segment (Go's http server hands kcp a decoded path): clients that escape the
    // `:` of a workspace path (`/clusters/root%3Aorg`) address the same workspace as those that do not.
    const name = safeDecode(slash < 0 ? after : after.slice(0, slash));
    const rest = slash < 0 ? '/' : after.slice(slash);
    return { cluster: name, wildcard: name === '*', rest };
  }
  return { cluster: 'root', wildcard: false, rest: path };
}

export function parseRequestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const { cluster, wildcard, rest } = splitClusterPath(rawPath);
  const info: RequestInfo = {
    cluster,
    wildcardCluster: wildcard,
    path: rest,
    isResourceRequest: false,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts = rest.split('/').filter((p) => p.length > 0).map(safeDecode);
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info;
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (parts.length < 1) return info;

  info.isResourceRequest = true;
  switch (method) {
    case 'POST':
      info.verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      info.verb = 'get';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = 'delete';
      break;
    default:
      info.verb = '';
  }
  // The deprecated /watch/ path prefix.
  if (parts[0] === 'watch') {
    parts = parts.slice(1);
    if (info.verb === 'get') info.verb = 'watch';
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      // /namespaces/<ns> is the namespace object itself; /namespaces/<ns>/status|finalize its subresources.
      if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts;
  if (parts.length >= 3) info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;
  if (info.resource === 'namespaces' && info.name) {
    // For the namespace object the "namespace" of the request is the object itself, as upstream sets it.
    info.namespace = info.name;
  }

  if (parts.length < 2 && info.verb === 'get') {
    const w = query.get('watch');
    info.verb = w === 'true' || w === '1' ? 'watch' : 'list';
  }
  if (info.verb === 'delete' && parts.length < 2) info.verb = 'deletecollection';
  // Deeper paths are no resource's, except under a proxy subresource (`pods/<name>/proxy/<path>`), whose connect
  // handler takes the rest of the path as its options' `path`, as upstream's connect routes with a subpath do.
  if (parts.length > 3 && info.subresource !== 'proxy') info.isResourceRequest = false;
  return info;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
