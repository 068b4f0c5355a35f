/**
 * Reading a watch response: newline-delimited JSON frames `{"type":..., "object":...}`, exposed as an async iterator.
 * An ERROR frame ends the stream by throwing a StatusError carrying the server's Status (410 Expired/Gone means the
 * resourceVersion is too old and the caller must re-list); a clean end of the response simply ends the iteration.
 */
import type { IncomingMessage } from 'node:http';
import { StatusError, type Status } from '../apimachinery/status.js';
import type { KubeObject } from '../apimachinery/object.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** An open watch. Iterate it once; stop() closes the connection and ends the iteration quietly. */
export interface WatchStream<T extends KubeObject = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  stop(): void;
}

/** True when an error means "your resourceVersion is gone, list again" (HTTP 410, reasons Expired or Gone). */
export function isResourceExpired(err: unknown): boolean {
  return err instanceof StatusError && err.code === 410;
}

/** Wraps an HTTP response whose status is 200 as a WatchStream. `abort` is called by stop(). */
export function readWatchStream<T extends KubeObject>(res: IncomingMessage, abort: () => void): WatchStream<T> {
  const pending: WatchEvent<T>[] = [];
  let failure: Error | undefined;
  let ended = false;
  let stopped = false;
  let wake: (() => void) | undefined;
  let buffer = '';
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const fail = (err: Error) => {
    if (!failure && !ended) failure = err;
    ended = true;
    notify();
  };

  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    if (ended) return;
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      let frame: { type?: string; object?: unknown };
      try {
        frame = JSON.parse(line) as typeof frame;
      } catch {
        fail(new Error(`watch: malformed frame: ${line.slice(0, 200)}`));
        abort();
        return;
      }
      if (frame.type === 'ERROR') {
        fail(new StatusError(normalizeStatus(frame.object)));
        abort();
        return;
      }
      pending.push({ type: frame.type as WatchEventType, object: frame.object as T });
    }
    notify();
  });
  res.on('end', () => {
    ended = true;
    notify();
  });
  res.on('error', (err) => fail(err));
  res.on('close', () => {
    ended = true;
    notify();
  });

  return {
    stop() {
      stopped = true;
      ended = true;
      abort();
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (pending.length > 0) {
          yield pending.shift()!;
          continue;
        }
        if (stopped) return;
        if (ended) {
          if (failure) throw failure;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

/** A Status from a response body or ERROR frame; anything else becomes a 500 Status carrying the text. */
export function normalizeStatus(body: unknown, httpCode = 500, text = ''): Status {
  if (body && typeof body === 'object' && (body as Status).kind === 'Status') {
    const s = body as Status;
    return { ...s, code: s.code || httpCode };
  }
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: text ? `the server responded with HTTP ${httpCode}: ${text.slice(0, 500)}` : `the server responded with HTTP ${httpCode}`,
    reason: httpCode === 404 ? 'NotFound' : 'InternalError',
    code: httpCode,
  };
}
