/**
 * Connect handlers: what a feature answers itself on a resource path instead of the generic store, as upstream's
 * rest.Connecter (pods/log, pods/exec, pods/attach, pods/portforward are served by kube-apiserver's pod registry,
 * which proxies them to the kubelet). A plugin hands them in from install(); the router calls one after
 * authentication, cluster resolution and authorization, so a connect request is authorized as any other
 * subresource (a WebSocket GET of pods/exec is verb `get`, a SPDY POST `create`, as in kube-apiserver 1.32).
 *
 * A request that asks to switch protocols (`Connection: Upgrade`: WebSocket, SPDY/3.1) reaches its handler with the
 * raw socket in `upgrade`; the handler either answers 101 on that socket itself or answers through `res`, which is
 * bound to the same socket (the connection closes after such an answer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../apimachinery/object.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { RequestContext } from '../registry/rest.js';
import type { RequestInfo } from './request-info.js';
import type { ConnectOptionsCodec } from './connect-options.js';

/** The raw connection of a request that asked to switch protocols, and the bytes already read past its headers. */
export interface UpgradeConnection {
  socket: Duplex;
  head: Buffer;
}

export interface ConnectRequest {
  req: IncomingMessage;
  res: ServerResponse;
  upgrade?: UpgradeConnection;
  info: RequestInfo;
  /** The request's query; for a connect subresource, re-encoded from the options admission allowed (connect-admission.ts). */
  query: URLSearchParams;
  /**
   * The options object admission allowed (set for handlers with connectOptions): what serve() acts on where the
   * query cannot carry it (a proxy's `path`, taken from the URL, which a mutating webhook may change).
   */
  options?: KubeObject;
  /** The cluster and the (possibly impersonated) user the request acts as. */
  ctx: RequestContext;
  /** The store of the resource the path names (the parent of the subresource), to read the object with. */
  store: GenericStore;
}

export interface ConnectHandler {
  group: string;
  resource: string;
  /** The subresource answered ('' for the resource itself, e.g. a resource computed on read). */
  subresource: string;
  /**
   * Set for upstream's rest.Connecter subresources (pods/exec, attach, portforward, proxy, services/proxy; not
   * pods/log, a streamed GET): the request is then reviewed by admission as a CONNECT of this options object before
   * serve() is called.
   */
  connectOptions?: ConnectOptionsCodec;
  /**
   * Whether this handler answers the request; when it says no, the request is served as if no handler were installed
   * (the generic store's verbs, with their admission). For a handler that answers some objects of a resource only
   * (a mirror pod's pods/ephemeralcontainers, not a synced one's). Its absence means every request.
   */
  accepts?(r: ConnectRequest): Promise<boolean>;
  serve(r: ConnectRequest): Promise<void>;
}

/** The handler of a request's group, resource and subresource, if a plugin answers it. */
export function findConnectHandler(handlers: readonly ConnectHandler[], info: RequestInfo): ConnectHandler | undefined {
  return handlers.find((h) => h.group === info.apiGroup && h.resource === info.resource && h.subresource === info.subresource);
}
