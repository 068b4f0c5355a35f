/**
 * The watch fan-out in front of a Storage (the role of kube-apiserver's cacher for watches). Watches are
 * grouped by resource root (`/registry/<group>/<resource>/`, see resource-root.ts). Each root that has
 * (or had) a watcher owns exactly one storage watch, started lazily at the store's current revision,
 * and a ring of its recent events. A client watch from revision R is served from that ring when it
 * still holds every event after R, and otherwise by a direct storage watch (which itself answers
 * Compacted when R is too old). Live events are then fanned out to every watcher whose prefix matches.
 *
 * Delivery is synchronous and does no copying: the HTTP layer buffers per client and drops slow ones.
 * A watcher whose callback throws is stopped (and logged) without disturbing the others.
 */
import { StorageError } from '../errors.js';
import type { Storage, StorageWatchEvent, WatchCallbacks, WatchHandle } from '../interface.js';
import { callWatchConsumer } from '../watch-consumer.js';
import { EventRing } from './event-ring.js';
import { resourceRootOf } from './resource-root.js';

export interface WatchCacheOptions {
  /** Events kept per resource root for resuming watches (default 5000). */
  historySize?: number;
  /**
   * When a watch asks for a revision older than the ring holds: true (default) serves it with a direct
   * storage watch; false answers Compacted at once, as kube-apiserver's cacher does ("too old resource version").
   */
  fallbackToStorage?: boolean;
}

const DEFAULT_HISTORY_SIZE = 5000;

/** One client watch as the cache sees it. */
class CacheWatcher implements WatchHandle {
  /** Highest revision delivered; events at or below it are skipped. */
  cursor: number;
  /** False until the replay from the ring (or the direct storage watch) took over. */
  live = false;
  stopped = false;
  /** Set when served by a direct storage watch instead of the shared one. */
  delegate: WatchHandle | undefined;

  constructor(
    readonly prefix: string,
    readonly fromRevision: number,
    private readonly callbacks: WatchCallbacks,
    /** Unregisters the watcher from whatever serves it; replaced when it moves to a direct storage watch. */
    public detach: (w: CacheWatcher) => void,
  ) {
    this.cursor = fromRevision;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.delegate?.stop();
    this.detach(this);
  }

  deliver(event: StorageWatchEvent): void {
    if (!this.live || this.stopped || event.revision <= this.cursor) return;
    this.cursor = event.revision;
    if (!callWatchConsumer('watch cache', this.prefix, this.callbacks, 'onEvent', event)) this.stop();
  }

  progress(revision: number): void {
    if (this.stopped || !this.callbacks.onProgress) return;
    if (!callWatchConsumer('watch cache', this.prefix, this.callbacks, 'onProgress', revision)) this.stop();
  }

  fail(err: Error): void {
    if (this.stopped) return;
    this.stop();
    callWatchConsumer('watch cache', this.prefix, this.callbacks, 'onError', err);
  }
}

/** The shared storage watch, ring and watchers of one resource root. */
class ResourceWatch {
  state: 'starting' | 'running' | 'failed' = 'starting';
  ring: EventRing | undefined;
  storageWatch: WatchHandle | undefined;
  /** Watchers that arrived before the storage watch was started. */
  readonly waiting = new Set<CacheWatcher>();
  /** Attached watchers grouped by prefix, so each event is matched once per distinct prefix. */
  readonly byPrefix = new Map<string, Set<CacheWatcher>>();

  constructor(readonly root: string) {}

  add(w: CacheWatcher): void {
    let set = this.byPrefix.get(w.prefix);
    if (!set) this.byPrefix.set(w.prefix, (set = new Set()));
    set.add(w);
  }

  remove(w: CacheWatcher): void {
    this.waiting.delete(w);
    const set = this.byPrefix.get(w.prefix);
    if (!set) return;
    set.delete(w);
    if (set.size === 0) this.byPrefix.delete(w.prefix);
  }

  *allWatchers(): Iterable<CacheWatcher> {
    yield* this.waiting;
    for (const set of this.byPrefix.values()) yield* set;
  }
}

export class WatchCache {
  private readonly roots = new Map<string, ResourceWatch>();
  /** Watches whose prefix spans more than one resource: served directly by storage. */
  private readonly unrooted = new Set<CacheWatcher>();
  private readonly historySize: number;
  private readonly fallbackToStorage: boolean;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    options: WatchCacheOptions = {},
  ) {
    this.historySize = options.historySize ?? DEFAULT_HISTORY_SIZE;
    this.fallbackToStorage = options.fallbackToStorage ?? true;
  }

  /**
   * Watches keys under prefix for events with revision > fromRevision, with the Storage.watch contract:
   * replay then live, in revision order, each event once; a terminal onError (Compacted when
   * fromRevision is too old, Unavailable after stop()). Never calls back synchronously.
   */
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.stopped) {
      const w = new CacheWatcher(prefix, fromRevision, callbacks, () => undefined);
      setImmediate(() => w.fail(new StorageError('Unavailable', prefix, 'watch cache is stopped')));
      return w;
    }
    const rootKey = resourceRootOf(prefix);
    if (rootKey === null) {
      const w = new CacheWatcher(prefix, fromRevision, callbacks, (x) => this.unrooted.delete(x));
      this.unrooted.add(w);
      this.watchStorageDirectly(w);
      return w;
    }
    let root = this.roots.get(rootKey);
    if (!root) {
      root = new ResourceWatch(rootKey);
      this.roots.set(rootKey, root);
      this.startResourceWatch(root);
    }
    const owner = root;
    const w = new CacheWatcher(prefix, fromRevision, callbacks, (x) => owner.remove(x));
    if (root.state === 'starting') root.waiting.add(w);
    else this.attach(root, w);
    return w;
  }

  /** The store's newest revision. */
  currentRevision(): Promise<number> {
    return this.storage.currentRevision();
  }

  /** Resource roots with a shared storage watch, and the watchers attached to them (for metrics and tests). */
  stats(): { roots: number; watchers: number } {
    let watchers = this.unrooted.size;
    for (const root of this.roots.values()) for (const _ of root.allWatchers()) watchers++;
    return { roots: this.roots.size, watchers };
  }

  /** Stops every storage watch and every watcher; watchers get onError(Unavailable). Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const err = new StorageError('Unavailable', '', 'watch cache is stopped');
    for (const root of this.roots.values()) {
      root.storageWatch?.stop();
      for (const w of [...root.allWatchers()]) w.fail(err);
    }
    this.roots.clear();
    for (const w of [...this.unrooted]) w.fail(err);
  }

  private startResourceWatch(root: ResourceWatch): void {
    this.storage.currentRevision().then(
      (revision) => {
        if (this.stopped || this.roots.get(root.root) !== root) return;
        root.ring = new EventRing(this.historySize, revision);
        root.state = 'running';
        root.storageWatch = this.storage.watch(root.root, revision, {
          onEvent: (event) => this.onResourceEvent(root, event),
          onError: (err) => this.failResourceWatch(root, err),
        });
        const waiting = [...root.waiting];
        root.waiting.clear();
        for (const w of waiting) this.attach(root, w);
      },
      (err: unknown) => this.failResourceWatch(root, err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** Serves w from the ring when it covers w's revision, else from storage directly. */
  private attach(root: ResourceWatch, w: CacheWatcher): void {
    if (w.stopped) return;
    if (w.fromRevision < root.ring!.coveredFrom) {
      this.serveOlderThanRing(root, w);
      return;
    }
    root.add(w);
    // Replay in a microtask, not synchronously, so the caller holds its handle before any callback. An
    // event published meanwhile lands in the ring first, so the replay still sees it.
    queueMicrotask(() => {
      if (w.stopped || root.state !== 'running') return;
      const backlog = root.ring!.since(w.cursor);
      if (backlog === undefined) {
        // A burst evicted what this watcher needed before it got to run.
        root.remove(w);
        this.serveOlderThanRing(root, w);
        return;
      }
      w.live = true;
      for (const event of backlog) {
        if (event.key.startsWith(w.prefix)) w.deliver(event);
        else w.cursor = event.revision;
      }
    });
  }

  private serveOlderThanRing(root: ResourceWatch, w: CacheWatcher): void {
    if (this.fallbackToStorage) {
      w.detach = (x) => this.unrooted.delete(x);
      this.unrooted.add(w);
      this.watchStorageDirectly(w);
      return;
    }
    const coveredFrom = root.ring!.coveredFrom;
    setImmediate(() =>
      w.fail(
        new StorageError(
          'Compacted',
          w.prefix,
          `too old resource version: ${w.fromRevision} (${coveredFrom})`,
          undefined,
          coveredFrom,
        ),
      ),
    );
  }

  private watchStorageDirectly(w: CacheWatcher): void {
    w.live = true;
    w.delegate = this.storage.watch(w.prefix, w.fromRevision, {
      onEvent: (event) => w.deliver(event),
      onError: (err) => {
        this.unrooted.delete(w);
        w.fail(err);
      },
      onProgress: (revision) => w.progress(revision),
    });
  }

  private onResourceEvent(root: ResourceWatch, event: StorageWatchEvent): void {
    root.ring!.push(event);
    for (const [prefix, watchers] of root.byPrefix) {
      if (event.key.startsWith(prefix)) {
        for (const w of watchers) w.deliver(event);
      } else {
        // Watchers of other namespaces/clusters learn the revision moved, so their bookmarks advance.
        for (const w of watchers) if (w.live) w.progress(event.revision);
      }
    }
  }

  /** The shared storage watch ended: every watcher of the root gets the error; the next watch restarts it. */
  private failResourceWatch(root: ResourceWatch, err: Error): void {
    root.state = 'failed';
    root.storageWatch?.stop();
    if (this.roots.get(root.root) === root) this.roots.delete(root.root);
    for (const w of [...root.allWatchers()]) w.fail(err);
  }
}
