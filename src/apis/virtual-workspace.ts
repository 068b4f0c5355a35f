/**
 * kcp's APIExport virtual workspace (pkg/virtual/apiexport): `/services/apiexport/<export workspace>/<export>/clusters/
 * <cluster>/...` lets the provider of an APIExport reach, in every workspace that bound it, the exported resources and
 * the resources it claimed where the claim was accepted — `/clusters/*` to list and watch across all of them (items
 * carry `kcp.io/cluster`), `/clusters/<logical cluster>` for every verb in one — so a kcp-style controller pointed at
 * the `/clusters/*` URL works unchanged. The export's workspace is given by path or logical cluster name (kcp's
 * APIExportEndpointSlice publishes the name); so may be the target cluster.
 *
 * Authorization is kcp's: the request's verb on the `content` subresource of the APIExport, in the export's workspace;
 * a claimed resource further needs the verb among the claim's verbs. Claimed objects are those the binding's accepted
 * claim selects (matchAll, or its label selector). Unlike kcp, which labels claimed objects
 * (`claimed.internal.apis.kcp.io/...`) and filters on the labels, atrium decides from the bindings at read time; a
 * write to a claimed object the selector does not select is not refused (kcp refuses it).
 */
import { errors } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { UserInfo } from '../apimachinery/user.js';
import { fromLabelSelector } from '../apimachinery/labels/selector.js';
import type { Authorizer } from '../apiserver/authorization.js';
import { resourceAttributes } from '../apiserver/authorization.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import type { ResourceView, VirtualWorkspaceRoute } from '../apiserver/virtual-workspace.js';
import type { GenericStore, WatchEventType, WatchSink } from '../registry/generic/store.js';
import type { RequestContext, ResourceDefinition } from '../registry/rest.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { BoundAPIs } from './bound-apis.js';
import { APIS_GROUP, type APIBinding, type APIExport, type AcceptablePermissionClaim, type PermissionClaim, boundStorageResource, sameClaim } from './types.js';

const PREFIX = '/services/apiexport/';

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Whether a claim (with its selector) selects an object. */
function selects(claim: AcceptablePermissionClaim, obj: KubeObject): boolean {
  const sel = claim.selector;
  if (!sel || sel.matchAll) return true;
  try {
    return fromLabelSelector({ matchLabels: sel.matchLabels, matchExpressions: sel.matchExpressions }).matches(obj.metadata?.labels ?? {});
  } catch {
    return false;
  }
}

export class APIExportVirtualWorkspace {
  /** One view per export, rebuilt when the export changes (the view caches the export's definitions). */
  private readonly views = new Map<string, ExportView>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly bound: BoundAPIs,
    private readonly authorizer: Authorizer,
    private readonly resolvePath: (path: string) => string | undefined,
  ) {}

  /** The route of a `/services/apiexport/...` path, undefined when it names no export or no `/clusters/<c>`. */
  resolve(path: string): VirtualWorkspaceRoute | undefined {
    if (!path.startsWith(PREFIX)) return undefined;
    const parts = path.slice(PREFIX.length).split('/');
    if (parts.length < 4 || parts[2] !== 'clusters' || !parts[3]) return undefined;
    const exportCluster = this.resolvePath(safeDecode(parts[0]!));
    const exportName = safeDecode(parts[1]!);
    const ex = exportCluster ? this.bound.exports.get(exportCluster)?.get(exportName) : undefined;
    if (!ex || !exportCluster) return undefined;
    const key = `${exportCluster}/${exportName}`;
    let view = this.views.get(key);
    if (!view || !view.isOf(ex)) this.views.set(key, (view = new ExportView(this.registry, this.bound, exportCluster, exportName, this.resolvePath)));
    return {
      path: `/${parts.slice(2).join('/')}`,
      resources: view,
      authorize: (info, user) => this.authorize(view, info, user),
    };
  }

  private authorize(view: ExportView, info: RequestInfo, user: UserInfo): RequestContext {
    const verb = info.isResourceRequest ? info.verb : 'get';
    const decision = this.authorizer.authorize(view.exportCluster, resourceAttributes(user, { verb, apiGroup: APIS_GROUP, resource: 'apiexports', subresource: 'content', name: view.exportName }));
    const deny = () =>
      errors.forbidden(
        { group: info.apiGroup, resource: info.resource },
        info.name,
        `User "${user.username}" cannot ${verb} resource "${info.resource}" in API group "${info.apiGroup}"${info.wildcardCluster ? ' at the cluster scope' : ''}: access denied`,
      );
    if (decision.decision !== 'Allow') throw deny();
    const cluster = info.wildcardCluster ? '*' : (this.resolvePath(info.cluster) ?? info.cluster);
    if (info.isResourceRequest) {
      const claim = view.claimFor(info.apiGroup, info.resource);
      if (claim && !(claim.verbs ?? ['*']).some((v) => v === '*' || v === info.verb)) throw deny();
    }
    return { cluster, user };
  }
}

/** What one APIExport's virtual workspace serves. */
class ExportView implements ResourceView {
  private readonly export: APIExport;
  private exportedDefs?: ResourceDefinition[];

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly bound: BoundAPIs,
    readonly exportCluster: string,
    readonly exportName: string,
    private readonly resolvePath: (path: string) => string | undefined,
  ) {
    this.export = bound.exports.get(exportCluster)!.get(exportName)!;
  }

  /** Whether this view was built from that very export object (a changed export is a new object). */
  isOf(ex: APIExport): boolean {
    return this.export === ex;
  }

  /** The export's claim on a group and resource that it does not export itself. */
  claimFor(group: string, resource: string): PermissionClaim | undefined {
    if (this.exported().some((d) => d.group === group && d.resource === resource)) return undefined;
    return (this.export.spec?.permissionClaims ?? []).find((c) => (c.group ?? '') === group && c.resource === resource);
  }

  private exported(): ResourceDefinition[] {
    const hash = this.export.status?.identityHash;
    if (!hash) return [];
    if (this.exportedDefs) return this.exportedDefs;
    const out: ResourceDefinition[] = [];
    let complete = true;
    for (const r of this.export.spec?.resources ?? []) {
      const schema = this.bound.schemas.get(this.exportCluster)?.get(r.schema);
      if (schema) out.push(...this.bound.definitionsOfSchema(schema, hash, this.exportCluster));
      else complete = false;
    }
    // A schema still missing may arrive: only a complete set is kept.
    if (complete) this.exportedDefs = out;
    return out;
  }

  /** The workspace's Bound binding to this export. */
  private bindingIn(cluster: string): APIBinding | undefined {
    for (const b of this.bound.bindings.get(cluster)?.values() ?? []) {
      if (b.status?.phase === 'Bound' && b.status.apiExportClusterName === this.exportCluster && b.spec?.reference?.export?.name === this.exportName) return b;
    }
    return undefined;
  }

  /** The applied (accepted) claim of a workspace's binding on a claimed resource. */
  private acceptedClaim(cluster: string, claim: PermissionClaim): AcceptablePermissionClaim | undefined {
    return this.bindingIn(cluster)?.status?.appliedPermissionClaims?.find((c) => sameClaim(c, claim));
  }

  /** The definition a claim names among `defs` (a bound resource by its identity). */
  private claimedDef(defs: ResourceDefinition[], c: PermissionClaim): ResourceDefinition[] {
    return defs.filter(
      (d) => d.group === (c.group ?? '') && d.resource === c.resource && (!c.identityHash || d.storage?.resource === boundStorageResource(c.resource, c.identityHash)),
    );
  }

  resources(cluster: string): ResourceDefinition[] {
    const c = this.resolvePath(cluster) ?? cluster;
    if (!this.bindingIn(c)) return [];
    const out = [...this.exported()];
    const served = this.registry.resources(c);
    for (const claim of this.export.spec?.permissionClaims ?? []) if (this.acceptedClaim(c, claim)) out.push(...this.claimedDef(served, claim));
    return out;
  }

  wildcardResources(): ResourceDefinition[] {
    const out = [...this.exported()];
    const served = this.registry.wildcardResources();
    for (const claim of this.export.spec?.permissionClaims ?? []) out.push(...this.claimedDef(served, claim));
    return out;
  }

  lookup(cluster: string, group: string, version: string, resource: string): GenericStore | undefined {
    const c = this.resolvePath(cluster) ?? cluster;
    if (!this.bindingIn(c)) return undefined;
    const own = this.exported().find((d) => d.group === group && d.version === version && d.resource === resource);
    if (own) return this.registry.storeFor(own);
    const claim = this.claimFor(group, resource);
    const accepted = claim ? this.acceptedClaim(c, claim) : undefined;
    if (!claim || !accepted) return undefined;
    const def = this.claimedDef(this.registry.resources(c), claim).find((d) => d.version === version);
    if (!def) return undefined;
    return filtered(this.registry.storeFor(def), () => (obj) => selects(accepted, obj));
  }

  lookupWildcard(group: string, version: string, resource: string): GenericStore | undefined {
    const def = this.wildcardResources().find((d) => d.group === group && d.version === version && d.resource === resource);
    if (!def) return undefined;
    const store = this.registry.storeFor(def);
    const claim = this.claimFor(group, resource);
    if (!claim) return filtered(store, () => (obj) => this.bindingIn(obj.metadata?.annotations?.['kcp.io/cluster'] ?? '') !== undefined);
    return filtered(store, () => (obj) => {
      const accepted = this.acceptedClaim(obj.metadata?.annotations?.['kcp.io/cluster'] ?? '', claim);
      return accepted !== undefined && selects(accepted, obj);
    });
  }
}

/**
 * The store seen through a filter: list items, watch events and single reads it does not pass are left out (a read
 * answers 404). `predicate` is asked anew per request, so a claim accepted or rejected meanwhile counts at once.
 */
function filtered(store: GenericStore, predicate: () => (obj: KubeObject) => boolean): GenericStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'list') {
        return async (...args: Parameters<GenericStore['list']>) => {
          const pass = predicate();
          const result = await target.list(...args);
          return { ...result, items: result.items.filter(pass) };
        };
      }
      if (prop === 'get') {
        return async (...args: Parameters<GenericStore['get']>) => {
          const obj = await target.get(...args);
          if (!predicate()(obj)) throw errors.notFound(target.gr, args[2]);
          return obj;
        };
      }
      if (prop === 'watch') {
        return (ctx: RequestContext, namespace: string, opts: Parameters<GenericStore['watch']>[2], sink: WatchSink, wildcard?: boolean) => {
          const pass = predicate();
          const inner: WatchSink = {
            event: (type: WatchEventType, obj: KubeObject) => (type === 'BOOKMARK' || type === 'ERROR' || pass(obj) ? sink.event(type, obj) : true),
            error: (err) => sink.error(err),
            ...(sink.end ? { end: () => sink.end!() } : {}),
          };
          return target.watch(ctx, namespace, opts, inner, wildcard);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
