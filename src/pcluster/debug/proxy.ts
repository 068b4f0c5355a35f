/**
 * pods/proxy and services/proxy on the simulated cluster: the backend is chosen as kube-apiserver's ResourceLocation
 * chooses it (pkg/registry/core/pod/strategy.go, pkg/registry/core/service/storage/storage.go), with its errors,
 * and the request is forwarded to the simulated container's HTTP responder on that port (streaming/http-proxy.ts).
 * What upstream would dial at the pod's IP is dialled in the pod's simulated network namespace (runtime.dial), so a
 * port no container declares is refused as a real pod's would be.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { podProxyOptions, serviceProxyOptions } from '../../apiserver/connect-options.js';
import type { PluginHost } from '../../apiserver/plugin.js';
import { backendPath, proxyPath, proxyRequest, redirectToRoot, splitSchemeNamePort, type ProxyBackend } from '../../apiserver/streaming/http-proxy.js';
import type { RequestContext } from '../../registry/rest.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';

const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** The pod's primary IP (status.podIPs[0]); upstream proxies only to a global unicast one. */
function podIP(pod: KubeObject): string {
  const status = isPlainObject(pod.status) ? pod.status : {};
  return String(list(status.podIPs)[0]?.ip ?? '');
}

function globalUnicast(ip: string): boolean {
  if (!ip) return false;
  if (ip.includes(':')) return !/^(::1?$|fe[89ab]|ff)/i.test(ip);
  const o = ip.split('.').map(Number);
  return o.length === 4 && o[0] !== 0 && o[0] !== 127 && o[0]! < 224 && !(o[0] === 169 && o[1] === 254) && ip !== '255.255.255.255';
}

/** A backend in the pod: `port` dialled through the runtime, reported as upstream's dial of `ip:port` would be. */
function podBackend(runtime: ContainerRuntime, pod: KubeObject, scheme: string, port: string): ProxyBackend {
  const ip = podIP(pod);
  const host = ip.includes(':') ? `[${ip}]` : ip;
  const address = `${host}:${port}`;
  return {
    scheme,
    address,
    dial: async () => {
      if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`dial tcp: address ${address}: unknown port`);
      runtime.observe(pod);
      return runtime.dial(pod.metadata?.uid ?? '', Number(port)).catch(() => {
        throw new Error(`dial tcp ${address}: connect: connection refused`);
      });
    },
  };
}

async function forward(r: ConnectRequest, backend: ProxyBackend): Promise<void> {
  if (redirectToRoot(r)) return;
  await proxyRequest(r, backend, backendPath(proxyPath(r)));
}

export function podProxyHandler(runtime: ContainerRuntime): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'proxy',
    connectOptions: podProxyOptions,
    async serve(r) {
      const id = splitSchemeNamePort(r.info.name);
      if (!id) throw errors.badRequest(`invalid pod request ${JSON.stringify(r.info.name)}`);
      const pod = await r.store.get(r.ctx, r.info.namespace, id.name);
      // No port named: the first port a container declares; none at all: the scheme's own (80, 443), as upstream's
      // URL without a port.
      let port = id.port;
      if (!port) port = String(list(isPlainObject(pod.spec) ? pod.spec.containers : undefined).flatMap((c) => list(c.ports))[0]?.containerPort ?? '');
      if (!port) port = id.scheme === 'https' ? '443' : '80';
      if (!globalUnicast(podIP(pod))) throw errors.badRequest('address not allowed');
      await forward(r, podBackend(runtime, pod, id.scheme, port));
    },
  };
}

const systemContext = (cluster: string): RequestContext => ({ cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } });

export function serviceProxyHandler(host: PluginHost, runtime: ContainerRuntime): ConnectHandler {
  return {
    group: '',
    resource: 'services',
    subresource: 'proxy',
    connectOptions: serviceProxyOptions,
    async serve(r) {
      const id = splitSchemeNamePort(r.info.name);
      if (!id) throw errors.badRequest(`invalid service request ${JSON.stringify(r.info.name)}`);
      const ns = r.info.namespace;
      // A port number stands for the service port's name, which is what Endpoints' ports carry.
      let portName = id.port;
      if (/^-?\d+$/.test(id.port)) {
        const svc = await r.store.get(r.ctx, ns, id.name);
        const match = list(isPlainObject(svc.spec) ? svc.spec.ports : undefined).find((p) => Number(p.port) === Number(id.port));
        if (!match) throw errors.serviceUnavailable(`no service port ${Number(id.port)} found for service ${JSON.stringify(id.name)}`);
        portName = String(match.name ?? '');
      }
      // As the registry reads them: the request's authorization covered services/proxy, not these reads.
      const sys = systemContext(r.ctx.cluster);
      const eps = await host.registry.lookup(r.ctx.cluster, '', 'v1', 'endpoints')!.get(sys, ns, id.name);
      const subsets = list(eps.subsets);
      if (subsets.length === 0) throw errors.serviceUnavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
      const pods = host.registry.lookup(r.ctx.cluster, '', 'v1', 'pods')!;
      // Upstream starts from a random subset and address, so requests spread over the endpoints.
      const seed = Math.floor(Math.random() * subsets.length);
      for (let i = 0; i < subsets.length; i++) {
        const ss = subsets[(seed + i) % subsets.length]!;
        const addresses = list(ss.addresses);
        if (addresses.length === 0) continue;
        for (const p of list(ss.ports)) {
          if (String(p.name ?? '') !== portName) continue;
          const start = Math.floor(Math.random() * addresses.length);
          for (let t = 0; t < addresses.length; t++) {
            const addr = addresses[(start + t) % addresses.length]!;
            const pod = await validPod(pods, sys, ns, addr);
            if (pod) return forward(r, podBackend(runtime, pod, id.scheme, String(p.port)));
          }
        }
      }
      throw errors.serviceUnavailable(`no endpoints available for service ${JSON.stringify(r.info.name)}`);
    },
  };
}

/** isValidAddress: only an address whose targetRef is a pod of the namespace that has that IP is proxied to. */
async function validPod(pods: { get(ctx: RequestContext, ns: string, name: string): Promise<KubeObject> }, ctx: RequestContext, ns: string, addr: JsonObject): Promise<KubeObject | undefined> {
  const ref = isPlainObject(addr.targetRef) ? addr.targetRef : undefined;
  if (!ref || ref.namespace !== ns) return undefined;
  const pod = await pods.get(ctx, ns, String(ref.name ?? '')).catch(() => undefined);
  const status = pod && isPlainObject(pod.status) ? pod.status : {};
  return list(status.podIPs).some((p) => p.ip === addr.ip) ? pod : undefined;
}
