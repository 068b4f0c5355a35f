/**
 * Issue 2 benchmarks: 1 KB ConfigMap creates through the API vs raw durable creates through the same SQLite store, and
 * GET by name vs a bare Node HTTPS server, all measured in this run on this machine. The server under test runs in a
 * child process so the load generator does not share its event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import { type Figure, printFigure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const concurrency = 64;

function payload1k(i: number): Buffer {
  const filler = 'x'.repeat(900);
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: filler } }));
}

/**
 * The reference: raw durable inserts of 1 KB rows straight into SQLite with the same setup the store uses
 * (WAL, synchronous=FULL, an append-only log table keyed by revision), one committed transaction per insert.
 */
function rawSqliteInserts(total: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-sqlite-'));
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE log (rev INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO log (rev, key, value) VALUES (?, ?, ?)');
  const value = payload1k(0).toString();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < total; i++) insert.run(i + 1, `/registry/core/configmaps/root/bench/cm-${i}`, value);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return total / seconds;
}

/** Durable creates through our storage contract (no HTTP, no JSON handling) at the same concurrency: group commit. */
async function rawStorageCreates(total: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-raw-'));
  const store = SqliteStore.open(join(dir, 'raw.db'));
  const value = payload1k(0).toString();
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        await store.create(`/registry/core/configmaps/root/bench/cm-${i}`, value);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return total / seconds;
}

interface Child {
  proc: ChildProcess;
  url: string;
  rootDir: string;
}

function startChild(script: string, args: string[]): Promise<Child> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, script), args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    proc.once('message', (m: { url: string; rootDir: string }) => resolve({ proc, url: m.url, rootDir: m.rootDir }));
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function stopChild(c: Child): Promise<void> {
  return new Promise((resolve) => {
    c.proc.removeAllListeners('exit');
    c.proc.once('exit', () => resolve());
    c.proc.kill('SIGTERM');
  });
}

export async function runCoreApiBenchmarks(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const creates = 6000;

  const rawRate = rawSqliteInserts(creates);
  const storageRate = await rawStorageCreates(creates);

  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-api-'));
  const api = await startChild('server-child.js', [rootDir]);
  const pki = join(rootDir, 'pki');
  const agent = new Agent({
    keepAlive: true,
    maxSockets: concurrency,
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
  });
  const target = { base: api.url, agent };
  await runLoad(target, 1, 1, () => ({ method: 'POST', path: '/api/v1/namespaces', body: Buffer.from('{"metadata":{"name":"bench"}}') }));
  // Warm up, then measure.
  await runLoad(target, 500, concurrency, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: payload1k(1_000_000 + i) }));
  const create = await runLoad(target, creates, concurrency, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: payload1k(i) }));
  if (create.errors) throw new Error(`${create.errors} creates failed`);
  figures.push({
    benchmark: 'core-api/create-configmap-1k',
    metric: `creates/s (c=${concurrency}, p99 ${create.p99ms.toFixed(1)} ms)`,
    value: create.rate,
    unit: 'ops/s',
    reference: 'raw durable SQLite inserts, WAL + FULL, one transaction each',
    referenceValue: rawRate,
    ratio: create.rate / rawRate,
    target: '>= 0.50',
    pass: create.rate / rawRate >= 0.5,
  });
  figures.push({
    benchmark: 'core-api/create-configmap-1k',
    metric: 'creates/s through the API (informational)',
    value: create.rate,
    unit: 'ops/s',
    reference: `our storage layer alone, group commit at c=${concurrency}`,
    referenceValue: storageRate,
    ratio: create.rate / storageRate,
  });

  const gets = 20000;
  await runLoad(target, 2000, concurrency, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/cm-${i % 1000}` }));
  const get = await runLoad(target, gets, concurrency, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/cm-${i % 1000}` }));
  if (get.errors) throw new Error(`${get.errors} gets failed`);
  agent.destroy();
  await stopChild(api);
  rmSync(rootDir, { recursive: true, force: true });

  const bareDir = mkdtempSync(join(tmpdir(), 'atrium-bench-bare-'));
  const bare = await startChild('bare-https-child.js', [bareDir, pki.replace(rootDir, bareDir)]);
  const bareAgent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: readFileSync(join(bareDir, 'ca.crt')) });
  const bareTarget = { base: bare.url, agent: bareAgent };
  await runLoad(bareTarget, 2000, concurrency, () => ({ method: 'GET', path: '/hello' }));
  const bareGet = await runLoad(bareTarget, gets, concurrency, () => ({ method: 'GET', path: '/hello' }));
  bareAgent.destroy();
  await stopChild(bare);
  rmSync(bareDir, { recursive: true, force: true });

  figures.push({
    benchmark: 'core-api/get-configmap',
    metric: `GET/s (c=${concurrency}, p99 ${get.p99ms.toFixed(1)} ms)`,
    value: get.rate,
    unit: 'ops/s',
    reference: 'bare Node HTTPS server, same client',
    referenceValue: bareGet.rate,
    ratio: get.rate / bareGet.rate,
    target: '>= 0.30',
    pass: get.rate / bareGet.rate >= 0.3,
  });
  return figures;
}
