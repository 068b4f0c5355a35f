import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startServer } from '../apiserver/server.js';
import { logger } from '../logging/logger.js';

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number between 0 and 65535');
  return n;
}

/** `atrium start`: serve the API until SIGINT/SIGTERM, then shut down gracefully. */
async function start(opts: { rootDir: string; bindAddress: string; securePort: number }): Promise<void> {
  const rootDir = resolve(opts.rootDir);
  let server;
  try {
    server = await startServer({ rootDir, bindAddress: opts.bindAddress, securePort: opts.securePort });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      console.error(`error: port ${opts.securePort} on ${opts.bindAddress} is already in use; pick another with --secure-port (0 picks a free one)`);
    } else if (e.code === 'EACCES') {
      console.error(`error: not allowed to listen on ${opts.bindAddress}:${opts.securePort}; use a port above 1024 or run with the needed privileges`);
    } else {
      console.error(`error: atrium failed to start: ${e.message}`);
    }
    process.exit(1);
  }
  process.stdout.write(`atrium is serving at ${server.url}; point kubectl at it with: export KUBECONFIG=${server.kubeconfigPath}\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    server
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        logger.error('shutdown failed', { error: (err as Error).stack });
        process.exit(1);
      });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
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
    .action(start);
  program.parseAsync(argv).catch((err) => {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  });
}

main(process.argv);
