/**
 * The `kubectl atrium` plugin (executable `kubectl-atrium`):
 *   kubectl atrium workload sync <name> [--resources r.g,...] [--server-url URL] [--syncer-image IMG] [-o FILE|-]
 *   kubectl atrium workload sync <name> --delete
 *   kubectl atrium console [--url] [--no-browser]   (the web console, signed in as the current context)
 * The workspace is the one the kubeconfig's server URL points into (`/clusters/<name>`), else root. Progress goes
 * to stderr, the manifest for the physical cluster to -o (default stdout). Errors print `Error: <message>`, exit 1.
 */
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { clusterFromServerURL, readKubeconfig } from '../client/kubeconfig/kubeconfig.js';
import { RestClient } from '../client/rest-client.js';
import { workloadSync, workloadSyncDelete } from '../multicluster/cli/workload-sync.js';
import { addSchedulingCommands } from '../multicluster/scheduling/cli.js';
import { consoleCommand } from '../console/cli.js';

interface SyncFlags {
  kubeconfig?: string;
  resources?: string;
  serverUrl?: string;
  syncerImage?: string;
  output: string;
  delete?: boolean;
}

async function sync(name: string, flags: SyncFlags): Promise<void> {
  const path = flags.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? `${process.env.HOME}/.kube/config`;
  const kc = await readKubeconfig(path);
  const server = new URL(kc.currentServer());
  const cluster = clusterFromServerURL(server.href) ?? 'root';
  const client = await RestClient.fromKubeconfig(path, { userAgent: 'kubectl-atrium/v0.0.0' });
  const log = (line: string) => process.stderr.write(line + '\n');
  try {
    if (flags.delete) {
      process.stdout.write(await workloadSyncDelete(client, { name, cluster, log }));
      return;
    }
    const manifest = await workloadSync(client, {
      name,
      cluster,
      serverURL: flags.serverUrl ?? `${server.protocol}//${server.host}`,
      caPem: (await kc.currentCaPem()) ?? '',
      resources: flags.resources?.split(',').map((r) => r.trim()).filter(Boolean),
      syncerImage: flags.syncerImage,
      log,
      progress: (text) => process.stderr.write(text),
    });
    if (flags.output === '-') process.stdout.write(manifest);
    else {
      writeFileSync(flags.output, manifest);
      log(`\nWrote physical cluster manifest to ${flags.output}. Use\n\n  KUBECONFIG=<pcluster-config> kubectl apply -f "${flags.output}"\n\nto apply it.`);
    }
  } finally {
    client.close();
  }
}

export function main(argv: string[]): void {
  const program = new Command();
  program.name('kubectl atrium').description('atrium commands for kubectl');
  const workload = program.command('workload').description('manage physical clusters (SyncTargets)');
  workload
    .command('sync <name>')
    .description('register a physical cluster: create the SyncTarget and syncer credentials, print the manifest for the cluster')
    .option('--kubeconfig <file>', 'kubeconfig for atrium')
    .option('--resources <list>', 'resources to sync, e.g. deployments.apps,services')
    .option('--server-url <url>', "atrium's URL as seen from the physical cluster (default: the kubeconfig's)")
    .option('--syncer-image <image>', 'image of the syncer Deployment')
    .option('-o, --output <file>', 'where to write the manifest (- for stdout)', '-')
    .option('--delete', 'delete the SyncTarget and its credentials; print what to remove from the physical cluster')
    .action((name: string, flags: SyncFlags) =>
      sync(name, flags).catch((err) => {
        process.stderr.write(`Error: ${(err as Error).message}\n`);
        process.exit(1);
      }),
    );
  addSchedulingCommands(program, workload);
  program
    .command('console')
    .description("open the web console signed in with the current context's identity (its bearer token)")
    .option('--kubeconfig <file>', 'kubeconfig for atrium')
    .option('--url', 'print the sign-in URL (it carries the token) instead of opening a browser')
    .option('--no-browser', 'only print where the console is')
    .action((flags: { kubeconfig?: string; url?: boolean; browser?: boolean }) =>
      consoleCommand(flags, (l) => process.stdout.write(`${l}\n`), (l) => process.stderr.write(`${l}\n`)).catch((err) => {
        process.stderr.write(`Error: ${(err as Error).message}\n`);
        process.exit(1);
      }),
    );
  program.parseAsync(['node', 'kubectl-atrium', ...argv]).catch((err) => {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
