/**
 * Calling the consumers of a shared storage watch (the sqlite watch hub, the watch cache): one consumer's callback that
 * throws is that consumer's bug, so the throw is logged and reported, and only that consumer's watch ends.
 */
import { errorText, logger } from '../logging/logger.js';
import type { WatchCallbacks } from './interface.js';

type CallbackName = keyof WatchCallbacks;

/**
 * Calls `callbacks[name](arg)` (a missing optional callback is a no-op); a throw is logged at error level, as
 * `<source>: watch consumer threw from <name>`, and makes the result false.
 */
export function callWatchConsumer<K extends CallbackName>(
  source: string,
  prefix: string,
  callbacks: WatchCallbacks,
  name: K,
  arg: Parameters<NonNullable<WatchCallbacks[K]>>[0],
): boolean {
  try {
    (callbacks[name] as ((a: typeof arg) => void) | undefined)?.(arg);
    return true;
  } catch (err) {
    logger.error(`${source}: watch consumer threw from ${name}`, { prefix, error: errorText(err) });
    return false;
  }
}
