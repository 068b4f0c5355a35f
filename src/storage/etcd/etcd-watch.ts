/**
 * One storage watch on an etcd key range, on its own gRPC Watch stream. etcd3's built-in watcher is
 * not used: on reconnect it resumes from the response header's revision, which can skip events still
 * queued for a catching-up watcher, and it throws from stream callbacks on unexpected responses.
 *
 * This watch resumes exactly: it remembers the last revision it delivered and which keys of that
 * revision it delivered, reopens the stream from that revision after any stream failure (an etcd
 * restart, a member losing its leader, a dropped connection), and skips what it already delivered.
 * Fragmented responses (large revisions) are requested so no single message exceeds etcd's request
 * size limit. The only terminal errors are Compacted (the resume point was compacted away while
 * disconnected, or fromRevision was too old) and a watch etcd refused for another reason.
 */
import type { ICallable, IEvent, IKeyValue, IWatchResponse } from 'etcd3';
import { StorageError, revisionCompacted } from '../errors.js';
import type { StorageWatchEvent, WatchCallbacks, WatchHandle } from '../interface.js';
import { prefixRangeEnd } from './etcd-keys.js';

/** The part of a grpc-js duplex call this module uses. */
interface WatchCall {
  write(request: unknown): boolean;
  end(): void;
  cancel(): void;
  on(event: 'data', fn: (response: IWatchResponse) => void): WatchCall;
  on(event: 'error', fn: (err: Error) => void): WatchCall;
  on(event: 'end', fn: () => void): WatchCall;
}

interface GrpcMetadata {
  clone(): GrpcMetadata;
  set(key: string, value: string): void;
}

interface WatchServiceClient {
  watch(metadata: GrpcMetadata, options: object): WatchCall;
}

/** Where watch streams come from: etcd3's connection pool (picks a member, carries auth metadata). */
export type WatchConnectionPool = ICallable<unknown>;

/** Hooks for the store's health tracking. */
export interface WatchStreamObserver {
  /** A stream failed and will be reopened. */
  onStreamFailure?(err: Error): void;
  /** A stream (re)opened and etcd accepted the watch. */
  onStreamEstablished?(): void;
}

const INITIAL_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 2000;

export class EtcdWatch implements WatchHandle {
  private call: WatchCall | undefined;
  private stopped = false;
  private backoffMs = INITIAL_BACKOFF_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Highest revision whose events (all, or those in deliveredKeys) have been delivered. */
  private deliveredRevision: number;
  /** Keys already delivered at deliveredRevision (a revision can touch several keys). */
  private deliveredKeys = new Set<string>();
  private readonly rangeKey: Buffer;
  private readonly rangeEnd: Buffer;

  /**
   * Starts watching keys under prefix for events after fromRevision. The stream opens on a later turn,
   * so no callback runs before the constructor returns.
   */
  constructor(
    private readonly pool: WatchConnectionPool,
    private readonly prefix: string,
    fromRevision: number,
    private readonly callbacks: WatchCallbacks,
    private readonly observer: WatchStreamObserver = {},
  ) {
    this.deliveredRevision = fromRevision;
    this.rangeKey = Buffer.from(prefix, 'utf8');
    this.rangeEnd = prefixRangeEnd(this.rangeKey);
    setImmediate(() => this.open());
  }

  /** Stops the watch; no callback runs afterwards. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.closeCall();
  }

  /**
   * Asks etcd for a progress notification on this watch's stream (WatchProgressRequest); etcd answers with the
   * current revision once the watch has caught up, and not at all before, so callers ask again.
   */
  requestProgress(): void {
    if (this.stopped || !this.call) return;
    safely(() => this.call!.write({ progress_request: {} }));
  }

  /** Ends the watch with err as its terminal error (the store uses this on close). */
  fail(err: Error): void {
    if (this.stopped) return;
    this.stop();
    this.callbacks.onError(err);
  }

  private open(): void {
    if (this.stopped) return;
    // A complete revision resumes at the next one, so a watch from just below the compacted revision still
    // starts (etcd refuses only start revisions below it), as kube-apiserver's watch from rv starts at rv+1.
    // A revision only partly delivered before a reconnect resumes at itself: its delivered keys are skipped.
    // etcd reads start_revision 0 as "from now", hence at least 1.
    const startRevision = Math.max(1, this.deliveredKeys.size === 0 ? this.deliveredRevision + 1 : this.deliveredRevision);
    this.pool
      .withConnection('Watch', ({ client, metadata }) => {
        const md = (metadata as unknown as GrpcMetadata).clone();
        // Ask etcd to end the stream when this member loses its leader, so the watch moves to a member
        // that still gets events instead of silently stalling (clientv3's WithRequireLeader).
        md.set('hasleader', 'true');
        return (client as unknown as WatchServiceClient).watch(md, {});
      })
      .then(
        (call) => {
          if (this.stopped) {
            safely(() => call.cancel());
            return;
          }
          this.call = call;
          call.on('data', (response) => this.onResponse(call, response));
          call.on('error', (err) => this.onStreamFailure(call, err));
          call.on('end', () => this.onStreamFailure(call, new Error('etcd closed the watch stream')));
          call.write({
            create_request: {
              key: this.rangeKey,
              range_end: this.rangeEnd,
              start_revision: startRevision,
              prev_kv: true,
              progress_notify: true,
              fragment: true,
            },
          });
        },
        (err: unknown) => this.scheduleReconnect(err instanceof Error ? err : new Error(String(err))),
      );
  }

  private onResponse(call: WatchCall, response: IWatchResponse): void {
    if (this.stopped || call !== this.call) return;
    if (response.canceled) {
      this.onCanceled(response);
      return;
    }
    if (response.created) {
      this.backoffMs = INITIAL_BACKOFF_MS;
      this.observer.onStreamEstablished?.();
      return;
    }
    const events = response.events ?? [];
    if (events.length === 0) {
      // A progress notification: every event up to the header revision has been sent.
      const revision = Number(response.header.revision);
      if (revision > this.deliveredRevision) {
        this.deliveredRevision = revision;
        this.deliveredKeys.clear();
      }
      if (this.callbacks.onProgress) this.callbacks.onProgress(revision);
      return;
    }
    for (const event of events) {
      if (this.stopped) return;
      const converted = this.convert(event);
      if (converted === null) continue;
      if (converted instanceof StorageError) {
        this.fail(converted);
        return;
      }
      try {
        this.callbacks.onEvent(converted);
      } catch (err) {
        // A throwing consumer must not unwind into grpc-js's stream machinery (that would crash the process).
        this.fail(err instanceof Error ? err : new Error(String(err)));
        return;
      }
    }
  }

  /** Turns an etcd event into a StorageWatchEvent; null when it was delivered before a reconnect. */
  private convert(event: IEvent): StorageWatchEvent | StorageError | null {
    const kv = event.kv;
    const revision = Number(kv.mod_revision);
    const key = kv.key.toString('utf8');
    if (revision < this.deliveredRevision) return null;
    if (revision === this.deliveredRevision && (this.deliveredKeys.has(key) || this.deliveredKeys.size === 0)) {
      // size 0 at deliveredRevision means the revision was complete (or is the watch's fromRevision).
      return null;
    }
    if (revision > this.deliveredRevision) {
      this.deliveredRevision = revision;
      this.deliveredKeys.clear();
    }
    this.deliveredKeys.add(key);
    const prev: IKeyValue | undefined = event.prev_kv ?? undefined;
    if (event.type === 'Delete') {
      if (!prev) {
        // etcd could not read the previous value (compacted in between): the deleted object is unknown.
        return new StorageError('Compacted', key, `the value deleted at revision ${revision} has been compacted`, undefined, revision);
      }
      const value = prev.value.toString('utf8');
      return { type: 'delete', key, value, prevValue: value, revision, createRevision: Number(prev.create_revision) };
    }
    const value = kv.value.toString('utf8');
    const createRevision = Number(kv.create_revision);
    if (createRevision === revision) return { type: 'create', key, value, revision, createRevision };
    return prev
      ? { type: 'update', key, value, prevValue: prev.value.toString('utf8'), revision, createRevision }
      : { type: 'update', key, value, revision, createRevision };
  }

  private onCanceled(response: IWatchResponse): void {
    const compactRevision = Number(response.compact_revision);
    if (compactRevision > 0) {
      this.fail(revisionCompacted(this.prefix, this.deliveredRevision + 1, compactRevision));
      return;
    }
    const reason = response.cancel_reason || 'no reason given';
    if (/no leader|leader changed|server stopped/i.test(reason)) {
      this.onStreamFailure(this.call!, new Error(`etcd canceled the watch: ${reason}`));
      return;
    }
    this.fail(new StorageError('Unavailable', this.prefix, `etcd canceled the watch: ${reason}`));
  }

  private onStreamFailure(call: WatchCall, err: Error): void {
    if (this.stopped || call !== this.call) return;
    this.closeCall();
    this.scheduleReconnect(err);
  }

  private scheduleReconnect(err: Error): void {
    if (this.stopped) return;
    this.observer.onStreamFailure?.(err);
    const delay = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.reconnectTimer = setTimeout(() => this.open(), delay);
    this.reconnectTimer.unref();
  }

  private closeCall(): void {
    const call = this.call;
    this.call = undefined;
    if (!call) return;
    // Errors after cancel() ("1 CANCELLED") land in the listeners above and are ignored there.
    safely(() => call.cancel());
  }
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    /* the call is already gone */
  }
}
