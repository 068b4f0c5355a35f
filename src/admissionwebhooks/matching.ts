/**
 * Request matching shared by admission webhooks and admission policies (k8s.io/apiserver pkg/admission/plugin/webhook
 * predicates/rules, predicates/namespace, predicates/object): rules against a request's operation, resource and
 * scope, object selectors against the new or old object's labels, namespace selectors against the namespace's labels.
 */
import type { KubeObject } from '../apimachinery/object.js';
import { isPlainObject } from '../apimachinery/object.js';
import { fromLabelSelector } from '../apimachinery/labels/selector.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { ResourceDefinition } from '../registry/rest.js';
import type { AdmissionAttributes } from '../apiserver/admission/admission.js';

type Hook = Record<string, unknown>;

/** Configurations and resources exempt from webhooks (rules.IsExemptAdmissionConfigurationResource). */
export function exempt(def: ResourceDefinition): boolean {
  return (
    def.group === 'admissionregistration.k8s.io' &&
    ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'].includes(def.resource)
  );
}

export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** rules.Matcher for one rule against a request's operation, resource and scope, as `def` (the resource, or an equivalent). */
export function ruleMatches(rule: Hook, a: AdmissionAttributes, def: ResourceDefinition): boolean {
  const ops = strings(rule.operations);
  if (!ops.includes('*') && !ops.includes(a.operation)) return false;
  const groups = strings(rule.apiGroups);
  if (!groups.includes('*') && !groups.includes(def.group)) return false;
  const versions = strings(rule.apiVersions);
  if (!versions.includes('*') && !versions.includes(def.version)) return false;
  const scope = rule.scope ?? '*';
  const isNamespaceObject = def.group === '' && def.resource === 'namespaces';
  const namespaced = a.namespace !== '' && def.namespaced;
  if (scope === 'Namespaced' && (isNamespaceObject || !namespaced)) return false;
  if (scope === 'Cluster' && !(isNamespaceObject || !namespaced)) return false;
  const sub = a.subresource ?? '';
  return strings(rule.resources).some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const rsub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === def.resource) && (rsub === '*' || rsub === sub);
  });
}

/**
 * The logical cluster whose webhook configurations and admission policies review a request, as kcp decides it
 * (getSourceClusterForGroupResource): the APIExport's for a resource bound from one, else the request's own.
 */
export function configurationCluster(a: AdmissionAttributes): string {
  return a.def.apiExportCluster ?? a.ctx.cluster;
}

/**
 * An object selector (empty or unset matches everything) against the new or the old object's labels. A CONNECT's
 * options have no object metadata, so a selector never matches them (upstream: meta.Accessor fails, no match).
 */
export function objectSelectorMatches(sel: unknown, a: AdmissionAttributes): boolean {
  if (!isPlainObject(sel) || Object.keys(sel).length === 0) return true;
  const selector = fromLabelSelector(sel as never);
  const matches = (o?: KubeObject) => !!o && a.kind === undefined && selector.matches(o.metadata?.labels ?? {});
  return matches(a.object) || matches(a.oldObject);
}

/** namespace.Matcher: cluster-scoped objects always match, except Namespaces, matched by their own labels. */
export async function namespaceSelectorMatches(registry: ResourceRegistry, sel: unknown, a: AdmissionAttributes): Promise<boolean> {
  if (!isPlainObject(sel) || Object.keys(sel).length === 0) return true;
  const isNamespace = a.def.group === '' && a.def.resource === 'namespaces';
  if (!a.namespace && !isNamespace) return true;
  const selector = fromLabelSelector(sel as never);
  if (isNamespace && !a.subresource) {
    const own = a.object ?? a.oldObject;
    if (own) return selector.matches(own.metadata?.labels ?? {});
  }
  const name = isNamespace ? a.name : a.namespace;
  const store = registry.lookup(a.ctx.cluster, '', 'v1', 'namespaces');
  const ns = await store!.get({ cluster: a.ctx.cluster, user: { username: 'system:apiserver', groups: ['system:masters'] } }, '', name);
  return selector.matches(ns.metadata?.labels ?? {});
}
