/**
 * What answers on a simulated container's declared port: a real HTTP server on a loopback ephemeral port, whose
 * body names the pod, container, cluster, request method and path (and the size of a request body, so a proxy's
 * forwarding of one shows), so port-forward and pods/services proxy (and anything reaching a pod through a Service
 * by port-forward) carry real traffic. Every request is also a line in the container's log.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResponderIdentity {
  cluster: string;
  namespace: string;
  pod: string;
  container: string;
  port: number;
}

export interface RunningResponder {
  /** The loopback port it actually listens on. */
  localPort: number;
  close(): void;
}

export function responderBody(id: ResponderIdentity, method: string, path: string, bodyBytes = 0): string {
  const received = bodyBytes > 0 ? ` (${bodyBytes}-byte body)` : '';
  return `pod ${id.namespace}/${id.pod} container ${id.container} cluster ${id.cluster} port ${id.port}: ${method} ${path}${received}\n`;
}

export async function startResponder(id: ResponderIdentity, log: (line: string) => void): Promise<RunningResponder> {
  const server: Server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.once('end', () => {
      const body = responderBody(id, req.method ?? 'GET', req.url ?? '/', bytes);
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(req.method === 'HEAD' ? undefined : body);
      log(`${req.method} ${req.url} 200 (port ${id.port})`);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    localPort: (server.address() as AddressInfo).port,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
