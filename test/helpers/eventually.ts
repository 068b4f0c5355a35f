/**
 * Polling, for tests: the one helper every suite (and bench/) uses to wait until something holds. Controllers,
 * syncers and watches are observed from outside, so a test asks again until the outcome is there or time is up.
 */
import { inspect } from 'node:util';

/** What `eventually` polls: sync or async; `undefined`, `null` and `false` mean "not yet", anything else is the result. */
export type Probe<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

/** Thrown by a probe, ends the wait at once (the process being waited for exited, say): `eventually` rejects. */
export class GiveUp extends Error {}

/**
 * Calls `probe` every `intervalMs` until it returns something other than `undefined`, `null` or `false`, and resolves
 * with that value. A probe that throws counts as "not yet" (the object is not there yet, the server is restarting),
 * unless it throws GiveUp. After `timeoutMs` it rejects with an Error that names `what` it waited for, for how long,
 * and the last value the probe returned or the last error it threw (that error is also the `cause`).
 */
export async function eventually<T>(what: string, probe: Probe<T>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== null && v !== false) return v as T;
      last = { value: v };
    } catch (error) {
      if (error instanceof GiveUp) throw new Error(`gave up waiting for ${what}: ${error.message}`, { cause: error });
      last = { error };
    }
    if (Date.now() >= deadline) {
      const seen = 'error' in last ? `last error: ${last.error instanceof Error ? last.error.message : inspect(last.error)}` : `last value: ${inspect(last.value, { depth: 4, breakLength: Infinity })}`;
      throw new Error(`timed out after ${Date.now() - started} ms (limit ${timeoutMs} ms) waiting for ${what}; ${seen}`, 'error' in last ? { cause: last.error } : undefined);
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}

/**
 * `eventually` with other defaults, for a suite (or a family of suites) whose waits share them, e.g.
 * `const eventually = eventuallyWith({ timeoutMs: 60_000, intervalMs: 200 })` for multi-process suites.
 */
export function eventuallyWith(defaults: { timeoutMs?: number; intervalMs?: number }): <T>(what: string, probe: Probe<T>, timeoutMs?: number, intervalMs?: number) => Promise<T> {
  return (what, probe, timeoutMs = defaults.timeoutMs ?? 30_000, intervalMs = defaults.intervalMs ?? 100) => eventually(what, probe, timeoutMs, intervalMs);
}
