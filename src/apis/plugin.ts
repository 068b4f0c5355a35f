/**
 * API sharing between workspaces (kcp's apis.kcp.io) as a plugin: the APIResourceSchema, APIExport, APIBinding and
 * APIExportEndpointSlice resources, the source that serves bound resources in the binding workspaces, the apis
 * controllers, the APIBinding admission (bind authorization, no CRD over a bound resource), WorkspaceType
 * defaultAPIBindings, and the APIExport virtual workspace (/services/apiexport/...; virtual-workspace.ts).
 *
 * install() loads every export, schema and binding and follows them (every replica serves what is bound);
 * controllers() starts reconciling, on the replica that runs controllers, once workspaces resolve.
 */
import type { InstalledPlugin, PluginHost, ServerConnection, ServerPlugin, Stoppable } from '../apiserver/plugin.js';
import { logger } from '../logging/logger.js';
import { StatusError } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { APIBindingAdmission } from './admission.js';
import { BoundAPIs } from './bound-apis.js';
import { APIsController } from './controller.js';
import { apisResources } from './resources.js';
import { APIS_GROUP } from './types.js';
import { APIExportVirtualWorkspace } from './virtual-workspace.js';
import { checkMaximalPermissionPolicy } from './maximal-permission-policy.js';
import type { RequestInfo } from '../apiserver/request-info.js';
import type { UserInfo } from '../apimachinery/user.js';
import type { Authorizer } from '../apiserver/authorization.js';

export class APIsPlugin implements ServerPlugin {
  readonly name = 'apis';
  readonly resources = apisResources;
  private state?: { registry: ResourceRegistry; bound: BoundAPIs; controller: APIsController; vw: APIExportVirtualWorkspace; authorizer: Authorizer };

  /**
   * `policyAuthorizer` decides maximal permission policies: the RBAC of the export's workspace alone, as kcp's local
   * policy authorizer (the prefixed binding users hold no workspace access there); the host's authorizer when unset.
   */
  constructor(private readonly opts: { policyAuthorizer?: Authorizer } = {}) {}

  private get installed() {
    if (!this.state) throw new Error('the apis plugin is not installed yet');
    return this.state;
  }

  /** The APIExport virtual workspace, for the host's /services/ paths. */
  get virtualWorkspace(): APIExportVirtualWorkspace {
    return this.installed.vw;
  }

  /** What is bound where (tests and the virtual workspace read it). */
  get bound(): BoundAPIs {
    return this.installed.bound;
  }

  async install(host: PluginHost): Promise<InstalledPlugin> {
    const bound = new BoundAPIs(host.registry);
    // kcp: bound resources win over a workspace's own CRDs of the same name (crdnooverlappinggvr keeps new ones out).
    host.registry.addSource(bound, { first: true });
    const controller = new APIsController(host.registry, bound, (p) => host.resolveWorkspacePath(p));
    await controller.start();
    const vw = new APIExportVirtualWorkspace(host.registry, bound, host.authorizer, (p) => host.resolveWorkspacePath(p));
    this.state = { registry: host.registry, bound, controller, vw, authorizer: this.opts.policyAuthorizer ?? host.authorizer };
    return {
      admission: [new APIBindingAdmission(bound, host.authorizer, (p) => host.resolveWorkspacePath(p))],
      stop: () => controller.stop(),
    };
  }

  async controllers(_server: ServerConnection): Promise<Stoppable> {
    const { controller } = this.installed;
    controller.activate();
    return { stop: async () => controller.deactivate() };
  }

  /**
   * kcp's maximal permission policy, after a request's own authorization: throws 403 when the request reaches a
   * resource bound from an export with `maximalPermissionPolicy.local` that the export's workspace does not allow.
   */
  authorizeBoundResource(info: RequestInfo, user: UserInfo): void {
    const { bound, authorizer } = this.installed;
    checkMaximalPermissionPolicy(bound, authorizer, info, user);
  }

  /** Resolves once the controllers have nothing queued (tests wait on it). */
  idle(): Promise<void> {
    return this.installed.controller.idle();
  }

  /**
   * kcp's WorkspaceType `defaultAPIBindings`: a new workspace gets an APIBinding (named after the export) for each
   * default binding of its type and of the types it extends. Unlike kcp, the workspace does not wait in Initializing
   * until they are Bound; the controller binds them moments later.
   */
  defaultBindingsInitializer(tenancy: Tenancy): (cluster: string, workspace: KubeObject) => Promise<void> {
    return async (cluster, workspace) => {
      const { registry } = this.installed;
      const ref = ((workspace.spec ?? {}) as { type?: { name?: string; path?: string } }).type ?? { name: 'universal', path: 'root' };
      const type = ref.name ? await tenancy.types.get(ref.path || 'root', ref.name).catch(() => undefined) : undefined;
      if (!type) return;
      const chain = [...(await tenancy.types.aliases(type).catch(() => [])), type];
      const wanted = new Map<string, { path?: string; export: string }>();
      for (const t of chain) {
        for (const d of ((t.object.spec as { defaultAPIBindings?: { path?: string; export: string }[] } | undefined)?.defaultAPIBindings ?? [])) {
          if (d?.export) wanted.set(`${d.path ?? ''}:${d.export}`, d);
        }
      }
      const bindings = registry.lookup(cluster, APIS_GROUP, 'v1alpha2', 'apibindings')!;
      for (const d of wanted.values()) {
        const b: KubeObject = {
          apiVersion: 'apis.kcp.io/v1alpha2',
          kind: 'APIBinding',
          metadata: { name: d.export },
          spec: { reference: { export: { ...(d.path ? { path: d.path } : {}), name: d.export } } },
        };
        await bindings.create({ cluster, user: system }, '', b, { dryRun: false }).catch((err) => {
          if (err instanceof StatusError && err.code === 409) return;
          logger.error('apis: creating a default APIBinding failed', { cluster, export: d.export, error: (err as Error).message });
        });
      }
    };
  }
}

const system = { username: 'system:kcp:apis-controller', groups: ['system:masters'] };
