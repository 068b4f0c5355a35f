/**
 * `atrium pcluster`: a simulated physical cluster. It is an atrium API server that also serves the workload types
 * (Deployments, ReplicaSets, Pods, Services, Nodes) and runs what a real cluster runs for them: the deployment and
 * replicaset controllers, a scheduler and a kubelet stand-in per node. Everything the controllers do goes through
 * the public API, and everything a client sees is the standard API, so tools (kubectl, the syncer) cannot tell it
 * from a real cluster for these types.
 */
import { startServer, type RunningServer, type ServerOptions } from '../server/server.js';
import { InformerFactory } from '../client/informer-factory.js';
import { RestClient } from '../client/rest-client.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../controllers/runtime/context.js';
import { logger } from '../logging/logger.js';
import { workloadResources } from '../registry/builtin/workloads/resources.js';
import { deploymentControllerInstaller } from './controllers/deployment/controller.js';
import { kubeletInstaller } from './controllers/kubelet.js';
import type { SimulatedNode } from './controllers/node-object.js';
import { replicaSetControllerInstaller } from './controllers/replicaset-controller.js';
import { schedulerInstaller } from './controllers/scheduler.js';
import { parseNodeCapacity, defaultNodeCapacity } from './options.js';
import { deploymentsWithSchemaVariant, type DeploymentSchemaVariant } from './schema-variants.js';

export interface PclusterOptions extends Omit<ServerOptions, 'extraResources' | 'controllers'> {
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
    kubeletInstaller({ clusterName: opts.name, nodes, readyDelayMs: opts.readyDelayMs ?? 1000 }),
  ];
  const { name: _name, nodes: _nodes, nodeCapacity: _capacity, readyDelayMs: _delay, deploymentSchema, ...serverOptions } = opts;
  const resources = deploymentSchema ? workloadResources.map((r) => (r.resource === 'deployments' ? deploymentsWithSchemaVariant(deploymentSchema) : r)) : workloadResources;
  const server = await startServer({
    ...serverOptions,
    extraResources: resources,
    controllers: (running) => startClusterControllers(running, installers),
  });
  return Object.assign(server, { name: opts.name, nodeNames: nodes.map((n) => n.name) });
}

/** Runs `installers` against `server`: shared informers synced before any controller starts, so no cache is empty. */
async function startClusterControllers(server: RunningServer, installers: ControllerInstaller[]): Promise<{ stop(): Promise<void> }> {
  const client = new RestClient({ url: server.url, ca: server.caPem, token: server.adminToken, userAgent: 'atrium-pcluster/v0.0.0' });
  const informers = new InformerFactory(client);
  const ctx: ControllerContext = { client, informers, caPem: server.caPem };
  const running: RunningController[] = installers.map((i) => i.install(ctx));
  informers.start();
  await informers.waitForSync();
  for (const c of running) await c.start();
  logger.info('pcluster controllers started', { controllers: running.map((c) => c.name) });
  return {
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
      await informers.stop();
      client.close();
    },
  };
}
