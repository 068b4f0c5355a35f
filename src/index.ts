/**
 * atrium as a library: the package's front door (`import { startServer } from 'atrium'`).
 *
 * Embed a Kubernetes-compatible API server in a Node program: start it on SQLite (the default) or etcd, serve your own
 * resources with your own admission plugins, and run your controllers in the same process with the same client,
 * informers, work queue and committer atrium's own controllers use. examples/embedded-widgets is a complete program.
 *
 * Only re-exports live here; every name is documented where it is defined. Anything not exported here is internal and
 * may change without notice.
 */

/**
 * The server: `startServer(options)` opens storage, serves HTTPS on `bindAddress:securePort` (0 picks a free port),
 * writes `<rootDir>/admin.kubeconfig` and runs the controllers; `RunningServer.stop()` shuts it all down.
 */
export { startServer, type ServerOptions, type RunningServer } from './server/server.js';

/**
 * The plugin contract: a `ServerPlugin` (given in `ServerOptions.plugins`) brings its resources, installs its admission
 * plugins through the `PluginHost`, and starts its controllers once the server listens, reaching it through a
 * `ServerConnection` as the administrator.
 */
export type { ServerPlugin, PluginHost, InstalledPlugin, ServerConnection, Stoppable } from './apiserver/plugin.js';
export type { ResourceRegistry } from './registry/resource-registry.js';

/**
 * Admission: a plugin sees every CREATE, UPDATE (subresources too: `attrs.subresource`) and DELETE of every resource,
 * after decoding and before the resource's strategy validates and stores it; it refuses a request by throwing a
 * StatusError (`errors.forbidden(...)`, `errors.invalid(...)`) or changes `attrs.object`.
 */
export type { AdmissionPlugin, AdmissionAttributes } from './apiserver/admission/admission.js';
export type { RequestContext } from './registry/rest.js';
export { SYSTEM_MASTERS, type UserInfo } from './apimachinery/user.js';

/**
 * Resources: `defineBuiltin(spec)` builds a ResourceDefinition with Kubernetes defaults (all verbs, unconditional
 * updates); its `strategy` prepares and validates objects (returning field errors, answered with one 422),
 * `subresources` with `statusOnly` give a status subresource, `printer` the `kubectl get` columns (`printerForColumns`
 * takes CRD-style jsonPath columns), and `schema` the kind's OpenAPI schema.
 */
export { defineBuiltin, statusOnly, statusAndMetadata, standardVerbs, type BuiltinSpec } from './registry/builtin/define.js';
export type { ResourceDefinition, Strategy, SubresourceStrategy, OpenAPISchemas, StorageMapping } from './registry/rest.js';
export type { APIResourceDescriptor, APISubresourceDescriptor } from './apimachinery/api-resource.js';
export { printerForColumns } from './apiextensions/serving/printer-columns.js';
export type { CRDColumn as PrinterColumn } from './apiextensions/crd/types.js';
export type { TablePrinter } from './apimachinery/table/builtin-printers.js';
export { column, type TableColumnDefinition } from './apimachinery/table/table.js';

/** Objects: the loosely typed Kubernetes object and the helpers reconcilers use on it. */
export { deepCopy, jsonEqual, metaOf, isPlainObject, nowRFC3339, type KubeObject, type ObjectMeta, type JsonObject } from './apimachinery/object.js';

/**
 * Errors: `StatusError` is what reaches clients (a metav1.Status); `errors` builds the usual ones (notFound, invalid,
 * forbidden, conflict, badRequest, ...). `field` holds the field-error helpers validation returns
 * (`field.invalid('spec.size', 0, 'must be at least 1')`, `field.required(...)`, `field.FieldPath`).
 */
export { StatusError, isStatusError, errors, type Status, type StatusCause, type StatusDetails, type GroupResource } from './apimachinery/status.js';
export * as field from './apimachinery/field-errors.js';
export type { FieldError, FieldErrorType } from './apimachinery/field-errors.js';

/**
 * The client: `RestClient` talks to any atrium (or Kubernetes) server (`RestClient.fromKubeconfig(path)`, or
 * `{ url, ca, token }` from a ServerConnection); `InformerFactory` shares list+watch caches (`Informer`, `Lister`);
 * `WorkQueue` deduplicates keys with per-key backoff; the resource helpers build paths and object keys.
 */
export {
  RestClient,
  type RestClientConfig,
  type ListOptions,
  type WatchOptions,
  type DeleteOptions,
  type ObjectList,
  type PatchType,
  type RawResponse,
} from './client/rest-client.js';
export { InformerFactory, type InformerSelection } from './client/informer-factory.js';
export { Informer, type InformerOptions, type EventHandler } from './client/informer.js';
export { Store, keyOf, clusterOf, formatObjectKey, parseObjectKey, type Lister, type ObjectKey, type IndexFunc } from './client/store.js';
export { WorkQueue, type RateLimiterOptions } from './client/work-queue.js';
export { isResourceExpired, type WatchEvent, type WatchEventType, type WatchStream } from './client/watch-stream.js';
export {
  CLUSTER_ANNOTATION,
  apiVersionOf,
  parseApiVersion,
  groupResourceString,
  resourcePath,
  type GroupVersionResource,
  type RequestScope,
} from './client/resource.js';
export { discoverResources, type DiscoveredResource, type DiscoveryResult } from './client/discovery.js';
export { readKubeconfig, parseKubeconfig, type Kubeconfig, type KubeconfigFile, type ResolvedCredentials } from './client/kubeconfig/kubeconfig.js';

/**
 * Controllers: a `ControllerInstaller` asks for informers in install() and returns a `RunningController`;
 * `runControllers` runs a set of them over one client and one informer factory (call it from a plugin's
 * `controllers(server)`). `Controller` is the reconcile loop (queue → reconcile(key) → outcome), `commit` writes what a
 * reconcile changed (spec and status in separate requests, only if changed), `TerminalError` drops a key.
 */
export { runControllers, type RunControllersOptions } from './controllers/manager.js';
export type { ControllerContext, ControllerInstaller, RunningController } from './controllers/runtime/context.js';
export { Controller, TerminalError, type ControllerOptions, type ReconcileResult } from './controllers/runtime/controller.js';
export { commit, stripClusterAnnotation, type CommitOptions } from './controllers/runtime/committer.js';
export { EventRecorder, type EventType, type InvolvedObject } from './controllers/runtime/event-recorder.js';

/**
 * Storage, for advanced use (`ServerOptions.storage`): the key-value contract every backend implements, the embedded
 * SQLite store and the etcd store. Most programs pass `etcd` options or nothing (SQLite in rootDir) instead.
 */
export type {
  Storage,
  KeyValue,
  ListResult as StorageListResult,
  ListOptions as StorageListOptions,
  StorageWatchEvent,
  WatchEventType as StorageWatchEventType,
  WatchCallbacks as StorageWatchCallbacks,
  WatchHandle as StorageWatchHandle,
} from './storage/interface.js';
export { StorageError, isStorageError, type StorageErrorCode } from './storage/errors.js';
export { SqliteStore, type SqliteStoreOptions } from './storage/sqlite/sqlite-store.js';
export { EtcdStore, type EtcdStoreOptions } from './storage/etcd/etcd-store.js';

/**
 * Multi-cluster: the plugin `atrium start` runs (SyncTargets, type negotiation, scheduling, push-mode syncers); add
 * `multiclusterPlugin()` to `ServerOptions.plugins` to serve it too.
 */
export { multiclusterPlugin, type MulticlusterOptions } from './multicluster/server-options.js';

/** Logging: one JSON line per entry on stderr; the level comes from ATRIUM_LOG_LEVEL or `logger.setLevel()`. */
export { logger } from './logging/logger.js';
