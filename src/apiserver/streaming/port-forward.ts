/**
 * The server side of the port-forward protocol (`portforward.k8s.io`, kubelet's cri-streaming portforward over
 * httpstream): for every connection kubectl forwards it opens two SPDY streams with the same `requestID` and `port`
 * headers, `streamType: error` then `streamType: data`. Once both are there the port is dialed; bytes flow between
 * the data stream and the connection, half-closes pass through, and a failure is written as text on the error
 * stream ("error forwarding port P to pod …", as kubelet words it).
 */
import type { Duplex } from 'node:stream';
import type { SpdySession, SpdyStream } from './spdy-session.js';

export const portForwardProtocol = 'portforward.k8s.io';

/** Connects to a port of the pod; rejects with the reason to report. */
export type PortDialer = (port: number) => Promise<Duplex>;

export interface PortForwardTarget {
  /** `<name>_<namespace>` as kubelet names the pod in its errors, and the pod's uid. */
  podName: string;
  uid: string;
  dial: PortDialer;
}

/** Pairs the streams of each forwarded connection and forwards them; runs until the session closes. */
export function servePortForward(session: SpdySession, target: PortForwardTarget): void {
  const pairs = new Map<string, { data?: SpdyStream; error?: SpdyStream }>();
  session.on('stream', (stream: SpdyStream) => {
    const requestID = stream.header('requestid') ?? '';
    const type = stream.header('streamtype');
    if (type !== 'data' && type !== 'error') {
      stream.reset();
      return;
    }
    const pair = pairs.get(requestID) ?? {};
    pair[type] = stream;
    pairs.set(requestID, pair);
    if (pair.data && pair.error) {
      pairs.delete(requestID);
      void forward(session, target, Number(stream.header('port')), pair.data, pair.error);
    }
  });
}

async function forward(session: SpdySession, target: PortForwardTarget, port: number, data: SpdyStream, error: SpdyStream): Promise<void> {
  // The client may send before the port is dialed: hold what arrives until then.
  let conn: Duplex | undefined;
  const early: Buffer[] = [];
  let endedEarly = false;
  let resetEarly = false;
  data.on('data', (chunk: Buffer) => (conn ? conn.write(chunk) : early.push(chunk)));
  data.on('end', () => (conn ? conn.end() : (endedEarly = true)));
  data.on('reset', () => (conn ? conn.destroy() : (resetEarly = true)));
  try {
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`invalid port ${port}`);
    conn = await target.dial(port);
  } catch (err) {
    error.write(Buffer.from(`error forwarding port ${port} to pod ${target.podName}, uid ${target.uid}: ${(err as Error).message}`));
    error.end();
    data.end();
    return;
  }
  const c = conn;
  for (const chunk of early) c.write(chunk);
  if (endedEarly) c.end();
  if (resetEarly) c.destroy();
  c.on('data', (chunk: Buffer) => {
    if (!data.write(chunk)) {
      c.pause();
      session.once('drain', () => c.resume());
    }
  });
  c.on('end', () => data.end());
  c.on('error', () => data.reset());
  c.on('close', () => {
    data.end();
    error.end();
  });
  session.once('close', () => c.destroy());
}
