/**
 * What the handlers that send a mirror pod's write to its original share (mirror-ephemeral-containers.ts,
 * mirror-eviction.ts, mirror-pod-metadata.ts): taking only requests on MIRROR pods (a synced pod's write is the workspace's own), and one
 * request to the original on its cluster, an unreachable cluster answered as exec and logs answer it (pod-streams.ts).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { StatusError } from '../../apimachinery/status.js';
import type { ConnectRequest } from '../../apiserver/connect.js';
import { isMirror } from '../api/mirrors.js';
import type { DownstreamDialer } from './downstream-dialer.js';
import { requestDownstream, type DownstreamReply } from './downstream-request.js';
import type { PodLocation } from './pod-location.js';

/** accepts() for requests with one of `methods` on a mirror pod, and the mirror it read, for serve() of the same request. */
export function mirrorPodRequests(methods: readonly string[]): { accepts(r: ConnectRequest): Promise<boolean>; mirrorOf(r: ConnectRequest): KubeObject } {
  const mirrors = new WeakMap<ConnectRequest, KubeObject>();
  return {
    async accepts(r) {
      if (!methods.includes(r.req.method ?? '')) return false;
      const pod = await r.store.get(r.ctx, r.info.namespace, r.info.name).catch(() => undefined);
      if (!pod || !isMirror(pod)) return false;
      mirrors.set(r, pod);
      return true;
    },
    mirrorOf: (r) => mirrors.get(r)!,
  };
}

/** `r`'s request sent to the original pod's `subresource` ('' for the pod itself; body given, query as the caller sent it), answered whole. */
export async function requestOriginal(dialer: DownstreamDialer, where: PodLocation, r: ConnectRequest, subresource: string, body: Buffer, timeoutMs: number, as?: { method: string; contentType: string }): Promise<DownstreamReply> {
  const query = r.query.size > 0 ? `?${r.query.toString()}` : '';
  try {
    return await requestDownstream(dialer, where.target, where.targetCluster, {
      method: as?.method ?? r.req.method!,
      path: `/api/v1/namespaces/${encodeURIComponent(where.namespace)}/pods/${encodeURIComponent(where.name)}${subresource ? `/${subresource}` : ''}${query}`,
      body,
      contentType: as?.contentType ?? r.req.headers['content-type'],
      userAgent: r.req.headers['user-agent'] ?? 'atrium',
      timeoutMs,
    });
  } catch (err) {
    const message = (err as Error).message;
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: message.startsWith('error dialing backend') ? message : `error dialing backend: ${message}`, code: 500 });
  }
}
