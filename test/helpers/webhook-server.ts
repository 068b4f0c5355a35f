/**
 * A real HTTPS webhook server on loopback with its own CA, for admission and conversion webhook tests: each path
 * answers with a handler of the test's, and every review received is recorded.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../../src/apiserver/certs/certificates.js';

export type ReviewHandler = (review: any) => unknown | Promise<unknown>;

export interface WebhookServer {
  url: string;
  /** base64 of the CA's PEM: the configurations' caBundle. */
  caBundle: string;
  /** Every review received, by path. */
  received: Map<string, any[]>;
  handle(path: string, handler: ReviewHandler): void;
  close(): Promise<void>;
}

export async function startWebhookServer(): Promise<WebhookServer> {
  const ca = await createCertificateAuthority('webhook-test-ca', 1);
  const serving = await issueServingCertificate(ca, { cn: 'webhook', hostnames: ['localhost', 'webhook.default.svc'], ips: ['127.0.0.1'], days: 1 });
  const handlers = new Map<string, ReviewHandler>();
  const received = new Map<string, any[]>();
  const server = https.createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      (received.get(path) ?? received.set(path, []).get(path)!).push(review);
      const handler = handlers.get(path);
      if (!handler) {
        res.writeHead(404).end('no handler');
        return;
      }
      const answer = await handler(review);
      if (answer === undefined) return; // never answers (a hung webhook)
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    received,
    handle: (path, handler) => handlers.set(path, handler),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An AdmissionReview v1 answer. */
export function admissionResponse(review: any, response: Record<string, unknown>): unknown {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } };
}

/** base64 of a JSON patch. */
export function jsonPatch(ops: unknown[]): string {
  return Buffer.from(JSON.stringify(ops)).toString('base64');
}
