/** The `atrium demo` command: runs runDemo and exits 0 when it completed, 1 (after cleaning up) when it failed. */
import type { Command } from 'commander';
import { exitWithError } from './run-command.js';
import { logger } from '../logging/logger.js';
import { runDemo } from '../demo/demo.js';

/** Adds `demo` to the atrium program. */
export function addDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('start atrium and two simulated clusters, split a 15-replica Deployment over them, fail one over, clean up')
    .action(async () => {
      // Server logs (requests, and the warnings of the stopped cluster's syncer) would drown the demo's output; ATRIUM_LOG_LEVEL still wins when set.
      if (!process.env.ATRIUM_LOG_LEVEL) logger.setLevel('error');
      try {
        await runDemo();
        process.exit(0);
      } catch (err) {
        exitWithError((err as Error).message);
      }
    });
}
