/**
 * `kubectl atrium bind compute <location-workspace>`: makes a workspace's namespaces run on physical clusters by
 * creating the default Placement there, so a plain Deployment needs no extra object. Idempotent: an existing
 * Placement named `default` is left as it is and reported.
 */
import type { RestClient } from '../../client/rest-client.js';
import { defaultPlacement } from './controller.js';
import { DEFAULT_NAME, placementsGVR } from './types.js';
import type { ClusterSpread } from '../decisions/types.js';

export interface BindComputeOptions {
  /** The logical cluster name of the workspace to bind (whose namespaces get placed). */
  cluster: string;
  /**
   * The workspace holding the Locations and SyncTargets (a path such as `root:compute`, or the bound workspace itself).
   * For another workspace, the scheduler lists the bound workspace on the chosen SyncTargets (consumer-clusters
   * annotation) so their syncers sync it, and the compute-apis controller copies that workspace's negotiated types
   * (operators' CRDs its clusters bring) into the bound one. The Kubernetes workload types (Deployments, Pods, ...)
   * are served built in by every workspace with a Placement.
   */
  locationWorkspace: string;
  /** How many SyncTargets a namespace spreads over (default All). */
  spread?: ClusterSpread;
}

/** Creates the default Placement; returns a one-line description of what happened. */
export async function bindCompute(client: RestClient, opts: BindComputeOptions): Promise<string> {
  try {
    await client.create(placementsGVR, defaultPlacement(opts.locationWorkspace, opts.spread), { cluster: opts.cluster });
    return `placement.scheduling.kcp.io/${DEFAULT_NAME} created (location workspace ${opts.locationWorkspace})`;
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
    return `placement.scheduling.kcp.io/${DEFAULT_NAME} already exists`;
  }
}
