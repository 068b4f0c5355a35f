/**
 * The etcd benchmark's floor: an HTTPS server with atrium's TLS setup (client certificates requested) that does
 * nothing per POST but read the body, make one etcd put through the etcd3 client atrium builds, and answer 201
 * with the body. No routing, authentication, decoding, validation, managedFields or encoding: the most an API
 * server written on Node's HTTPS and this client library could reach. How far atrium is from it is atrium's cost.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureCertificates } from '../src/apiserver/certs/certificates.js';
import { createEtcdClient } from '../src/storage/etcd/etcd-client.js';

const dir = process.argv[2]!;
const endpoints = process.argv[3]!.split(',');
const certs = await ensureCertificates(dir, { hostnames: ['localhost'], ips: ['127.0.0.1'] });
const client = createEtcdClient({ endpoints });
let n = 0;
const server = createServer({ key: certs.serving.keyPem, cert: certs.serving.certPem, ca: certs.ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    client
      .put(`/bench/floor/${n++}`)
      .value(body)
      .exec()
      .then(
        () => {
          res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
          res.end(body);
        },
        (err: Error) => {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(err.message);
        },
      );
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, rootDir: dir });
});
process.on('SIGTERM', () => {
  client.close();
  server.close(() => process.exit(0));
});
