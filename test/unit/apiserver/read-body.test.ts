/**
 * readBody over a real loopback HTTP server: a whole body, a body over the limit sent in chunks (413), and clients
 * that go away — mid-body, or before the handler even started reading (its close event already past). None of these
 * may leave the handler waiting forever.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../../src/apiserver/http/body.js';
import { StatusError } from '../../../src/apimachinery/status.js';

type Outcome = { body?: string; error?: unknown };

describe('readBody', () => {
  let server: Server;
  let port = 0;
  /** What the next request's readBody settled with, after the handler waited `delayMs` before reading. */
  let next: { delayMs: number; limit?: number; settled: (o: Outcome) => void } | undefined;

  before(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const job = next!;
      setTimeout(() => {
        readBody(req, job.limit).then(
          (b) => {
            job.settled({ body: b.toString() });
            res.end('ok');
          },
          (error: unknown) => {
            job.settled({ error });
            res.destroy();
          },
        );
      }, job.delayMs);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  /** Sets up the next request's handler; resolves with its outcome, or 'hung' after 2 s. */
  const expectOutcome = (delayMs: number, limit?: number): Promise<Outcome | 'hung'> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve('hung'), 2000);
      next = { delayMs, limit, settled: (o) => (clearTimeout(timer), resolve(o)) };
    });

  it('reads a whole body', async () => {
    const outcome = expectOutcome(0);
    const req = request({ port, method: 'POST', headers: { 'Content-Length': '11' } }, (res) => res.resume());
    req.end('hello world');
    assert.deepEqual(await outcome, { body: 'hello world' });
  });

  it('refuses a chunked body that grows past the limit with 413', async () => {
    const outcome = expectOutcome(0, 1000);
    const req = request({ port, method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } }, (res) => res.resume());
    req.on('error', () => undefined);
    for (let i = 0; i < 5; i++) req.write('x'.repeat(400));
    req.end();
    const o = await outcome;
    assert.ok(o !== 'hung' && o.error instanceof StatusError && o.error.status.code === 413, JSON.stringify(o));
  });

  for (const [name, delayMs] of [
    ['mid-body', 0],
    ['before the handler reads', 100],
  ] as const) {
    it(`rejects when the client goes away ${name}`, async () => {
      const outcome = expectOutcome(delayMs);
      const req = request({ port, method: 'POST', headers: { 'Content-Length': '1000' } });
      req.on('error', () => undefined);
      req.write('x'.repeat(100), () => setTimeout(() => req.destroy(), 20));
      const o = await outcome;
      assert.notEqual(o, 'hung', 'readBody never settled');
      assert.ok(o !== 'hung' && o.error instanceof Error && o.body === undefined, JSON.stringify(o));
    });
  }
});
