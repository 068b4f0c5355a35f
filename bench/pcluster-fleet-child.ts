/**
 * A child process of bench/scheduling.ts that runs a fleet of simulated clusters (`startPcluster`) and, for each,
 * a none-mode syncer (the `atrium syncer` code: a separate process from atrium) registered to the parent's atrium.
 *
 * Why a fleet per process, and what keeps a simulated cluster light:
 * - one CA, serving certificate and service-account key for every cluster (the first cluster's pki/ is copied into
 *   the others' root dirs, so ensureCertificates() finds them and generates nothing);
 * - in-memory SQLite per cluster (`storage: SqliteStore.open(':memory:')`), no database file and no fsyncs;
 * - the syncer's per-resource syncers start only once the SyncTarget accepts a resource, with 2 workers each (an idle
 *   cluster has nothing to reconcile; the default 16 are for bursts), heartbeating every 20 s (the syncer default).
 *
 * argv: <rootDir> <first index> <count>; env ATRIUM_FLEET_UPSTREAM = JSON {url, ca, token}. Messages to the parent
 * (IPC): {kind: 'started', name, kubeconfig} per cluster once its server and controllers run; {kind: 'usage', rss,
 * cpuMicros} whenever asked with 'usage'. Exits on 'stop'.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RestClient } from '../src/client/rest-client.js';
import { logger } from '../src/logging/logger.js';
import { startPcluster, type RunningPcluster } from '../src/pcluster/pcluster.js';
import { Syncer } from '../src/multicluster/syncer/syncer.js';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.js';

logger.setLevel('error');
const [rootDir, firstArg, countArg] = process.argv.slice(2);
const first = Number(firstArg);
const count = Number(countArg);
const upstreamCfg = process.env.ATRIUM_FLEET_UPSTREAM ? (JSON.parse(process.env.ATRIUM_FLEET_UPSTREAM) as { url: string; ca: string; token: string }) : undefined;
const sharedPki = join(rootDir!, 'shared-pki');
const readyDelayMs = Number(process.env.ATRIUM_FLEET_READY_DELAY_MS ?? 200);
const heartbeatIntervalMs = Number(process.env.ATRIUM_FLEET_HEARTBEAT_MS ?? 20_000);

const clusters: RunningPcluster[] = [];
const stores: SqliteStore[] = [];
const syncers: Syncer[] = [];
const clients: RestClient[] = [];

async function startOne(i: number): Promise<void> {
  const name = `m${i}`;
  const dir = join(rootDir!, name);
  mkdirSync(dir, { recursive: true });
  // Every cluster after the first to get here reuses the same certificates and service-account key.
  // The fleet starting at 1 makes the shared PKI; the others wait for it to be complete (a marker written after the
  // copy) rather than racing to make their own.
  if (first !== 1 || i !== 1) {
    const complete = join(sharedPki, '.complete');
    for (let waited = 0; !existsSync(complete); waited += 100) {
      if (waited > 120_000) throw new Error(`fleet ${first}: the shared PKI never appeared in ${sharedPki}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    cpSync(sharedPki, join(dir, 'pki'), { recursive: true });
  }
  const storage = SqliteStore.open(':memory:');
  stores.push(storage);
  const pc = await startPcluster({ name, rootDir: dir, bindAddress: '127.0.0.1', securePort: 0, nodes: 1, readyDelayMs, storage });
  clusters.push(pc);
  if (first === 1 && i === 1) {
    cpSync(join(dir, 'pki'), sharedPki, { recursive: true });
    writeFileSync(join(sharedPki, '.complete'), '');
  }
  if (upstreamCfg) {
    const upstream = new RestClient({ url: upstreamCfg.url, ca: upstreamCfg.ca, token: upstreamCfg.token, userAgent: `atrium-syncer/${name}` });
    const downstream = new RestClient({ url: pc.url, ca: pc.caPem, token: pc.adminToken, userAgent: `atrium-syncer/${name}` });
    clients.push(upstream, downstream);
    const syncer = new Syncer({ upstream, upstreamCluster: 'root', downstream, syncTargetName: name, heartbeatIntervalMs, importPollIntervalMs: 30_000, workersPerResource: 2 });
    syncers.push(syncer);
    // start() waits for atrium to label the SyncTarget, which the parent creates on 'started'.
    void syncer.start();
  }
  process.send!({ kind: 'started', name, kubeconfig: readFileSync(pc.kubeconfigPath, 'utf8') });
}

process.on('message', (m: unknown) => {
  if (m === 'usage') {
    const cpu = process.cpuUsage();
    process.send!({ kind: 'usage', rss: process.memoryUsage().rss, cpuMicros: cpu.user + cpu.system });
  } else if (m === 'stop') {
    void (async () => {
      for (const s of syncers) await s.stop().catch(() => undefined);
      for (const c of clients) c.close();
      for (const pc of clusters) await pc.stop().catch(() => undefined);
      for (const s of stores) await s.close();
      process.exit(0);
    })();
  }
});

for (let i = first; i < first + count; i++) await startOne(i);
process.send!({ kind: 'all-started' });
