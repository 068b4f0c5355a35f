/**
 * A container's probes and lifecycle hooks, validated as kube-apiserver 1.32 does (validateLivenessProbe & co.,
 * validateLifecycle, validateHandler), with its messages and order. Probes run on the defaulted object: zero
 * timeouts, periods and thresholds are already 1/10/1/3 and an httpGet has its path and scheme, so those are never
 * reported missing — as upstream.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isValidPortName, isValidPortNum } from '../../../apimachinery/validation/network.js';
import { regexError } from '../../../apimachinery/validation/names.js';

const present = (v: unknown): v is JsonObject => isPlainObject(v);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** The handler types a probe may use, and those a lifecycle hook may use (gRPC for probes only, sleep for hooks only). */
const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'] as const;

/** ValidatePortNumOrName: a number in range, or an IANA service name. A missing port is the int-or-string zero. */
function portNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((msg) => fe.invalid(path, port, msg));
  const n = num(port);
  return isValidPortNum(n).map((msg) => fe.invalid(path, n, msg));
}

function httpGet(action: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof action.path !== 'string' || action.path === '') errs.push(fe.required(`${path}.path`));
  errs.push(...portNumOrName(action.port, `${path}.port`));
  const scheme = typeof action.scheme === 'string' ? action.scheme : '';
  if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(fe.notSupported(`${path}.scheme`, scheme, ['HTTP', 'HTTPS']));
  // Header errors name the list, not the header's index, as upstream's do.
  for (const header of Array.isArray(action.httpHeaders) ? action.httpHeaders : []) {
    const name = present(header) && typeof header.name === 'string' ? header.name : '';
    if (!/^[-A-Za-z0-9]+$/.test(name)) {
      errs.push(fe.invalid(`${path}.httpHeaders`, name, regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')));
    }
  }
  return errs;
}

/**
 * validateSleepAction with PodLifecycleSleepActionAllowZero off (its 1.32 default): more than 0 and at most the pod's
 * terminationGracePeriodSeconds.
 */
function sleep(action: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  const seconds = num(action.seconds);
  if (gracePeriod === undefined || (seconds > 0 && seconds <= gracePeriod)) return [];
  return [fe.invalid(path, seconds, `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`)];
}

function action(type: string, a: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  switch (type) {
    case 'exec':
      return Array.isArray(a.command) && a.command.length > 0 ? [] : [fe.required(`${path}.command`)];
    case 'httpGet':
      return httpGet(a, path);
    case 'tcpSocket':
    case 'grpc':
      return portNumOrName(a.port, `${path}.port`);
    default:
      return sleep(a, gracePeriod, path);
  }
}

/** validateHandler: the first handler set is checked, each further one is forbidden, none at all is required. */
function handler(h: JsonObject, types: readonly string[], gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const type of types) {
    const a = h[type];
    if (!present(a)) continue;
    if (count > 0) errs.push(fe.forbidden(`${path}.${type}`, 'may not specify more than 1 handler type'));
    else errs.push(...action(type, a, gracePeriod, `${path}.${type}`));
    count++;
  }
  if (count === 0) errs.push(fe.required(path, 'must specify a handler type'));
  return errs;
}

/** validateLifecycle: each hook that is set. */
export function validateLifecycle(lifecycle: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  return ['postStart', 'preStop'].flatMap((hook) => (present(lifecycle[hook]) ? handler(lifecycle[hook], LIFECYCLE_HANDLERS, gracePeriod, `${path}.${hook}`) : []));
}

/** validateProbe: the handler, non-negative timings and thresholds, a positive terminationGracePeriodSeconds. */
function probe(p: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  const errs = handler(p, PROBE_HANDLERS, gracePeriod, path);
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const v = num(p[field]);
    if (v < 0) errs.push(fe.invalid(`${path}.${field}`, v, 'must be greater than or equal to 0'));
  }
  const tgps = p.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0) errs.push(fe.invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  return errs;
}

/**
 * The three probes of a container (or sidecar) in upstream's order: liveness and startup need successThreshold 1;
 * a readiness probe may not set terminationGracePeriodSeconds (it never kills the container).
 */
export function validateProbes(c: JsonObject, gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const p = c[kind];
    if (!present(p)) continue;
    const at = `${path}.${kind}`;
    errs.push(...probe(p, gracePeriod, at));
    if (kind === 'readinessProbe') {
      const tgps = p.terminationGracePeriodSeconds;
      if (tgps !== undefined && tgps !== null) errs.push(fe.invalid(`${at}.terminationGracePeriodSeconds`, tgps, 'must not be set for readinessProbes'));
    } else if (num(p.successThreshold) !== 1) {
      errs.push(fe.invalid(`${at}.successThreshold`, num(p.successThreshold), 'must be 1'));
    }
  }
  return errs;
}
