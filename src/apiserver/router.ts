import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../apimachinery/status.js';
import type { ResourceView } from './virtual-workspace.js';
import type { RequestContext } from '../registry/rest.js';
import type { Admission } from './admission/admission.js';
import { findConnectHandler, type ConnectHandler, type UpgradeConnection } from './connect.js';
import { admitConnect } from './connect-admission.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  etagOf,
  withConnectSubresources,
} from './discovery/discovery.js';
import { handleResource } from './handlers/resource-handler.js';
import { wantsAggregatedDiscovery } from './http/negotiation.js';
import { writeJson, writeRaw } from './http/response.js';
import type { RequestInfo } from './request-info.js';
import { serveHealth, type HealthChecks } from './health.js';
import { versionInfo } from './version.js';
import type { OpenAPIService } from './openapi/service.js';

export interface RouterDeps {
  /** What requests reach: the registry, or a virtual workspace's view (virtual-workspace.ts). */
  registry: ResourceView;
  admission: Admission;
  openapi: OpenAPIService;
  /** The named checks of /healthz, /livez and /readyz. */
  health: HealthChecks;
  /** What plugins answer themselves (connect.ts). */
  connect: readonly ConnectHandler[];
}

/** Routes an authenticated request: non-resource paths (health, version, discovery, OpenAPI) or a resource verb. */
export async function route(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, ctx: RequestContext, deps: RouterDeps, upgrade?: UpgradeConnection): Promise<void> {
  const path = info.path.replace(/\/+$/, '') || '/';
  if (!info.isResourceRequest) {
    if (await serveNonResource(req, res, path, info, deps)) return;
    return notFound(res, path, info, deps);
  }
  // kcp's WithWildcardListWatchGuard: only list and watch span every logical cluster.
  if (info.wildcardCluster && info.verb !== 'list' && info.verb !== 'watch') {
    const err = errors.methodNotSupported({ group: info.apiGroup, resource: info.resource }, info.verb);
    err.status.message = `${err.status.message} in the \`*\` logical cluster`;
    err.message = err.status.message;
    throw err;
  }
  const store = info.wildcardCluster ? deps.registry.lookupWildcard(info.apiGroup, info.apiVersion, info.resource) : deps.registry.lookup(ctx.cluster, info.apiGroup, info.apiVersion, info.resource);
  if (!store) return notFound(res, path, info, deps);
  const connect = info.wildcardCluster ? undefined : findConnectHandler(deps.connect, info);
  if (connect) {
    const r = { req, res, upgrade, info, query, ctx, store };
    if (!connect.accepts || (await connect.accepts(r))) {
      await admitConnect(connect, r, deps.admission);
      return connect.serve(r);
    }
  }
  await handleResource({ req, res, info, query, ctx, store, admission: deps.admission });
}

async function serveNonResource(req: IncomingMessage, res: ServerResponse, path: string, info: RequestInfo, deps: RouterDeps): Promise<boolean> {
  // Health checks are served by a PathRecorderMux upstream, whatever the method.
  if (serveHealth(res, path, new URL(req.url ?? '/', 'http://x').searchParams, deps.health)) return true;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    // go-restful's 405 for its GET-only discovery routes (apiserver's serviceErrorHandler: a generic Status).
    const all = servedResources(deps, info);
    const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (['/version', '/api', '/apis', '/api/v1'].includes(path) || (m && all.some((r) => r.group === m[1] && (!m[2] || r.version === m[2])))) {
      throw errors.methodNotAllowed();
    }
    return false;
  }
  const resources = () => servedResources(deps, info);
  // Discovery also lists the streaming subresources plugins answer (pods/exec, log, ...), as kube-apiserver does.
  const listed = () => (info.wildcardCluster ? resources() : withConnectSubresources(resources(), deps.connect));
  switch (path) {
    case '/version':
      writeJson(res, 200, versionInfo());
      return true;
    case '/api': {
      const agg = wantsAggregatedDiscovery(req.headers.accept);
      if (agg) return writeDiscovery(req, res, aggregatedDiscovery(listed(), true, agg), agg);
      writeJson(res, 200, apiVersions(req.headers.host ?? ''));
      return true;
    }
    case '/apis': {
      const agg = wantsAggregatedDiscovery(req.headers.accept);
      if (agg) return writeDiscovery(req, res, aggregatedDiscovery(listed(), false, agg), agg);
      writeJson(res, 200, apiGroupList(resources()));
      return true;
    }
    case '/openapi/v2':
      deps.openapi.serveV2(req, res, resources());
      return true;
    case '/openapi/v3':
      deps.openapi.serveV3Root(req, res, resources());
      return true;
  }
  if (path.startsWith('/openapi/v3/')) {
    return deps.openapi.serveV3GroupVersion(req, res, path.slice('/openapi/v3/'.length), resources());
  }
  if (path === '/api/v1') {
    writeJson(res, 200, apiResourceList('', 'v1', listed()));
    return true;
  }
  const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (m) {
    const [, group, version] = m;
    const all = resources();
    if (version) {
      if (!all.some((r) => r.group === group && r.version === version)) return false;
      writeJson(res, 200, apiResourceList(group!, version, withConnectSubresources(all, deps.connect)));
      return true;
    }
    const g = apiGroup(group!, all);
    if (!g) return false;
    writeJson(res, 200, g);
    return true;
  }
  return false;
}

/**
 * A path no handler serves. Under a go-restful web service (/version, /api..., /apis, /apis/<served group>...) that is
 * go-restful's 404 Status; anywhere else kube-apiserver's NotFoundHandler answers with Go's plain http.NotFound.
 */
function notFound(res: ServerResponse, path: string, info: RequestInfo, deps: RouterDeps): void {
  const m = /^\/apis\/([^/]+)(?:\/|$)/.exec(path);
  const goRestful =
    path === '/version' || path === '/api' || path.startsWith('/api/') || path === '/apis' ||
    (m !== null && servedResources(deps, info).some((r) => r.group === m[1]));
  if (goRestful) throw errors.notFoundPath();
  writeRaw(res, 404, '404 page not found\n', 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
}

/**
 * What a request's logical cluster serves; `/clusters/*` (list and watch across all of them, and its discovery)
 * serves the built-ins, root's custom resources and the resources some workspaces serve (registry.wildcardResources).
 */
function servedResources(deps: RouterDeps, info: RequestInfo) {
  return info.wildcardCluster ? deps.registry.wildcardResources() : deps.registry.resources(info.cluster);
}

function writeDiscovery(req: IncomingMessage, res: ServerResponse, body: unknown, version: 'v2' | 'v2beta1'): true {
  const text = JSON.stringify(body);
  const etag = etagOf(text);
  const headers = { ETag: etag, Vary: 'Accept' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  writeRaw(res, 200, text, `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`, headers);
  return true;
}
