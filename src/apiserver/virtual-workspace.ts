/**
 * Virtual workspaces (kcp's `/services/<name>/...`): a feature answers a path prefix with its own view of the API —
 * which resources are served, which logical clusters a request reaches and who may — while the host runs its usual
 * chain (deadline, authentication, flow control) and the usual handlers behind it. The APIExport virtual workspace
 * (src/apis/virtual-workspace.ts) is one.
 */
import type { UserInfo } from '../apimachinery/user.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { RequestContext, ResourceDefinition } from '../registry/rest.js';
import type { RequestInfo } from './request-info.js';

/** What a request may reach: the registry itself, or a virtual workspace's view of it. */
export interface ResourceView {
  /** What a logical cluster serves (discovery, OpenAPI, routing). */
  resources(cluster: string): ResourceDefinition[];
  /** What `/clusters/*` serves (list and watch across logical clusters, and its discovery). */
  wildcardResources(): ResourceDefinition[];
  lookup(cluster: string, group: string, version: string, resource: string): GenericStore | undefined;
  lookupWildcard(group: string, version: string, resource: string): GenericStore | undefined;
}

/** A request path a virtual workspace answers. */
export interface VirtualWorkspaceRoute {
  /** The path within the virtual workspace, `/clusters/<cluster or *>/...`, parsed as any request path. */
  path: string;
  /** Authorizes the parsed request and returns the context it runs in (its logical cluster, `*` for all); throws 403. */
  authorize(info: RequestInfo, user: UserInfo): RequestContext;
  /** What the virtual workspace serves, in place of the registry. */
  resources: ResourceView;
}

/** Resolves `/services/...` paths; undefined when no virtual workspace answers the path (plain 404). */
export type VirtualWorkspaceResolver = (path: string) => VirtualWorkspaceRoute | undefined;
