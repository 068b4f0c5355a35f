/**
 * WorkQueue: the rate-limited queue controllers pull keys from (client-go's workqueue semantics).
 *
 * - Dedup: a key added while already waiting is queued once; a key added while being processed is queued again
 *   only after done() for it, so one key is never processed by two workers at the same time.
 * - addRateLimited(): per-key exponential backoff (base·2^failures, capped), reset by forget().
 * - addAfter(): delayed add; the earliest pending time for a key wins.
 * - shutDown(): get() then resolves undefined for every waiter; later adds are ignored.
 */

export interface RateLimiterOptions {
  /** Delay of the first retry, ms (default 5). */
  baseDelayMs?: number;
  /** Largest retry delay, ms (default 60 s, as upstream's default controller rate limiter). */
  maxDelayMs?: number;
}

export class WorkQueue<K extends string = string> {
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly failures = new Map<K, number>();
  private readonly timers = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: K | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(opts: RateLimiterOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 60_000;
  }

  /** Queues a key now (no-op if already waiting or after shutdown). */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
  }

  /** Queues a key after `ms`; an earlier pending delayed add for the same key is kept. */
  addAfter(key: K, delay: number): void {
    if (this.shuttingDown) return;
    if (delay <= 0) return this.add(key);
    // setTimeout fires at once for a delay past 2^31 - 1 ms (~24.8 days) or Infinity: such a key is looked at then.
    const ms = Math.min(delay, 2 ** 31 - 1);
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  /** Queues a key after its backoff delay, and counts a failure for it. */
  addRateLimited(key: K): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, this.backoff(n));
  }

  /** The delay the n-th (0-based) consecutive failure gets. */
  backoff(n: number): number {
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(n, 30));
  }

  /** Clears a key's failure count (call after a successful reconcile). */
  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** Waits for the next key; undefined once the queue is shut down. Call done(key) when finished with it. */
  get(): Promise<K | undefined> {
    if (this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key processed; if it was added meanwhile it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Keys waiting (not counting delayed or in-process ones). */
  get length(): number {
    return this.queue.length;
  }

  /** True while nothing is waiting, delayed or being processed. */
  get idle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0 && this.timers.size === 0;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}
