/**
 * pods/proxy and services/proxy in a workspace with compute. The request was authorized in the workspace (verbs by
 * HTTP method, as kube-apiserver's); this finds where the pod or Service really is and forwards the request to that
 * cluster's own pods/proxy or services/proxy (which picks the port, the endpoint, and answers upstream's errors),
 * over the connection the pod streams use (downstream-dialer.ts: push mode dials the cluster, pull and none modes go
 * through the syncer's tunnel), the path below `proxy` cleaned and the caller's query kept (forward.ts).
 */
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { podProxyOptions, serviceProxyOptions } from '../../apiserver/connect-options.js';
import { backendPath, proxyPath, redirectToRoot, splitSchemeNamePort } from '../../apiserver/streaming/http-proxy.js';
import { errors } from '../../apimachinery/status.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { DownstreamDialer } from './downstream-dialer.js';
import { requestDownstream } from './downstream-request.js';
import { forwardRequest } from './forward.js';
import { PodLocator, type PodLocation } from './pod-location.js';

/** `[scheme:]name[:port]` with the name the object has on its cluster; the `:` kept readable. */
function downstreamId(id: { scheme: string; port: string }, name: string): string {
  return [...(id.scheme ? [id.scheme] : []), name, ...(id.port ? [id.port] : [])].map((s) => encodeURIComponent(s)).join(':');
}

async function forwardTo(r: ConnectRequest, dialer: DownstreamDialer, where: PodLocation, resource: 'pods' | 'services', id: { scheme: string; port: string }): Promise<void> {
  // The redirect names the workspace's path, which the cluster's own would not.
  if (redirectToRoot(r)) return;
  let conn;
  try {
    conn = await dialer.dial(where.target, where.targetCluster);
  } catch (err) {
    throw errors.serviceUnavailable(`error trying to reach service: ${(err as Error).message}`);
  }
  const url = r.req.url ?? '';
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
  const path = `/api/v1/namespaces/${encodeURIComponent(where.namespace)}/${resource}/${downstreamId(id, where.name)}/proxy${backendPath(proxyPath(r))}${query}`;
  await forwardRequest(r, path, conn);
}

export function podProxyHandler(registry: ResourceRegistry, dialer: DownstreamDialer, locator = new PodLocator(registry)): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'proxy',
    connectOptions: podProxyOptions,
    async serve(r) {
      const id = splitSchemeNamePort(r.info.name);
      if (!id) throw errors.badRequest(`invalid pod request ${JSON.stringify(r.info.name)}`);
      const pod = await r.store.get(r.ctx, r.info.namespace, id.name);
      await forwardTo(r, dialer, await locator.locate(r.ctx.cluster, pod), 'pods', id);
    },
  };
}

/** Whether an Endpoints answer has an address that is ready (subsets[].addresses; not-ready ones are apart). */
function hasReadyAddress(body: unknown): boolean {
  const subsets = (body as { subsets?: { addresses?: unknown[] }[] } | undefined)?.subsets;
  return Array.isArray(subsets) && subsets.some((s) => Array.isArray(s?.addresses) && s.addresses.length > 0);
}

export function serviceProxyHandler(registry: ResourceRegistry, dialer: DownstreamDialer, locator = new PodLocator(registry)): ConnectHandler {
  return {
    group: '',
    resource: 'services',
    subresource: 'proxy',
    connectOptions: serviceProxyOptions,
    async serve(r) {
      const id = splitSchemeNamePort(r.info.name);
      if (!id) throw errors.badRequest(`invalid service request ${JSON.stringify(r.info.name)}`);
      const svc = await r.store.get(r.ctx, r.info.namespace, id.name);
      // The Service is synced (Follow placement) to every cluster its workloads run on. The first of them, in the
      // order of their SyncTargets' names, whose copy has a ready endpoint answers: deterministic, so a client
      // keeps reaching the same cluster while it stays healthy. A cluster that cannot be asked is passed over.
      const places = (await locator.syncedPlaces(r.ctx.cluster, svc)).sort((a, b) => (a.target.metadata!.name! < b.target.metadata!.name! ? -1 : 1));
      for (const where of places) {
        const reply = await requestDownstream(dialer, where.target, where.targetCluster, {
          method: 'GET',
          path: `/api/v1/namespaces/${encodeURIComponent(where.namespace)}/endpoints/${encodeURIComponent(where.name)}`,
          userAgent: 'atrium-services-proxy',
          timeoutMs: 10_000,
        }).catch(() => undefined);
        if (reply?.status === 200 && hasReadyAddress(reply.body)) return forwardTo(r, dialer, where, 'services', id);
      }
      throw errors.serviceUnavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
    },
  };
}
