/**
 * What a server needs for transparent multi-cluster: the SyncTarget, APIResourceImport and Service resources, and
 * the negotiation and SyncTarget controllers (which run push-mode syncers). `atrium start` passes these to
 * startServer; tests pass them through startTestServer({ server: multiclusterServerOptions() }).
 */
import type { RunningServer, ServerOptions } from '../server/server.js';
import { InformerFactory } from '../client/informer-factory.js';
import { RestClient } from '../client/rest-client.js';
import type { ControllerContext, RunningController } from '../controllers/runtime/context.js';
import { registerNegotiatedPrinter } from '../apiextensions/serving/negotiated-printers.js';
import { logger } from '../logging/logger.js';
import { deploymentPrinter, podPrinter, replicaSetPrinter, servicePrinter } from '../registry/builtin/workloads/printers.js';
import { multiclusterResources } from './api/resources.js';
import { negotiationControllerInstaller } from './controllers/negotiation.js';
import { computeAPIsControllerInstaller } from './controllers/compute-apis.js';
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

/**
 * Makes negotiated CRDs of the workload kinds print as kube-apiserver prints the built-ins (Deployment READY "15/15",
 * not CRD columns). Idempotent; called by multiclusterServerOptions so every server with multicluster has it.
 */
export function registerWorkloadPrinters(): void {
  registerNegotiatedPrinter('apps', 'Deployment', deploymentPrinter);
  registerNegotiatedPrinter('apps', 'ReplicaSet', replicaSetPrinter);
  registerNegotiatedPrinter('', 'Pod', podPrinter);
  registerNegotiatedPrinter('', 'Service', servicePrinter);
}

/** The `atrium start` flags that tune failover and scheduling (durations in milliseconds). */
export interface MulticlusterFlags {
  /** --sync-target-heartbeat-threshold: a SyncTarget whose syncer was silent this long is not Ready (default 60 s). */
  syncTargetHeartbeatThreshold?: number;
  /** --sync-target-eviction-toleration: how long a not-Ready SyncTarget keeps its work (default 60 s). */
  syncTargetEvictionToleration?: number;
  /** --unschedulable-grace: how long replicas may stay unready on a Ready cluster before they move (default 30 s). */
  unschedulableGrace?: number;
}

/**
 * The MulticlusterOptions for `atrium start` flags. Push-mode syncers heartbeat three times per threshold (at most
 * every 20 s, the syncer default), so one lost heartbeat never marks a healthy target not Ready.
 */
export function multiclusterOptionsFromFlags(flags: MulticlusterFlags): MulticlusterOptions {
  const threshold = flags.syncTargetHeartbeatThreshold;
  const opts: MulticlusterOptions = { scheduling: {}, splitter: {} };
  if (threshold !== undefined) {
    opts.heartbeatThresholdMs = threshold;
    opts.pushSyncer = { heartbeatIntervalMs: Math.max(100, Math.min(20_000, Math.floor(threshold / 3))) };
    opts.scheduling!.heartbeatThresholdSeconds = threshold / 1000;
  }
  if (flags.syncTargetEvictionToleration !== undefined) opts.scheduling!.tolerationSeconds = flags.syncTargetEvictionToleration / 1000;
  if (flags.unschedulableGrace !== undefined) opts.splitter!.unschedulableGraceMs = flags.unschedulableGrace;
  return opts;
}

/** Server options adding the multi-cluster resources and controllers. */
export function multiclusterServerOptions(opts: MulticlusterOptions = {}): Pick<ServerOptions, 'extraResources' | 'controllers'> {
  registerWorkloadPrinters();
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
  const running: RunningController[] = [negotiationControllerInstaller, computeAPIsControllerInstaller, syncTargetControllerInstaller(opts), schedulingControllerInstaller(opts.scheduling), splitterControllerInstaller(opts.splitter)].map((i) => i.install(ctx));
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
