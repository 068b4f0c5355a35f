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
import type { KeyValue, Storage, StorageWatchEvent, WatchCallbacks, WatchHandle } from '../interface.js';
import { logger } from '../../logging/logger.js';
import { callWatchConsumer } from '../watch-consumer.js';
import { EventRing } from './event-ring.js';
import { KeyIndex } from './key-index.js';
import { resourceRootOf } from './resource-root.js';

export interface WatchCacheOptions {
  /** Events kept per resource root for resuming watches (default 5000). */
  historySize?: number;
  /**
   * When a watch asks for a revision older than the ring holds: true (default) serves it with a direct
   * storage watch; false answers Compacted at once, as kube-apiserver's cacher does ("too old resource version").
   */
  fallbackToStorage?: boolean;
  /**
   * Stored bytes of the objects the cache keeps for lists, over every resource root (default 256 MiB, or
   * ATRIUM_WATCH_CACHE_BYTES). A root is loaded only while the total is below it; lists of roots beyond it read
   * storage. kube-apiserver keeps every resource in its watch cache without a bound.
   */
  listBudgetBytes?: number;
  /** How long a list waits for the cache to reach the revision it needs (default 3 s, upstream's blockTimeout). */
  freshTimeoutMs?: number;
}

const DEFAULT_HISTORY_SIZE = 5000;
const DEFAULT_LIST_BUDGET = Number(process.env.ATRIUM_WATCH_CACHE_BYTES ?? 256 * 1024 * 1024);
const DEFAULT_FRESH_TIMEOUT_MS = 3000;
/** While a list waits for the cache, how often storage is asked again for a progress notification (upstream: 100 ms). */
const PROGRESS_REQUEST_INTERVAL_MS = 100;

/** What a list reads from the cache: the live keys under its prefix as of `revision`. */
export interface CachedList {
  items: KeyValue[];
  revision: number;
}

interface FreshWaiter {
  min: number;
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

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

  /** Every event of the root up to this revision has been received (from events and progress notifications). */
  revision = 0;
  /** Settles once the storage watch started (state 'running') or failed. */
  readonly started: Promise<void>;
  markStarted!: () => void;
  markFailed!: (err: Error) => void;
  /**
   * The root's live keys, for lists (kube-apiserver's watch cache store): loaded by the first list, then kept by the
   * shared storage watch's events. Undefined until then.
   */
  contents: KeyIndex | undefined;
  /** The revision the contents were loaded at: events at or below it are already in them. */
  contentsBase = 0;
  /** Events received while the contents load, applied once they are in. */
  pending: StorageWatchEvent[] | undefined;
  loading: Promise<void> | undefined;
  /** Lists waiting for `revision` to reach a minimum. */
  readonly waiters = new Set<FreshWaiter>();
  progressTimer: NodeJS.Timeout | undefined;

  constructor(readonly root: string) {
    this.started = new Promise<void>((resolve, reject) => {
      this.markStarted = resolve;
      this.markFailed = reject;
    });
    // A root that fails before anyone waits for it must not be an unhandled rejection.
    this.started.catch(() => undefined);
  }

  /** The revision the contents reflect: the load, plus every event received after it. */
  get contentsRevision(): number {
    return Math.max(this.contentsBase, this.revision);
  }

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
  private readonly listBudget: number;
  private readonly freshTimeout: number;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    options: WatchCacheOptions = {},
  ) {
    this.historySize = options.historySize ?? DEFAULT_HISTORY_SIZE;
    this.fallbackToStorage = options.fallbackToStorage ?? true;
    this.listBudget = options.listBudgetBytes ?? DEFAULT_LIST_BUDGET;
    this.freshTimeout = options.freshTimeoutMs ?? DEFAULT_FRESH_TIMEOUT_MS;
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

  /**
   * The live keys under prefix, in key order, as of a revision at or above minRevision (kube-apiserver's
   * WaitUntilFreshAndList): the first list of a resource root loads it from storage; later lists wait until the root's
   * storage watch has delivered every event up to minRevision, asking storage for progress notifications meanwhile
   * (a write to another resource moves the store's revision without an event here). minRevision 0 takes the cache as
   * it is. Resolves undefined when the cache does not serve the prefix (wider than one resource, or over the memory
   * budget): the caller reads storage. Rejects with FutureRevision (carrying the cache's revision) when the cache has
   * not reached minRevision in time, and with the storage watch's error when it fails.
   */
  async list(prefix: string, minRevision: number, attempt = 0): Promise<CachedList | undefined> {
    if (this.stopped) throw new StorageError('Unavailable', prefix, 'watch cache is stopped');
    const rootKey = resourceRootOf(prefix);
    if (rootKey === null) return undefined;
    let root = this.roots.get(rootKey);
    if (!root?.contents && !root?.loading && this.listBytes() >= this.listBudget) return undefined;
    if (!root) {
      root = new ResourceWatch(rootKey);
      this.roots.set(rootKey, root);
      this.startResourceWatch(root);
    }
    await root.started;
    if (!root.contents) await (root.loading ??= this.loadContents(root));
    if (root.contentsRevision < minRevision) await this.waitFresh(root, minRevision);
    if (root.state !== 'running' || this.roots.get(rootKey) !== root) {
      // The root's storage watch ended meanwhile (its waiters got the error; this list did not wait): start over
      // once, then leave it to storage.
      return attempt === 0 ? this.list(prefix, minRevision, 1) : undefined;
    }
    return { items: root.contents!.prefix(prefix), revision: root.contentsRevision };
  }

  /**
   * The value of key as the cache holds it, possibly behind storage (a suggestion, as upstream's GuaranteedUpdate
   * takes the watch cache's object); undefined when its resource is not loaded or the key is not there.
   */
  cachedValue(key: string): KeyValue | undefined {
    const rootKey = resourceRootOf(key);
    if (rootKey === null) return undefined;
    const root = this.roots.get(rootKey);
    if (!root?.contents || root.pending || root.state !== 'running') return undefined;
    return root.contents.get(key);
  }

  /** Stored bytes the cache holds for lists, over every root. */
  listBytes(): number {
    let total = 0;
    for (const root of this.roots.values()) total += root.contents?.bytes ?? 0;
    return total;
  }

  /** Lists a root from storage and keeps it from then on; events that arrive meanwhile are applied after. */
  private async loadContents(root: ResourceWatch): Promise<void> {
    root.pending = [];
    try {
      const listed = await this.storage.list(root.root);
      if (root.state !== 'running') throw new StorageError('Unavailable', root.root, 'the watch of the resource ended');
      const contents = new KeyIndex();
      for (const kv of listed.items) contents.put(kv);
      root.contents = contents;
      root.contentsBase = listed.revision;
      const pending = root.pending;
      root.pending = undefined;
      for (const event of pending) this.applyToContents(root, event);
    } catch (err) {
      root.pending = undefined;
      root.loading = undefined;
      throw err;
    }
  }

  private applyToContents(root: ResourceWatch, event: StorageWatchEvent): void {
    if (root.pending) {
      root.pending.push(event);
      return;
    }
    const contents = root.contents;
    if (!contents || event.revision <= root.contentsBase) return;
    if (event.type === 'delete') contents.delete(event.key);
    else contents.put({ key: event.key, value: event.value, createRevision: event.createRevision, modRevision: event.revision });
  }

  /** Waits until the root's revision reaches min, requesting progress notifications from its storage watch. */
  private waitFresh(root: ResourceWatch, min: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: FreshWaiter = {
        min,
        resolve: () => {
          clearTimeout(waiter.timer);
          root.waiters.delete(waiter);
          resolve();
        },
        reject: (err) => {
          clearTimeout(waiter.timer);
          root.waiters.delete(waiter);
          reject(err);
        },
        timer: setTimeout(() => {
          logger.warn('watch cache: a list waited in vain for the cache to reach its revision', { root: root.root, wanted: min, cached: root.contentsRevision });
          waiter.reject(
            new StorageError('FutureRevision', root.root, `Too large resource version: ${min}, current: ${root.contentsRevision}`, undefined, root.contentsRevision),
          );
          this.updateProgressRequests(root);
        }, this.freshTimeout),
      };
      root.waiters.add(waiter);
      this.updateProgressRequests(root);
    });
  }

  /** Asks for progress at once and then periodically while lists wait; stops when none does. */
  private updateProgressRequests(root: ResourceWatch): void {
    if (root.waiters.size === 0) {
      clearInterval(root.progressTimer);
      root.progressTimer = undefined;
      return;
    }
    if (root.progressTimer !== undefined) return;
    root.storageWatch?.requestProgress?.();
    root.progressTimer = setInterval(() => root.storageWatch?.requestProgress?.(), PROGRESS_REQUEST_INTERVAL_MS);
    root.progressTimer.unref();
  }

  /** The root's revision moved: lists waiting for it go on. */
  private advance(root: ResourceWatch, revision: number): void {
    if (revision <= root.revision) return;
    root.revision = revision;
    if (root.waiters.size === 0) return;
    for (const w of [...root.waiters]) if (root.contentsRevision >= w.min) w.resolve();
    this.updateProgressRequests(root);
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
      this.failRoot(root, err);
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
        root.revision = revision;
        root.storageWatch = this.storage.watch(root.root, revision, {
          onEvent: (event) => this.onResourceEvent(root, event),
          onError: (err) => this.failResourceWatch(root, err),
          onProgress: (rev) => this.advance(root, rev),
        });
        root.markStarted();
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
    this.applyToContents(root, event);
    this.advance(root, event.revision);
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
    this.failRoot(root, err);
  }

  /** Everyone waiting on or watching a root that ended gets err. */
  private failRoot(root: ResourceWatch, err: Error): void {
    root.markFailed(err);
    clearInterval(root.progressTimer);
    root.progressTimer = undefined;
    for (const w of [...root.waiters]) w.reject(err);
    for (const w of [...root.allWatchers()]) w.fail(err);
  }
}
