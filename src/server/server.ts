/**
 * The composition root: chooses storage, builds the registry, installs the features (authorization, workspaces,
 * CRDs, then the caller's plugins) and hands the host (src/apiserver/host.ts) its request filters. Everything it
 * wires lives below it; nothing imports it but the programs (src/cli, src/pcluster, src/demo) and the library
 * front door (src/index.ts).
 */
import { bindingsResource, withPodBinding } from '../registry/builtin/workloads/pod-binding.js';
import { withPodEviction, type EvictionStores } from '../registry/builtin/workloads/pod-eviction.js';
import type { ResourceDefinition } from '../registry/rest.js';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { logger } from '../logging/logger.js';
import { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import { EtcdStore, type EtcdStoreOptions } from '../storage/etcd/etcd-store.js';
import { EtcdCompactor } from '../storage/etcd/etcd-compactor.js';
import { ThreadedStorage } from '../storage/threaded/threaded-storage.js';
import { WatchCache } from '../storage/cacher/watch-cache.js';
import type { Storage } from '../storage/interface.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { coreResources } from '../registry/builtin/core.js';
import { otherGroupResources } from '../registry/builtin/other-groups.js';
import { Admission, type AdmissionPlugin } from '../apiserver/admission/admission.js';
import { NamespaceLifecycle } from '../apiserver/admission/namespace-lifecycle.js';
import { LimitRanger } from '../apiserver/admission/limitranger/limit-ranger.js';
import { PriorityAdmission } from '../apiserver/admission/priority.js';
import { RuntimeClassAdmission } from '../apiserver/admission/runtime-class.js';
import { certificateAdmissionPlugins } from '../apiserver/admission/certificates.js';
import { ResourceQuotaAdmission } from '../apiserver/admission/resourcequota/resource-quota.js';
import { admissionWebhooksPlugin } from '../admissionwebhooks/plugin.js';
import { admissionPoliciesPlugin } from '../admissionpolicy/plugin.js';
import { consolePlugin } from '../console/plugin.js';
import { mirrorSourceOf } from '../multicluster/api/mirrors.js';
import { setWatchBufferLimit } from '../apiserver/handlers/watch.js';
import { ensureCertificates } from '../apiserver/certs/certificates.js';
import { OpenAPIService } from '../apiserver/openapi/service.js';
import { startHost } from '../apiserver/host.js';
import type { InstalledPlugin, PluginHost, ServerConnection, ServerPlugin, Stoppable } from '../apiserver/plugin.js';
import { writeAdminKubeconfig } from '../client/kubeconfig/kubeconfig.js';
import { RestClient } from '../client/rest-client.js';
import { startControllers } from '../controllers/manager.js';
import { startLeaderElected } from '../controllers/leader-election.js';
import { ControllerGate } from '../controllers/controller-gate.js';
import type { TokenTable } from '../auth/authn/authenticator.js';
import { AuthSystem } from '../auth/auth-system.js';
import { refusePrivilegedImpersonation } from '../auth/authn/impersonation-gatekeeper.js';
import { bootstrapRbac } from '../auth/authz/bootstrap-policy.js';
import { authPlugin } from '../auth/plugin.js';
import { apiextensionsPlugin } from '../apiextensions/plugin.js';
import { TenancyPlugin } from '../tenancy/plugin.js';
import { APIsPlugin } from '../apis/plugin.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { isGetHomeWorkspaceRequest } from '../tenancy/home-workspaces.js';
import { ROOT_CLUSTER } from '../tenancy/paths.js';
import { bootstrapNamespaces } from './bootstrap.js';

export interface ServerOptions {
  rootDir: string;
  bindAddress: string;
  securePort: number;
  /**
   * The shard's base URL (kcp's --shard-base-url): stamped into Workspaces' spec.URL and LogicalClusters' status.URL.
   * Every replica on one etcd must be given the same value; unset = https://<bind address>:<port> of this process.
   */
  shardBaseURL?: string;
  /**
   * The workspace DIR/admin.kubeconfig points at (`<url>/clusters/root` by default, as kcp's admin.kubeconfig does,
   * so kcp's own `kubectl ws` and `kubectl kcp` plugins work against it); false writes the bare server URL (the
   * simulated physical cluster, which has no workspaces).
   */
  adminKubeconfigWorkspace?: string | false;
  /** Storage to use instead of the embedded SQLite database (tests, etcd). */
  storage?: Storage;
  /**
   * The embedded SQLite database's durability (default FULL: an acknowledged write survives power loss). NORMAL
   * survives a crash of the process (kill -9) but not of the machine: what a simulated cluster needs.
   */
  sqliteSynchronous?: 'FULL' | 'NORMAL';
  /** Store everything in this etcd cluster instead of the embedded SQLite database (ignored when `storage` is set). */
  etcd?: EtcdStoreOptions & {
    /** How often one replica compacts etcd's history, in ms (default 5 min, as kube-apiserver; 0 turns it off). */
    compactionIntervalMs?: number;
  };
  /**
   * Run the storage backend on a worker thread (src/storage/threaded/; default true): etcd's gRPC client and codec,
   * or SQLite's transactions and fsyncs, then use another core than the one serving requests. false keeps it on the
   * server's thread. Ignored when `storage` is given.
   */
  storageThread?: boolean;
  anonymous?: boolean;
  /** kube's static token file (`token,user,uid,"group1,group2"`), as --token-auth-file. */
  tokenAuthFile?: string;
  /** Objects one logical cluster may hold (--max-objects-per-workspace); 0 or unset = unlimited. */
  maxObjectsPerWorkspace?: number;
  /** Requests per second one user may make (--max-requests-per-second-per-user); 0 or unset = unlimited. */
  maxRequestsPerSecondPerUser?: number;
  /** Unsent bytes a watch client may accumulate before it is dropped with 410 (default 16 MiB). */
  watchBufferBytes?: number;
  /**
   * Features beyond the generic API, workspaces, authorization and CRDs: each hands in its resources, admission
   * plugins and controllers (multi-cluster, the simulated cluster's workload types and controllers, an embedder's
   * own API). Their controllers start once the server listens and are stopped before it; a failure to start stops
   * the server and rejects startServer; on etcd they run under the controller Lease like the built-in ones.
   */
  plugins?: ServerPlugin[];
  /**
   * The built-in controllers of src/controllers/manager.ts (namespace, serviceaccount, root-ca-cert-publisher,
   * garbagecollector), run as API clients once the server listens: true (default) runs all, a list runs those named,
   * false none.
   */
  builtinControllers?: boolean | string[];
  /**
   * Timing of the Lease-based leader election that, on etcd storage (where several replicas may share one
   * cluster), lets exactly one replica run the controllers: built-in, CRD, workspace and `controllers` (defaults: 15 s lease, 10 s renew
   * deadline, 2 s retry period, as kube-controller-manager).
   */
  leaderElection?: { leaseDurationSeconds?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Serve the web console under /console/ (default true; src/console/). */
  console?: boolean;
}

export interface RunningServer extends ServerConnection {
  port: number;
  /** The web console's URL (`<url>/console/`), when it is served. */
  consoleURL?: string;
  registry: ResourceRegistry;
  /** Workspaces: the path index, the lifecycle controller (tests wait on tenancy.idle()). */
  tenancy: Tenancy;
  /** API sharing (apis.kcp.io): what is bound where; tests wait on apis.idle(). */
  apis: APIsPlugin;
  /** Whether this replica runs the controllers now (always on embedded storage; the Lease holder on etcd). */
  isControllerLeader?(): boolean;
  stop(): Promise<void>;
}

/**
 * The server's storage: the caller's, or etcd (with its compaction rounds) or the embedded SQLite database, by default
 * on a worker thread.
 */
async function openStorage(opts: ServerOptions): Promise<{ storage: Storage; compactor?: EtcdCompactor }> {
  if (opts.storage) return { storage: opts.storage };
  const etcd = opts.etcd;
  const threaded = opts.storageThread !== false;
  if (!etcd) {
    const path = join(opts.rootDir, 'atrium.db');
    const options = { synchronous: opts.sqliteSynchronous ?? 'FULL' } as const;
    return { storage: threaded ? await ThreadedStorage.start({ backend: 'sqlite', path, options }) : SqliteStore.open(path, options) };
  }
  const { compactionIntervalMs, ...connection } = etcd;
  const compaction = compactionIntervalMs === 0 ? undefined : { ...(compactionIntervalMs !== undefined ? { intervalMs: compactionIntervalMs } : {}) };
  if (threaded) return { storage: await ThreadedStorage.start({ backend: 'etcd', etcd: connection, ...(compaction ? { compaction } : {}) }) };
  const store = await EtcdStore.connect(connection);
  return { storage: store, ...(compaction ? { compactor: new EtcdCompactor(store, compaction) } : {}) };
}

/**
 * Starts an atrium API server: storage, registry, features, HTTPS listener, admin credentials, controllers.
 * The request filter chain is the host's (src/apiserver/host.ts); this function hands it authentication, workspaces
 * and authorization.
 */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  mkdirSync(opts.rootDir, { recursive: true });
  if (opts.watchBufferBytes) setWatchBufferLimit(opts.watchBufferBytes);
  const pkiDir = join(opts.rootDir, 'pki');
  const host = hostname();
  const certs = await ensureCertificates(pkiDir, { hostnames: ['localhost', host], ips: ['127.0.0.1', '::1', ...(isIp(opts.bindAddress) && opts.bindAddress !== '0.0.0.0' ? [opts.bindAddress] : [])] });
  const adminToken = loadOrCreateToken(join(opts.rootDir, 'admin.token'));
  const tokens: TokenTable = new Map([[adminToken, { username: 'admin', groups: ['system:masters'] }]]);

  const onEtcd = !opts.storage && !!opts.etcd;
  const { storage, compactor } = await openStorage(opts);
  const watchCache = new WatchCache(storage);
  const registry = new ResourceRegistry(storage, watchCache);
  // Authentication and per-cluster authorization (RBAC); it also serves RBAC, the reviews and serviceaccounts/token.
  const auth = new AuthSystem(registry, {
    pkiDir,
    tokens,
    tokenAuthFile: opts.tokenAuthFile,
    anonymous: opts.anonymous,
    maxObjectsPerWorkspace: opts.maxObjectsPerWorkspace,
    maxRequestsPerSecondPerUser: opts.maxRequestsPerSecondPerUser,
  });
  // On etcd, where other replicas may share the data, the controllers act only on the Lease holder (closed until
  // this replica wins it); on embedded storage this is the only replica.
  const controllerGate = new ControllerGate(!onEtcd);
  // Workspaces, WorkspaceTypes and LogicalClusters; `tenancy` resolves /clusters/<path> and runs their lifecycle.
  const tenancyPlugin = new TenancyPlugin(controllerGate);
  // apis.kcp.io: APIExports, APIBindings, the bound resources and the APIExport virtual workspace.
  const apisPlugin = new APIsPlugin({ policyAuthorizer: auth.authorizer.rules });
  // Admission policies and webhooks come last: the webhooks' mutating phase runs after every other feature's, and the
  // policies' validating phase just before the webhooks', as upstream orders them. The console only serves files.
  const plugins: ServerPlugin[] = [tenancyPlugin, authPlugin(auth), apiextensionsPlugin(controllerGate), apisPlugin, ...(opts.plugins ?? []), admissionPoliciesPlugin(), admissionWebhooksPlugin(), ...(opts.console === false ? [] : [consolePlugin()])];

  // pods/eviction reads and writes the pods and PodDisruptionBudgets of the request's logical cluster; pods/binding its pods.
  const evictionStores: EvictionStores = {
    pods: (cluster) => registry.lookup(cluster, '', 'v1', 'pods'),
    podDisruptionBudgets: (cluster) => registry.lookup(cluster, 'policy', 'v1', 'poddisruptionbudgets'),
  };
  const withSubresources = (def: ResourceDefinition) => withPodBinding(withPodEviction(auth.withSubresources(def), evictionStores), evictionStores.pods);
  for (const def of [...coreResources, bindingsResource(evictionStores.pods), ...otherGroupResources]) registry.registerBuiltin(withSubresources(def));
  for (const plugin of plugins) for (const def of plugin.resources ?? []) registry.registerBuiltin(withSubresources(def));
  let tenancy: Tenancy | undefined;
  const pluginHost: PluginHost = { registry, authorizer: auth.authorizer, resolveWorkspacePath: (p) => tenancy?.resolvePath(p) };
  const namespaces = registry.lookup('root', '', 'v1', 'namespaces')!;
  const namespaceLifecycle = new NamespaceLifecycle(namespaces);
  const installed: InstalledPlugin[] = [];
  const stopInstalled = async () => {
    for (const p of installed.splice(0).reverse()) await p.stop?.();
  };
  // LimitRanger and Priority mutate pods early, as upstream orders them; ResourceQuota charges last, once every plugin
  // has changed the object, so it accounts what will be stored.
  const resourceQuota = new ResourceQuotaAdmission(registry, (a) => a.object !== undefined && mirrorSourceOf(a.object) !== undefined);
  // Priority gives pods their PriorityClass's value wherever the kind is served; a mirror pod keeps what its cluster
  // computed.
  const priority = new PriorityAdmission(registry, (pod) => mirrorSourceOf(pod) !== undefined);
  // RuntimeClass applies a pod's class (overhead, node selector, tolerations) after Priority, as upstream orders them.
  const runtimeClass = new RuntimeClassAdmission(registry, (pod) => mirrorSourceOf(pod) !== undefined);
  // The CSR plugins (approve and sign on signers, no system:masters client certificates) follow, as upstream orders them.
  const admissionPlugins: AdmissionPlugin[] = [namespaceLifecycle, new LimitRanger(registry), priority, runtimeClass, ...certificateAdmissionPlugins(auth.authorizer)];
  try {
    for (const plugin of plugins) {
      const done = (await plugin.install?.(pluginHost)) ?? {};
      installed.push(done);
      admissionPlugins.push(...(done.admission ?? []));
      if (plugin === tenancyPlugin) tenancy = tenancyPlugin.tenancy;
    }
  } catch (err) {
    await stopInstalled();
    throw err;
  }
  const workspaces = tenancyPlugin.tenancy;
  admissionPlugins.push(resourceQuota);
  const admission = new Admission(admissionPlugins);

  await namespaceLifecycle.start();
  await resourceQuota.start();
  await bootstrapNamespaces(registry);
  await bootstrapRbac(registry, 'root');
  workspaces.addInitializer((cluster) => bootstrapRbac(registry, cluster));
  workspaces.addInitializer(apisPlugin.defaultBindingsInitializer(workspaces));
  const homeWorkspaces = registry.lookup('root', 'tenancy.kcp.io', 'v1alpha1', 'workspaces')!.def;
  const listener = await startHost({
    bindAddress: opts.bindAddress,
    securePort: opts.securePort,
    tls: { keyPem: certs.serving.keyPem, certPem: certs.serving.certPem, caPem: certs.ca.certPem },
    registry,
    admission,
    openapi: new OpenAPIService(),
    connect: installed.flatMap((p) => p.connect ?? []),
    publicEndpoints: installed.flatMap((p) => p.publicEndpoints ?? []),
    // Storage that tracks its own health (etcd) takes /healthz, /livez and /readyz down while it is unreachable.
    storageProblem: () => {
      const tracked = storage as Partial<Pick<EtcdStore, 'isHealthy' | 'healthMessage'>>;
      if (typeof tracked.isHealthy !== 'function' || tracked.isHealthy()) return '';
      return (typeof tracked.healthMessage === 'function' ? tracked.healthMessage() : '') || 'storage is unhealthy';
    },
    filters: {
      authenticate: async (req) => {
        const user = await auth.authenticate(req);
        refusePrivilegedImpersonation(req, user);
        return user;
      },
      admitRate: (user) => auth.admitRate(user),
      // `GET workspaces/~` in root is answered with the caller's home workspace (made on first use), or with kcp's
      // plain-text 429 while it waits for initializers. The caller is whom it impersonates, as kcp's home workspace
      // filter runs after impersonation (authorized in root, where the home is asked for).
      intercept: async (req, info, user) => {
        if (!isGetHomeWorkspaceRequest(info)) return undefined;
        const home = await workspaces.interceptHome(info, auth.impersonated(req, ROOT_CLUSTER, user));
        if (!home) return undefined;
        if (home.kind === 'creating') return { code: 429, text: 'Creating the home workspace', headers: { 'Retry-After': '1' } };
        return { object: home.object, def: homeWorkspaces };
      },
      resolveCluster: (info, user) => workspaces.resolveRequestCluster(info, user),
      authorize: async (req, info, user) => {
        const actingAs = await auth.authorize(req, info, user);
        apisPlugin.authorizeBoundResource(info, actingAs);
        return actingAs;
      },
      virtualWorkspace: (path) => apisPlugin.virtualWorkspace.resolve(path),
    },
  });
  listener.setReady();
  compactor?.start();
  const url = listener.url;
  await workspaces.start(opts.shardBaseURL ? opts.shardBaseURL.replace(/\/+$/, '') : url);
  const kubeconfigPath = join(opts.rootDir, 'admin.kubeconfig');
  const kubeconfigWorkspace = opts.adminKubeconfigWorkspace ?? 'root';
  const kubeconfigServer = kubeconfigWorkspace === false ? url : `${url}/clusters/${kubeconfigWorkspace}`;
  await writeAdminKubeconfig(kubeconfigPath, { server: kubeconfigServer, caPem: certs.ca.certPem, clientCertPem: certs.admin.certPem, clientKeyPem: certs.admin.keyPem, token: adminToken });
  logger.info('serving', { url, rootDir: opts.rootDir, kubeconfig: kubeconfigPath });

  const running: RunningServer = {
    url,
    port: listener.port,
    kubeconfigPath,
    adminToken,
    caPem: certs.ca.certPem,
    connectLoopback: () => listener.connectLoopback(),
    consoleURL: opts.console === false ? undefined : `${url}/console/`,
    registry,
    tenancy: workspaces,
    apis: apisPlugin,
    async stop() {
      await listener.close();
      await stopInstalled();
      namespaceLifecycle.stop();
      resourceQuota.stop();
      watchCache.stop();
      await compactor?.stop();
      if (!opts.storage) await storage.close();
      logger.info('stopped', { url });
    },
  };
  // The controllers: the built-in ones (src/controllers/manager.ts), the plugins', and the gate of the CRD and
  // workspace controllers. On etcd they all run on the replica holding the kube-system Lease only.
  // `term` is aborted the moment this replica stops leading (on etcd), possibly while this is still starting: the gate
  // closes then and there, and no further controller is started.
  const startLeaderWork = async (term: AbortSignal): Promise<Stoppable> => {
    const started: Stoppable[] = [];
    const stopAll = async () => {
      // The gate first: no CRD or workspace reconcile may start while the other controllers wind down.
      if (onEtcd) controllerGate.set(false);
      for (const c of started.splice(0).reverse()) await c.stop();
    };
    if (term.aborted) return { stop: stopAll };
    if (onEtcd) term.addEventListener('abort', () => controllerGate.set(false), { once: true });
    try {
      controllerGate.set(true);
      if (opts.builtinControllers !== false && !term.aborted) {
        started.push(await startControllers({ url, caPem: certs.ca.certPem, token: adminToken, connectLoopback: running.connectLoopback, only: Array.isArray(opts.builtinControllers) ? opts.builtinControllers : undefined }));
      }
      for (const plugin of plugins) {
        if (plugin.controllers && !term.aborted) started.push(await plugin.controllers(running));
      }
    } catch (err) {
      await stopAll();
      throw err;
    }
    return { stop: stopAll };
  };
  const electionClient = onEtcd ? new RestClient({ url, ca: certs.ca.certPem, token: adminToken, userAgent: 'atrium-leader-election/v0.0.0', connect: running.connectLoopback }) : undefined;
  let leaderWork: Stoppable;
  try {
    if (electionClient) {
      const elected = await startLeaderElected({ client: electionClient, identity: `${host}_${randomBytes(8).toString('hex')}`, ...opts.leaderElection }, startLeaderWork);
      running.isControllerLeader = () => elected.elector.isLeader();
      leaderWork = { stop: async () => { await elected.stop(); electionClient.close(); } };
    } else {
      leaderWork = await startLeaderWork(new AbortController().signal);
      running.isControllerLeader = () => true;
    }
  } catch (err) {
    electionClient?.close();
    await running.stop();
    throw err;
  }
  const stopServer = running.stop;
  running.stop = async () => {
    await leaderWork.stop();
    await stopServer();
  };
  return running;
}

function loadOrCreateToken(path: string): string {
  if (existsSync(path)) {
    const t = readFileSync(path, 'utf8').trim();
    if (t) return t;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}

function isIp(s: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(s) || s.includes(':');
}
