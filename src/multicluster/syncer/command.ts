/**
 * `atrium syncer`: the syncer as its own process (none mode), or inside the physical cluster (pull mode: the
 * Deployment `kubectl atrium workload sync` prints runs this command with the ServiceAccount kubeconfig). Runs until
 * SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { RestClient } from '../../client/rest-client.js';
import { readKubeconfig } from '../../client/kubeconfig/kubeconfig.js';
import { logger } from '../../logging/logger.js';
import { parseFlagDuration } from '../../apimachinery/go-duration.js';
import { Syncer } from './syncer.js';

interface SyncerFlags {
  fromKubeconfig: string;
  toKubeconfig: string;
  syncTargetName: string;
  fromCluster?: string;
  heartbeatInterval: number;
  importPollInterval: number;
}

/** The logical cluster a kubeconfig's server URL points into (`https://h/clusters/root:org` → `root:org`). */
export function clusterFromServerURL(server: string): string | undefined {
  const m = /\/clusters\/([^/]+)\/?$/.exec(new URL(server).pathname);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

/** In-cluster credentials (pull mode): the pod's ServiceAccount token and CA, KUBERNETES_SERVICE_HOST/PORT. */
function inClusterClient(name: string): RestClient {
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('--to-kubeconfig=in-cluster needs KUBERNETES_SERVICE_HOST (run inside a pod)');
  return new RestClient({ url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, ca: readFileSync(`${dir}/ca.crt`, 'utf8'), token: readFileSync(`${dir}/token`, 'utf8').trim(), userAgent: `atrium-syncer/${name}` });
}

async function run(flags: SyncerFlags): Promise<void> {
  const fromKc = await readKubeconfig(flags.fromKubeconfig);
  const cluster = flags.fromCluster ?? clusterFromServerURL(fromKc.currentServer()) ?? 'root';
  const upstream = await RestClient.fromKubeconfig(flags.fromKubeconfig, { userAgent: `atrium-syncer/${flags.syncTargetName}` });
  const downstream = flags.toKubeconfig === 'in-cluster' ? inClusterClient(flags.syncTargetName) : await RestClient.fromKubeconfig(flags.toKubeconfig, { userAgent: `atrium-syncer/${flags.syncTargetName}` });
  const syncer = new Syncer({ upstream, upstreamCluster: cluster, downstream, syncTargetName: flags.syncTargetName, heartbeatIntervalMs: flags.heartbeatInterval, importPollIntervalMs: flags.importPollInterval });
  await syncer.start();
  process.stdout.write(`syncer for SyncTarget ${flags.syncTargetName} in ${cluster} is running\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    syncer
      .stop()
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

function durationFlag(v: string): number {
  try {
    return parseFlagDuration(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Adds `syncer` to the atrium program. */
export function addSyncerCommand(program: Command): void {
  program
    .command('syncer')
    .description('sync workloads between a SyncTarget in atrium and a physical cluster')
    .requiredOption('--from-kubeconfig <file>', 'kubeconfig for atrium (the SyncTarget workspace); its server may end in /clusters/<name>')
    .requiredOption('--to-kubeconfig <file>', 'kubeconfig for the physical cluster, or `in-cluster` for the pod\'s ServiceAccount')
    .requiredOption('--sync-target-name <name>', 'the SyncTarget this syncer serves')
    .option('--from-cluster <name>', 'logical cluster of the SyncTarget (default: from the kubeconfig server URL, else root)')
    .option('--heartbeat-interval <duration>', 'how often to heartbeat', durationFlag, 20_000)
    .option('--import-poll-interval <duration>', "how often to re-read the cluster's API schemas", durationFlag, 30_000)
    .action((flags: SyncerFlags) =>
      run(flags).catch((err) => {
        console.error(`error: syncer failed: ${(err as Error).message}`);
        process.exit(1);
      }),
    );
}
