/**
 * The syncer tunnel's wire contract, shared by atrium (streams/tunnel-hub.ts) and the syncer (syncer/tunnel-client.ts).
 * In pull and none modes atrium cannot reach the cluster, so the syncer keeps a control connection open to atrium:
 *
 *   GET /clusters/<ws>/apis/workload.kcp.io/v1alpha1/synctargets/<name>/tunnel      Upgrade: atrium-tunnel.v1
 *     → 101; then newline-delimited JSON both ways: atrium sends {"type":"open","id":...} per stream and
 *       {"type":"ping"}; the syncer answers pings with {"type":"pong"}.
 *   GET .../synctargets/<name>/tunnel?stream=<id>                                     Upgrade: atrium-tunnel-stream.v1
 *     → 101; the syncer's reverse dial for one stream: atrium writes one HTTP request for the cluster's API server on
 *       it (without credentials), the syncer sends it on with its own and pipes the bytes both ways until either
 *       side closes. Each stream has its own TCP connection, hence its own backpressure and close.
 *
 * Both are authorized as `get` on `synctargets/tunnel` of that SyncTarget (what `kubectl atrium workload sync`
 * grants the syncer), and a stream is accepted only for an id atrium handed out on that SyncTarget's control
 * connection.
 */
export const TUNNEL_SUBRESOURCE = 'tunnel';
export const TUNNEL_CONTROL_PROTOCOL = 'atrium-tunnel.v1';
export const TUNNEL_STREAM_PROTOCOL = 'atrium-tunnel-stream.v1';

/** How often atrium pings a control connection, and how long without an answer drops it. */
export const TUNNEL_PING_INTERVAL_MS = 10_000;
export const TUNNEL_PING_TIMEOUT_MS = 30_000;

export type TunnelMessage = { type: 'open'; id: string } | { type: 'ping' } | { type: 'pong' };

/**
 * The requests a syncer forwards to its cluster: the pod streams, pods/proxy and services/proxy with any method
 * and path below them (streams/proxy.ts; never with a `.` or `..` segment or a backslash, which the cluster's URL
 * parsing would resolve to another path), reads of a Service's Endpoints (which cluster can answer its proxy),
 * writes of a pod's ephemeral containers (`kubectl debug` of a mirrored pod, streams/mirror-ephemeral-containers.ts),
 * a pod's eviction (streams/mirror-eviction.ts), reads of the metrics API, and reads of the cluster's Nodes (the
 * workspace's read-only view of them, which `kubectl top node` lists beside NodeMetrics); nothing else.
 */
export function isTunnelledRequest(method: string, path: string): boolean {
  const p = path.split('?')[0]!;
  if (p.includes('\\') || p.split('/').some(isDotSegment)) return false;
  if (/^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/(log|exec|attach|portforward)$/.test(p)) return true;
  if (/^\/api\/v1\/namespaces\/[^/]+\/(pods|services)\/[^/]+\/proxy(\/.*)?$/.test(p)) return true;
  if (method === 'GET' && /^\/api\/v1\/namespaces\/[^/]+\/endpoints\/[^/]+$/.test(p)) return true;
  if ((method === 'PATCH' || method === 'PUT') && /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/ephemeralcontainers$/.test(p)) return true;
  if (method === 'POST' && /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/eviction$/.test(p)) return true;
  return method === 'GET' && (/^\/apis\/metrics\.k8s\.io\/v1beta1(\/.*)?$/.test(p) || /^\/api\/v1\/nodes(\/[^/]+)?$/.test(p));
}

/** `.` or `..`, also percent-encoded (`%2e%2E`), as WHATWG URL parsing recognizes them. */
function isDotSegment(segment: string): boolean {
  const s = segment.replace(/%2e/gi, '.');
  return s === '.' || s === '..';
}

/** Calls `onMessage` with each JSON line read from `stream`; malformed lines are skipped. */
export function readMessages(stream: NodeJS.ReadableStream, onMessage: (m: TunnelMessage) => void): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      try {
        onMessage(JSON.parse(line) as TunnelMessage);
      } catch {
        /* not a message */
      }
    }
    if (buffered.length > 64 * 1024) buffered = '';
  });
}

export function encodeMessage(m: TunnelMessage): string {
  return `${JSON.stringify(m)}\n`;
}
