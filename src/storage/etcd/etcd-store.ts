/**
 * The etcd storage backend (etcd v3 API through the `etcd3` client). Revisions are etcd's revisions:
 * a KeyValue's modRevision is etcd's mod_revision, so resourceVersions handed out by several atrium
 * replicas on one etcd cluster are one consistent sequence.
 *
 * Every write is a single-key transaction whose compare carries the precondition (create: the key's
 * create_revision is 0; update/delete: its mod_revision equals the expected one), with a read of the key
 * as the else-branch so a failed precondition reports the current value without a second round trip.
 *
 * Failures: calls have a deadline (Timeout → 504). Connection-level failures of reads are retried on a
 * fresh member choice a few times within that budget, then reported as Unavailable (503). Writes are
 * retried only when the failure proves the request was never sent (see isRetryable); a write whose reply
 * was lost is Unavailable, as its outcome is unknown. Should a retried write still find its own first
 * attempt applied, create and update recognise their own value and report success instead of
 * KeyExists/Conflict. Health (for /readyz) follows the outcome of the
 * latest calls plus a periodic linearizable probe, so it recovers on its own when etcd returns.
 */
import type { Etcd3, ICallable } from 'etcd3';
import { StorageError, keyNotFound, modRevisionConflict } from '../errors.js';
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, WatchHandle } from '../interface.js';
import { createEtcdClient, DEFAULT_REQUEST_TIMEOUT_MS, type EtcdConnectionOptions } from './etcd-client.js';
import {
  decodeRangeResponse,
  decodeTxnResponse,
  encodeRangeRequest,
  encodeTxnRequest,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
} from './etcd-kv-codec.js';
import { isRequestTooLarge, isRetryable, toStorageError } from './etcd-errors.js';
import { keyAfter, prefixRangeEnd } from './etcd-keys.js';
import { EtcdWatch } from './etcd-watch.js';

export interface EtcdStoreOptions extends EtcdConnectionOptions {
  /** How often the background health probe runs, in milliseconds (default 1000; 0 disables it). */
  healthProbeIntervalMs?: number;
  /** Keys per range request when a list asks for everything (default 1000): bounds every gRPC message. */
  listPageSize?: number;
}

/** The key the health probe and currentRevision() read; it never exists. */
const PROBE_KEY = Buffer.from('/atrium/health-probe', 'utf8');
const RETRY_DELAYS_MS = [50, 150, 400, 1000];

export class EtcdStore implements Storage {
  private closed = false;
  private readonly watches = new Set<EtcdWatch>();
  private healthy = true;
  private lastFailure = '';
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  /** The highest revision this store compacted at or saw refused as compacted (a floor for compactedRevision). */
  private knownCompacted = 0;
  private readonly pool: ICallable<unknown>;
  private readonly listPageSize: number;
  private readonly requestTimeoutMs: number;

  private constructor(
    private readonly client: Etcd3,
    readonly endpoints: readonly string[],
    options: EtcdStoreOptions,
  ) {
    // etcd3 keeps the connection pool protected; the raw Watch stream needs it (see etcd-watch.ts).
    this.pool = (client as unknown as { pool: ICallable<unknown> }).pool;
    this.listPageSize = options.listPageSize ?? 1000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const interval = options.healthProbeIntervalMs ?? 1000;
    if (interval > 0) {
      this.probeTimer = setInterval(() => void this.probe(), interval);
      this.probeTimer.unref();
    }
  }

  /**
   * Connects to etcd and checks that it answers a linearizable read (so a quorum is up). Throws an Error
   * naming the endpoints and the cause when it does not, after closing the client.
   */
  static async connect(options: EtcdStoreOptions): Promise<EtcdStore> {
    const client = createEtcdClient(options);
    const store = new EtcdStore(client, [...options.endpoints], options);
    try {
      await store.currentRevision();
    } catch (err) {
      await store.close();
      throw new Error(`cannot reach etcd at ${options.endpoints.join(',')}: ${(err as Error).message}`);
    }
    try {
      store.progressReliable = progressNotifyFixedIn((await client.maintenance.status()).version);
    } catch {
      // a member that does not tell its version: take progress notifications as reliable
    }
    return store;
  }

  private progressReliable = true;

  progressNotifyReliable(): boolean {
    return this.progressReliable;
  }

  /** The underlying etcd3 client, for etcd-specific maintenance (see etcd-compactor.ts). Do not close it. */
  etcdClient(): Etcd3 {
    return this.client;
  }

  /** Whether the latest etcd calls (and the background probe) succeeded. Drives /readyz. */
  isHealthy(): boolean {
    return this.healthy && !this.closed;
  }

  /** Why the store is unhealthy (the latest failure), or '' when healthy. */
  healthMessage(): string {
    return this.isHealthy() ? '' : this.closed ? 'etcd storage is closed' : this.lastFailure;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const k = Buffer.from(key, 'utf8');
    const v = Buffer.from(value, 'utf8');
    return this.run(key, async (attempt) => {
      const res = await this.txn({
        compare: [{ key: k, target: 'create', result: 'equal', revision: 0 }],
        success: [{ put: { key: k, value: v } }],
        failure: [{ range: { key: k } }],
      });
      if (res.succeeded) {
        const revision = res.revision;
        return { key, value, createRevision: revision, modRevision: revision };
      }
      const current = firstKv(res);
      // A retry whose first attempt was applied finds exactly its own value (objects carry a unique uid).
      if (attempt > 0 && current && current.value === value && current.createRevision === current.modRevision) return current;
      throw new StorageError('KeyExists', key, `key ${key} already exists`, current ?? undefined);
    }, 'write');
  }

  async get(key: string, revision?: number): Promise<KeyValue | null> {
    const request: RangeRequest = { key: Buffer.from(key, 'utf8'), ...(revision ? { revision } : {}) };
    const res = await this.run(key, () => this.range(request, key, revision), 'read');
    return res.kvs[0] ?? null;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const k = Buffer.from(key, 'utf8');
    return this.run(key, async (attempt) => {
      const res = await this.txn({
        compare: [
          { key: k, target: 'create', result: 'greater', revision: 0 },
          { key: k, target: 'mod', result: 'equal', revision: expectedModRevision },
        ],
        success: [{ put: { key: k, value: Buffer.from(value, 'utf8'), prevKv: true } }],
        failure: [{ range: { key: k } }],
      });
      if (res.succeeded) {
        const prev = res.responses[0]?.put?.prevKv;
        const revision = res.revision;
        return { key, value, createRevision: prev ? prev.createRevision : revision, modRevision: revision };
      }
      const current = firstKv(res);
      if (!current) throw keyNotFound(key);
      if (attempt > 0 && current.value === value && current.modRevision > expectedModRevision) return current;
      throw modRevisionConflict(key, current, expectedModRevision);
    }, 'write');
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const k = Buffer.from(key, 'utf8');
    return this.run(key, async () => {
      const compare: TxnRequest['compare'] =
        expectedModRevision === undefined
          ? [{ key: k, target: 'create', result: 'greater', revision: 0 }]
          : [
              { key: k, target: 'create', result: 'greater', revision: 0 },
              { key: k, target: 'mod', result: 'equal', revision: expectedModRevision },
            ];
      const res = await this.txn({
        compare,
        success: [{ deleteRange: { key: k, prevKv: true } }],
        failure: [{ range: { key: k } }],
      });
      if (res.succeeded) {
        const prev = res.responses[0]?.deleteRange?.prevKvs[0];
        if (!prev) throw keyNotFound(key);
        return { ...prev, modRevision: res.revision };
      }
      const current = firstKv(res);
      if (!current) throw keyNotFound(key);
      throw modRevisionConflict(key, current, expectedModRevision);
    }, 'write');
  }

  /**
   * Keys under prefix in key order. Without a limit the range is read in pages of listPageSize at the
   * revision of the first page, so the result is one snapshot and no gRPC message grows with the list.
   */
  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const rangeEnd = prefixRangeEnd(Buffer.from(prefix, 'utf8'));
    let start = options.afterKey !== undefined ? keyAfter(options.afterKey) : Buffer.from(prefix, 'utf8');
    let revision = options.revision && options.revision > 0 ? options.revision : 0;
    const wanted = options.limit && options.limit > 0 ? options.limit : 0;
    const items: KeyValue[] = [];
    for (;;) {
      const pageLimit = wanted > 0 ? wanted - items.length : this.listPageSize;
      const request: RangeRequest = { key: start, rangeEnd, limit: pageLimit, ...(revision ? { revision } : {}) };
      const res = await this.run(prefix, () => this.range(request, prefix, revision || undefined), 'read');
      if (!revision) revision = res.revision;
      for (const kv of res.kvs) items.push(kv);
      const done = !res.more || (wanted > 0 && items.length >= wanted);
      if (done) {
        const more = res.more;
        return more
          ? { items, revision, more, remaining: res.count - res.kvs.length }
          : { items, revision, more: false };
      }
      start = keyAfter(items[items.length - 1]!.key);
    }
  }

  async count(prefix: string): Promise<number> {
    const k = Buffer.from(prefix, 'utf8');
    const res = await this.run(prefix, () => this.range({ key: k, rangeEnd: prefixRangeEnd(k), countOnly: true }, prefix), 'read');
    return res.count;
  }

  /** Events under prefix after fromRevision on a dedicated etcd watch stream that survives reconnects. */
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closed) {
      let stopped = false;
      setImmediate(() => stopped || callbacks.onError(new StorageError('Unavailable', prefix, 'etcd storage is closed')));
      return { stop: () => void (stopped = true) };
    }
    const watch: EtcdWatch = new EtcdWatch(
      this.pool,
      prefix,
      fromRevision,
      {
        onEvent: (event) => callbacks.onEvent(event),
        onError: (err) => {
          this.watches.delete(watch);
          callbacks.onError(err);
        },
        ...(callbacks.onProgress ? { onProgress: (revision: number) => callbacks.onProgress!(revision) } : {}),
      },
      {
        onStreamFailure: (err) => this.markFailure(err),
        onStreamEstablished: () => this.markSuccess(),
      },
    );
    this.watches.add(watch);
    return {
      stop: () => {
        this.watches.delete(watch);
        watch.stop();
      },
      requestProgress: () => watch.requestProgress(),
    };
  }

  /** etcd's current revision, read linearizably (needs a quorum). */
  async currentRevision(): Promise<number> {
    const res = await this.run('', () => this.range({ key: PROBE_KEY, countOnly: true }, ''), 'read');
    return res.revision;
  }

  /**
   * The compacted revision. etcd reports it only when refusing a watch below it, so this opens a watch
   * from revision 1 on a key that never exists: a refusal carries compact_revision; acceptance means
   * nothing was compacted (0).
   */
  async compactedRevision(): Promise<number> {
    const probed = await this.probeCompactedRevision();
    this.knownCompacted = Math.max(this.knownCompacted, probed);
    return this.knownCompacted;
  }

  /**
   * etcd accepts a watch below the compacted revision first and cancels it (with compact_revision) on its
   * next sync of unsynced watchers, every 100 ms; so acceptance only counts after a quiet 300 ms.
   */
  private probeCompactedRevision(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      const handle = new EtcdWatch(this.pool, PROBE_KEY.toString('utf8'), 0, {
        onEvent: () => undefined,
        onError: (err) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (err instanceof StorageError && err.code === 'Compacted' && err.revision !== undefined) resolve(err.revision);
          else reject(err);
        },
      }, {
        onStreamEstablished: () => {
          setTimeout(() => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            handle.stop();
            resolve(0);
          }, 300);
        },
      });
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        handle.stop();
        reject(new StorageError('Timeout', '', 'etcd did not answer the compaction probe in time'));
      }, 5000);
    });
  }

  /**
   * Compacts etcd's history at revision (logical compaction: reads and watches below it fail with
   * Compacted at once; etcd frees the space in the background). At or below the compacted revision it
   * is a no-op; above the current revision it is FutureRevision.
   */
  async compact(revision: number): Promise<void> {
    try {
      // Repeating a compaction that was applied is harmless (Compacted, a no-op below), so it retries like a read.
      await this.run('', () => this.client.kv.compact({ revision, physical: false }).then(() => undefined), 'read', revision);
      this.knownCompacted = Math.max(this.knownCompacted, revision);
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') return;
      throw err;
    }
  }

  /** Ends every watch with Unavailable, stops the probe and closes the gRPC connections. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.probeTimer);
    const err = new StorageError('Unavailable', '', 'etcd storage is closed');
    for (const watch of [...this.watches]) watch.fail(err);
    this.watches.clear();
    this.client.close();
  }

  /**
   * Runs op, retrying connection-level failures (never a deadline: a timed-out write may have been
   * applied) with backoff; a write only when it was never sent. op gets the attempt number so a write can
   * recognise its own applied attempt.
   */
  private async run<T>(key: string, op: (attempt: number) => Promise<T>, kind: 'read' | 'write', revision?: number): Promise<T> {
    if (this.closed) throw new StorageError('Unavailable', key, 'etcd storage is closed');
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await op(attempt);
        this.markSuccess();
        return result;
      } catch (err) {
        if (err instanceof StorageError) {
          this.markSuccess();
          throw err;
        }
        if (isRetryable(err, kind === 'write') && attempt < RETRY_DELAYS_MS.length && !this.closed) {
          await sleep(RETRY_DELAYS_MS[attempt]!);
          continue;
        }
        if (isRequestTooLarge(err)) {
          this.markSuccess();
          throw new Error(`etcdserver: request is too large (key ${key}): ${(err as Error).message}`);
        }
        const mapped = toStorageError(err, key, revision);
        if (mapped.code === 'Unavailable' || mapped.code === 'Timeout') this.markFailure(mapped);
        else this.markSuccess();
        throw mapped;
      }
    }
  }

  private range(request: RangeRequest, key: string, revision?: number): Promise<RangeResponse> {
    return this.unary('Range', encodeRangeRequest(request), decodeRangeResponse).catch((err: unknown) => {
      const mapped = toStorageError(err, key, revision);
      if (mapped.code === 'Compacted' || mapped.code === 'FutureRevision') {
        throw new StorageError(mapped.code, key, mapped.message, undefined, revision);
      }
      throw err;
    });
  }

  private txn(request: TxnRequest): Promise<TxnResponse> {
    return this.unary('Txn', encodeTxnRequest(request), decodeTxnResponse);
  }

  /**
   * One unary KV call through etcd3's connection pool (member choice, auth metadata, its error classes) with atrium's
   * own message codec (etcd-kv-codec.ts) instead of etcd3's object conversion, under the same deadline.
   */
  private unary<T>(method: 'Range' | 'Txn', body: Buffer, decode: (bytes: Buffer) => T): Promise<T> {
    return this.pool.withConnection('KV', ({ client, metadata }) => {
      const grpcClient = client as unknown as UnaryClient;
      return new Promise<T>((resolve, reject) => {
        grpcClient.makeUnaryRequest(`/etcdserverpb.KV/${method}`, identity, decode, body, metadata, { deadline: Date.now() + this.requestTimeoutMs }, (err, res) =>
          err ? reject(err) : resolve(res as T),
        );
      });
    });
  }

  private async probe(): Promise<void> {
    if (this.probing || this.closed) return;
    this.probing = true;
    try {
      await this.client.kv.range({ key: PROBE_KEY, count_only: true });
      this.markSuccess();
    } catch (err) {
      this.markFailure(toStorageError(err, ''));
    } finally {
      this.probing = false;
    }
  }

  private markSuccess(): void {
    this.healthy = true;
    this.lastFailure = '';
  }

  private markFailure(err: Error): void {
    this.healthy = false;
    this.lastFailure = err.message;
  }
}

/** The key read by a transaction's else-branch, or null when it does not exist. */
function firstKv(res: TxnResponse): KeyValue | null {
  return res.responses[0]?.range?.kvs[0] ?? null;
}

/** The part of a grpc-js Client this store calls: a unary call with its own (de)serialisers. */
interface UnaryClient {
  makeUnaryRequest(
    method: string,
    serialize: (value: Buffer) => Buffer,
    deserialize: (bytes: Buffer) => unknown,
    argument: Buffer,
    metadata: unknown,
    options: { deadline: number },
    callback: (err: Error | null, value?: unknown) => void,
  ): unknown;
}

const identity = (b: Buffer): Buffer => b;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether an etcd server version answers progress requests only once its watchers are synced (3.4.25+, 3.5.8+, 3.6+). */
export function progressNotifyFixedIn(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor < 4) return false;
  if (minor === 4) return patch >= 25;
  if (minor === 5) return patch >= 8;
  return true;
}
