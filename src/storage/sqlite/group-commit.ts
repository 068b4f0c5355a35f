/**
 * Group commit: every write submitted during one turn of the event loop is handed to a single commit
 * call (one SQLite transaction, one fsync). Each submitter's promise settles only after that commit
 * returned, so an acknowledged write is durable. A per-request failure (a precondition) settles only
 * that request; a thrown commit rejects the whole group, because nothing of it was committed.
 */

interface Queued<Req, Res> {
  request: Req;
  resolve(result: Res): void;
  reject(err: Error): void;
}

export interface GroupCommitOptions {
  /** Largest number of requests in one commit; a longer queue is split into several commits. */
  maxBatch?: number;
  /** Maps an error thrown by the commit function to the error every request of that group gets. */
  mapFatal?: (err: unknown) => Error;
}

export class GroupCommit<Req, Res> {
  private queue: Queued<Req, Res>[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly maxBatch: number;
  private readonly mapFatal: (err: unknown) => Error;

  /**
   * @param commit runs synchronously over the requests in arrival order and returns, per request, a
   *   result or the Error for that request alone. Throwing means the whole group failed.
   */
  constructor(
    private readonly commit: (requests: Req[]) => Array<Res | Error>,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 10_000;
    this.mapFatal = options.mapFatal ?? ((err) => (err instanceof Error ? err : new Error(String(err))));
  }

  /** Queues request for the next group commit; settles once that commit finished. */
  submit(request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      // setImmediate (not a microtask) so that writes from all I/O callbacks of this poll phase join in.
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Number of requests waiting for the next commit. */
  get pending(): number {
    return this.queue.length;
  }

  /** Commits everything queued now, synchronously (close() uses it to drain). */
  flush(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxBatch);
      let outcomes: Array<Res | Error>;
      try {
        outcomes = this.commit(group.map((q) => q.request));
      } catch (err) {
        const fatal = this.mapFatal(err);
        for (const q of group) q.reject(fatal);
        continue;
      }
      group.forEach((q, i) => {
        const outcome = outcomes[i];
        if (outcome instanceof Error) q.reject(outcome);
        else q.resolve(outcome as Res);
      });
    }
  }
}
