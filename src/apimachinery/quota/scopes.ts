/**
 * Quota scopes (core/v1 ResourceQuotaScope): a quota's `scopes` and `scopeSelector` as one list of requirements, and
 * whether a pod falls under one (podMatchesScopeFunc). Only pods have scopes; a scoped quota tracks nothing else.
 */
import { type JsonObject, type KubeObject, isPlainObject } from '../object.js';
import { podQOSIsBestEffort } from './pod-qos.js';

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** spec.scopes as `Exists` requirements, then spec.scopeSelector.matchExpressions (getScopeSelectorsFromQuota). */
export function scopeRequirementsOf(quota: KubeObject): ScopeRequirement[] {
  const spec = isPlainObject(quota.spec) ? quota.spec : {};
  const out: ScopeRequirement[] = [];
  for (const s of Array.isArray(spec.scopes) ? spec.scopes : []) out.push({ scopeName: String(s), operator: 'Exists' });
  const selector = isPlainObject(spec.scopeSelector) ? spec.scopeSelector : {};
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions.filter(isPlainObject) : []) {
    out.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return out;
}

function isTerminating(spec: JsonObject): boolean {
  return typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
}

function crossNamespaceTerms(terms: unknown, weighted: boolean): boolean {
  if (!Array.isArray(terms)) return false;
  return terms.filter(isPlainObject).some((t) => {
    const term = weighted ? (isPlainObject(t.podAffinityTerm) ? t.podAffinityTerm : {}) : t;
    return (Array.isArray(term.namespaces) && term.namespaces.length > 0) || (term.namespaceSelector !== undefined && term.namespaceSelector !== null);
  });
}

function usesCrossNamespacePodAffinity(spec: JsonObject): boolean {
  const affinity = isPlainObject(spec.affinity) ? spec.affinity : {};
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = isPlainObject(affinity[kind]) ? (affinity[kind] as JsonObject) : undefined;
    if (!a) continue;
    if (crossNamespaceTerms(a.requiredDuringSchedulingIgnoredDuringExecution, false)) return true;
    if (crossNamespaceTerms(a.preferredDuringSchedulingIgnoredDuringExecution, true)) return true;
  }
  return false;
}

/** A PriorityClass requirement as a label requirement on `{PriorityClass: <name>}` (an empty class is no label). */
function priorityClassMatches(r: ScopeRequirement, className: string): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return className !== '' && values.includes(className);
    case 'NotIn':
      return className === '' || !values.includes(className);
    case 'Exists':
      return className !== '';
    case 'DoesNotExist':
      return className === '';
    default:
      return false;
  }
}

export function podMatchesScope(r: ScopeRequirement, pod: KubeObject): boolean {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  switch (r.scopeName) {
    case 'Terminating':
      return isTerminating(spec);
    case 'NotTerminating':
      return !isTerminating(spec);
    case 'BestEffort':
      return podQOSIsBestEffort(spec);
    case 'NotBestEffort':
      return !podQOSIsBestEffort(spec);
    case 'PriorityClass':
      return priorityClassMatches(r, typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '');
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(spec);
    default:
      return false;
  }
}
