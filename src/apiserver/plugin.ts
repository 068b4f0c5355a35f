/**
 * How a feature plugs into the server: it hands in the resources it serves, the admission plugins it adds and the
 * controllers it runs, and the host imports none of it. Workspaces, authorization, CustomResourceDefinitions,
 * multi-cluster and the simulated cluster's workload controllers all arrive this way; so does an embedding program's
 * own API (see src/index.ts).
 */
import type { Duplex } from 'node:stream';
import type { ResourceDefinition } from '../registry/rest.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { AdmissionPlugin } from './admission/admission.js';
import type { Authorizer } from './authorization.js';
import type { ConnectHandler } from './connect.js';
import type { PublicEndpoint } from './public-endpoint.js';

/** Something running that stops cleanly. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** What the host offers a plugin while it installs: the registry and the host's services. */
export interface PluginHost {
  registry: ResourceRegistry;
  /** Authorization within one logical cluster (RBAC and the workspace rules), for admission checks of its own. */
  authorizer: Authorizer;
  /** The logical cluster a workspace path (`root:org:team`) names, or undefined when there is none. */
  resolveWorkspacePath(path: string): string | undefined;
}

/** How to reach the running server as its administrator (system:masters), for controllers. */
export interface ServerConnection {
  /** https://host:port */
  url: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
  /** A bearer token of the admin identity. */
  adminToken: string;
  /** DIR/admin.kubeconfig. */
  kubeconfigPath: string;
  /**
   * An in-process connection to this server (http/loopback.ts), for clients in the same process: requests over it
   * skip TLS and the kernel. Authenticate with adminToken (there is no client certificate on it).
   */
  connectLoopback?: () => Duplex;
}

export interface ServerPlugin {
  /** Names the plugin in logs. */
  readonly name: string;
  /** Built-in resources served in every logical cluster, registered before the server listens. */
  readonly resources?: readonly ResourceDefinition[];
  /**
   * Called once the registry holds every plugin's resources, before the server listens: returns the plugin's
   * admission plugins (run after the host's own, in plugin order) and whatever it must start and stop in-process.
   */
  install?(host: PluginHost): InstalledPlugin | Promise<InstalledPlugin>;
  /**
   * Controllers, run as API clients once the server listens and admin.kubeconfig exists. On etcd they run only on
   * the replica holding the controller Lease (and stop when it is lost); a failure to start stops the server.
   */
  controllers?(server: ServerConnection): Promise<Stoppable>;
}

export interface InstalledPlugin {
  readonly admission?: readonly AdmissionPlugin[];
  /** Paths the plugin answers itself rather than the generic store (streaming subresources; see connect.ts). */
  readonly connect?: readonly ConnectHandler[];
  /**
   * Path prefixes the plugin answers before authentication (public, static content only: the console's assets);
   * see public-endpoint.ts.
   */
  readonly publicEndpoints?: readonly PublicEndpoint[];
  /** Stops what install() started, after the listener has closed. */
  stop?(): void | Promise<void>;
}
