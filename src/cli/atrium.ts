import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startServer } from '../server/server.js';
import { addDemoCommand } from './demo-command.js';
import { addPclusterCommand } from './pcluster-command.js';
import { addSyncerCommand } from './syncer-command.js';
import { type MulticlusterFlags, multiclusterOptionsFromFlags, multiclusterServerOptions } from '../multicluster/server-options.js';
import { parseFlagDuration } from '../apimachinery/go-duration.js';
import { flagParser, parsePort } from './flags.js';
import { exitWithError, runCommand } from './run-command.js';

/** Parses a Go-style duration of one unit ("90s", "5m", "1h", "500ms", "0"). */
function parseBaseURL(v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new InvalidArgumentError('must be an absolute URL such as https://atrium.example.com:6443');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new InvalidArgumentError('must be an http(s):// URL');
  if (u.search || u.hash) throw new InvalidArgumentError('must not carry a query or fragment');
  return v.replace(/\/+$/, '');
}


interface EtcdFlags {
  etcdServers?: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  etcdCompactionInterval?: number;
  leaderElectLeaseDuration?: number;
  leaderElectRenewDeadline?: number;
  leaderElectRetryPeriod?: number;
}

/** The etcd part of the server options, or undefined for the default embedded SQLite storage. */
function etcdOptions(opts: EtcdFlags) {
  if (!opts.etcdServers) {
    if (opts.etcdCafile || opts.etcdCertfile || opts.etcdKeyfile) {
      throw new InvalidArgumentError('--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers');
    }
    return undefined;
  }
  return {
    endpoints: opts.etcdServers.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    caFile: opts.etcdCafile,
    certFile: opts.etcdCertfile,
    keyFile: opts.etcdKeyfile,
    compactionIntervalMs: opts.etcdCompactionInterval,
  };
}

function parseNonNegative(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number >= 0 (0 means unlimited)');
  return n;
}

interface AuthFlags {
  tokenAuthFile?: string;
  anonymousAuth?: boolean;
  maxObjectsPerWorkspace?: number;
  maxRequestsPerSecondPerUser?: number;
}

/** `atrium start`: serve the API until SIGINT/SIGTERM, then shut down gracefully. */
async function start(opts: { rootDir: string; bindAddress: string; securePort: number; shardBaseUrl?: string } & EtcdFlags & AuthFlags & MulticlusterFlags): Promise<void> {
  const rootDir = resolve(opts.rootDir);
  await runCommand({
    start: () =>
      startServer({ rootDir, bindAddress: opts.bindAddress, securePort: opts.securePort, shardBaseURL: opts.shardBaseUrl, etcd: etcdOptions(opts),
        // SyncTargets, type negotiation and push-mode syncers (src/multicluster).
        ...multiclusterServerOptions(multiclusterOptionsFromFlags(opts)),
        tokenAuthFile: opts.tokenAuthFile === undefined ? undefined : resolve(opts.tokenAuthFile),
        anonymous: opts.anonymousAuth ?? false,
        maxObjectsPerWorkspace: opts.maxObjectsPerWorkspace,
        maxRequestsPerSecondPerUser: opts.maxRequestsPerSecondPerUser,
        leaderElection: {
          leaseDurationSeconds: opts.leaderElectLeaseDuration === undefined ? undefined : Math.max(1, Math.round(opts.leaderElectLeaseDuration / 1000)),
          renewDeadlineMs: opts.leaderElectRenewDeadline,
          retryPeriodMs: opts.leaderElectRetryPeriod,
        },
      }),
    ready: (server) =>
      `atrium is serving at ${server.url}; point kubectl at it with: export KUBECONFIG=${server.kubeconfigPath}` +
      (server.consoleURL ? `\nthe web console is at ${server.consoleURL}; open it signed in with: kubectl atrium console` : ''),
    failure: 'atrium failed to start',
    listen: { bindAddress: opts.bindAddress, port: opts.securePort },
  });
}

export function main(argv: string[]): void {
  const program = new Command();
  program.name('atrium').description('A Kubernetes-compatible, multi-tenant, multi-cluster control plane');
  program
    .command('start')
    .description('start the API server on embedded storage')
    .option('--root-dir <dir>', 'directory for the database, certificates and admin.kubeconfig', '.atrium')
    .option('--bind-address <addr>', 'address to listen on', '127.0.0.1')
    .option('--secure-port <port>', 'HTTPS port (0 picks a free port)', parsePort, 6443)
    .option('--shard-base-url <url>', 'base URL of this shard, stamped into workspace URLs; give every replica on one etcd the same one (default https://<bind address>:<port>)', parseBaseURL)
    .option('--token-auth-file <file>', 'static bearer tokens, one user a line: token,user,uid,"group1,group2"')
    .option('--anonymous-auth', 'admit requests without credentials as system:anonymous', false)
    .option('--max-objects-per-workspace <n>', 'objects one workspace may hold; creates beyond it get 403 (0 = unlimited)', parseNonNegative, 0)
    .option('--max-requests-per-second-per-user <n>', 'requests per second one user may make; more get 429 (0 = unlimited)', parseNonNegative, 0)
    .option('--etcd-servers <urls>', 'store data in etcd at these comma-separated client URLs (http(s)://host:port) instead of embedded SQLite')
    .option('--etcd-cafile <file>', 'PEM CA bundle that verifies the etcd servers (https:// endpoints)')
    .option('--etcd-certfile <file>', 'PEM client certificate for etcd')
    .option('--etcd-keyfile <file>', 'PEM private key of --etcd-certfile')
    .option('--etcd-compaction-interval <duration>', 'how often etcd history is compacted (0 turns it off)', flagParser(parseFlagDuration), 5 * 60_000)
    .option('--leader-elect-lease-duration <duration>', 'with etcd: how long a controller leader lease lasts without renewal (default 15s)', flagParser(parseFlagDuration))
    .option('--leader-elect-renew-deadline <duration>', 'with etcd: how long the leader retries renewing before it stops its controllers (default 10s)', flagParser(parseFlagDuration))
    .option('--leader-elect-retry-period <duration>', 'with etcd: time between lease acquire/renew attempts (default 2s)', flagParser(parseFlagDuration))
    .option('--sync-target-heartbeat-threshold <duration>', 'a SyncTarget whose syncer was silent this long is not Ready (default 60s)', flagParser(parseFlagDuration))
    .option('--sync-target-eviction-toleration <duration>', 'how long a not-Ready SyncTarget keeps its work before it moves (default 60s)', flagParser(parseFlagDuration))
    .option('--unschedulable-grace <duration>', 'how long replicas may stay unready on a Ready cluster before those its scheduler turned away (Unschedulable) move elsewhere (default 30s)', flagParser(parseFlagDuration))
    .option('--no-controllers-thread', "run the multi-cluster controllers on the server's own thread instead of a worker thread of their own")
    .action(start);
  addPclusterCommand(program);
  addDemoCommand(program);
  addSyncerCommand(program);
  program.parseAsync(argv).catch((err) => exitWithError((err as Error).message));
}

main(process.argv);
