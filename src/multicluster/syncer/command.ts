/**
 * `atrium syncer`: the syncer as its own process (none mode), or inside the physical cluster (pull mode: the
 * Deployment `kubectl atrium workload sync` prints runs this command with the ServiceAccount kubeconfig). Runs until
 * SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { RestClient } from '../../client/rest-client.js';
import { readKubeconfig } from '../../apiserver/kubeconfig/kubeconfig.js';
import { flagParser } from '../../cli/flags.js';
import { runCommand } from '../../cli/run-command.js';
import { parseDuration } from '../pcluster/options.js';
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

async function startSyncer(flags: SyncerFlags): Promise<{ syncer: Syncer; cluster: string }> {
  const fromKc = await readKubeconfig(flags.fromKubeconfig);
  const cluster = flags.fromCluster ?? clusterFromServerURL(fromKc.currentServer()) ?? 'root';
  const upstream = await RestClient.fromKubeconfig(flags.fromKubeconfig, { userAgent: `atrium-syncer/${flags.syncTargetName}` });
  const downstream = flags.toKubeconfig === 'in-cluster' ? inClusterClient(flags.syncTargetName) : await RestClient.fromKubeconfig(flags.toKubeconfig, { userAgent: `atrium-syncer/${flags.syncTargetName}` });
  const syncer = new Syncer({ upstream, upstreamCluster: cluster, downstream, syncTargetName: flags.syncTargetName, heartbeatIntervalMs: flags.heartbeatInterval, importPollIntervalMs: flags.importPollInterval });
  await syncer.start();
  return { syncer, cluster };
}

function run(flags: SyncerFlags): Promise<void> {
  return runCommand({
    start: async () => {
      const { syncer, cluster } = await startSyncer(flags);
      return { cluster, stop: () => syncer.stop() };
    },
    ready: ({ cluster }) => `syncer for SyncTarget ${flags.syncTargetName} in ${cluster} is running`,
    failure: 'syncer failed',
  });
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
    .option('--heartbeat-interval <duration>', 'how often to heartbeat', flagParser(parseDuration), 20_000)
    .option('--import-poll-interval <duration>', "how often to re-read the cluster's API schemas", flagParser(parseDuration), 30_000)
    .action(run);
}
