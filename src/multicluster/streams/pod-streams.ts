/**
 * pods/log, pods/exec, pods/attach and pods/portforward in a workspace with compute: the request was authorized in
 * the workspace by the filter chain (kube-apiserver 1.32's verbs: `get` for a GET, WebSocket upgrades included, and
 * `create` for a POST, as SPDY's), so this only finds the pod's original (pod-location.ts) and forwards the request
 * there, path rewritten to the downstream pod, query and body untouched (forward.ts), over a connection to its
 * cluster (downstream-dialer.ts).
 */
import type { ConnectHandler } from '../../apiserver/connect.js';
import { StatusError } from '../../apimachinery/status.js';
import type { ResourceRegistry } from '../../registry/resource-registry.js';
import type { DownstreamDialer } from './downstream-dialer.js';
import { forwardRequest } from './forward.js';
import { PodLocator } from './pod-location.js';
import { podAttachOptions, podExecOptions, podPortForwardOptions } from '../../apiserver/connect-options.js';

/** The connect subresources (rest.Connecter upstream), reviewed by admission as CONNECT here, in the workspace. */
const connectOptions = { exec: podExecOptions, attach: podAttachOptions, portforward: podPortForwardOptions } as const;

export const podStreamSubresources = ['log', 'exec', 'attach', 'portforward'] as const;

/** One handler per subresource; the router calls them only where pods are served (workspaces with compute). */
export function podStreamsHandlers(registry: ResourceRegistry, dialer: DownstreamDialer): ConnectHandler[] {
  const locator = new PodLocator(registry);
  return podStreamSubresources.map((subresource) => ({
    group: '',
    resource: 'pods',
    subresource,
    ...(subresource !== 'log' ? { connectOptions: connectOptions[subresource] } : {}),
    async serve(r) {
      const pod = await r.store.get(r.ctx, r.info.namespace, r.info.name);
      const where = await locator.locate(r.ctx.cluster, pod);
      let conn;
      try {
        conn = await dialer.dial(where.target, where.targetCluster);
      } catch (err) {
        // kube-apiserver's UpgradeAwareHandler answers a failed dial with the bare error as a 500 Status.
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: (err as Error).message, code: 500 });
      }
      // The query as admission allowed it (a mutating webhook may have changed a CONNECT's options).
      const query = r.query.size > 0 ? `?${r.query.toString()}` : '';
      const path = `/api/v1/namespaces/${encodeURIComponent(where.namespace)}/pods/${encodeURIComponent(where.name)}/${r.info.subresource}${query}`;
      await forwardRequest(r, path, conn);
    },
  }));
}
