/**
 * `atrium demo`: transparent multi-cluster in one command. Starts atrium and two simulated physical clusters
 * (cluster-1 with replica weight 2, cluster-2 with weight 3) in this process, registers them as push-mode
 * SyncTargets, binds compute (the default Placement), applies a 15-replica Deployment and prints the
 * `kubectl get deployments` table whenever it changes until it reads `my-deployment 15/15`,
 * `my-deployment--cluster-1 6/6`, `my-deployment--cluster-2 9/9`. Then it stops cluster-1, prints the table as the
 * scheduler evacuates it and the splitter moves its 6 replicas to cluster-2, and cleans everything up.
 * Progress goes to stdout (the out callback); server logs stay on stderr (at error level under `atrium demo`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../apimachinery/object.js';
import { startServer, type RunningServer } from '../server/server.js';
import { RestClient } from '../client/rest-client.js';
import { syncTargetsGVR } from '../multicluster/api/types.js';
import { REPLICA_WEIGHT_LABEL } from '../multicluster/decisions/types.js';
import { startPcluster, type RunningPcluster } from '../pcluster/pcluster.js';
import { multiclusterServerOptions } from '../multicluster/server-options.js';
import { bindCompute } from '../multicluster/scheduling/bind-compute.js';
import { deploymentsGVR } from '../multicluster/scheduling/types.js';
import { deploymentTable } from './table.js';

export interface DemoOptions {
  /** Where progress lines go (default stdout). */
  out?: (line: string) => void;
  /** Give up on any one phase after this long (default 120 s). */
  phaseTimeoutMs?: number;
  /** How long a scheduled pod takes to become Ready on the simulated clusters (default 500 ms). */
  readyDelayMs?: number;
}

const NAMESPACE = 'default';
const DEPLOYMENT = 'my-deployment';

/** Runs the demo; resolves when it finished and cleaned up, rejects (after cleaning up) when a phase timed out. */
export async function runDemo(opts: DemoOptions = {}): Promise<void> {
  const out = opts.out ?? ((line: string) => process.stdout.write(line + '\n'));
  const timeout = opts.phaseTimeoutMs ?? 120_000;
  const dir = mkdtempSync(join(tmpdir(), 'atrium-demo-'));
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  let atrium: RunningServer | undefined;
  const clusters: RunningPcluster[] = [];
  let client: RestClient | undefined;
  try {
    out('Starting atrium and two simulated physical clusters (cluster-1, cluster-2) ...');
    atrium = await startServer({
      rootDir: join(dir, 'atrium'),
      bindAddress: '127.0.0.1',
      securePort: 0,
      ...multiclusterServerOptions({
        // Short enough for a quick failover, long enough that one process running atrium and both clusters on a busy
        // machine does not miss a heartbeat by a whole threshold plus toleration (which evacuated a healthy cluster).
        heartbeatThresholdMs: 4000,
        pushSyncer: { heartbeatIntervalMs: 300, importPollIntervalMs: 300 },
        scheduling: { tolerationSeconds: 3, resyncMs: 300 },
        splitter: { resyncMs: 300 },
      }),
    });
    for (const name of ['cluster-1', 'cluster-2']) {
      clusters.push(await startPcluster({ name, rootDir: join(dir, name), bindAddress: '127.0.0.1', securePort: 0, nodes: 2, readyDelayMs: opts.readyDelayMs ?? 500 }));
    }
    out(`atrium is serving at ${atrium.url}`);
    client = new RestClient({ url: atrium.url, ca: atrium.caPem, token: atrium.adminToken, userAgent: 'atrium-demo/v0.0.0' });
    const up = client;

    for (const [i, pc] of clusters.entries()) {
      await up.create(syncTargetsGVR, {
        apiVersion: 'workload.kcp.io/v1alpha1',
        kind: 'SyncTarget',
        metadata: { name: pc.name, labels: { [REPLICA_WEIGHT_LABEL]: String(i + 2) } },
        spec: { kubeconfig: readFileSync(pc.kubeconfigPath, 'utf8') },
      });
      out(`synctarget.workload.kcp.io/${pc.name} created (replica weight ${i + 2})`);
    }
    out(await bindCompute(up, { cluster: 'root', locationWorkspace: 'root' }));

    // The workspace serves Deployments natively from the moment it has compute; the clusters take them once their
    // syncers reported a compatible Deployment schema (state Accepted).
    await waitFor('the clusters to connect and accept Deployments', timeout, out, elapsed, async () => {
      const targets = await up.list(syncTargetsGVR);
      type Status = { conditions?: { type: string; status: string }[]; syncedResources?: { group?: string; resource: string; state: string }[] };
      const ready = targets.items.filter((t) => {
        const st = t.status as Status | undefined;
        return (st?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && (st?.syncedResources ?? []).some((r) => r.group === 'apps' && r.resource === 'deployments' && r.state === 'Accepted');
      });
      if (ready.length < 2) return false;
      await up.list(deploymentsGVR, { namespace: NAMESPACE });
      return true;
    });
    await up.create(deploymentsGVR, deployment(15), { namespace: NAMESPACE });
    out(`deployment.apps/${DEPLOYMENT} created (15 replicas)`);
    out('');
    out('$ kubectl get deployments   (printed whenever it changes)');
    await watchTable(up, timeout, out, elapsed, {
      [DEPLOYMENT]: '15/15',
      [`${DEPLOYMENT}--cluster-1`]: '6/6',
      [`${DEPLOYMENT}--cluster-2`]: '9/9',
    });
    out('');
    out(`Stopping cluster-1: its heartbeat stops, the scheduler evacuates it and its replicas move to cluster-2 ...`);
    await clusters[0]!.stop();
    clusters.shift();
    await watchTable(up, timeout, out, elapsed, { [DEPLOYMENT]: '15/15', [`${DEPLOYMENT}--cluster-2`]: '15/15' });
    out('');
    out(`Recovered: all 15 replicas run on cluster-2 (${elapsed()}). Cleaning up ...`);
  } finally {
    client?.close();
    await atrium?.stop().catch(() => undefined);
    for (const pc of clusters) await pc.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  out('Done.');
}

function deployment(replicas: number): KubeObject {
  const labels = { app: DEPLOYMENT };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: DEPLOYMENT, labels },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  };
}

/** Polls `check` every 250 ms, printing a progress line every 5 s; throws after `timeoutMs`. */
async function waitFor(what: string, timeoutMs: number, out: (l: string) => void, elapsed: () => string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let nextNote = 0;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (Date.now() >= nextNote) {
      out(`  waiting for ${what} ... (${elapsed()})`);
      nextNote = Date.now() + 5000;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Prints the deployments table whenever its content (ages aside) changes, until exactly the `want` rows show the
 * wanted READY values.
 */
async function watchTable(up: RestClient, timeoutMs: number, out: (l: string) => void, elapsed: () => string, want: Record<string, string>): Promise<void> {
  let last = '';
  await waitFor('the deployments to converge', timeoutMs, out, elapsed, async () => {
    const list = await up.list(deploymentsGVR, { namespace: NAMESPACE });
    const lines = deploymentTable(list.items, Date.now());
    const key = lines.map((l) => l.replace(/\S+$/, '')).join('\n');
    if (key !== last) {
      last = key;
      out(`--- ${elapsed()}`);
      for (const l of lines) out(l);
    }
    // Settled means READY as wanted and UP-TO-DATE and AVAILABLE equal to the desired count too: a root's aggregated
    // status can still count a child that has just been removed for a moment after its READY column is right.
    const settled = new Map(
      list.items.map((d) => {
        const st = (d.status ?? {}) as { readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
        const desired = (d.spec as { replicas?: number }).replicas ?? 1;
        const ready = `${st.readyReplicas ?? 0}/${desired}`;
        return [d.metadata!.name!, (st.updatedReplicas ?? 0) === desired && (st.availableReplicas ?? 0) === desired ? ready : `${ready} (settling)`];
      }),
    );
    return settled.size === Object.keys(want).length && Object.entries(want).every(([n, r]) => settled.get(n) === r);
  });
}
