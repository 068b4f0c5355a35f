/**
 * Serves the Kubernetes workload types (workspaceWorkloadResources) as built-in resources in exactly the logical
 * clusters that have compute (ComputeIndex). Discovery, OpenAPI and the router all read the registry, so the types
 * appear and disappear everywhere at once.
 *
 * When a cluster loses compute the types stop being served there and the open watches on them in that cluster end
 * (as a CRD version that stops being served ends its watches); the objects stay in storage, under the same keys, and
 * are served again when compute returns. Added to the registry ahead of the CRD source, so a negotiated CRD of the
 * same name left from older versions (same storage keys, so the same objects) is hidden wherever both exist.
 *
 * `/clusters/*` serves the types for list and watch across all workspaces (controllers such as the garbage collector
 * see them everywhere through its discovery), and a deleted logical cluster's objects of them are removed even when
 * it no longer had compute (registry.storedResources).
 */
import type { ResourceDefinition } from '../../registry/rest.js';
import type { DynamicResourceSource, ResourceRegistry } from '../../registry/resource-registry.js';
import type { ComputeIndex } from './compute-index.js';

const none: ResourceDefinition[] = [];

export class WorkspaceWorkloadSource implements DynamicResourceSource {
  private readonly defs: ResourceDefinition[];

  constructor(
    private readonly index: ComputeIndex,
    defs: readonly ResourceDefinition[],
    registry: ResourceRegistry,
  ) {
    this.defs = [...defs];
    index.onChange((cluster, hasCompute) => {
      if (!hasCompute) registry.endResourceWatchesIn(this.defs, cluster);
    });
  }

  resources(cluster: string): ResourceDefinition[] {
    return this.index.hasCompute(cluster) ? this.defs : none;
  }

  wildcardResources(): ResourceDefinition[] {
    return this.defs;
  }
}
