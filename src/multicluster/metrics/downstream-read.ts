/**
 * One read (a GET answered with JSON) from a SyncTarget's cluster (streams/downstream-request.ts): what the
 * workspace's metrics and node views gather from each cluster.
 */
import type { SyncTarget } from '../api/types.js';
import type { DownstreamDialer } from '../streams/downstream-dialer.js';
import { requestDownstream, type DownstreamReply } from '../streams/downstream-request.js';

export { replyMessage, type DownstreamReply } from '../streams/downstream-request.js';

/** How long one cluster may take to answer before it counts as unreachable (a list waits for the slowest). */
export const DOWNSTREAM_READ_TIMEOUT_MS = 5_000;

/** GETs `path` from the cluster of `target` (in logical cluster `cluster`); rejects when the cluster cannot be reached. */
export function readDownstream(dialer: DownstreamDialer, target: SyncTarget, cluster: string, path: string, timeoutMs = DOWNSTREAM_READ_TIMEOUT_MS): Promise<DownstreamReply> {
  return requestDownstream(dialer, target, cluster, { method: 'GET', path, userAgent: 'atrium-workspace-views', timeoutMs });
}
