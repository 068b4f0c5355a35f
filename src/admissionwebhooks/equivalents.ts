/**
 * matchPolicy Equivalent (k8s.io/apiserver pkg/admission/plugin/webhook/generic/webhook.go, policy/matching): a rule
 * that does not name the request's own group and version still matches when it names an equivalent resource, one
 * served over the same storage (upstream's EquivalentResourceMapper): the other versions of a custom resource, the
 * other version of HorizontalPodAutoscalers (autoscaling/v1 and v2), the other group of Events (core/v1 and
 * events.k8s.io/v1). The webhook or policy then sees the object converted to the kind it matched (kind and resource),
 * while requestKind and requestResource keep the request's.
 *
 * Equivalents are found among the definitions the request's logical cluster serves that share the resource name and
 * the storage key; a request looks them up at most once, and only when some rule could name one.
 */
import { groupVersionString } from '../apimachinery/api-resource.js';
import { type KubeObject, deepCopy } from '../apimachinery/object.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ResourceDefinition } from '../registry/rest.js';
import type { AdmissionAttributes } from '../apiserver/admission/admission.js';
import { strings } from './matching.js';

type Rule = Record<string, unknown>;

const storageKey = (d: ResourceDefinition) => `${d.storage?.group ?? d.group}/${d.storage?.resource ?? d.resource}`;
const memo = new WeakMap<AdmissionAttributes, ResourceDefinition[]>();

/** Whether a rule lists the request's resource name (or any): only then can it name an equivalent. */
function mayNameEquivalent(rule: Rule, a: AdmissionAttributes): boolean {
  return strings(rule.resources).some((r) => {
    const res = r.split('/')[0];
    return res === '*' || res === a.def.resource;
  });
}

/** The other served definitions over the request's storage (never the request's own group and version). */
function equivalentsOf(registry: ResourceRegistry, a: AdmissionAttributes): ResourceDefinition[] {
  let out = memo.get(a);
  if (out) return out;
  const key = storageKey(a.def);
  out = registry
    .resources(a.ctx.cluster)
    .filter((d) => d.resource === a.def.resource && (d.group !== a.def.group || d.version !== a.def.version) && storageKey(d) === key && !d.terminating);
  memo.set(a, out);
  return out;
}

/** The first equivalent definition one of `rules` matches (`matches` is the caller's rule matcher), if any. */
export function equivalentMatch(registry: ResourceRegistry, rules: Rule[], a: AdmissionAttributes, matches: (rule: Rule, def: ResourceDefinition) => boolean): ResourceDefinition | undefined {
  // A CONNECT reviews a connect subresource's options, which have no versions of their own here.
  if (a.operation === 'CONNECT') return undefined;
  const candidates = rules.filter((r) => mayNameEquivalent(r, a));
  if (candidates.length === 0) return undefined;
  for (const def of equivalentsOf(registry, a)) if (candidates.some((r) => matches(r, def))) return def;
  return undefined;
}

/** Whether objects of the request are the resource's own kind (not a Scale, not connect options), so they convert. */
export function convertible(a: AdmissionAttributes): boolean {
  return a.kind === undefined && !(a.subresource && a.def.subresourceStrategies[a.subresource]?.view);
}

/**
 * An object of `from` as `to` serves it, through their shared storage form (the synchronous conversions: Events,
 * HorizontalPodAutoscalers, custom resource versions without a conversion webhook). `o` is not changed.
 */
export function convertBetween(o: KubeObject, from: ResourceDefinition, to: ResourceDefinition): KubeObject {
  if (from === to) return o;
  let out = deepCopy(o);
  if (from.storage && !from.storage.converter) out = from.storage.toStorage(out);
  if (to.storage && !to.storage.converter) out = to.storage.fromStorage(out);
  return { ...out, apiVersion: groupVersionString(to.group, to.version), kind: to.kind };
}
