/**
 * Informer: keeps a Store in step with the server by list + watch (client-go's reflector + shared informer), and tells
 * event handlers about every add, update and delete.
 *
 * - Starts with a full list (all pages), then watches from the list's resourceVersion with bookmarks.
 * - A watch that ends cleanly (server timeout) is re-opened from the last seen resourceVersion.
 * - A 410 (Expired/Gone, as HTTP status or ERROR frame) or any other failure triggers a re-list after a backoff; the
 *   re-list is diffed against the store so handlers see deletes that happened while disconnected.
 * - Works with `cluster: '*'`: objects then carry the `kcp.io/cluster` annotation, which the store key uses.
 * - Handlers run synchronously in event order; keep them cheap (enqueue keys, do work in a controller).
 */
import type { KubeObject } from '../apimachinery/object.js';
import { logger } from '../logging/logger.js';
import { groupResourceString, type GroupVersionResource } from './resource.js';
import type { RestClient } from './rest-client.js';
import { keyOf, Store, type IndexFunc, type Lister } from './store.js';
import { isResourceExpired, type WatchStream } from './watch-stream.js';

export interface EventHandler<T extends KubeObject = KubeObject> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  /** Called with the last known state of the object. */
  delete?(obj: T): void;
}

export interface InformerOptions {
  client: RestClient;
  gvr: GroupVersionResource;
  /** Logical cluster, or `*` for all of them (default: the server's default, root). */
  cluster?: string;
  /** Restrict to one namespace. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side watch timeout per watch request, seconds (default 300). */
  watchTimeoutSeconds?: number;
  /** Calls update(obj, obj) for every cached object this often (ms), like client-go's resync. Default: never. */
  resyncMs?: number;
  /**
   * Reduces every object before it is cached and handed to handlers (client-go's SetTransform), e.g. to keep only
   * metadata. Must be pure; the informer factory shares informers only between callers with the same transformId.
   */
  transform?: (obj: KubeObject) => KubeObject;
  /** Names the transform for sharing in an InformerFactory (required when transform is set there). */
  transformId?: string;
  /**
   * List and watch PartialObjectMetadata instead of full objects (client-go's metadata informers): objects then have
   * `kind: PartialObjectMetadata`, `apiVersion: meta.k8s.io/v1` and only metadata.
   */
  metadataOnly?: boolean;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  private readonly handlers: EventHandler<T>[] = [];
  private synced = false;
  private stopped = false;
  private started = false;
  private lastResourceVersion = '';
  private current: WatchStream<T> | undefined;
  private syncWaiters: (() => void)[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private sleepTimer: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private loop: Promise<void> | undefined;

  constructor(readonly opts: InformerOptions) {
    const defaultCluster = opts.cluster && opts.cluster !== '*' ? opts.cluster : 'root';
    this.store = new Store<T>((obj) => keyOf(obj, defaultCluster));
  }

  /** The cache, for reads. */
  get lister(): Lister<T> {
    return this.store;
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.store.addIndexer(name, fn);
  }

  /** Adds handlers; when added after sync, add() is replayed for every cached object. */
  addEventHandler(handler: EventHandler<T>): void {
    this.handlers.push(handler);
    if (this.synced) for (const obj of this.store.list()) handler.add?.(obj);
  }

  /** Removes handlers added with addEventHandler (an informer shared by several consumers outlives each of them). */
  removeEventHandler(handler: EventHandler<T>): void {
    const i = this.handlers.indexOf(handler);
    if (i >= 0) this.handlers.splice(i, 1);
  }

  /** True once the first list has been delivered to the store and handlers. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once hasSynced() (immediately if it already is). */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** Starts listing and watching in the background. Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.loop = this.run();
    if (this.opts.resyncMs) {
      this.resyncTimer = setInterval(() => {
        for (const obj of this.store.list()) this.emit((h) => h.update?.(obj, obj));
      }, this.opts.resyncMs);
      this.resyncTimer.unref?.();
    }
  }

  /** Stops the watch and the loop; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.current?.stop();
    if (this.sleepTimer) {
      clearTimeout(this.sleepTimer.timer);
      this.sleepTimer.resolve();
    }
    for (const w of this.syncWaiters.splice(0)) w();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
        }
        await this.watchOnce();
        failures = 0;
      } catch (err) {
        if (this.stopped) return;
        needList = true;
        if (!isResourceExpired(err)) {
          failures++;
          logger.warn('informer: list/watch failed, re-listing', { resource: groupResourceString(this.opts.gvr), cluster: this.opts.cluster, error: (err as Error).message });
        }
        await this.sleep(isResourceExpired(err) ? 0 : Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
      }
    }
  }

  private async relist(): Promise<void> {
    const { client, gvr, cluster, namespace, labelSelector, fieldSelector, metadataOnly } = this.opts;
    const list = await client.listAll<T>(gvr, { cluster, namespace }, { labelSelector, fieldSelector, metadataOnly });
    if (this.stopped) return;
    const seen = new Set<string>();
    for (const item of list.items) {
      const obj = this.reduce(withTypeMeta(item, gvr, list.kind));
      const key = this.store.keyOf(obj);
      seen.add(key);
      const old = this.store.upsert(obj);
      if (!old) this.emit((h) => h.add?.(obj));
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.emit((h) => h.update?.(old, obj));
    }
    for (const key of this.store.keys()) {
      if (seen.has(key)) continue;
      const gone = this.store.remove(key)!;
      this.emit((h) => h.delete?.(gone));
    }
    this.lastResourceVersion = list.metadata.resourceVersion ?? '';
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private async watchOnce(): Promise<void> {
    const { client, gvr, cluster, namespace, labelSelector, fieldSelector, metadataOnly } = this.opts;
    const stream = await client.watch<T>(gvr, { cluster, namespace }, {
      metadataOnly,
      labelSelector,
      fieldSelector,
      resourceVersion: this.lastResourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300,
    });
    this.current = stream;
    if (this.stopped) {
      stream.stop();
      return;
    }
    try {
      for await (const ev of stream) {
        if (this.stopped) break;
        const rv = ev.object?.metadata?.resourceVersion;
        if (ev.type === 'BOOKMARK') {
          if (rv) this.lastResourceVersion = rv;
          continue;
        }
        const obj = this.reduce(withTypeMeta(ev.object, gvr));
        const key = this.store.keyOf(obj);
        if (ev.type === 'DELETED') {
          this.store.remove(key);
          this.emit((h) => h.delete?.(obj));
        } else {
          const old = this.store.upsert(obj);
          if (old) this.emit((h) => h.update?.(old, obj));
          else this.emit((h) => h.add?.(obj));
        }
        if (rv) this.lastResourceVersion = rv;
      }
    } finally {
      this.current = undefined;
      stream.stop();
    }
  }

  private reduce(obj: T): T {
    return this.opts.transform ? (this.opts.transform(obj) as T) : obj;
  }

  private emit(fn: (h: EventHandler<T>) => void): void {
    for (const h of this.handlers) {
      try {
        fn(h);
      } catch (err) {
        logger.error('informer: event handler threw', { resource: groupResourceString(this.opts.gvr), error: (err as Error).stack });
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleepTimer = undefined;
        resolve();
      }, ms);
      this.sleepTimer = { timer, resolve };
    });
  }
}

/** Lists omit apiVersion/kind on built-in items; fill them in so handlers can build owner references. */
function withTypeMeta<T extends KubeObject>(obj: T, gvr: GroupVersionResource, listKind?: string): T {
  if (obj.apiVersion && obj.kind) return obj;
  const apiVersion = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
  const kind = obj.kind ?? (listKind?.endsWith('List') ? listKind.slice(0, -4) : undefined);
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersion, ...(kind ? { kind } : {}) };
}
