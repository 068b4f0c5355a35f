/**
 * One read (a GET answered with JSON) from a SyncTarget's cluster, over the connection the pod streams use
 * (streams/downstream-dialer.ts: push mode dials the cluster, pull and none modes go through the syncer's tunnel):
 * what the workspace's metrics and node views gather from each cluster.
 */
import { request as httpRequest } from 'node:http';
import type { SyncTarget } from '../api/types.js';
import type { DownstreamDialer } from '../streams/downstream-dialer.js';

export interface DownstreamReply {
  status: number;
  body: unknown;
}

/** How long one cluster may take to answer before it counts as unreachable (a list waits for the slowest). */
export const DOWNSTREAM_READ_TIMEOUT_MS = 5_000;

/** GETs `path` from the cluster of `target` (in logical cluster `cluster`); rejects when the cluster cannot be reached. */
export async function readDownstream(dialer: DownstreamDialer, target: SyncTarget, cluster: string, path: string, timeoutMs = DOWNSTREAM_READ_TIMEOUT_MS): Promise<DownstreamReply> {
  const conn = await dialer.dial(target, cluster);
  return new Promise<DownstreamReply>((resolve, reject) => {
    const headers: Record<string, string> = { host: conn.host, accept: 'application/json', connection: 'close', 'user-agent': 'atrium-workspace-views' };
    if (conn.authorization) headers.authorization = conn.authorization;
    const req = httpRequest({ method: 'GET', path, headers, createConnection: () => conn.socket as never }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => {
        clearTimeout(timer);
        conn.socket.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON: kept as text for the message */
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.once('aborted', () => reject(new Error('the cluster closed the connection mid-answer')));
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000}s`)), timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      conn.socket.destroy();
      reject(err);
    });
    req.end();
  });
}

/** The message of a Status body, else the text. */
export function replyMessage(reply: DownstreamReply): string {
  const b = reply.body as { message?: unknown } | string;
  return typeof b === 'string' ? b.trim().slice(0, 500) : typeof b?.message === 'string' ? b.message : `HTTP ${reply.status}`;
}
