/**
 * The multi-cluster controllers as a set, and their options: negotiation, compute APIs, SyncTargets (which run
 * push-mode syncers), scheduling, the splitter and its revision history, placement, mirrored events' lifetime, the
 * workspace volume binder and workspace endpoints. API clients of the server (on its thread or their own:
 * thread/controllers-thread.ts); the plugin that serves their APIs is server-options.ts.
 */
import type { ServerConnection, Stoppable } from '../apiserver/plugin.js';
import { runControllers } from '../controllers/manager.js';
import { negotiationControllerInstaller } from './controllers/negotiation.js';
import { computeAPIsControllerInstaller } from './controllers/compute-apis.js';
import { syncTargetControllerInstaller, type SyncTargetControllerOptions } from './controllers/synctarget.js';
import { schedulingControllerInstaller, type SchedulingControllerOptions } from './scheduling/controller.js';
import { splitterControllerInstaller, type SplitterControllerOptions } from './splitter/controller.js';
import { revisionHistoryControllerInstaller } from './splitter/revision-history-controller.js';
import { mirrorEventTtlControllerInstaller, type MirrorEventTtlOptions } from './controllers/mirror-event-ttl.js';
import { volumeBinderControllerInstaller } from './controllers/volume-binder.js';
import { workspaceEndpointsControllerInstallers } from './controllers/workspace-endpoints.js';
import { placementControllerInstaller, type PlacementControllerOptions } from './placement/controller.js';

export type MulticlusterOptions = SyncTargetControllerOptions & {
  /** Options of the scheduling controller (Locations, Placements, namespace assignment, failover). */
  scheduling?: SchedulingControllerOptions;
  /** Options of the deployment splitter. */
  splitter?: SplitterControllerOptions;
  /** Options of the placement controller (every other kind: one cluster, every cluster, following). */
  placement?: PlacementControllerOptions;
  /** Options of the mirrored events' lifetime (controllers/mirror-event-ttl.ts). */
  mirrorEvents?: MirrorEventTtlOptions;
  /**
   * Run the controllers on a worker thread of their own (thread/controllers-thread.ts) rather than the server's
   * thread: `atrium start` does unless --no-controllers-thread; embedders and tests choose (default: the server's).
   */
  controllersThread?: boolean;
};

/** Starts the multi-cluster controllers against `server` as API clients with the admin token. */
export function startMulticlusterControllers(server: ServerConnection, opts: MulticlusterOptions = {}): Promise<Stoppable> {
  return runControllers({
    server,
    userAgent: 'atrium-multicluster/v0.0.0',
    installers: [negotiationControllerInstaller, computeAPIsControllerInstaller, syncTargetControllerInstaller(opts), schedulingControllerInstaller(opts.scheduling), splitterControllerInstaller(opts.splitter), revisionHistoryControllerInstaller, placementControllerInstaller(opts.placement), mirrorEventTtlControllerInstaller(opts.mirrorEvents), volumeBinderControllerInstaller, ...workspaceEndpointsControllerInstallers],
    logAs: 'multicluster controllers started',
  });
}
