/**
 * Installs and runs every controller, in one place. Controllers are ordinary API clients: they reach the server over
 * HTTPS with the admin's credentials, through shared informers, exactly as an external controller manager would.
 * To add a controller, write an installer (see src/controllers/README.md) and list it in `installers`.
 */
import { InformerFactory } from '../client/informer-factory.js';
import { RestClient } from '../client/rest-client.js';
import { logger } from '../logging/logger.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ControllerContext, ControllerInstaller, RunningController } from './runtime/context.js';
import { namespaceControllerInstaller } from './namespace/controller.js';
import { serviceAccountControllerInstaller } from './serviceaccount/controller.js';
import { rootCACertPublisherInstaller } from './rootcacertpublisher/controller.js';
import { garbageCollectorInstaller } from './garbagecollector/controller.js';

/** Every controller atrium runs, in start order. */
export const installers: ControllerInstaller[] = [
  namespaceControllerInstaller,
  serviceAccountControllerInstaller,
  rootCACertPublisherInstaller,
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
  registry?: ResourceRegistry;
  /** Run only these controllers (by name); default all. */
  only?: string[];
}

export interface RunningControllers {
  /** Names of the controllers started. */
  names: string[];
  stop(): Promise<void>;
}

/** Starts every (selected) controller; stop() shuts them and their informers down and waits for in-flight work. */
export async function startControllers(deps: ControllerDeps): Promise<RunningControllers> {
  const client = new RestClient({ url: deps.url, ca: deps.caPem, token: deps.token, cert: deps.certPem, key: deps.keyPem, userAgent: 'atrium-controller-manager/v0.0.0' });
  const informers = new InformerFactory(client);
  const ctx: ControllerContext = { client, informers, caPem: deps.caPem, registry: deps.registry };
  const selected = installers.filter((i) => !deps.only || deps.only.includes(i.name));
  const running: RunningController[] = selected.map((i) => i.install(ctx));
  informers.start();
  for (const c of running) await c.start();
  logger.info('controllers started', { controllers: running.map((c) => c.name) });
  return {
    names: running.map((c) => c.name),
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
      await informers.stop();
      client.close();
    },
  };
}
