/**
 * The one reconcile loop, written once: workers take a key from the WorkQueue, call reconcile(key), and act on the
 * outcome.
 *
 * - success → forget the key's backoff; `requeueAfterMs` schedules another look (e.g. "content remains").
 * - `requeue: true` → back in the queue with per-key exponential backoff, no error logged.
 * - StatusError 409 Conflict → requeued with backoff and logged at debug only: someone changed the object, our
 *   informer will see it and we will be called again with fresh state.
 * - TerminalError → logged and dropped (retrying cannot help; a later event may enqueue the key again).
 * - anything else → logged and requeued with backoff.
 * A key is never reconciled by two workers at once (WorkQueue guarantees it).
 */
import { StatusError } from '../../apimachinery/status.js';
import { WorkQueue, type RateLimiterOptions } from '../../client/work-queue.js';
import { logger } from '../../logging/logger.js';

export interface ReconcileResult {
  /** Look at the key again after this many ms (the backoff is reset first). */
  requeueAfterMs?: number;
  /** Look again after the key's backoff delay (growing while this keeps being returned). */
  requeue?: boolean;
}

/** An error retrying cannot fix (invalid input, programmer error): logged once, the key is dropped. */
export class TerminalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TerminalError';
  }
}

export interface ControllerOptions<K extends string = string> {
  /** Name for logs, e.g. "namespace". */
  name: string;
  /** Reconciles one key. Must be idempotent: it may run any number of times for the same state. */
  reconcile(key: K): Promise<ReconcileResult | void>;
  /** Parallel workers (default 1). */
  workers?: number;
  rateLimiter?: RateLimiterOptions;
}

export class Controller<K extends string = string> {
  readonly queue: WorkQueue<K>;
  private workers: Promise<void>[] = [];

  constructor(readonly opts: ControllerOptions<K>) {
    this.queue = new WorkQueue<K>(opts.rateLimiter);
  }

  get name(): string {
    return this.opts.name;
  }

  /** Queues a key for reconciliation. */
  enqueue(key: K): void {
    this.queue.add(key);
  }

  /** Starts the workers. */
  start(): void {
    const n = this.opts.workers ?? 1;
    for (let i = 0; i < n; i++) this.workers.push(this.work());
  }

  /** Shuts the queue down and waits for in-flight reconciles to finish. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
  }

  /** Runs one reconcile for a key and applies the outcome to the queue (exported for tests and custom loops). */
  async processKey(key: K): Promise<void> {
    try {
      const result = await this.opts.reconcile(key);
      if (result?.requeue) {
        this.queue.addRateLimited(key);
        return;
      }
      this.queue.forget(key);
      if (result?.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      if (this.queue.isShuttingDown) return;
      if (err instanceof TerminalError) {
        logger.error('reconcile failed terminally; dropping key', { controller: this.name, key, error: err.message });
        this.queue.forget(key);
        return;
      }
      if (err instanceof StatusError && err.code === 409) {
        logger.debug('reconcile conflict; will retry with fresh state', { controller: this.name, key, error: err.message });
      } else {
        logger.warn('reconcile failed; requeueing with backoff', {
          controller: this.name,
          key,
          retries: this.queue.numRequeues(key),
          error: err instanceof StatusError ? err.message : (err as Error)?.stack ?? String(err),
        });
      }
      this.queue.addRateLimited(key);
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.processKey(key);
      } finally {
        this.queue.done(key);
      }
    }
  }
}
