/** What every controller gets when it is installed: an API client, shared informers, and server facts. */
import type { InformerFactory } from '../../client/informer-factory.js';
import type { RestClient } from '../../client/rest-client.js';

export interface ControllerContext {
  /** Authenticated as the server's admin (system:masters). */
  client: RestClient;
  /** Shared informers: ask for what you need in install(), the manager starts them. */
  informers: InformerFactory;
  /** PEM of the server's CA (published as kube-root-ca.crt). */
  caPem: string;
  /** https://host:port of the server (what the `kubernetes` Service's Endpoints name). */
  serverUrl: string;
}

/** A running controller as the manager sees it. */
export interface RunningController {
  name: string;
  /** Called after the shared informers were started. */
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** Installs one controller: registers informers/handlers and returns it, not yet started. */
export interface ControllerInstaller {
  name: string;
  install(ctx: ControllerContext): RunningController;
}
