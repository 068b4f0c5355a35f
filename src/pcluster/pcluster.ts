/**
 * `atrium pcluster`: a simulated physical cluster. It is an atrium API server that also serves the workload types
 * (Deployments, ReplicaSets, Pods, Services, Nodes) and runs what a real cluster runs for them: the deployment and
 * replicaset controllers, a scheduler and a kubelet stand-in per node. Everything the controllers do goes through
 * the public API, and everything a client sees is the standard API, so tools (kubectl, the syncer) cannot tell it
 * from a real cluster for these types.
 */
import { startServer, type RunningServer, type ServerOptions } from '../server/server.js';
import type { ServerPlugin } from '../apiserver/plugin.js';
import { runControllers } from '../controllers/manager.js';
import type { ControllerInstaller } from '../controllers/runtime/context.js';
import { workloadResources } from '../registry/builtin/workloads/resources.js';
import { deploymentControllerInstaller } from './controllers/deployment/controller.js';
import { kubeletInstaller } from './controllers/kubelet.js';
import type { SimulatedNode } from './controllers/node-object.js';
import { replicaSetControllerInstaller } from './controllers/replicaset-controller.js';
import { schedulerInstaller } from './controllers/scheduler.js';
import { parseNodeCapacity, defaultNodeCapacity } from './options.js';
import { deploymentsWithSchemaVariant, type DeploymentSchemaVariant } from './schema-variants.js';
import { type WorkloadControllerOptions, workloadControllerInstallers } from './workload-controllers.js';

export interface PclusterOptions extends ServerOptions, WorkloadControllerOptions {
  /** Cluster name; nodes are called `<name>-node-<i>`. */
  name: string;
  /** Number of simulated nodes (default 1). */
  nodes?: number;
  /** Capacity (= allocatable) of every node, e.g. {cpu: '4', memory: '16Gi', pods: '110'}. */
  nodeCapacity?: Record<string, string>;
  /** How long a bound pod takes to become Running and Ready (default 1000 ms). */
  readyDelayMs?: number;
  /** Publish a deliberately different Deployment schema (see schema-variants.ts). */
  deploymentSchema?: DeploymentSchemaVariant;
}

export interface RunningPcluster extends RunningServer {
  name: string;
  nodeNames: string[];
}

/** The simulated nodes of a cluster: `<name>-node-1` … `<name>-node-<count>`. */
export function simulatedNodes(name: string, count: number, capacity: Record<string, string>): SimulatedNode[] {
  return Array.from({ length: count }, (_, i) => ({ name: `${name}-node-${i + 1}`, index: i + 1, capacity }));
}

/**
 * Starts the API server with the workload resources, then the cluster's controllers as API clients (admin token):
 * deployment, replicaset, scheduler and kubelet. stop() stops the controllers, then the server.
 */
export async function startPcluster(opts: PclusterOptions): Promise<RunningPcluster> {
  const nodes = simulatedNodes(opts.name, opts.nodes ?? 1, opts.nodeCapacity ?? parseNodeCapacity(defaultNodeCapacity));
  const installers: ControllerInstaller[] = [
    replicaSetControllerInstaller,
    deploymentControllerInstaller,
    schedulerInstaller,
    kubeletInstaller({ clusterName: opts.name, nodes, readyDelayMs: opts.readyDelayMs ?? 1000, jobDurationMs: opts.jobDurationMs }),
    // StatefulSets, DaemonSets, Jobs, CronJobs, HPAs, PodDisruptionBudgets.
    ...workloadControllerInstallers(opts),
  ];
  const { name: _name, nodes: _nodes, nodeCapacity: _capacity, readyDelayMs: _delay, deploymentSchema, jobDurationMs: _jd, jobBackoffMs: _jb, cronJobTimeScale: _cs, hpaSyncPeriodMs: _hs, hpaDownscaleStabilizationMs: _hd, controllers: _c, ...serverOptions } = opts;
  const resources = deploymentSchema ? workloadResources.map((r) => (r.resource === 'deployments' ? deploymentsWithSchemaVariant(deploymentSchema) : r)) : workloadResources;
  // The cluster's own API and controllers plug in like any feature; the caller's plugins come after them.
  const workloads: ServerPlugin = {
    name: 'pcluster',
    resources,
    controllers: (running) => runControllers({ server: running, userAgent: 'atrium-pcluster/v0.0.0', installers, logAs: 'pcluster controllers started' }),
  };
  const server = await startServer({ ...serverOptions, plugins: [workloads, ...(serverOptions.plugins ?? [])] });
  return Object.assign(server, { name: opts.name, nodeNames: nodes.map((n) => n.name) });
}
