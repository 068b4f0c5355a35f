/**
 * What a server needs for transparent multi-cluster, as a plugin: the SyncTarget, APIResourceImport, scheduling and
 * Service resources, the Kubernetes workload types in every workspace with compute (serving/), the admission that
 * guards them, the pod streams (logs, exec, attach, port-forward) and the syncer tunnels they use, and the multi-cluster
 * controllers (controllers.ts), on the server's thread or their own (thread/). `atrium start` passes it to startServer;
 * tests pass it through startTestServer({ server: multiclusterServerOptions() }).
 */
import type { ServerConnection, ServerPlugin, Stoppable } from '../apiserver/plugin.js';
import { registerNegotiatedPrinter } from '../apiextensions/serving/negotiated-printers.js';
import { reservedSyncTargetAnnotations } from './api/reserved-synctarget-annotations.js';
import { ReadOnlyMirrors } from './api/mirror-admission.js';
import { PlacementLocationWorkspace } from './scheduling/placement-admission.js';
import { NamespaceClusterPin } from './scheduling/pin-admission.js';
import { SYSTEM_MASTERS } from '../apimachinery/user.js';
import { deploymentPrinter, podPrinter, replicaSetPrinter, servicePrinter } from '../registry/builtin/workloads/printers.js';
import { multiclusterResources } from './api/resources.js';
import { schedulingResources } from './scheduling/resources.js';
import { workspaceWorkloadResources } from './api/workload-resources.js';
import { ensureSystemPriorityClasses } from '../apiserver/admission/priority.js';
import { logger } from '../logging/logger.js';
import { withPodBinding } from '../registry/builtin/workloads/pod-binding.js';
import { withPodEviction, type EvictionStores } from '../registry/builtin/workloads/pod-eviction.js';
import { ComputeIndex } from './serving/compute-index.js';
import { WorkspaceWorkloadSource } from './serving/workload-source.js';
import { TunnelHub } from './streams/tunnel-hub.js';
import { DownstreamDialer } from './streams/downstream-dialer.js';
import { podStreamsHandlers } from './streams/pod-streams.js';
import { PodLocator } from './streams/pod-location.js';
import { podProxyHandler, serviceProxyHandler } from './streams/proxy.js';
import { mirrorEphemeralContainersHandler } from './streams/mirror-ephemeral-containers.js';
import { mirrorEvictionHandler } from './streams/mirror-eviction.js';
import { mirrorPodMetadataHandler } from './streams/mirror-pod-metadata.js';
import { tunnelEndpoint } from './streams/tunnel-endpoint.js';
import { workspaceViewHandlers, workspaceViewResources } from './metrics/workspace-views.js';
import { releasedOnDelete } from './decisions/deletion.js';
import { startMulticlusterControllersThread } from './thread/controllers-thread.js';
import { startMulticlusterControllers, type MulticlusterOptions } from './controllers.js';

export { startMulticlusterControllers, type MulticlusterOptions } from './controllers.js';

/** Who the admission plugins read stored objects as (the reads are internal, never authorized). */
const SYSTEM_USER = { username: 'system:admission', groups: [SYSTEM_MASTERS] };


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
  /** --no-controllers-thread sets it false: the controllers run on the server's own thread. */
  controllersThread?: boolean;
}

/**
 * The MulticlusterOptions for `atrium start` flags. Push-mode syncers heartbeat three times per threshold (at most
 * every 20 s, the syncer default), so one lost heartbeat never marks a healthy target not Ready.
 */
export function multiclusterOptionsFromFlags(flags: MulticlusterFlags): MulticlusterOptions {
  const threshold = flags.syncTargetHeartbeatThreshold;
  const opts: MulticlusterOptions = { scheduling: {}, splitter: {}, controllersThread: flags.controllersThread !== false };
  if (threshold !== undefined) {
    opts.heartbeatThresholdMs = threshold;
    opts.pushSyncer = { heartbeatIntervalMs: Math.max(100, Math.min(20_000, Math.floor(threshold / 3))) };
  }
  if (flags.syncTargetEvictionToleration !== undefined) opts.scheduling!.tolerationSeconds = flags.syncTargetEvictionToleration / 1000;
  if (flags.unschedulableGrace !== undefined) opts.splitter!.unschedulableGraceMs = flags.unschedulableGrace;
  return opts;
}

/** The multi-cluster plugin. */
export function multiclusterPlugin(opts: MulticlusterOptions = {}): ServerPlugin {
  registerWorkloadPrinters();
  return {
    name: 'multicluster',
    resources: [...multiclusterResources, ...schedulingResources],
    install: async (host) => {
      // Workspaces with compute (a SyncTarget or a Placement) serve the Kubernetes workload types built in; the index
      // of those workspaces is kept on every replica, ahead of the CRD source so the native types win over negotiated
      // CRDs of the same name left from older versions.
      const stores = [['workload.kcp.io', 'synctargets'], ['scheduling.kcp.io', 'placements']].map(([g, r]) => host.registry.lookup('root', g!, 'v1alpha1', r!)!);
      const compute = new ComputeIndex(stores);
      await compute.start();
      // A DELETE removes an object at once, syncer finalizers and all; the syncers clean its copies up after it.
      host.registry.releaseFinalizersOnDelete(releasedOnDelete);
      // With them, the clusters' metrics and a read-only view of their nodes (metrics/), for `kubectl top`.
      // Pods with pods/eviction, which reads and writes the workspace's pods and budgets (a mirror's eviction is sent
      // to its cluster instead: streams/mirror-eviction.ts).
      const evictionStores: EvictionStores = {
        pods: (cluster) => host.registry.lookup(cluster, '', 'v1', 'pods'),
        podDisruptionBudgets: (cluster) => host.registry.lookup(cluster, 'policy', 'v1', 'poddisruptionbudgets'),
      };
      const workloads = workspaceWorkloadResources.map((d) => withPodBinding(withPodEviction(d, evictionStores), evictionStores.pods));
      host.registry.addSource(new WorkspaceWorkloadSource(compute, [...workloads, ...workspaceViewResources], host.registry), { first: true });
      // The system PriorityClasses exist in every workspace with compute, as kube-apiserver creates them at start: made
      // when a workspace gains compute (and for every such workspace now), kept when it loses it, like its other objects.
      const ensureClasses = (cluster: string) =>
        ensureSystemPriorityClasses(host.registry, cluster).catch((err: unknown) => logger.warn('system PriorityClasses not created', { cluster, error: (err as Error).message }));
      compute.onChange((cluster, hasCompute) => void (hasCompute && ensureClasses(cluster)));
      void (async () => {
        for (const cluster of compute.clusters()) await ensureClasses(cluster);
      })();
      // Pod streams (logs, exec, attach, port-forward) reach the pod on its cluster: directly in push mode, through
      // the syncer's tunnel otherwise (streams/).
      const tunnels = new TunnelHub();
      const dialer = new DownstreamDialer(tunnels);
      const locator = new PodLocator(host.registry);
      return {
        // A mirror pod's pods/ephemeralcontainers (`kubectl debug`) is written on its original, the same way; so are
        // pods/proxy and services/proxy, to the cluster's own.
        connect: [...podStreamsHandlers(host.registry, dialer), podProxyHandler(host.registry, dialer, locator), serviceProxyHandler(host.registry, dialer, locator), mirrorEphemeralContainersHandler(host.registry, dialer), mirrorEvictionHandler(host.registry, dialer), mirrorPodMetadataHandler(host.registry, dialer), tunnelEndpoint(tunnels), ...workspaceViewHandlers(host.registry, dialer)],
        // ReservedSyncTargetAnnotations: a SyncTarget's consumer clusters are written by system:masters only.
        // PlacementLocationWorkspace: using another workspace's compute needs `bind` on its Locations.
        // ReadOnlyMirrors: the mirrors of what the clusters run (pods, events, ...) are written by syncers only.
        admission: [
          reservedSyncTargetAnnotations(host.registry),
          new ReadOnlyMirrors(host.registry),
          new PlacementLocationWorkspace({ resolvePath: (p) => host.resolveWorkspacePath(p), authorize: (c, a) => host.authorizer.authorize(c, a) }),
          // NamespaceClusterPin: a namespace's workload.kcp.io/cluster label is honoured or refused, never ignored.
          new NamespaceClusterPin({
            placements: async (cluster) => (await stores[1]!.list({ cluster, user: SYSTEM_USER }, '', { selection: {} })).items,
            syncTargets: async (cluster) => (await stores[0]!.list({ cluster, user: SYSTEM_USER }, '', { selection: {} })).items.filter((t) => !t.metadata?.deletionTimestamp),
            locations: async (cluster) => (await host.registry.lookup('root', 'scheduling.kcp.io', 'v1alpha1', 'locations')!.list({ cluster, user: SYSTEM_USER }, '', { selection: {} })).items,
            namespace: async (cluster, name) => host.registry.lookup('root', '', 'v1', 'namespaces')!.get({ cluster, user: SYSTEM_USER }, '', name).catch(() => undefined),
            resolvePath: (p) => host.resolveWorkspacePath(p),
          }),
        ],
        stop: () => {
          tunnels.stop();
          dialer.stop();
          compute.stop();
        },
      };
    },
    controllers: (server) => (opts.controllersThread ? startMulticlusterControllersThread(server, opts) : startMulticlusterControllers(server, opts)),
  };
}

/** Server options with the multi-cluster plugin (spread into startServer's options). */
export function multiclusterServerOptions(opts: MulticlusterOptions = {}): { plugins: ServerPlugin[] } {
  return { plugins: [multiclusterPlugin(opts)] };
}
