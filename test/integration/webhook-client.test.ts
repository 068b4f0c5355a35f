/**
 * The webhook client (src/apiserver/webhook/client.ts) against a real HTTPS server on loopback with its own CA, where
 * its keep-alive pooling meets a server that closes connections: like Go's transport, a request written on a pooled
 * connection that the server had already closed is sent again on a new one, so what is reported (or answered) is what
 * a new connection meets.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../../src/apiserver/certs/certificates.js';
import { WebhookClient, WebhookCallError } from '../../src/apiserver/webhook/client.js';

describe('webhook client: kept-alive connections the server closed', () => {
  let server: https.Server;
  let url: string;
  let caBundle: string;
  let connections = 0;
  const client = new WebhookClient();

  before(async () => {
    const ca = await createCertificateAuthority('webhook-client-test-ca', 1);
    const serving = await issueServingCertificate(ca, { cn: 'webhook', hostnames: ['localhost'], ips: ['127.0.0.1'], days: 1 });
    caBundle = Buffer.from(ca.certPem).toString('base64');
    server = https.createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"answer":42}'));
    });
    server.on('secureConnection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(() => {
    client.close();
    server.closeAllConnections();
    server.close();
  });

  it('reuses the connection, and sends again on a new one when the server closed the idle one', async () => {
    assert.deepEqual(await client.post('c', { url, caBundle }, {}, 5000), { answer: 42 });
    assert.deepEqual(await client.post('c', { url, caBundle }, {}, 5000), { answer: 42 });
    assert.equal(connections, 1, 'the second call reused the kept-alive connection');
    // Closed by the server; the client's pool learns of it only on its next turn of the event loop, after the next
    // request is written on it.
    server.closeIdleConnections();
    assert.deepEqual(await client.post('c', { url, caBundle }, {}, 5000), { answer: 42 });
    assert.equal(connections, 2, 'the request went again on a new connection');
  });

  it('reports what a new connection meets when the server is gone: connection refused, not EOF', async () => {
    assert.deepEqual(await client.post('c', { url, caBundle }, {}, 5000), { answer: 42 });
    server.close();
    server.closeAllConnections();
    await assert.rejects(client.post('c', { url, caBundle }, {}, 5000), (err: Error) => {
      assert.ok(err instanceof WebhookCallError);
      assert.equal(err.message, `Post "${url}?timeout=5s": dial tcp 127.0.0.1:${new URL(url).port}: connect: connection refused`);
      return true;
    });
  });
});
