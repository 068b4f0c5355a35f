/**
 * Installs and runs every controller, in one place. Controllers are ordinary API clients: they reach the server with
 * the admin's credentials, through shared informers, exactly as an external controller manager would — over the
 * server's in-process loopback when they run in its process (src/apiserver/http/loopback.ts), else over HTTPS.
 * To add a controller, write an installer (see src/controllers/README.md) and list it in `installers`.
 */
import type { Duplex } from 'node:stream';
import { InformerFactory } from '../client/informer-factory.js';
import { RestClient } from '../client/rest-client.js';
import { logger } from '../logging/logger.js';
import type { ControllerContext, ControllerInstaller, RunningController } from './runtime/context.js';
import { namespaceControllerInstaller } from './namespace/controller.js';
import { serviceAccountControllerInstaller } from './serviceaccount/controller.js';
import { rootCACertPublisherInstaller } from './rootcacertpublisher/controller.js';
import { garbageCollectorInstaller } from './garbagecollector/controller.js';
import { kubernetesServiceInstaller } from './kubernetesservice/controller.js';
import { resourceQuotaControllerInstaller } from './resourcequota/controller.js';

/** Every controller atrium runs, in start order. */
export const installers: ControllerInstaller[] = [
  namespaceControllerInstaller,
  serviceAccountControllerInstaller,
  rootCACertPublisherInstaller,
  kubernetesServiceInstaller,
  resourceQuotaControllerInstaller,
  garbageCollectorInstaller,
];

export interface ControllerDeps {
  /** https://host:port of the server. */
  url: string;
  caPem: string;
  /** Admin credentials: a bearer token, or a client certificate and key. */
  token?: string;
  certPem?: string;
  keyPem?: string;
  /** The server's loopback, when the controllers run in its process (ServerConnection.connectLoopback). */
  connectLoopback?: () => Duplex;
  /** Run only these controllers (by name); default all. */
  only?: string[];
}

export interface RunningControllers {
  /** Names of the controllers started. */
  names: string[];
  stop(): Promise<void>;
}

/** Starts every (selected) built-in controller; stop() shuts them and their informers down and waits for in-flight work. */
export async function startControllers(deps: ControllerDeps): Promise<RunningControllers> {
  const selected = installers.filter((i) => !deps.only || deps.only.includes(i.name));
  const running = await runControllers({
    server: { url: deps.url, caPem: deps.caPem, adminToken: deps.token, certPem: deps.certPem, keyPem: deps.keyPem, connectLoopback: deps.connectLoopback },
    userAgent: 'atrium-controller-manager/v0.0.0',
    installers: selected,
    // The built-in controllers start at once; their informers fill while they start (they tolerate empty caches).
    waitForSync: false,
    logAs: 'controllers started',
  });
  return { names: selected.map((i) => i.name), stop: running.stop };
}

export interface RunControllersOptions {
  /** The server and an admin credential: a bearer token, or a client certificate and key. */
  server: { url: string; caPem: string; adminToken?: string; certPem?: string; keyPem?: string; connectLoopback?: () => Duplex };
  userAgent: string;
  installers: readonly ControllerInstaller[];
  /** Wait until every shared informer has listed before starting any controller (default true): no cache is empty. */
  waitForSync?: boolean;
  /** The log line written once they run. */
  logAs?: string;
}

/**
 * Installs and runs controllers as API clients of one server, over one client and one set of shared informers: what
 * every controller manager here does (the built-in one, multi-cluster's, the simulated cluster's, an embedder's).
 * stop() stops the controllers, then the informers, then the client.
 */
export async function runControllers(opts: RunControllersOptions): Promise<{ stop(): Promise<void> }> {
  const { server } = opts;
  // In the server's own process, over its loopback (no TLS); the admin token authenticates either way.
  const connect = server.adminToken ? server.connectLoopback : undefined;
  const client = new RestClient({ url: server.url, ca: server.caPem, token: server.adminToken, cert: server.certPem, key: server.keyPem, userAgent: opts.userAgent, ...(connect ? { connect } : {}) });
  const informers = new InformerFactory(client);
  const ctx: ControllerContext = { client, informers, caPem: server.caPem, serverUrl: server.url };
  const running: RunningController[] = opts.installers.map((i) => i.install(ctx));
  informers.start();
  if (opts.waitForSync !== false) await informers.waitForSync();
  for (const c of running) await c.start();
  logger.info(opts.logAs ?? 'controllers started', { controllers: running.map((c) => c.name) });
  return {
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
      await informers.stop();
      client.close();
    },
  };
}
