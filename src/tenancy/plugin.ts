/**
 * Workspaces as a plugin: the tenancy.kcp.io and core.kcp.io resources (Shards in root only), workspace and Shard
 * admission, and the `Tenancy` that
 * resolves /clusters/<path> and runs the workspace lifecycle. The composition root reads `tenancy` once installed,
 * for the request filters (home workspaces, the request's logical cluster) and to start the lifecycle once the
 * server's URL is known.
 */
import type { InstalledPlugin, PluginHost, ServerPlugin } from '../apiserver/plugin.js';
import type { ControllerGate } from '../controllers/controller-gate.js';
import { logicalClusterPathAdmission } from './path-annotation-admission.js';
import { tenancyResources } from './resources.js';
import { ShardAdmission } from './shard-admission.js';
import { ShardsSource } from './shard-resource.js';
import { Tenancy } from './tenancy.js';

export class TenancyPlugin implements ServerPlugin {
  readonly name = 'tenancy';
  readonly resources = tenancyResources;
  private installed?: Tenancy;

  /** `gate` holds the workspace lifecycle controller to the replica that runs controllers. */
  constructor(private readonly gate: ControllerGate) {}

  /** The workspace tree and lifecycle; available once the plugin is installed. */
  get tenancy(): Tenancy {
    if (!this.installed) throw new Error('tenancy is not installed yet');
    return this.installed;
  }

  install(host: PluginHost): InstalledPlugin {
    host.registry.addSource(new ShardsSource());
    const tenancy = (this.installed = new Tenancy(host.registry, { authorizer: host.authorizer, gate: this.gate }));
    // LogicalClusterPathAnnotation: a LogicalCluster's kcp.io/path is written by system:masters only.
    return { admission: [tenancy.admission, logicalClusterPathAdmission(host.registry), new ShardAdmission()], stop: () => tenancy.stop() };
  }
}
