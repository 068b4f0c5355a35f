/**
 * The LimitRanger's rules (plugin/pkg/admission/limitranger): the defaults a LimitRange's Container item gives pod
 * containers, and the min/max/maxLimitRequestRatio checks for Container, Pod and PersistentVolumeClaim items, with
 * upstream's messages. Pure functions over objects.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import { type ExactQuantity, formatQuantity, parseExactQuantity, quantityMilliValue, quantityValue } from '../../../apimachinery/exact-quantity.js';
import { podResourceTotals } from '../../../apimachinery/quota/evaluators.js';
import { type ResourceList, resourceListFrom } from '../../../apimachinery/quota/resource-list.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

function items(limitRange: KubeObject): JsonObject[] {
  const spec = isPlainObject(limitRange.spec) ? limitRange.spec : {};
  return Array.isArray(spec.limits) ? spec.limits.filter(isPlainObject) : [];
}

function containersOf(pod: KubeObject): { containers: JsonObject[]; inits: JsonObject[] } {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return {
    containers: Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [],
    inits: Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : [],
  };
}

function resourcesOf(c: JsonObject): { requests: JsonObject; limits: JsonObject } {
  const res = (c.resources = isPlainObject(c.resources) ? c.resources : {});
  const requests = (res.requests = isPlainObject(res.requests) ? res.requests : {});
  const limits = (res.limits = isPlainObject(res.limits) ? res.limits : {});
  return { requests, limits };
}

/**
 * Pod defaulting as decoding does it before admission upstream (here it runs later, in the pod strategy): a container
 * limit with no request is also the request. Done first, so a LimitRange default request never replaces it.
 */
export function defaultRequestsFromLimits(pod: KubeObject): void {
  const { containers, inits } = containersOf(pod);
  for (const c of [...containers, ...inits]) {
    if (!isPlainObject(c.resources) || !isPlainObject(c.resources.limits)) continue;
    const { requests, limits } = resourcesOf(c);
    for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
  }
}

/** PodMutateLimitFunc: fills each container's missing requests and limits from Container items; notes what it set. */
export function applyContainerDefaults(limitRange: KubeObject, pod: KubeObject): void {
  const defaultRequests: JsonObject = {};
  const defaultLimits: JsonObject = {};
  for (const item of items(limitRange)) {
    if (item.type !== 'Container') continue;
    Object.assign(defaultRequests, isPlainObject(item.defaultRequest) ? item.defaultRequest : {});
    Object.assign(defaultLimits, isPlainObject(item.default) ? item.default : {});
  }
  const notes: string[] = [];
  const { containers, inits } = containersOf(pod);
  const merge = (c: JsonObject, prefix: string) => {
    const had = isPlainObject(c.resources);
    const { requests, limits } = resourcesOf(c);
    const setLimits = Object.keys(defaultLimits).filter((k) => limits[k] === undefined);
    const setRequests = Object.keys(defaultRequests).filter((k) => requests[k] === undefined);
    for (const k of setLimits) limits[k] = defaultLimits[k];
    for (const k of setRequests) requests[k] = defaultRequests[k];
    if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${prefix} ${String(c.name ?? '')}`);
    if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${String(c.name ?? '')}`);
    const res = c.resources as JsonObject;
    if (Object.keys(limits).length === 0) delete res.limits;
    if (Object.keys(requests).length === 0) delete res.requests;
    if (!had && Object.keys(res).length === 0) delete c.resources;
  };
  for (const c of containers) merge(c, 'container');
  for (const c of inits) merge(c, 'init container');
  if (notes.length > 0) {
    const meta = (pod.metadata ??= {});
    meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

/** requestLimitEnforcedValues: milli-units unless any value is too large for them. */
function comparable(...qs: (ExactQuantity | undefined)[]): bigint[] {
  const zero = { nanos: 0n, format: 'DecimalSI' as const };
  const values = qs.map((q) => quantityValue(q ?? zero));
  if (values.every((v) => v <= MAX_MILLI_VALUE)) return qs.map((q) => quantityMilliValue(q ?? zero));
  return values;
}

type Check = (type: string, name: string, enforced: ExactQuantity, requests: ResourceList, limits: ResourceList) => string | undefined;

const s = formatQuantity;

const minConstraint: Check = (type, name, enforced, requests, limits) => {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${s(enforced)}.  No request is specified`;
  if (r! < e!) return `minimum ${name} usage per ${type} is ${s(enforced)}, but request is ${s(req)}`;
  if (lim && l! < e!) return `minimum ${name} usage per ${type} is ${s(enforced)}, but limit is ${s(lim)}`;
  return undefined;
};

const maxRequestConstraint: Check = (type, name, enforced, requests) => {
  const req = requests.get(name);
  const [r, , e] = comparable(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${s(enforced)}.  No request is specified`;
  if (r! > e!) return `maximum ${name} usage per ${type} is ${s(enforced)}, but request is ${s(req)}`;
  return undefined;
};

const maxConstraint: Check = (type, name, enforced, requests, limits) => {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${s(enforced)}.  No limit is specified`;
  if (l! > e!) return `maximum ${name} usage per ${type} is ${s(enforced)}, but limit is ${s(lim)}`;
  if (req && r! > e!) return `maximum ${name} usage per ${type} is ${s(enforced)}, but request is ${s(req)}`;
  return undefined;
};

const ratioConstraint: Check = (type, name, enforced, requests, limits) => {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced);
  if (!req || r === 0n) return `${name} max limit to request ratio per ${type} is ${s(enforced)}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${name} max limit to request ratio per ${type} is ${s(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  let ratio = observed;
  let max = Number(quantityValue(enforced));
  if (quantityValue(enforced) <= MAX_MILLI_VALUE) {
    ratio = observed * 1000;
    max = Number(quantityMilliValue(enforced));
  }
  if (ratio > max) return `${name} max limit to request ratio per ${type} is ${s(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
};

function run(check: Check, type: string, bounds: unknown, requests: ResourceList, limits: ResourceList, out: string[]): void {
  if (!isPlainObject(bounds)) return;
  for (const name of Object.keys(bounds).sort()) {
    let enforced: ExactQuantity;
    try {
      enforced = parseExactQuantity(bounds[name]);
    } catch {
      continue;
    }
    const why = check(type, name, enforced, requests, limits);
    if (why) out.push(why);
  }
}

/** PodValidateLimitFunc: every violation of the Container and Pod items. */
export function podViolations(limitRange: KubeObject, pod: KubeObject): string[] {
  const out: string[] = [];
  const { containers, inits } = containersOf(pod);
  for (const item of items(limitRange)) {
    if (item.type === 'Container') {
      for (const c of [...containers, ...inits]) {
        const res = isPlainObject(c.resources) ? c.resources : {};
        const requests = resourceListFrom(res.requests);
        const limits = resourceListFrom(res.limits);
        run(minConstraint, 'Container', item.min, requests, limits, out);
        run(maxConstraint, 'Container', item.max, requests, limits, out);
        run(ratioConstraint, 'Container', item.maxLimitRequestRatio, requests, limits, out);
      }
    }
    if (item.type === 'Pod') {
      const { requests, limits } = podResourceTotals(isPlainObject(pod.spec) ? pod.spec : {});
      run(minConstraint, 'Pod', item.min, requests, limits, out);
      run(maxConstraint, 'Pod', item.max, requests, limits, out);
      run(ratioConstraint, 'Pod', item.maxLimitRequestRatio, requests, limits, out);
    }
  }
  return out;
}

/** PersistentVolumeClaimValidateLimitFunc: the claim's storage request against PersistentVolumeClaim items. */
export function claimViolations(limitRange: KubeObject, claim: KubeObject): string[] {
  const out: string[] = [];
  const spec = isPlainObject(claim.spec) ? claim.spec : {};
  const requests = resourceListFrom(isPlainObject(spec.resources) ? spec.resources.requests : undefined);
  for (const item of items(limitRange)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    run(minConstraint, 'PersistentVolumeClaim', item.min, requests, new Map(), out);
    run(maxRequestConstraint, 'PersistentVolumeClaim', item.max, requests, new Map(), out);
  }
  return out;
}

/** utilerrors.NewAggregate's text: one message alone, several in brackets. */
export function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
