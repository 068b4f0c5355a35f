/**
 * The decision of the ResourceQuota admission plugin for one request against the quotas of its namespace
 * (k8s.io/apiserver pkg/admission/plugin/resourcequota CheckRequest): which quotas it falls under, what it adds to
 * their usage, and, when it would exceed one, upstream's refusal text. Pure: the plugin reads the quotas and writes
 * their new status.
 */
import { type KubeObject, isPlainObject } from '../../../apimachinery/object.js';
import type { QuotaEvaluator } from '../../../apimachinery/quota/evaluators.js';
import {
  type ResourceList,
  addResources,
  exceededResources,
  maskResources,
  negativeResources,
  prettyPrintResources,
  removeZeros,
  resourceListFrom,
  resourceListJSON,
  subtractNonNegative,
} from '../../../apimachinery/quota/resource-list.js';
import { scopeRequirementsOf } from '../../../apimachinery/quota/scopes.js';

export interface QuotaRequest {
  operation: 'CREATE' | 'UPDATE';
  object: KubeObject;
  /** The stored object an UPDATE replaces. */
  oldObject?: KubeObject;
}

/** Either the refusal (the text after `<resource> "<name>" is forbidden: `) or the quotas whose status.used grows. */
export type QuotaDecision = { refused: string } | { charged: KubeObject[] };

function hardOf(quota: KubeObject): ResourceList {
  return resourceListFrom(isPlainObject(quota.status) ? quota.status.hard : undefined);
}

function usedOf(quota: KubeObject): ResourceList {
  return resourceListFrom(isPlainObject(quota.status) ? quota.status.used : undefined);
}

/** generic.Matches: the quota limits something the evaluator accounts, and the object falls under all its scopes. */
function quotaMatches(quota: KubeObject, evaluator: QuotaEvaluator, obj: KubeObject): boolean {
  if (evaluator.matchingResources(hardOf(quota).keys()).length === 0) return false;
  return scopeRequirementsOf(quota).every((r) => evaluator.matchesScope(r, obj));
}

export function checkRequest(quotas: readonly KubeObject[], evaluator: QuotaEvaluator, req: QuotaRequest, now = Date.now()): QuotaDecision {
  const interesting: KubeObject[] = [];
  for (const quota of quotas) {
    if (!quotaMatches(quota, evaluator, req.object)) continue;
    const hard = hardOf(quota);
    const restricted = evaluator.matchingResources(hard.keys());
    const why = evaluator.constraints(restricted, req.object);
    if (why) return { refused: `failed quota: ${quota.metadata?.name}: ${why}` };
    const used = usedOf(quota);
    const unknown = restricted.filter((r) => hard.has(r) && !used.has(r));
    if (unknown.length > 0) return { refused: `status unknown for quota: ${quota.metadata?.name}, resources: ${[...restricted].sort().join(',')}` };
    interesting.push(quota);
  }
  let delta = evaluator.usage(req.object, now);
  const negative = negativeResources(delta);
  if (negative.length > 0) return { refused: `quota usage is negative for resource(s): ${negative.sort().join(',')}` };
  if (req.operation === 'UPDATE') {
    if (!req.oldObject) return { refused: 'unable to get previous usage since prior version of object was not found' };
    delta = subtractNonNegative(delta, evaluator.usage(req.oldObject, now));
  }
  delta = removeZeros(delta);
  if (delta.size === 0 || interesting.length === 0) return { charged: [] };

  const charged: KubeObject[] = [];
  for (const quota of interesting) {
    const hard = hardOf(quota);
    const used = usedOf(quota);
    const requested = maskResources(delta, hard.keys());
    const next = addResources(used, requested);
    const exceeded = exceededResources(maskResources(next, requested.keys()), hard);
    if (exceeded.length > 0) {
      return {
        refused:
          `exceeded quota: ${quota.metadata?.name}, requested: ${prettyPrintResources(maskResources(requested, exceeded))}, ` +
          `used: ${prettyPrintResources(maskResources(used, exceeded))}, limited: ${prettyPrintResources(maskResources(hard, exceeded))}`,
      };
    }
    if (requested.size === 0) continue;
    const status = isPlainObject(quota.status) ? quota.status : {};
    charged.push({ ...quota, status: { ...status, used: resourceListJSON(next) } });
  }
  return { charged };
}
