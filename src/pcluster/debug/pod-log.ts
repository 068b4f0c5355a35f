/**
 * GET pods/<name>/log on the simulated cluster, with kube's PodLogOptions (container, follow, previous,
 * sinceSeconds, sinceTime, timestamps, tailLines, limitBytes) validated as the API server does
 * (ValidatePodLogOptions: a 422 on PodLogOptions) and served as the kubelet does: text/plain, streamed, a line at a
 * time; tailLines picks the last lines before `since` filters, limitBytes cuts the output (mid-line if it must);
 * `follow` keeps the response open with new lines until the container instance ends (exit, restart) or the pod is
 * deleted. A pod not yet bound to a node answers an empty 200, as upstream's empty location.
 */
import { isPlainObject } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import { invalid, forbidden, type FieldError } from '../../apimachinery/field-errors.js';
import type { ConnectHandler, ConnectRequest } from '../../apiserver/connect.js';
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

export function podLogHandler(runtime: ContainerRuntime): ConnectHandler {
  return {
    group: '',
    resource: 'pods',
    subresource: 'log',
    async serve({ req, res, info, query, ctx, store }: ConnectRequest): Promise<void> {
      if (req.method !== 'GET') throw errors.methodNotAllowed();
      const pod = await store.get(ctx, info.namespace, info.name);
      const opts = parsePodLogOptions(query, info.name);
      const container = chooseContainer(pod, opts.container);
      const spec = isPlainObject(pod.spec) ? pod.spec : {};
      res.setHeader('Content-Type', 'text/plain');
      if (!spec.nodeName) {
        res.writeHead(200);
        res.end();
        return;
      }
      const which = logInstance(pod, container, opts.previous);
      runtime.observe(pod);
      const instance = runtime.container(pod.metadata?.uid ?? '', container)[which];
      res.writeHead(200);
      let budget = opts.limitBytes ?? Infinity;
      // Writes a line within limitBytes; false once the limit is reached (the response then ends).
      const emit = (e: LogEntry): boolean => {
        const text = `${opts.timestamps ? `${formatRFC3339Nano(e.time)} ` : ''}${e.text}\n`;
        const bytes = Buffer.from(text, 'utf8');
        if (bytes.length >= budget) {
          res.write(bytes.subarray(0, budget));
          budget = 0;
          return false;
        }
        budget -= bytes.length;
        res.write(bytes);
        return true;
      };
      if (!instance) {
        res.end();
        return;
      }
      for (const e of selectLines(instance.log.lines(), opts)) {
        if (!emit(e)) {
          res.end();
          return;
        }
      }
      if (!opts.follow || instance.log.ended) {
        res.end();
        return;
      }
      const since = sinceOf(opts, Date.now());
      const stop = instance.log.follow({
        line: (e) => {
          if (since !== undefined && e.time < since) return;
          if (!emit(e)) {
            stop();
            res.end();
          }
        },
        end: () => res.end(),
      });
      res.once('close', stop);
    },
  };
}
