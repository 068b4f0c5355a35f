/**
 * The request deadline of kube-apiserver (k8s.io/apiserver endpoints/filters/request_deadline.go and
 * server/filters/timeout.go): a non-long-running request gets min(?timeout=, 60s) (the default when timeout is absent,
 * 0 or negative) to complete, else 504; an unparseable `timeout` is 400 before authentication. Watches and the
 * streaming subresources are long-running and exempt.
 */
import { constants } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../apimachinery/status.js';
import type { RequestInfo } from './request-info.js';
import { parseGoDuration } from '../apimachinery/go-duration.js';

export const requestTimeoutMaximumMs = 60_000;

const longRunningVerbs = new Set(['watch', 'proxy']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** kube-apiserver's BasicLongRunningRequestCheck(watch, proxy; attach, exec, proxy, log, portforward). */
export function isLongRunning(info: RequestInfo): boolean {
  return info.isResourceRequest && (longRunningVerbs.has(info.verb) || longRunningSubresources.has(info.subresource));
}

/** The deadline in ms for a non-long-running request; throws 400 for an invalid `timeout`. */
export function requestDeadlineMs(query: URLSearchParams): number {
  const value = query.get('timeout');
  if (!value) return requestTimeoutMaximumMs;
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    throw errors.badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
  return ms > 0 && ms < requestTimeoutMaximumMs ? ms : requestTimeoutMaximumMs;
}

/**
 * Answers 504 as timeout.go's timeout writer does (the Status without kind/apiVersion, no Content-Type so Go sniffs
 * text/plain) when the handler has not started its response; otherwise the connection is dropped, as the
 * ErrAbortHandler panic does. Either way the connection is closed: its request body may still be unread.
 */
export function answerTimeout(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${JSON.stringify({
    metadata: {},
    status: 'Failure',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    reason: 'Timeout',
    details: {},
    code: 504,
  })}\n`;
  res.writeHead(504, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
  res.end(body, () => {
    if (req.complete) return;
    // HTTP/2: only this request's stream is cancelled (the connection carries others; its socket may not be touched).
    const stream = (req as { stream?: { close(code?: number): void } }).stream;
    if (stream) stream.close(constants.NGHTTP2_CANCEL);
    else req.socket.destroy();
  });
}
