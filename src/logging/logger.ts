/**
 * Structured logging: one JSON object per line on stderr (time, level, msg, fields). Small on purpose: the server logs
 * requests and lifecycle events, and the level is set by ATRIUM_LOG_LEVEL (debug, info, warn, error; default info).
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold = order[(process.env.ATRIUM_LOG_LEVEL as Level) ?? 'info'] ?? order.info;

function log(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (order[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  process.stderr.write(`${line}\n`);
}

/** An error as a log field: its stack when it has one (the message is the stack's first line), else its text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export const logger = {
  debug: (msg: string, fields?: Record<string, unknown>) => log('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => log('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => log('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => log('error', msg, fields),
  /** Whether lines of `level` are written (to skip building what a disabled level would drop). */
  enabled(level: Level): boolean {
    return order[level] >= threshold;
  },
  /** The lowest level written (handed to worker threads, whose loggers start from the environment alone). */
  level(): Level {
    return (Object.keys(order) as Level[]).find((l) => order[l] === threshold) ?? 'info';
  },
  setLevel(level: Level): void {
    threshold = order[level];
  },
};
