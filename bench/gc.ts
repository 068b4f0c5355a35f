/**
 * Issue 4 benchmark: garbage collection of 10,000 dependents of one owner against deleting 10,000 objects directly
 * with one deletecollection, both in the same server and run. The server runs with its built-in controllers (the
 * garbage collector among them) in a child process so the load generator does not share its event loop.
 *
 * - GC: an owner ConfigMap and 10,000 ConfigMaps naming it in ownerReferences; the clock runs from `DELETE owner`
 *   (propagationPolicy Background) until a watch opened beforehand has seen every dependent's DELETED event.
 * - Reference: 10,000 plain ConfigMaps in another namespace; the clock runs around one deletecollection of them
 *   (selected by label, so the namespace's kube-root-ca.crt stays out of it).
 * Target: GC time <= 3x the deletecollection time.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../src/apimachinery/object.js';
import { RestClient } from '../src/client/rest-client.js';
import { type Figure, printFigure, runLoad } from './lib.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const dependents = Number(process.env.ATRIUM_BENCH_GC_DEPENDENTS ?? 10_000);
const concurrency = 64;
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };

interface Child {
  proc: ChildProcess;
  url: string;
}

function startChild(rootDir: string): Promise<Child> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(here, 'server-child.js'), [rootDir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    proc.once('message', (m: { url: string }) => resolve({ proc, url: m.url }));
    proc.once('exit', (code) => reject(new Error(`server-child exited with ${code}`)));
  });
}

function stopChild(c: Child): Promise<void> {
  return new Promise((resolve) => {
    c.proc.removeAllListeners('exit');
    c.proc.once('exit', () => resolve());
    c.proc.kill('SIGTERM');
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

function configMap(name: string, labels: Record<string, string>, owner?: KubeObject): Buffer {
  const metadata: Record<string, unknown> = { name, labels };
  if (owner) metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata!.name, uid: owner.metadata!.uid }];
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { key: 'value' } }));
}

/** Resolves with the seconds from `start()` until `count` DELETED events arrived on a watch of `namespace`. */
async function timeDeletions(client: RestClient, namespace: string, count: number, start: () => Promise<unknown>): Promise<number> {
  const list = await client.list(configmaps, { namespace }, { limit: 1 });
  const stream = await client.watch(configmaps, { namespace }, { resourceVersion: list.metadata.resourceVersion, labelSelector: 'bench=gc', timeoutSeconds: 600 });
  const t0 = process.hrtime.bigint();
  await start();
  let deleted = 0;
  for await (const ev of stream) {
    if (ev.type === 'DELETED' && ++deleted >= count) break;
  }
  stream.stop();
  if (deleted < count) throw new Error(`watch ended after ${deleted} of ${count} deletions`);
  return seconds(t0);
}

export async function runGcBenchmarks(): Promise<Figure[]> {
  const rootDir = mkdtempSync(join(tmpdir(), 'atrium-bench-gc-'));
  const api = await startChild(rootDir);
  const pki = join(rootDir, 'pki');
  const ca = readFileSync(join(pki, 'ca.crt'), 'utf8');
  const cert = readFileSync(join(pki, 'admin.crt'), 'utf8');
  const key = readFileSync(join(pki, 'admin.key'), 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca, cert, key });
  const target = { base: api.url, agent };
  const client = new RestClient({ url: api.url, ca, cert, key });
  try {
    for (const ns of ['gc-owned', 'gc-plain']) await client.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const owner = await client.create(configmaps, JSON.parse(configMap('owner', {}).toString()) as KubeObject, { namespace: 'gc-owned' });

    const owned = await runLoad(target, dependents, concurrency, (i) => ({ method: 'POST', path: '/api/v1/namespaces/gc-owned/configmaps', body: configMap(`dep-${i}`, { bench: 'gc' }, owner) }));
    const plain = await runLoad(target, dependents, concurrency, (i) => ({ method: 'POST', path: '/api/v1/namespaces/gc-plain/configmaps', body: configMap(`cm-${i}`, { bench: 'gc' }) }));
    if (owned.errors || plain.errors) throw new Error(`${owned.errors + plain.errors} creates failed`);
    // Let the collector's informers catch up with the creates so neither measurement pays for that backlog.
    await sleep(3000);

    const direct = await timeDeletions(client, 'gc-plain', dependents, () => client.deleteCollection(configmaps, { namespace: 'gc-plain' }, {}, { labelSelector: 'bench=gc' }));
    const collected = await timeDeletions(client, 'gc-owned', dependents, () => client.delete(configmaps, 'owner', { namespace: 'gc-owned' }, { propagationPolicy: 'Background' }));

    const ratio = collected / direct;
    return [
      {
        benchmark: `gc/background-${dependents}-dependents`,
        metric: 'ms until every dependent is gone',
        value: collected * 1000,
        unit: 'ms',
        reference: `one deletecollection of ${dependents} ConfigMaps`,
        referenceValue: direct * 1000,
        ratio,
        target: '<= 3.00',
        pass: ratio <= 3,
      },
    ];
  } finally {
    client.close();
    agent.destroy();
    await stopChild(api);
    rmSync(rootDir, { recursive: true, force: true });
  }
}

// `node dist/bench/gc.js` runs this benchmark alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const f of await runGcBenchmarks()) printFigure(f);
}
