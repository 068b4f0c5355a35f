/**
 * Periodic compaction of etcd's history, coordinated between atrium replicas the way kube-apiserver does
 * it: a shared key (`compact_rev_key`) whose etcd *version* counts compaction rounds. Every interval each
 * replica tries to bump that version with a compare-and-swap on the version it last saw; exactly one
 * replica wins a round, and the winner compacts at the revision it observed one round earlier. So history
 * is kept for at least one interval (watchers and paged lists up to that old keep working) and several
 * replicas never compact twice per interval. Losers just adopt the current version and try next round.
 */
import type { Etcd3 } from 'etcd3';
import { logger } from '../../logging/logger.js';
import type { EtcdStore } from './etcd-store.js';

/** The same key kube-apiserver uses, so an operator recognises it. */
export const COMPACT_REVISION_KEY = 'compact_rev_key';
const DEFAULT_INTERVAL_MS = 5 * 60 * 1000;

export interface EtcdCompactorOptions {
  /** Time between rounds (default 5 minutes). */
  intervalMs?: number;
}

export class EtcdCompactor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The compact_rev_key version this replica last saw (0: the key does not exist yet). */
  private lastVersion = 0;
  /** The etcd revision when this replica last won or observed a round; compacted at the next win. */
  private lastRevision = 0;
  private readonly intervalMs: number;

  constructor(
    private readonly store: EtcdStore,
    options: EtcdCompactorOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  }

  /** Starts the periodic rounds (the first one right away, which never compacts). */
  start(): void {
    if (this.timer || this.stopped) return;
    const tick = () => {
      this.running = this.round().then(() => undefined, (err: unknown) => logger.warn('etcd compaction round failed', { error: String(err) }));
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the rounds and waits for one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * One round: returns whether this replica compacted. Exposed for tests, which drive rounds directly
   * instead of waiting for the interval.
   */
  async round(): Promise<boolean> {
    const client: Etcd3 = this.store.etcdClient();
    const key = Buffer.from(COMPACT_REVISION_KEY);
    const res = await client.kv.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version: this.lastVersion }],
      success: [{ request_put: { key, value: Buffer.from(String(this.lastRevision)) } }],
      failure: [{ request_range: { key } }],
    });
    const revision = Number(res.header.revision);
    if (!res.succeeded) {
      const current = res.responses[0]?.response_range?.kvs?.[0];
      this.lastVersion = current ? Number(current.version) : 0;
      this.lastRevision = revision;
      return false;
    }
    const compactAt = this.lastRevision;
    this.lastVersion += 1;
    this.lastRevision = revision;
    // The first win only records a revision: compacting needs one interval of history behind it.
    if (compactAt === 0) return false;
    await this.store.compact(compactAt);
    logger.info('compacted etcd', { revision: compactAt });
    return true;
  }
}
