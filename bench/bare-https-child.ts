/** The reference server: a bare Node HTTPS server answering a small JSON body, with certificates like atrium's. */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureCertificates } from '../src/apiserver/certs/certificates.js';

const dir = process.argv[2]!;
const certs = await ensureCertificates(dir, { hostnames: ['localhost'], ips: ['127.0.0.1'] });
const body = Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'hello', namespace: 'bench', resourceVersion: '1' }, data: { payload: 'x'.repeat(900) } }));
const server = createServer({ key: certs.serving.keyPem, cert: certs.serving.certPem }, (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, rootDir: dir });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
