/**
 * GET pods/<name>/log on the simulated cluster, with kube's PodLogOptions (container, follow, previous,
 * sinceSeconds, sinceTime, timestamps, tailLines, limitBytes) validated as the API server does
 * (ValidatePodLogOptions: a 422 on PodLogOptions) and served as the kubelet does: text/plain, streamed, a line at a
 * time; tailLines picks the last lines before `since` filters, limitBytes cuts the output (mid-line if it must);
 * `follow` keeps the response open with new lines until the container instance ends (exit, restart) or the pod is
 * deleted. A pod not yet bound to a node answers an empty 200, as upstream's empty location.
 *
 * A WebSocket request gets the same stream in messages, as kube-apiserver's StreamObject writes a ResourceStreamer
 * (wsstream.Reader with its default protocols): subprotocol binary.k8s.io (or none offered) in binary messages,
 * base64.binary.k8s.io in text messages of base64; first an empty message (the Reader's ping), then the log in
 * messages of at most 2048 bytes, and the connection closes (1000) when the log ends. What the client sends is
 * ignored; its closing ends a follow. Errors (options, container, pod) are answered before the upgrade; a client
 * offering only other subprotocols gets an empty 403, as x/net/websocket's failed handshake.
 */
import { isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { invalid, forbidden, type FieldError } from '../../apimachinery/field-errors.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
import { acceptWebSocket, upgradeKind } from '../../apiserver/streaming/upgrade.js';
import { formatRFC3339Nano, type LogEntry } from '../runtime/container-log.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { chooseContainer, logInstance, parseBoolParam } from './pod-containers.js';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  sinceSeconds?: number;
  sinceTime?: number;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** Decodes and validates the query as PodLogOptions; throws upstream's 400 or 422. */
export function parsePodLogOptions(query: URLSearchParams, podName: string): PodLogOptions {
  const sinceTimeText = query.get('sinceTime');
  let sinceTime: number | undefined;
  if (sinceTimeText) {
    sinceTime = Date.parse(sinceTimeText);
    if (Number.isNaN(sinceTime)) throw errors.badRequest(`parsing time ${JSON.stringify(sinceTimeText)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTimeText)} as "2006"`);
  }
  const opts: PodLogOptions = {
    container: query.get('container') ?? '',
    follow: parseBoolParam(query, 'follow'),
    previous: parseBoolParam(query, 'previous'),
    timestamps: parseBoolParam(query, 'timestamps'),
    sinceSeconds: intParam(query, 'sinceSeconds'),
    sinceTime,
    tailLines: intParam(query, 'tailLines'),
    limitBytes: intParam(query, 'limitBytes'),
  };
  const errs: FieldError[] = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) errs.push(invalid('tailLines', opts.tailLines, 'must be greater than or equal to 0'));
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errs.push(invalid('limitBytes', opts.limitBytes, 'must be greater than 0'));
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) errs.push(forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) errs.push(invalid('sinceSeconds', opts.sinceSeconds, 'must be greater than 0'));
  if (errs.length) throw errors.invalid('', 'PodLogOptions', podName, errs);
  return opts;
}

/** The lines a request returns now: tailLines first, then since. */
export function selectLines(lines: readonly LogEntry[], opts: PodLogOptions, now = Date.now()): LogEntry[] {
  let out = opts.tailLines !== undefined ? lines.slice(Math.max(0, lines.length - opts.tailLines)) : [...lines];
  const since = sinceOf(opts, now);
  if (since !== undefined) out = out.filter((e) => e.time >= since);
  return out;
}

function sinceOf(opts: PodLogOptions, now: number): number | undefined {
  return opts.sinceTime ?? (opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : undefined);
}

/** Where the log goes: the HTTP response or a WebSocket. */
interface LogSink {
  write(bytes: Buffer): void;
  end(): void;
  onClose(fn: () => void): void;
}

/** wsstream.NewDefaultReaderProtocols: whether the subprotocol is binary (else base64 text). */
const logWebSocketProtocols: Record<string, boolean> = { 'binary.k8s.io': true, 'base64.binary.k8s.io': false, '': true };

/** The size of wsstream's copy buffer: the largest message it sends. */
const webSocketChunk = 2048;

/**
 * Opens the WebSocket for the log; undefined when the client offers only subprotocols we do not speak, answered as
 * golang.org/x/net/websocket answers a failed handshake (an empty 403).
 */
async function webSocketSink(r: ConnectRequest): Promise<LogSink | undefined> {
  const offered = String(r.req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  if (offered.length > 0 && !offered.some((p) => p in logWebSocketProtocols)) {
    r.res.writeHead(403);
    r.res.end();
    return undefined;
  }
  const ws = await acceptWebSocket(r.req, r.upgrade!, Object.keys(logWebSocketProtocols));
  const binary = logWebSocketProtocols[ws.negotiatedProtocol] ?? true;
  const send = (bytes: Buffer) => {
    if (ws.readyState !== 1) return;
    // ws sends a Buffer as a binary message and a string as a text one.
    ws.send(binary ? bytes : bytes.toString('base64'));
  };
  // The client's messages are read and dropped (wsstream.IgnoreReceives).
  ws.on('message', () => {});
  ws.on('error', () => ws.terminate());
  send(Buffer.alloc(0));
  return {
    write(bytes) {
      for (let off = 0; off < bytes.length; off += webSocketChunk) send(bytes.subarray(off, off + webSocketChunk));
    },
    end() {
      if (ws.readyState === 1) ws.close(1000);
    },
    onClose(fn) {
      ws.once('close', fn);
    },
  };
}

function responseSink(res: ConnectRequest['res']): LogSink {
  res.setHeader('Content-Type', 'text/plain');
  res.writeHead(200);
  return { write: (bytes) => res.write(bytes), end: () => res.end(), onClose: (fn) => res.once('close', fn) };
}

export function podLogHandler(runtime: ContainerRuntime): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'log',
    async serve(r: ConnectRequest): Promise<void> {
      const { req, info, query, ctx, store } = r;
      if (req.method !== 'GET') throw errors.methodNotAllowed();
      const pod = await store.get(ctx, info.namespace, info.name);
      const opts = parsePodLogOptions(query, info.name);
      const container = chooseContainer(pod, opts.container);
      const spec = isPlainObject(pod.spec) ? pod.spec : {};
      const which = spec.nodeName ? logInstance(pod, container, opts.previous) : undefined;
      const out = upgradeKind(req, r.upgrade) === 'websocket' ? await webSocketSink(r) : responseSink(r.res);
      if (!out) return;
      if (!which) {
        out.end();
        return;
      }
      runtime.observe(pod);
      const instance = runtime.container(pod.metadata?.uid ?? '', container)[which];
      let budget = opts.limitBytes ?? Infinity;
      // Writes a line within limitBytes; false once the limit is reached (the response then ends).
      const emit = (e: LogEntry): boolean => {
        const text = `${opts.timestamps ? `${formatRFC3339Nano(e.time)} ` : ''}${e.text}\n`;
        const bytes = Buffer.from(text, 'utf8');
        if (bytes.length >= budget) {
          out.write(bytes.subarray(0, budget));
          budget = 0;
          return false;
        }
        budget -= bytes.length;
        out.write(bytes);
        return true;
      };
      if (!instance) {
        out.end();
        return;
      }
      for (const e of selectLines(instance.log.lines(), opts)) {
        if (!emit(e)) {
          out.end();
          return;
        }
      }
      if (!opts.follow || instance.log.ended) {
        out.end();
        return;
      }
      const since = sinceOf(opts, Date.now());
      const stop = instance.log.follow({
        line: (e) => {
          if (since !== undefined && e.time < since) return;
          if (!emit(e)) {
            stop();
            out.end();
          }
        },
        end: () => out.end(),
      });
      out.onClose(stop);
    },
  };
}
