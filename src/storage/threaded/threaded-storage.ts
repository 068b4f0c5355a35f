/**
 * A Storage whose backend runs on a worker thread (storage-worker.ts). On etcd, the gRPC client — HTTP/2 framing,
 * the Range/Txn codec, the watch streams — was about a quarter of a write's time on the server's one thread
 * (README, #21); here it runs on another core while the server's thread decodes, admits and encodes requests.
 *
 * The contract is the backend's, unchanged (the storage conformance suite runs against it): calls are answered
 * in whatever order the backend answers them, watch events arrive in revision order and exactly once (one
 * MessagePort carries replies and events in the worker's order), StorageErrors keep their code, key, current value
 * and revision. If the worker dies, every pending call and every watch fails with Unavailable, as a lost etcd does.
 */
import { Worker } from 'node:worker_threads';
import { StorageError } from '../errors.js';
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, WatchHandle } from '../interface.js';
import type { Call, ErrorData, FromWorker, StorageWorkerConfig, ToWorker } from './protocol.js';

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

function toError(data: ErrorData): Error {
  const s = data.storage;
  return s ? new StorageError(s.code, s.key, data.message, s.current, s.revision) : new Error(data.message);
}

export class ThreadedStorage implements Storage {
  private readonly pending = new Map<number, Pending>();
  private readonly watches = new Map<number, WatchCallbacks>();
  private nextId = 1;
  private outbox: ToWorker[] = [];
  private healthy = true;
  private healthText = '';
  private reliableProgress = true;
  /** Set once the worker is gone (closed or crashed): every later call fails with it. */
  private gone: StorageError | undefined;

  private constructor(private readonly worker: Worker) {}

  /** Starts the worker and waits until its backend is connected; throws the backend's own start-up error. */
  static start(config: StorageWorkerConfig): Promise<ThreadedStorage> {
    const worker = new Worker(new URL('./storage-worker.js', import.meta.url), { workerData: config });
    const storage = new ThreadedStorage(worker);
    return new Promise<ThreadedStorage>((resolve, reject) => {
      let started = false;
      worker.on('message', (batch: FromWorker[]) => {
        for (const m of batch) {
          if (m.t === 'ready') {
            started = true;
            storage.reliableProgress = m.progressNotifyReliable;
            resolve(storage);
          } else if (m.t === 'startFailed') {
            void worker.terminate();
            reject(new Error(m.message));
          } else storage.receive(m);
        }
      });
      worker.on('error', (err) => {
        if (!started) reject(err);
        storage.fail(`storage worker failed: ${err.message}`);
      });
      worker.on('exit', (code) => {
        if (!started) reject(new Error(`storage worker exited with code ${code} before its storage was ready`));
        storage.fail(`storage worker exited (code ${code})`);
      });
    });
  }

  progressNotifyReliable(): boolean {
    return this.reliableProgress;
  }

  /** Whether the backend's latest calls succeeded (etcd: drives /readyz), as the worker last reported. */
  isHealthy(): boolean {
    return !this.gone && this.healthy;
  }

  healthMessage(): string {
    return this.gone ? this.gone.message : this.healthy ? '' : this.healthText;
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.call({ op: 'create', key, value });
  }

  get(key: string, revision?: number): Promise<KeyValue | null> {
    return this.call({ op: 'get', key, ...(revision !== undefined ? { revision } : {}) });
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.call({ op: 'update', key, value, expected: expectedModRevision });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.call({ op: 'delete', key, ...(expectedModRevision !== undefined ? { expected: expectedModRevision } : {}) });
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.call({ op: 'list', prefix, ...(options ? { options } : {}) });
  }

  count(prefix: string): Promise<number> {
    return this.call({ op: 'count', prefix });
  }

  currentRevision(): Promise<number> {
    return this.call({ op: 'currentRevision' });
  }

  compactedRevision(): Promise<number> {
    return this.call({ op: 'compactedRevision' });
  }

  compact(revision: number): Promise<void> {
    return this.call({ op: 'compact', revision });
  }

  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    const id = this.nextId++;
    if (this.gone) {
      const err = this.gone;
      let stopped = false;
      setImmediate(() => stopped || callbacks.onError(err));
      return { stop: () => void (stopped = true) };
    }
    this.watches.set(id, callbacks);
    this.send({ t: 'watch', watch: id, prefix, from: fromRevision });
    return {
      stop: () => {
        if (this.watches.delete(id) && !this.gone) this.send({ t: 'unwatch', watch: id });
      },
      requestProgress: () => {
        if (this.watches.has(id) && !this.gone) this.send({ t: 'progress', watch: id });
      },
    };
  }

  /** Closes the backend (its watches end with Unavailable) and then the worker. Idempotent. */
  async close(): Promise<void> {
    if (this.gone) return;
    try {
      await this.call({ op: 'close' });
    } finally {
      this.fail('storage is closed');
      await this.worker.terminate();
    }
  }

  private call<T>(call: Call): Promise<T> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send({ t: 'call', id, call });
    });
  }

  /** Queues a message; everything queued in this turn of the event loop goes to the worker in one postMessage. */
  private send(message: ToWorker): void {
    if (this.outbox.length === 0) setImmediate(() => this.flush());
    this.outbox.push(message);
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length && !this.gone) this.worker.postMessage(batch);
  }

  private receive(m: FromWorker): void {
    switch (m.t) {
      case 'reply': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error) p.reject(toError(m.error));
        else p.resolve(m.value ?? null);
        return;
      }
      case 'event':
        this.watches.get(m.watch)?.onEvent(m.event);
        return;
      case 'watchProgress':
        this.watches.get(m.watch)?.onProgress?.(m.revision);
        return;
      case 'watchError': {
        const cb = this.watches.get(m.watch);
        this.watches.delete(m.watch);
        cb?.onError(toError(m.error));
        return;
      }
      case 'health':
        this.healthy = m.healthy;
        this.healthText = m.message;
        return;
      default:
        return;
    }
  }

  /** The worker is gone: pending calls and open watches end with Unavailable. */
  private fail(message: string): void {
    if (this.gone) return;
    this.gone = new StorageError('Unavailable', '', message);
    for (const p of this.pending.values()) p.reject(this.gone);
    this.pending.clear();
    const watches = [...this.watches.values()];
    this.watches.clear();
    for (const w of watches) w.onError(this.gone);
  }
}
