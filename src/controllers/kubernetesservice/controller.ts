/**
 * The `kubernetes` Service: kube-apiserver keeps `default/kubernetes` (ClusterIP 10.96.0.1, port 443 → the secure
 * port) pointing at itself, with Endpoints and an EndpointSlice of the same name, and clients and test suites expect it
 * (upstream's e2e suite refuses to start without it). atrium keeps it in every logical cluster whose `default`
 * namespace exists and which serves Services; Endpoints and EndpointSlices only where those are served (compute
 * workspaces, simulated clusters): a 404 from a create means the resource is not served there and is left alone.
 * A server that serves no Services at all (a bare host without the workload APIs) runs nothing.
 *
 * As upstream (pkg/controlplane/controller/kubernetesservice, reconcilers/lease.go and endpointsadapter.go): the
 * Service is created when missing and otherwise left as it is (the update path is not taken since 1.17); Endpoints
 * carry one subset with the server's address and the `https` port and `endpointslice.kubernetes.io/skip-mirror`; the
 * EndpointSlice is derived from them. Where we differ: upstream reconciles every 10 s; here a deleted Service is
 * recreated on its delete event and the Endpoints are checked whenever the Service or the namespace changes.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { GroupVersionResource } from '../../client/resource.js';
import { formatObjectKey, parseObjectKey } from '../../client/store.js';
import { logger } from '../../logging/logger.js';
import { Controller } from '../runtime/controller.js';
import type { ControllerContext, ControllerInstaller, RunningController } from '../runtime/context.js';
import { isBenignCreateError, namespaceIsActive, namespaceKey, namespaceKeyOfObject } from '../runtime/namespace-scoped.js';

const namespacesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
const servicesGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const endpointsGVR: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
const endpointSlicesGVR: GroupVersionResource = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };

export const KUBERNETES_SERVICE_NAME = 'kubernetes';
/** The first address of the default service CIDR 10.96.0.0/12, which the allocator never hands out. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
const NAMESPACE = 'default';

/**
 * The address and port the Endpoints name, as kube-apiserver's advertise address is chosen: the listening address when
 * it is a routable IP, else the host's first non-internal IPv4 address (ChooseHostInterface; Endpoints validation
 * refuses loopback addresses). Undefined when the host has none: then no Endpoints are written.
 */
export function advertisedEndpoint(serverUrl: string): { ip?: string; port: number } {
  const url = new URL(serverUrl);
  const port = Number(url.port || 443);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isLoopbackOrUnspecified(host)) return { ip: host, port };
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return { ip: found.address, port };
  }
  return { port };
}

function isLoopbackOrUnspecified(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1' || ip === '0.0.0.0' || ip === '::';
}

export function kubernetesService(port: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { provider: 'kubernetes', component: 'apiserver' } },
    spec: {
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
      clusterIP: KUBERNETES_SERVICE_IP,
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
  };
}

function kubernetesEndpoints(ip: string, port: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  };
}

function kubernetesEndpointSlice(ip: string, port: number): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { 'kubernetes.io/service-name': KUBERNETES_SERVICE_NAME } },
    addressType: isIP(ip) === 6 ? 'IPv6' : 'IPv4',
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  };
}

/** Creates `want` unless it exists; if it does, brings the fields `owned` names back to `want`'s. Not served: nothing. */
async function ensure(ctx: ControllerContext, gvr: GroupVersionResource, cluster: string, want: KubeObject, owned: string[]): Promise<void> {
  let current: KubeObject;
  try {
    current = await ctx.client.get(gvr, KUBERNETES_SERVICE_NAME, { cluster, namespace: NAMESPACE });
  } catch (err) {
    if (!(err instanceof StatusError) || err.code !== 404) throw err;
    try {
      await ctx.client.create(gvr, want, { cluster });
    } catch (createErr) {
      if (!isBenignCreateError(createErr)) throw createErr;
    }
    return;
  }
  const wantLabels = want.metadata?.labels ?? {};
  const labelsOk = Object.entries(wantLabels).every(([k, v]) => current.metadata?.labels?.[k] === v);
  if (labelsOk && owned.every((f) => jsonEqual(current[f], want[f]))) return;
  const next: KubeObject = { ...current, metadata: { ...current.metadata, labels: { ...(current.metadata?.labels ?? {}), ...wantLabels } } };
  for (const f of owned) next[f] = want[f];
  await ctx.client.update(gvr, next, { cluster });
}

/** Whether the server serves Services (they come with the workload APIs: a bare host does not serve them). */
async function servesServices(ctx: ControllerContext): Promise<boolean> {
  const list = (await ctx.client.call('GET', '/api/v1')) as { resources?: { name: string }[] };
  return (list.resources ?? []).some((r) => r.name === 'services');
}

export const kubernetesServiceInstaller: ControllerInstaller = {
  name: 'kubernetes-service',
  install(ctx: ControllerContext): RunningController {
    const { ip, port } = advertisedEndpoint(ctx.serverUrl);
    let controller: Controller<string> | undefined;
    let stopped = false;

    const run = async () => {
      if (!(await servesServices(ctx)) || stopped) return;
      // Asked for only now, so a server without Services never lists them (the factory starts late informers).
      const namespaces = ctx.informers.informerFor(namespacesGVR, { cluster: '*', fieldSelector: `metadata.name=${NAMESPACE}` });
      const services = ctx.informers.informerFor(servicesGVR, { cluster: '*', fieldSelector: `metadata.name=${KUBERNETES_SERVICE_NAME}` });
      const c = new Controller<string>({
        name: 'kubernetes-service',
        workers: 2,
        async reconcile(key) {
          const { cluster } = parseObjectKey(key);
          if (!namespaceIsActive(namespaces.lister.get(key))) return;
          if (!services.lister.get(formatObjectKey({ cluster, namespace: NAMESPACE, name: KUBERNETES_SERVICE_NAME }))) {
            try {
              await ctx.client.create(servicesGVR, kubernetesService(port), { cluster });
            } catch (err) {
              if (!isBenignCreateError(err)) throw err;
            }
          }
          if (ip === undefined) return;
          await ensure(ctx, endpointsGVR, cluster, kubernetesEndpoints(ip, port), ['subsets']);
          await ensure(ctx, endpointSlicesGVR, cluster, kubernetesEndpointSlice(ip, port), ['addressType', 'endpoints', 'ports']);
        },
      });
      namespaces.addEventHandler({ add: (ns) => c.enqueue(namespaceKey(ns)), update: (_o, ns) => c.enqueue(namespaceKey(ns)) });
      services.addEventHandler({ delete: (svc) => c.enqueue(namespaceKeyOfObject(svc)) });
      await Promise.all([namespaces.waitForSync(), services.waitForSync()]);
      if (stopped) return;
      controller = c;
      c.start();
    };

    return {
      name: 'kubernetes-service',
      start() {
        // Not awaited: the manager must not hold up the server while discovery answers and caches fill.
        const attempt = (delayMs: number) =>
          void run().catch((err) => {
            if (stopped) return;
            logger.warn('kubernetes-service: cannot start yet, retrying', { error: String(err), retryInMs: delayMs });
            setTimeout(() => attempt(Math.min(delayMs * 2, 30_000)), delayMs).unref();
          });
        attempt(1000);
      },
      async stop() {
        stopped = true;
        await controller?.stop();
      },
    };
  },
};
