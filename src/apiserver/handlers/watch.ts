import { errors, StatusError } from '../../apimachinery/status.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ParsedRequest } from './parsed-request.js';
import { watchFrame, watchObjectEncoder } from './render.js';
import { protobufMediaType } from '../http/negotiation.js';

/** A client whose socket has this much unsent data is too slow; it is dropped with a 410 so it re-lists. */
let maxBufferedBytes = 16 * 1024 * 1024;

/** Sets how much unsent watch data one client may accumulate before it is dropped (process-wide). */
export function setWatchBufferLimit(bytes: number): void {
  maxBufferedBytes = bytes;
}
/** Without timeoutSeconds kube-apiserver picks 30–60 minutes. */
const defaultTimeoutSeconds = () => 1800 + Math.floor(Math.random() * 1800);

/**
 * Serves a watch as newline-delimited JSON events over a chunked 200 response (k8s.io/apiserver handlers/watch.go),
 * or as length-prefixed protobuf WatchEvent frames (`application/vnd.kubernetes.protobuf;stream=watch`) to clients
 * that prefer protobuf for a built-in kind. Errors found after the response started are sent in-band as an ERROR
 * event carrying a Status.
 */
export async function serveWatch(r: ParsedRequest<'watch'>): Promise<void> {
  const { req, res, store } = r;
  const { selection, resourceVersion, sendInitialEvents, allowBookmarks } = r.options;
  const timeoutSeconds = r.options.timeoutSeconds ?? defaultTimeoutSeconds();
  const encode = watchObjectEncoder(r.output, r.def);
  const format = r.output.kind === 'object' && r.output.format === 'protobuf' ? 'protobuf' : 'json';
  const contentType = format === 'protobuf' ? `${protobufMediaType};stream=watch` : 'application/json';

  let started = false;
  let closed = false;
  // The initial state (a watch without resourceVersion, or "0") is written in one go while the store sets the watch up,
  // however large the collection: like a LIST, it is no sign of a slow client, and dropping it would make a client
  // that re-lists and re-watches loop. Until the client has read it, live events may add up to the usual limit on top.
  // (A replay of history from an old resourceVersion arrives as live events and counts like them.)
  let replaying = true;
  let limit = maxBufferedBytes;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, { 'Content-Type': contentType, 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    handle?.stop();
    if (!res.writableEnded) res.end();
  };
  const write = (type: string, object: unknown): boolean => {
    if (closed) return false;
    start();
    res.write(watchFrame(format, type, object));
    if (!replaying && res.writableLength > limit) {
      // Too slow: drop it with an in-band 410 so it re-lists, without holding up other watchers.
      const e = errors.expired('watch consumer too slow: the watch was closed; please re-list');
      res.write(watchFrame(format, 'ERROR', e.status));
      finish();
      return false;
    }
    return true;
  };
  const timer = setTimeout(finish, timeoutSeconds * 1000);
  timer.unref();
  req.on('close', finish);
  res.on('close', finish);

  let handle: { stop(): void } | undefined;
  try {
    handle = await store.watch(
      r.ctx,
      r.namespace,
      { selection, resourceVersion, sendInitialEvents, allowBookmarks },
      {
        event: (type, obj: KubeObject) => write(type, encode(type, obj)),
        error: (err: StatusError) => {
          write('ERROR', err.status);
          finish();
        },
        end: () => {
          start();
          finish();
        },
      },
      r.info.wildcardCluster,
    );
    if (closed) handle.stop();
    start();
    replaying = false;
    if (res.writableLength > 0) {
      limit = res.writableLength + maxBufferedBytes;
      res.once('drain', () => {
        limit = maxBufferedBytes;
      });
    }
  } catch (err) {
    if (!started) {
      clearTimeout(timer);
      closed = true;
      throw err;
    }
    const se = err instanceof StatusError ? err : errors.internal((err as Error).message);
    write('ERROR', se.status);
    finish();
  }
}
