/**
 * Quota evaluators (k8s.io/kubernetes pkg/quota/v1/evaluator/core and k8s.io/apiserver pkg/quota/v1/generic): for one
 * group/resource, which quota resource names it can account, what one object uses, which operations change usage and
 * whether an object falls under a quota's scopes. Pure functions over objects; admission and the quota controller
 * share them.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../object.js';
import { type ExactQuantity, compareQuantity, parseExactQuantity, quantityOf } from '../exact-quantity.js';
import { type ResourceList, addResources } from './resource-list.js';
import {
  HUGEPAGES_PREFIX,
  REQUESTS_PREFIX,
  isExtendedResourceName,
  isNativeResource,
  isQuotaHugePageResourceName,
  legacyCountNames,
  objectCountName,
} from './resource-names.js';
import { type ScopeRequirement, podMatchesScope } from './scopes.js';

export interface QuotaEvaluator {
  readonly group: string;
  readonly resource: string;
  /** The names of `names` this evaluator accounts (MatchingResources). */
  matchingResources(names: Iterable<string>): string[];
  /** Whether an admission request of this operation on this subresource can change usage (Handles). */
  handles(operation: string, subresource: string): boolean;
  /** What the object uses (Usage); `now` decides whether a pod past its deletion grace period still counts. */
  usage(obj: KubeObject, now?: number): ResourceList;
  /** Whether the object falls under one scope requirement; resources without scopes never do (MatchesNoScopeFunc). */
  matchesScope(requirement: ScopeRequirement, obj: KubeObject): boolean;
  /** Why the object cannot be admitted under a quota limiting `required` ("must specify ..."), or undefined. */
  constraints(required: string[], obj: KubeObject): string | undefined;
}

const one = () => quantityOf(1);

/** Counts objects: `count/<resource>.<group>` and, for some core kinds, a legacy alias; only creates change it. */
function objectCountEvaluator(group: string, resource: string, alias?: string): QuotaEvaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    matchingResources: (input) => [...input].filter((n) => names.includes(n)),
    handles: (op, sub) => sub === '' && op === 'CREATE',
    usage: () => new Map(names.map((n) => [n, one()])),
    matchesScope: () => false,
    constraints: () => undefined,
  };
}

const serviceNames = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

const serviceEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'services',
  matchingResources: (input) => [...input].filter((n) => serviceNames.includes(n)),
  handles: (op, sub) => sub === '' && (op === 'CREATE' || op === 'UPDATE'),
  usage(obj) {
    const spec = isPlainObject(obj.spec) ? obj.spec : {};
    const ports = Array.isArray(spec.ports) ? spec.ports.filter(isPlainObject) : [];
    let nodePorts = 0;
    let loadBalancers = 0;
    if (spec.type === 'NodePort') nodePorts = ports.length;
    if (spec.type === 'LoadBalancer') {
      loadBalancers = 1;
      // Without node port allocation only the ports that name one count; unset means allocate (the default).
      nodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => p.nodePort).length : ports.length;
    }
    return new Map([
      ['count/services', one()],
      ['services', one()],
      ['services.loadbalancers', quantityOf(loadBalancers)],
      ['services.nodeports', quantityOf(nodePorts)],
    ]);
  },
  matchesScope: () => false,
  constraints: () => undefined,
};

const pvcNames = ['count/persistentvolumeclaims', 'persistentvolumeclaims', 'requests.storage'];
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** The claim's storage class: spec.storageClassName, or the beta annotation older clients set. */
function claimClass(obj: KubeObject): string {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  if (typeof spec.storageClassName === 'string') return spec.storageClassName;
  return obj.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '';
}

const pvcEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  matchingResources(input) {
    return [...input].filter((n) => pvcNames.includes(n) || (n.includes(STORAGE_CLASS_SUFFIX) && /(requests\.storage|persistentvolumeclaims)$/.test(n)));
  },
  handles: (op, sub) => sub === '' && (op === 'CREATE' || op === 'UPDATE'),
  usage(obj) {
    const out: ResourceList = new Map([['count/persistentvolumeclaims', one()], ['persistentvolumeclaims', one()]]);
    const cls = claimClass(obj);
    if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, one());
    const spec = isPlainObject(obj.spec) ? obj.spec : {};
    const requests = isPlainObject(spec.resources) && isPlainObject(spec.resources.requests) ? spec.resources.requests : {};
    // The larger of the request and what the status says is allocated (a resize in progress counts in full).
    let storage = quantityFrom(requests.storage);
    const status = isPlainObject(obj.status) ? obj.status : {};
    const allocated = isPlainObject(status.allocatedResources) ? quantityFrom(status.allocatedResources.storage) : undefined;
    if (allocated && (!storage || compareQuantity(allocated, storage) > 0)) storage = allocated;
    if (storage) {
      out.set('requests.storage', storage);
      if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
    }
    return out;
  },
  matchesScope: () => false,
  constraints: () => undefined,
};

function quantityFrom(v: unknown): ExactQuantity | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return parseExactQuantity(v);
  } catch {
    return undefined;
  }
}

const podNames = [
  'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods',
];
/** The names "must specify" checks: a quota on any of these needs every container to state it. */
const podConstraintNames = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

type Resources = Record<string, unknown>;

interface ContainerResources {
  requests: Resources;
  limits: Resources;
}

/** A container's requests as pod defaulting will leave them: a limit with no request is also the request. */
function containerResources(c: JsonObject): ContainerResources {
  const res = isPlainObject(c.resources) ? c.resources : {};
  const limits = isPlainObject(res.limits) ? res.limits : {};
  const requests = { ...limits, ...(isPlainObject(res.requests) ? res.requests : {}) };
  return { requests, limits };
}

/** podComputeUsageHelper: the quota names one set of requests and limits uses, plus one pod. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', one()]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(REQUESTS_PREFIX + r, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [r, q] of requests) {
    if (r.startsWith(HUGEPAGES_PREFIX)) {
      out.set(r, q);
      out.set(REQUESTS_PREFIX + r, q);
    }
    if (isExtendedResourceName(r)) out.set(REQUESTS_PREFIX + r, q);
  }
  return out;
}

function listOf(values: Resources): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of Object.entries(values)) {
    const q = quantityFrom(v);
    if (q) out.set(k, q);
  }
  return out;
}

function maxResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const mine = out.get(k);
    if (!mine || compareQuantity(v, mine) > 0) out.set(k, v);
  }
  return out;
}

/**
 * PodRequests / PodLimits (k8s.io/component-helpers resource): the containers' sum (sidecars, restartable init
 * containers, included), raised per resource to what any other init container needs while the sidecars started
 * before it run, plus the pod overhead.
 */
function podTotals(spec: JsonObject, pick: (c: ContainerResources) => Resources): ResourceList {
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isPlainObject) : [];
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers.filter(isPlainObject) : [];
  let sum: ResourceList = new Map();
  for (const c of containers) sum = addResources(sum, listOf(pick(containerResources(c))));
  let sidecars: ResourceList = new Map();
  let initMax: ResourceList = new Map();
  for (const c of inits) {
    const own = listOf(pick(containerResources(c)));
    if (c.restartPolicy === 'Always') {
      sum = addResources(sum, own);
      sidecars = addResources(sidecars, own);
      initMax = maxResources(initMax, sidecars);
    } else {
      initMax = maxResources(initMax, addResources(own, sidecars));
    }
  }
  let total = maxResources(sum, initMax);
  if (isPlainObject(spec.overhead)) total = addResources(total, listOf(spec.overhead));
  return total;
}

/** QuotaV1Pod: terminal pods, and pods past their deletion grace period, use nothing but their count. */
function podCountsCompute(pod: KubeObject, now: number): boolean {
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion && typeof grace === 'number' && now > Date.parse(deletion) + grace * 1000) return false;
  return true;
}

const podEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'pods',
  matchingResources(input) {
    return [...input].filter((n) => podNames.includes(n) || isQuotaHugePageResourceName(n) || (n.startsWith(REQUESTS_PREFIX) && !isNativeResource(n)));
  },
  // In-place resize (the resize subresource) is off in 1.32, so only creates change a pod's usage.
  handles: (op, sub) => sub === '' && op === 'CREATE',
  usage(pod, now = Date.now()) {
    const out: ResourceList = new Map([['count/pods', one()]]);
    if (!podCountsCompute(pod, now)) return out;
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    return addResources(out, computeUsage(podTotals(spec, (c) => c.requests), podTotals(spec, (c) => c.limits)));
  },
  matchesScope: (requirement, pod) => podMatchesScope(requirement, pod),
  constraints(required, pod) {
    const wanted = required.filter((r) => podConstraintNames.includes(r));
    if (wanted.length === 0) return undefined;
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    const missing = new Map<string, Set<string>>();
    const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isPlainObject);
    for (const c of containers) {
      const { requests, limits } = containerResources(c);
      const has = computeUsage(listOf(requests), listOf(limits));
      for (const r of wanted) {
        if (has.has(r)) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(String(c.name ?? ''));
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

const special: Record<string, QuotaEvaluator> = {
  '/pods': podEvaluator,
  '/services': serviceEvaluator,
  '/persistentvolumeclaims': pvcEvaluator,
};

const cache = new Map<string, QuotaEvaluator>();

/**
 * The evaluator of a group/resource: pods, services and persistentvolumeclaims have their own; configmaps, secrets,
 * replicationcontrollers and resourcequotas count under their legacy names too; any other resource (custom
 * resources included) counts as `count/<resource>.<group>`.
 */
export function evaluatorFor(group: string, resource: string): QuotaEvaluator {
  const key = `${group}/${resource}`;
  const found = special[key] ?? cache.get(key);
  if (found) return found;
  const alias = group === '' && legacyCountNames[resource] ? legacyCountNames[resource] : undefined;
  const made = objectCountEvaluator(group, resource, alias);
  cache.set(key, made);
  return made;
}

/**
 * The group/resource a quota resource name is accounted on, or undefined for names no evaluator computes (a quota
 * may still hold them; their usage then stays as admission left it). Compute names map to pods, storage names to
 * persistentvolumeclaims.
 */
export function groupResourceOfQuotaName(name: string): { group: string; resource: string } | undefined {
  if (name.startsWith('count/')) {
    const rest = name.slice('count/'.length);
    const dot = rest.indexOf('.');
    return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
  }
  for (const e of [serviceEvaluator, pvcEvaluator, podEvaluator]) if (e.matchingResources([name]).length > 0) return { group: e.group, resource: e.resource };
  for (const [resource, alias] of Object.entries(legacyCountNames)) if (alias === name) return { group: '', resource };
  return undefined;
}

/** A pod's effective requests and limits (PodRequests, PodLimits), as the LimitRanger's Pod limits compare them. */
export function podResourceTotals(spec: JsonObject): { requests: ResourceList; limits: ResourceList } {
  return { requests: podTotals(spec, (c) => c.requests), limits: podTotals(spec, (c) => c.limits) };
}
