/**
 * Polls `probe` until it returns something other than undefined or false, and returns that. A probe that throws counts
 * as "not yet"; at the deadline the last error (or value) is reported with what was being waited for.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
      last = new Error(`last value ${JSON.stringify(v)}`);
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
