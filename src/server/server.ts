import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { errors, StatusError } from '../apimachinery/status.js';
import { logger } from '../logging/logger.js';
import { SqliteStore } from '../storage/sqlite/sqlite-store.js';
import { EtcdStore, type EtcdStoreOptions } from '../storage/etcd/etcd-store.js';
import { EtcdCompactor } from '../storage/etcd/etcd-compactor.js';
import { WatchCache } from '../storage/cacher/watch-cache.js';
import type { Storage } from '../storage/interface.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { coreResources } from '../registry/builtin/core.js';
import { otherGroupResources } from '../registry/builtin/other-groups.js';
import { customResourceDefinitions } from '../apiextensions/registry/custom-resource-definitions.js';
import { CustomResourceSource } from '../apiextensions/serving/custom-resource-source.js';
import { CRDController } from '../apiextensions/controller/crd-controller.js';
import type { RequestContext, ResourceDefinition } from '../registry/rest.js';
import { Admission } from '../apiserver/admission/admission.js';
import { NamespaceLifecycle } from '../apiserver/admission/namespace-lifecycle.js';
import { ReservedCRDAnnotations } from '../apiextensions/admission/reserved-crd-annotations.js';
import { PlacementLocationWorkspace } from '../multicluster/scheduling/placement-admission.js';
import { reservedSyncTargetAnnotations } from '../multicluster/api/reserved-synctarget-annotations.js';
import { logicalClusterPathAdmission } from '../tenancy/path-annotation-admission.js';
import type { TokenTable } from '../auth/authn/authenticator.js';
import { AuthSystem } from '../auth/auth-system.js';
import { refusePrivilegedImpersonation } from '../auth/authn/impersonation-gatekeeper.js';
import { bootstrapRbac } from '../auth/authz/bootstrap-policy.js';
import { parseRequestInfo } from '../apiserver/request-info.js';
import { hasInvalidPathEscape, parseRequestUrl } from '../apiserver/request-url.js';
import { setWatchBufferLimit } from '../apiserver/handlers/watch.js';
import { route } from '../apiserver/router.js';
import { answerTimeout, isLongRunning, requestDeadlineMs } from '../apiserver/request-deadline.js';
import { healthChecks } from '../apiserver/health.js';
import { writeError, writeRaw } from '../apiserver/http/response.js';
import { negotiateObjectOutput } from '../apiserver/http/negotiation.js';
import { writeObject } from '../apiserver/handlers/render.js';
import { ensureCertificates } from '../apiserver/certs/certificates.js';
import { writeAdminKubeconfig } from '../client/kubeconfig/kubeconfig.js';
import { OpenAPIService } from '../apiserver/openapi/service.js';
import { bootstrapNamespaces } from './bootstrap.js';
import { tenancyResources } from '../tenancy/resources.js';
import { Tenancy } from '../tenancy/tenancy.js';
import { startControllers } from '../controllers/manager.js';
import { startLeaderElected } from '../controllers/leader-election.js';
import { ControllerGate } from '../controllers/controller-gate.js';
import { RestClient } from '../client/rest-client.js';

/** The paths of APF's `probes` FlowSchema (exempt from flow control), GET only. */
const probePaths = new Set(['/healthz', '/readyz', '/livez']);

export interface ServerOptions {
  rootDir: string;
  bindAddress: string;
  securePort: number;
  /**
   * The shard's base URL (kcp's --shard-base-url): stamped into Workspaces' spec.URL and LogicalClusters' status.URL.
   * Every replica on one etcd must be given the same value; unset = https://<bind address>:<port> of this process.
   */
  shardBaseURL?: string;
  /** Storage to use instead of the embedded SQLite database (tests, etcd). */
  storage?: Storage;
  /** Store everything in this etcd cluster instead of the embedded SQLite database (ignored when `storage` is set). */
  etcd?: EtcdStoreOptions & {
    /** How often one replica compacts etcd's history, in ms (default 5 min, as kube-apiserver; 0 turns it off). */
    compactionIntervalMs?: number;
  };
  anonymous?: boolean;
  /** kube's static token file (`token,user,uid,"group1,group2"`), as --token-auth-file. */
  tokenAuthFile?: string;
  /** Objects one logical cluster may hold (--max-objects-per-workspace); 0 or unset = unlimited. */
  maxObjectsPerWorkspace?: number;
  /** Requests per second one user may make (--max-requests-per-second-per-user); 0 or unset = unlimited. */
  maxRequestsPerSecondPerUser?: number;
  /** Unsent bytes a watch client may accumulate before it is dropped with 410 (default 16 MiB). */
  watchBufferBytes?: number;
  /** Built-in resources served in addition to the standard set (e.g. the workload types of a physical cluster). */
  extraResources?: ResourceDefinition[];
  /**
   * In-process controllers, started once the server listens and admin.kubeconfig exists; the returned handle is
   * stopped before the server on stop(). A failure to start stops the server and rejects startServer; on etcd they
   * run under the controller Lease like the built-in ones (a failure there releases the lease and is retried).
   */
  controllers?: (server: RunningServer) => Promise<{ stop(): Promise<void> }>;
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
}

export interface RunningServer {
  /** https://host:port */
  url: string;
  port: number;
  kubeconfigPath: string;
  adminToken: string;
  caPem: string;
  registry: ResourceRegistry;
  /** Workspaces: the path index, the lifecycle controller (tests wait on tenancy.idle()). */
  tenancy: Tenancy;
  /** Whether this replica runs the controllers now (always on embedded storage; the Lease holder on etcd). */
  isControllerLeader?(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts an atrium API server: storage, registry, handler chain, HTTPS listener, admin credentials.
 * The handler chain is written out in one place (handle()): recovery → request info → authentication → routing.
 */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  mkdirSync(opts.rootDir, { recursive: true });
  if (opts.watchBufferBytes) setWatchBufferLimit(opts.watchBufferBytes);
  const pkiDir = join(opts.rootDir, 'pki');
  const host = hostname();
  const certs = await ensureCertificates(pkiDir, { hostnames: ['localhost', host], ips: ['127.0.0.1', '::1', ...(isIp(opts.bindAddress) && opts.bindAddress !== '0.0.0.0' ? [opts.bindAddress] : [])] });
  const adminToken = loadOrCreateToken(join(opts.rootDir, 'admin.token'));
  const tokens: TokenTable = new Map([[adminToken, { username: 'admin', groups: ['system:masters'] }]]);

  const etcdStore = !opts.storage && opts.etcd ? await EtcdStore.connect(opts.etcd) : undefined;
  const storage = opts.storage ?? etcdStore ?? SqliteStore.open(join(opts.rootDir, 'atrium.db'));
  const compactor = etcdStore && opts.etcd?.compactionIntervalMs !== 0 ? new EtcdCompactor(etcdStore, { intervalMs: opts.etcd?.compactionIntervalMs }) : undefined;
  // Storage that tracks its own health (etcd) takes /readyz down while it is unreachable.
  const storageHealthy = (): boolean => {
    const tracked = storage as Partial<Pick<EtcdStore, 'isHealthy'>>;
    return typeof tracked.isHealthy === 'function' ? tracked.isHealthy() : true;
  };
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
  for (const def of [...coreResources, ...otherGroupResources, ...(opts.extraResources ?? [])]) registry.registerBuiltin(auth.withSubresources(def));
  for (const def of auth.resources()) registry.registerBuiltin(def);
  // CRDs and the custom resources they define: the source serves established CRDs; the controller keeps it current.
  registry.registerBuiltin(customResourceDefinitions);
  // Workspaces, WorkspaceTypes and LogicalClusters; `tenancy` resolves /clusters/<path> and runs their lifecycle.
  for (const def of tenancyResources) registry.registerBuiltin(def);
  // On etcd, where other replicas may share the data, the controllers act only on the Lease holder (closed until
  // this replica wins it); on embedded storage this is the only replica.
  const controllerGate = new ControllerGate(!etcdStore);
  const tenancy = new Tenancy(registry, { authorizer: auth.authorizer, gate: controllerGate });
  const customResources = new CustomResourceSource(registry);
  registry.addSource(customResources);
  const crdController = new CRDController(registry, customResources, controllerGate);
  const namespaces = registry.lookup('root', '', 'v1', 'namespaces')!;
  const namespaceLifecycle = new NamespaceLifecycle(namespaces);
  // ReservedCRDAnnotations: only system:masters (the negotiation controller) may write negotiated CRDs.
  // PlacementLocationWorkspace: using another workspace's compute needs `bind` on its Locations.
  // LogicalClusterPathAnnotation, ReservedSyncTargetAnnotations: annotations the system sets and others trust
  // (a LogicalCluster's kcp.io/path, a SyncTarget's consumer clusters) are written by system:masters only.
  const placements = new PlacementLocationWorkspace({ resolvePath: (p) => tenancy.resolvePath(p), authorize: (c, a) => auth.authorizer.authorize(c, a) });
  const admission = new Admission([namespaceLifecycle, tenancy.admission, auth.admission, new ReservedCRDAnnotations(registry), logicalClusterPathAdmission(registry), reservedSyncTargetAnnotations(registry), placements]);
  const openapi = new OpenAPIService();
  let ready = false;
  let stopping = false;
  const health = healthChecks({
    storageProblem: () => {
      if (storageHealthy()) return '';
      const tracked = storage as Partial<Pick<EtcdStore, 'healthMessage'>>;
      return (typeof tracked.healthMessage === 'function' ? tracked.healthMessage() : '') || 'storage is unhealthy';
    },
    started: () => ready,
    shuttingDown: () => stopping,
  });

  const deps = { registry, admission, openapi, health };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    let ctx: RequestContext | undefined;
    let deadline: NodeJS.Timeout | undefined;
    let timedOut = false;
    // audit_init.go: every response carries the request's Audit-ID, the client's own or a new UUID.
    const auditId = req.headers['audit-id'];
    res.setHeader('Audit-ID', typeof auditId === 'string' && auditId ? auditId : randomUUID());
    if (hasInvalidPathEscape(req.url)) {
      // Go's server rejects the request line itself: plain 400, connection closed.
      res.removeHeader('Audit-ID');
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('400 Bad Request');
      return;
    }
    try {
      const url = parseRequestUrl(req.url);
      const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      // WithRequestDeadline + WithTimeoutForNonLongRunningRequests: before authentication, as upstream's chain.
      if (!isLongRunning(info)) {
        const ms = requestDeadlineMs(url.searchParams);
        deadline = setTimeout(() => {
          timedOut = true;
          answerTimeout(req, res);
        }, ms);
        deadline.unref();
        res.once('close', () => clearTimeout(deadline));
      }
      const user = await auth.authenticate(req);
      // APF's `probes` FlowSchema puts GET /healthz, /readyz and /livez in the exempt priority level; a rejected request
      // gets APF's plain-text 429 (maxinflight.go tooManyRequests), not a Status.
      if (!(req.method === 'GET' && probePaths.has(url.pathname))) {
        try {
          auth.admitRate(user);
        } catch (err) {
          if (!(err instanceof StatusError) || err.status.code !== 429) throw err;
          writeRaw(res, 429, 'Too many requests, please try again later.\n', 'text/plain; charset=utf-8', { 'Retry-After': String(err.headers?.['Retry-After'] ?? '1'), 'X-Content-Type-Options': 'nosniff' });
          return;
        }
      }
      refusePrivilegedImpersonation(req, user);
      // `GET workspaces/~` in root is answered with the caller's home workspace; `/clusters/~` is served from it.
      const home = await tenancy.interceptHome(info, user);
      if (home) {
        const output = negotiateObjectOutput(req.headers.accept, url.searchParams.get('includeObject'), true);
        writeObject(res, 200, home, output, registry.lookup('root', 'tenancy.kcp.io', 'v1alpha1', 'workspaces')!.def);
        return;
      }
      info.cluster = tenancy.resolveRequestCluster(info, user);
      // Credential scope, impersonation, rate limit, authorization, object quota: all before any object is read.
      ctx = { cluster: info.cluster, user: await auth.authorize(req, info, user) };
      await route(req, res, info, url.searchParams, ctx, deps);
    } catch (err) {
      if (timedOut) return; // already answered 504; whatever the handler ran into afterwards is moot
      if (err instanceof StatusError || !res.headersSent) writeError(res, err, { method: req.method, url: req.url });
      else {
        logger.error('internal error after response started', { url: req.url, error: (err as Error).stack });
        res.end();
      }
    } finally {
      if (deadline && !timedOut && res.writableEnded) clearTimeout(deadline);
      // Request lines are debug-level: no listener per request unless they are written.
      if (logger.enabled('debug')) {
        res.once('finish', () => {
          logger.debug('request', { method: req.method, url: req.url, code: res.statusCode, user: ctx?.user.username, ms: Date.now() - started });
        });
      }
    }
  };

  const server: Server = createServer(
    {
      key: certs.serving.keyPem,
      cert: certs.serving.certPem,
      ca: certs.ca.certPem,
      requestCert: true,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      // kube-apiserver's MaxHeaderBytes (secure_serving.go): 1 MiB of request line and headers, not Node's 16 KiB.
      maxHeaderSize: 1 << 20,
    },
    (req, res) => {
      handle(req, res).catch((err) => {
        logger.error('unhandled request failure', { error: (err as Error).stack });
        try {
          writeError(res, errors.internal('unhandled failure'));
        } catch {
          /* connection already gone */
        }
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Watches are long-lived: the deadline of other requests is handle()'s (request-deadline.ts), as upstream's filters.
  server.requestTimeout = 0;

  await crdController.start();
  await namespaceLifecycle.start();
  await auth.start();
  await bootstrapNamespaces(registry);
  await bootstrapRbac(registry, 'root');
  tenancy.addInitializer((cluster) => bootstrapRbac(registry, cluster));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.securePort, opts.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  ready = true;
  compactor?.start();
  const port = (server.address() as AddressInfo).port;
  const urlHost = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::' ? '127.0.0.1' : opts.bindAddress;
  const url = `https://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`;
  await tenancy.start(opts.shardBaseURL ? opts.shardBaseURL.replace(/\/+$/, '') : url);
  const kubeconfigPath = join(opts.rootDir, 'admin.kubeconfig');
  await writeAdminKubeconfig(kubeconfigPath, { server: url, caPem: certs.ca.certPem, clientCertPem: certs.admin.certPem, clientKeyPem: certs.admin.keyPem, token: adminToken });
  logger.info('serving', { url, rootDir: opts.rootDir, kubeconfig: kubeconfigPath });

  const sockets = new Set<import('node:net').Socket>();
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const running: RunningServer = {
    url,
    port,
    kubeconfigPath,
    adminToken,
    caPem: certs.ca.certPem,
    registry,
    tenancy,
    async stop() {
      stopping = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Watches never end on their own: close idle and streaming connections so shutdown is prompt.
        for (const s of sockets) s.destroy();
      });
      await crdController.stop();
      namespaceLifecycle.stop();
      tenancy.stop();
      auth.stop();
      watchCache.stop();
      await compactor?.stop();
      if (!opts.storage) await storage.close();
      logger.info('stopped', { url });
    },
  };
  // The controllers: the built-in ones (src/controllers/manager.ts), the caller's (multi-cluster), and the gate of the
  // CRD and workspace controllers. On etcd they all run on the replica holding the kube-system Lease only.
  // `term` is aborted the moment this replica stops leading (on etcd), possibly while this is still starting: the gate
  // closes then and there, and no further controller is started.
  const startLeaderWork = async (term: AbortSignal): Promise<{ stop(): Promise<void> }> => {
    const started: Array<{ stop(): Promise<void> }> = [];
    const stopAll = async () => {
      // The gate first: no CRD or workspace reconcile may start while the other controllers wind down.
      if (etcdStore) controllerGate.set(false);
      for (const c of started.splice(0).reverse()) await c.stop();
    };
    if (term.aborted) return { stop: stopAll };
    if (etcdStore) term.addEventListener('abort', () => controllerGate.set(false), { once: true });
    try {
      controllerGate.set(true);
      if (opts.builtinControllers !== false && !term.aborted) {
        started.push(await startControllers({ url, caPem: certs.ca.certPem, token: adminToken, registry, only: Array.isArray(opts.builtinControllers) ? opts.builtinControllers : undefined }));
      }
      if (opts.controllers && !term.aborted) started.push(await opts.controllers(running));
    } catch (err) {
      await stopAll();
      throw err;
    }
    return { stop: stopAll };
  };
  const electionClient = etcdStore ? new RestClient({ url, ca: certs.ca.certPem, token: adminToken, userAgent: 'atrium-leader-election/v0.0.0' }) : undefined;
  let leaderWork: { stop(): Promise<void> };
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
