/**
 * WarmPool against a real loopback TCP server: a take is served by a connection dialled ahead, is replaced behind
 * it, idle connections expire and leave when the server closes them, the pool goes cold when unused, and stop()
 * closes what is idle.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { WarmPool } from '../../../src/multicluster/streams/warm-pool.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WarmPool', () => {
  let server: Server;
  let port = 0;
  const accepted: Socket[] = [];
  let dials = 0;
  const dial = () =>
    new Promise<{ socket: Socket }>((resolve, reject) => {
      dials++;
      const socket = connect(port, '127.0.0.1', () => resolve({ socket }));
      socket.once('error', reject);
    });

  before(async () => {
    server = createServer((s) => accepted.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(() => {
    for (const s of accepted) s.destroy();
    server.close();
  });

  it('dials on a cold take, then keeps `size` connections ready and serves takes from them', async () => {
    dials = 0;
    const pool = new WarmPool(dial, { size: 2, maxIdleMs: 5000, keepWarmMs: 60_000 });
    const first = await pool.take();
    assert.equal(dials, 1, 'a cold pool dials for the take itself');
    await sleep(100);
    assert.equal(pool.idleCount, 0, 'nothing dialled while the taken stream is young');
    await sleep(1100);
    assert.equal(pool.idleCount, 2, 'topped up a second after the take');
    const second = await pool.take();
    assert.equal(dials, 3, 'the second take used a connection dialled ahead');
    assert.notEqual(first.socket, second.socket);
    assert.equal(second.socket.destroyed, false);
    second.socket.destroy();
    await sleep(150);
    assert.equal(pool.idleCount, 2, 'topped up as soon as the taken stream ended');
    pool.stop();
    assert.equal(pool.idleCount, 0);
    first.socket.destroy();
  });

  it('drops an idle connection the server closes, and one idle longer than maxIdleMs', async () => {
    const pool = new WarmPool(dial, { size: 1, maxIdleMs: 300, keepWarmMs: 0 });
    (await pool.take()).socket.destroy();
    await sleep(150);
    assert.equal(pool.idleCount, 1);
    accepted.at(-1)!.destroy();
    await sleep(100);
    assert.equal(pool.idleCount, 0, 'closed by the server: gone from the pool');
    const fresh = await pool.take(); // dials; keepWarmMs 0 still refills behind a take once it ends
    fresh.socket.destroy();
    await sleep(150);
    assert.equal(pool.idleCount, 1);
    await sleep(1200);
    assert.equal(pool.idleCount, 0, 'expired, and not replaced once the pool is cold');
    pool.stop();
  });

  it('a failed dial fails the take that needed it', async () => {
    const pool = new WarmPool(() => Promise.reject(new Error('connection refused')), { size: 1, maxIdleMs: 1000, keepWarmMs: 1000 });
    await assert.rejects(pool.take(), /connection refused/);
    pool.stop();
  });
});
