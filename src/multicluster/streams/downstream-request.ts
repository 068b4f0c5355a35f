/**
 * One request answered whole (a JSON body, not a stream) to a SyncTarget's cluster, over the connection the pod
 * streams use (downstream-dialer.ts: push mode dials the cluster, pull and none modes go through the syncer's
 * tunnel): the reads of the workspace's metrics and node views, and the writes that reach a mirrored pod's original
 * (its pods/ephemeralcontainers).
 */
import { request as httpRequest } from 'node:http';
import type { SyncTarget } from '../api/types.js';
import type { DownstreamDialer } from './downstream-dialer.js';

export interface DownstreamReply {
  status: number;
  body: unknown;
}

export interface DownstreamRequest {
  method: string;
  path: string;
  /** Sent as is, with `contentType`. */
  body?: Buffer;
  contentType?: string;
  /** Who is asking, as the cluster's logs and audit record it (the user agent). */
  userAgent: string;
  timeoutMs: number;
}

/** Sends `r` to the cluster of `target` (in logical cluster `cluster`); rejects when the cluster cannot be reached. */
export async function requestDownstream(dialer: DownstreamDialer, target: SyncTarget, cluster: string, r: DownstreamRequest): Promise<DownstreamReply> {
  const conn = await dialer.dial(target, cluster);
  return new Promise<DownstreamReply>((resolve, reject) => {
    const headers: Record<string, string> = { host: conn.host, accept: 'application/json', connection: 'close', 'user-agent': r.userAgent };
    if (conn.authorization) headers.authorization = conn.authorization;
    if (r.body) {
      headers['content-type'] = r.contentType ?? 'application/json';
      headers['content-length'] = String(r.body.length);
    }
    const req = httpRequest({ method: r.method, path: r.path, headers, createConnection: () => conn.socket as never }, (res) => {
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
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${r.timeoutMs / 1000}s`)), r.timeoutMs);
    req.once('error', (err) => {
      clearTimeout(timer);
      conn.socket.destroy();
      reject(err);
    });
    req.end(r.body);
  });
}

/** The message of a Status body, else the text. */
export function replyMessage(reply: DownstreamReply): string {
  const b = reply.body as { message?: unknown } | string;
  return typeof b === 'string' ? b.trim().slice(0, 500) : typeof b?.message === 'string' ? b.message : `HTTP ${reply.status}`;
}
