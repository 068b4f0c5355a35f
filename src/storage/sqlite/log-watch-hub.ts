/**
 * Watches for a store that is the only writer of its log: each watcher first replays history from the
 * log, then receives events the store publishes right after each commit. No polling is needed.
 *
 * Gap- and duplicate-freedom: when a watch starts, the head revision H is fixed as the end of its
 * replay. Every revision <= H is committed and readable from the log; every revision > H is published
 * after the watch was registered. Live events that arrive while the replay is still running are
 * buffered and delivered after it, and a per-watcher cursor drops anything at or below the last
 * delivered revision.
 */
import { StorageError, revisionCompacted } from '../errors.js';
import type { StorageWatchEvent, WatchCallbacks, WatchHandle } from '../interface.js';
import { callWatchConsumer } from '../watch-consumer.js';

/** What the hub needs from the store it serves. */
export interface WatchHistorySource {
  /** Events for keys under prefix with revision in (after, through], in revision order. */
  readHistory(prefix: string, after: number, through: number): StorageWatchEvent[];
  /** The newest committed revision. */
  headRevision(): number;
  /** History at and below this revision may be gone. */
  compactedRevision(): number;
}

export interface LogWatchHubOptions {
  /** Revisions read from the log per replay step; steps yield to the event loop in between. */
  replayChunk?: number;
}

class LogWatcher implements WatchHandle {
  /** The last revision delivered (or skipped as not matching). */
  cursor: number;
  /** Live events held back until replay is done; null once live. */
  buffer: StorageWatchEvent[] | null = [];
  stopped = false;

  constructor(
    readonly prefix: string,
    fromRevision: number,
    readonly replayThrough: number,
    readonly callbacks: WatchCallbacks,
    private readonly detach: (w: LogWatcher) => void,
    private readonly head: () => number,
  ) {
    this.cursor = fromRevision;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.buffer = null;
    this.detach(this);
  }

  /** Delivers one event unless already delivered; a throwing callback ends only this watcher. */
  deliver(event: StorageWatchEvent): void {
    if (this.stopped || event.revision <= this.cursor) return;
    this.cursor = event.revision;
    if (!callWatchConsumer('storage watch', this.prefix, this.callbacks, 'onEvent', event)) this.stop();
  }

  fail(err: Error): void {
    if (this.stopped) return;
    this.stop();
    callWatchConsumer('storage watch', this.prefix, this.callbacks, 'onError', err);
  }

  /**
   * A live watcher has been handed every committed event under its prefix: the store publishes each commit's events
   * in the same synchronous step that moves the head. A watcher still replaying answers nothing (asked again).
   */
  requestProgress(): void {
    setImmediate(() => {
      if (this.stopped || this.buffer !== null || !this.callbacks.onProgress) return;
      if (!callWatchConsumer('storage watch', this.prefix, this.callbacks, 'onProgress', this.head())) this.stop();
    });
  }
}

export class LogWatchHub {
  private readonly watchers = new Set<LogWatcher>();
  private readonly replayChunk: number;

  constructor(
    private readonly source: WatchHistorySource,
    options: LogWatchHubOptions = {},
  ) {
    this.replayChunk = options.replayChunk ?? 2000;
  }

  /** Number of active watchers (for tests and metrics). */
  get size(): number {
    return this.watchers.size;
  }

  /**
   * Starts a watch: events for keys under prefix with revision > fromRevision. Never calls back
   * synchronously; a fromRevision + 1 below the compacted revision ends in onError(Compacted).
   */
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    const watcher = new LogWatcher(
      prefix,
      fromRevision,
      this.source.headRevision(),
      callbacks,
      (w) => this.watchers.delete(w),
      () => this.source.headRevision(),
    );
    this.watchers.add(watcher);
    setImmediate(() => this.replayStep(watcher));
    return watcher;
  }

  /** Publishes freshly committed events (in revision order) to every matching watcher. */
  publish(events: readonly StorageWatchEvent[]): void {
    if (this.watchers.size === 0) return;
    for (const event of events) {
      for (const w of this.watchers) {
        if (!event.key.startsWith(w.prefix)) continue;
        if (w.buffer) w.buffer.push(event);
        else w.deliver(event);
      }
    }
  }

  /** Ends every watch with err (the store is closing or lost). */
  closeAll(err: Error): void {
    for (const w of [...this.watchers]) w.fail(err);
  }

  private replayStep(w: LogWatcher): void {
    if (w.stopped) return;
    const compacted = this.source.compactedRevision();
    // Replay reads revisions after the cursor; the compacted revision itself is still readable.
    if (w.cursor < w.replayThrough && w.cursor + 1 < compacted) {
      w.fail(revisionCompacted(w.prefix, w.cursor + 1, compacted));
      return;
    }
    if (w.cursor < w.replayThrough) {
      const through = Math.min(w.replayThrough, w.cursor + this.replayChunk);
      let events: StorageWatchEvent[];
      try {
        events = this.source.readHistory(w.prefix, w.cursor, through);
      } catch (err) {
        w.fail(new StorageError('Unavailable', w.prefix, `reading watch history failed: ${String(err)}`));
        return;
      }
      for (const e of events) w.deliver(e);
      if (w.stopped) return;
      w.cursor = Math.max(w.cursor, through);
      if (w.cursor < w.replayThrough) {
        setImmediate(() => this.replayStep(w));
        return;
      }
    }
    const buffered = w.buffer ?? [];
    w.buffer = null;
    for (const e of buffered) w.deliver(e);
  }
}
