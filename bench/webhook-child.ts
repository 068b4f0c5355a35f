/**
 * A validating admission webhook for a benchmark, in its own process (so it competes with neither the load generator
 * nor the server for an event loop): HTTPS on loopback with its own CA, it allows every AdmissionReview. It records
 * its own response time for each review, from the request's arrival to the end of its answer, and reports them to the
 * parent over IPC ({ stats: true } → { count, p50ms, p99ms }; { reset: true } clears them).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../src/apiserver/certs/certificates.js';

const ca = await createCertificateAuthority('bench-webhook-ca', 1);
const serving = await issueServingCertificate(ca, { cn: 'bench-webhook', hostnames: ['localhost'], ips: ['127.0.0.1'], days: 1 });
let times: number[] = [];
const server = https.createServer({ key: serving.keyPem, cert: serving.certPem, keepAlive: true }, (req, res) => {
  const t0 = process.hrtime.bigint();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } };
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
    res.on('finish', () => times.push(Number(process.hrtime.bigint() - t0) / 1e6));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
process.on('message', (m: { stats?: boolean; reset?: boolean }) => {
  if (m.reset) times = [];
  if (m.stats) {
    const sorted = [...times].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    process.send?.({ count: sorted.length, p50ms: q(0.5), p99ms: q(0.99) });
  }
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
process.send?.({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caBundle: Buffer.from(ca.certPem).toString('base64') });
