/**
 * `atrium syncer`: the syncer as its own process (none mode), or inside the physical cluster (pull mode: the
 * Deployment `kubectl atrium workload sync` prints runs this command with the ServiceAccount kubeconfig). Runs until
 * SIGINT/SIGTERM.
 */
import type { Command } from 'commander';
import { RestClient } from '../client/rest-client.js';
import { clusterFromServerURL, readKubeconfig } from '../client/kubeconfig/kubeconfig.js';
import { inClusterClient } from '../client/in-cluster.js';
import { flagParser } from './flags.js';
import { runCommand } from './run-command.js';
import { parseFlagDuration } from '../apimachinery/go-duration.js';
import { Syncer } from '../multicluster/syncer/syncer.js';
import { TunnelClient } from '../multicluster/syncer/tunnel-client.js';

interface SyncerFlags {
  fromKubeconfig: string;
  toKubeconfig: string;
  syncTargetName: string;
  fromCluster?: string;
  heartbeatInterval: number;
  importPollInterval: number;
}

async function startSyncer(flags: SyncerFlags): Promise<{ syncer: Syncer; tunnel: TunnelClient; cluster: string }> {
  const fromKc = await readKubeconfig(flags.fromKubeconfig);
  const cluster = flags.fromCluster ?? clusterFromServerURL(fromKc.currentServer()) ?? 'root';
  const upstream = await RestClient.fromKubeconfig(flags.fromKubeconfig, { userAgent: `atrium-syncer/${flags.syncTargetName}` });
  const downstream = flags.toKubeconfig === 'in-cluster' ? inClusterClient(flags.syncTargetName) : await RestClient.fromKubeconfig(flags.toKubeconfig, { userAgent: `atrium-syncer/${flags.syncTargetName}` });
  const syncer = new Syncer({ upstream, upstreamCluster: cluster, downstream, syncTargetName: flags.syncTargetName, heartbeatIntervalMs: flags.heartbeatInterval, importPollIntervalMs: flags.importPollInterval });
  await syncer.start();
  // atrium cannot reach this cluster: pod streams (logs, exec, ...) and metrics come through the syncer's tunnel.
  const tunnel = new TunnelClient({ upstream: upstream.config, cluster, syncTargetName: flags.syncTargetName, downstream: downstream.config });
  tunnel.start();
  return { syncer, tunnel, cluster };
}

function run(flags: SyncerFlags): Promise<void> {
  return runCommand({
    start: async () => {
      const { syncer, tunnel, cluster } = await startSyncer(flags);
      return {
        cluster,
        stop: () => {
          tunnel.stop();
          return syncer.stop();
        },
      };
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
    .option('--heartbeat-interval <duration>', 'how often to heartbeat', flagParser(parseFlagDuration), 20_000)
    .option('--import-poll-interval <duration>', "how often to re-read the cluster's API schemas", flagParser(parseFlagDuration), 30_000)
    .action(run);
}
