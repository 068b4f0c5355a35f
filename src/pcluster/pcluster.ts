/**
 * `atrium pcluster`: a simulated physical cluster. It is an atrium API server that also serves the workload types
 * (Deployments, ReplicaSets, Pods, Services, Nodes, the storage, service-plumbing and networking kinds) and runs what
 * a real cluster runs for them: the deployment, replicaset and replication controllers, a scheduler and a kubelet
 * stand-in per node, the endpoints, endpointslice and endpointslice-mirroring controllers, a volume provisioner and binder with a storage
 * capacity, a cloud's load balancers and an ingress controller (addresses from a simulated pool), and the admission
 * plugins that default storage and ingress classes and give pods their PriorityClass's priority. It starts with kind's
 * default StorageClass `standard`, an IngressClass `atrium` and the two system PriorityClasses. Everything the controllers do goes through the public API, and everything a client sees is
 * the standard API, so tools (kubectl, the syncer) cannot tell it from a real cluster for these types.
 */
import { startServer, type RunningServer, type ServerOptions } from '../server/server.js';
import type { PluginHost, ServerConnection, ServerPlugin } from '../apiserver/plugin.js';
import { StatusError } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';
import { runControllers } from '../controllers/manager.js';
import type { ControllerInstaller } from '../controllers/runtime/context.js';
import { workloadResources } from '../registry/builtin/workloads/resources.js';
import { deploymentControllerInstaller } from './controllers/deployment/controller.js';
import { kubeletInstaller } from './controllers/kubelet.js';
import type { SimulatedNode } from './controllers/node-object.js';
import { replicaSetControllerInstaller, replicationControllerInstaller } from './controllers/replicaset-controller.js';
import { schedulerInstaller } from './controllers/scheduler.js';
import { defaultIngressClassAdmission, defaultStorageClassAdmission, storageObjectInUseProtection } from './admission.js';
import { serviceAccountAdmission } from './service-account-admission.js';
import { gracefullyDeletedPods } from './graceful-pods.js';
import { defaultIngressClass, defaultStorageClass } from './controllers/classes.js';
import { ensureSystemPriorityClasses } from '../apiserver/admission/priority.js';
import { endpointSliceControllerInstaller, endpointsControllerInstaller } from '../controllers/endpoints/controller.js';
import { endpointSliceMirroringControllerInstaller } from '../controllers/endpoints/mirroring.js';
import { ingressControllerInstaller, serviceLoadBalancerInstaller } from './controllers/loadbalancer/controller.js';
import { defaultPoolCIDR, ingressControllerAddress, parsePool } from './controllers/loadbalancer/ip-pool.js';
import { storageControllerInstaller } from './controllers/storage/controller.js';
import { parseNodeCapacity, defaultNodeCapacity, defaultStorageCapacity, parseStorageCapacity } from './options.js';
import { deploymentsWithSchemaVariant, type DeploymentSchemaVariant } from './schema-variants.js';
import { type WorkloadControllerOptions, workloadControllerInstallers } from './workload-controllers.js';
import { ContainerRuntime } from './runtime/container-runtime.js';
import { containerRuntimeInstaller } from './runtime/runtime-installer.js';
import { debuggingHandlers, kubeletObjectLookup, kubeletServiceLister } from './debug/handlers.js';
import { metricsHandlers } from './debug/metrics-api.js';
import { nodeMetricsResource, podMetricsResource } from '../registry/builtin/metrics.js';

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
  /** Storage the simulated provisioner may hand out in all, a quantity (default 1Ti). */
  storageCapacity?: string;
  /** The load-balancer address pool, an IPv4 CIDR (default 172.18.<n>.0/24, n from the name; see ip-pool.ts). */
  loadBalancerCIDR?: string;
  /** How often each running simulated container writes its heartbeat and probe lines (default 5000 ms). */
  containerLogIntervalMs?: number;
  /** Images the simulated registry does not have (kubelet.ts; the CLI defaults to options.ts defaultMissingImages). */
  missingImages?: RegExp;
  /**
   * The cluster's admission plugins to leave off, by name, as kube-apiserver's --disable-admission-plugins
   * (ServiceAccount, DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection).
   */
  disableAdmissionPlugins?: readonly string[];
  /**
   * false: serve the cluster's API (its resources, bootstrap objects and admission) without any of its controllers, as
   * kube-apiserver runs without kube-controller-manager, a scheduler or kubelets (the differential suites compare the
   * two). Default true.
   */
  runControllers?: boolean;
}

export interface RunningPcluster extends RunningServer {
  name: string;
  nodeNames: string[];
  /** The load-balancer pool and the simulated ingress controller's address (the pool's first). */
  loadBalancerCIDR: string;
  ingressAddress: string;
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
  const storageCapacityBytes = parseStorageCapacity(opts.storageCapacity ?? defaultStorageCapacity);
  const pool = parsePool(opts.loadBalancerCIDR ?? defaultPoolCIDR(opts.name));
  // The simulated containers: logs, exec'd processes, listeners on their ports (runtime/container-runtime.ts).
  const runtime = new ContainerRuntime({ clusterName: opts.name, rootDir: opts.rootDir, logIntervalMs: opts.containerLogIntervalMs });
  const installers: ControllerInstaller[] = [
    replicaSetControllerInstaller,
    replicationControllerInstaller,
    deploymentControllerInstaller,
    schedulerInstaller,
    kubeletInstaller({ clusterName: opts.name, nodes, readyDelayMs: opts.readyDelayMs ?? 1000, jobDurationMs: opts.jobDurationMs, missingImages: opts.missingImages }),
    storageControllerInstaller({ capacityBytes: storageCapacityBytes }),
    endpointsControllerInstaller(),
    endpointSliceControllerInstaller(),
    endpointSliceMirroringControllerInstaller(),
    serviceLoadBalancerInstaller(pool),
    ingressControllerInstaller(pool),
    containerRuntimeInstaller(runtime),
    // StatefulSets, DaemonSets, Jobs, CronJobs, HPAs, PodDisruptionBudgets.
    ...workloadControllerInstallers(opts),
  ];
  const { name: _name, nodes: _nodes, nodeCapacity: _capacity, readyDelayMs: _delay, deploymentSchema, storageCapacity: _storage, loadBalancerCIDR: _cidr, jobDurationMs: _jd, missingImages: _mi, jobBackoffMs: _jb, cronJobTimeScale: _cs, hpaSyncPeriodMs: _hs, hpaDownscaleStabilizationMs: _hd, controllers: _c, containerLogIntervalMs: _li, disableAdmissionPlugins, runControllers: controllersOn, ...serverOptions } = opts;
  // Its kubelets stop pods before they go: pods are deleted gracefully (graceful-pods.ts).
  const resources = workloadResources.map((r) => (r.resource === 'deployments' && deploymentSchema ? deploymentsWithSchemaVariant(deploymentSchema) : r.group === '' && r.resource === 'pods' ? gracefullyDeletedPods : r));
  // The cluster's own API and controllers plug in like any feature; the caller's plugins come after them.
  const workloads: ServerPlugin = {
    name: 'pcluster',
    // metrics.k8s.io as metrics-server serves it, computed on read (debug/metrics-api.ts).
    resources: [...resources, podMetricsResource, nodeMetricsResource],
    async install(host) {
      await createBootstrapObjects(host, [defaultStorageClass(), defaultIngressClass()]);
      // system-node-critical and system-cluster-critical, as kube-apiserver creates them at start.
      await ensureSystemPriorityClasses(host.registry, 'root');
      // Containers whose command's output is plain log it, with their environment read as the kubelet reads it.
      runtime.useObjectLookup(kubeletObjectLookup(host), kubeletServiceLister(host));
      return {
        admission: [serviceAccountAdmission(host), defaultStorageClassAdmission(host), defaultIngressClassAdmission(host), storageObjectInUseProtection].filter((p) => !disableAdmissionPlugins?.includes(p.name)),
        // pods/log, exec, attach, portforward: only the simulated cluster serves them, from its simulated containers.
        connect: [...debuggingHandlers(host, runtime, serverOptions.bindAddress), ...metricsHandlers(host)],
        stop: () => runtime.stop(),
      };
    },
    ...(controllersOn === false ? {} : { controllers: (running: ServerConnection) => runControllers({ server: running, userAgent: 'atrium-pcluster/v0.0.0', installers, logAs: 'pcluster controllers started' }) }),
  };
  // A simulated cluster's database only has to survive the process being killed (the resilience suites restart it on
  // the same root dir), not the machine: no fsync per commit, which blocked its event loop ~10% of a 50-app burst.
  // A physical cluster has no workspaces: its kubeconfig names the bare server, as kind's does.
  const server = await startServer({
    sqliteSynchronous: 'NORMAL',
    // A simulated cluster keeps SQLite on its one thread: fleets run dozens of them in a process, where a worker
    // thread each would cost memory (an isolate apiece) for throughput a simulation does not need.
    storageThread: false,
    adminKubeconfigWorkspace: false,
    ...serverOptions, plugins: [workloads, ...(serverOptions.plugins ?? [])] });
  return Object.assign(server, { name: opts.name, nodeNames: nodes.map((n) => n.name), loadBalancerCIDR: pool.cidr, ingressAddress: ingressControllerAddress(pool) });
}

/**
 * Creates the cluster's bootstrap objects (its default classes, as kind installs its StorageClass) before it
 * listens, so no client ever sees the cluster without them. An object that exists is left as it is: a user's changes
 * survive a restart.
 */
async function createBootstrapObjects(host: PluginHost, objects: KubeObject[]): Promise<void> {
  const ctx = { cluster: 'root', user: { username: 'system:apiserver', groups: ['system:masters'] } };
  for (const obj of objects) {
    const [group, version] = String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/') : ['', String(obj.apiVersion)];
    const def = host.registry.resources('root').find((r) => r.group === group && r.version === version && r.kind === obj.kind);
    const store = def ? host.registry.lookup('root', group!, version!, def.resource) : undefined;
    if (!store) throw new Error(`pcluster: ${obj.kind} is not served`);
    try {
      await store.create(ctx, '', obj, { dryRun: false, fieldManager: 'atrium-pcluster' });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
}
