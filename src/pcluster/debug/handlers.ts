/**
 * The debugging subresources of the simulated cluster's pods, handed to the host through the plugin contract
 * (InstalledPlugin.connect): pods/log, exec, attach and portforward, and pods/proxy and services/proxy (proxy.ts). exec runs local processes (command-process.ts),
 * so it and attach are served only while the pcluster listens on a loopback address; on any other address they
 * answer 403 Forbidden (a deliberate difference from a real cluster).
 */
import { errors } from '../../apimachinery/status.js';
import type { ConnectHandler } from '../../apiserver/connect.js';
import type { PluginHost } from '../../apiserver/plugin.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import type { ObjectLookup, ServiceLister } from '../runtime/container-env.js';
import { podLogHandler } from './pod-log.js';
import { podAttachHandler, podExecHandler, podPortForwardHandler } from './pod-stream.js';
import { podProxyHandler, serviceProxyHandler } from './proxy.js';

const systemCtx = { cluster: 'root', user: { username: 'system:kubelet', groups: ['system:masters'] } };

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\./.test(address);
}

/** The kubelet reads the ConfigMaps and Secrets of a container's environment with its own rights, not the caller's. */
export function kubeletObjectLookup(host: PluginHost): ObjectLookup {
  return async (resource, namespace, name) => host.registry.lookup('root', '', 'v1', resource)?.get(systemCtx, namespace, name).catch(() => undefined);
}

/** The kubelet's list of a namespace's Services (its service environment variables), with its own rights. */
export function kubeletServiceLister(host: PluginHost): ServiceLister {
  return async (namespace) => (await host.registry.lookup('root', '', 'v1', 'services')?.list(systemCtx, namespace, { selection: {} }).catch(() => undefined))?.items ?? [];
}

export function debuggingHandlers(host: PluginHost, runtime: ContainerRuntime, bindAddress: string): ConnectHandler[] {
  const lookup = kubeletObjectLookup(host);
  const services = kubeletServiceLister(host);
  const remote = [podExecHandler(runtime, lookup, services), podAttachHandler(runtime)];
  const guarded: ConnectHandler[] = isLoopback(bindAddress)
    ? remote
    : remote.map((h) => ({
        ...h,
        serve: async () => {
          throw errors.forbidden({ group: '', resource: `pods/${h.subresource}` }, '', `the simulated cluster runs ${h.subresource} as local processes and serves it only on a loopback bind address`);
        },
      }));
  return [podLogHandler(runtime), ...guarded, podPortForwardHandler(runtime), podProxyHandler(runtime), serviceProxyHandler(host, runtime)];
}
