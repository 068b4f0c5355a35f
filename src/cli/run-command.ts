/**
 * The life of a long-running atrium command (`atrium start`, `atrium pcluster`, `atrium syncer`): start it, say so on
 * stdout, serve until SIGINT/SIGTERM, then stop gracefully. As kube-apiserver's signal handler does, a second signal
 * exits at once (code 1) instead of waiting for the graceful stop. Start-up failures print one `error: ...` line on
 * stderr and exit 1.
 *
 * Program level only: command modules use this, nothing below them does (it exits the process).
 */
import { errorText, logger } from '../logging/logger.js';

/** What a started command hands back: how to stop it. */
export interface Stoppable {
  stop(): Promise<void>;
}

export interface RunCommandOptions<T extends Stoppable> {
  /** Starts the command; a rejection is a start-up failure. */
  start: () => Promise<T>;
  /** The line written to stdout once started (without the newline). */
  ready: (running: T) => string;
  /** The start-up failure text: `error: <failure>: <message>` (e.g. `atrium failed to start`). */
  failure: string;
  /** The address the command listens on, for the friendlier texts of EADDRINUSE and EACCES. */
  listen?: { bindAddress: string; port: number };
}

/** Prints `error: <text>` on stderr and exits 1: the one way a command fails before (or instead of) serving. */
export function exitWithError(text: string): never {
  console.error(`error: ${text}`);
  process.exit(1);
}

/** The error line for a start-up failure: a busy or forbidden listen address gets advice, anything else its message. */
export function startFailureText(err: unknown, failure: string, listen?: { bindAddress: string; port: number }): string {
  const e = err as NodeJS.ErrnoException;
  if (listen && e?.code === 'EADDRINUSE') {
    return `port ${listen.port} on ${listen.bindAddress} is already in use; pick another with --secure-port (0 picks a free one)`;
  }
  if (listen && e?.code === 'EACCES') {
    return `not allowed to listen on ${listen.bindAddress}:${listen.port}; use a port above 1024 or run with the needed privileges`;
  }
  return `${failure}: ${e instanceof Error ? e.message : String(e)}`;
}

/**
 * Starts the command and serves until a signal. Resolves once started (the process then lives on its signal
 * handlers); never returns on a start-up failure.
 */
export async function runCommand<T extends Stoppable>(opts: RunCommandOptions<T>): Promise<void> {
  let running: T;
  try {
    running = await opts.start();
  } catch (err) {
    exitWithError(startFailureText(err, opts.failure, opts.listen));
  }
  process.stdout.write(`${opts.ready(running)}\n`);
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn('second signal, exiting without waiting for the shutdown', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { error: errorText(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
