/**
 * What a server needs for transparent multi-cluster: the SyncTarget, APIResourceImport and Service resources, and
 * the negotiation and SyncTarget controllers (which run push-mode syncers). `atrium start` passes these to
 * startServer; tests pass them through startTestServer({ server: multiclusterServerOptions() }).
 */
import type { RunningServer, ServerOptions } from '../apiserver/server.js';
import { InformerFactory } from '../client/informer-factory.js';
import { RestClient } from '../client/rest-client.js';
import type { ControllerContext, RunningController } from '../controllers/runtime/context.js';
import { logger } from '../logging/logger.js';
import { multiclusterResources } from './api/resources.js';
import { negotiationControllerInstaller } from './controllers/negotiation.js';
import { syncTargetControllerInstaller, type SyncTargetControllerOptions } from './controllers/synctarget.js';
import { schedulingControllerInstaller, type SchedulingControllerOptions } from './scheduling/controller.js';
import { schedulingResources } from './scheduling/resources.js';
import { splitterControllerInstaller, type SplitterControllerOptions } from './splitter/controller.js';

export type MulticlusterOptions = SyncTargetControllerOptions & {
  /** Options of the scheduling controller (Locations, Placements, namespace assignment, failover). */
  scheduling?: SchedulingControllerOptions;
  /** Options of the deployment splitter. */
  splitter?: SplitterControllerOptions;
};

/** Server options adding the multi-cluster resources and controllers. */
export function multiclusterServerOptions(opts: MulticlusterOptions = {}): Pick<ServerOptions, 'extraResources' | 'controllers'> {
  return {
    extraResources: [...multiclusterResources, ...schedulingResources],
    controllers: (server) => startMulticlusterControllers(server, opts),
  };
}

/** Starts the negotiation and SyncTarget controllers against `server` as API clients with the admin token. */
export async function startMulticlusterControllers(server: RunningServer, opts: MulticlusterOptions = {}): Promise<{ stop(): Promise<void> }> {
  const client = new RestClient({ url: server.url, ca: server.caPem, token: server.adminToken, userAgent: 'atrium-multicluster/v0.0.0' });
  const informers = new InformerFactory(client);
  const ctx: ControllerContext = { client, informers, caPem: server.caPem };
  const running: RunningController[] = [negotiationControllerInstaller, syncTargetControllerInstaller(opts), schedulingControllerInstaller(opts.scheduling), splitterControllerInstaller(opts.splitter)].map((i) => i.install(ctx));
  informers.start();
  await informers.waitForSync();
  for (const c of running) await c.start();
  logger.info('multicluster controllers started', { controllers: running.map((c) => c.name) });
  return {
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
      await informers.stop();
      client.close();
    },
  };
}
