/**
 * The namespace deletion conditions, as kube-controller-manager's namespace deleter reports them: five condition types,
 * each False with an "ok" reason/message when that part went well, True with details when it did not. Pure functions.
 */

import { setStatusCondition } from '../../apimachinery/conditions.js';

export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Condition types the namespace controller owns, in the order they are added to status.conditions. */
export const namespaceConditionTypes = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

export type NamespaceConditionType = (typeof namespaceConditionTypes)[number];

const okReasons: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};

const okMessages: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure: 'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};

/** What one pass of content deletion found. */
export interface DeletionOutcome {
  /** /api or /apis could not be read at all. */
  discoveryError?: string;
  /** Group versions whose resource lists failed: groupVersion → message. */
  failedGroups?: Map<string, string>;
  unparsableGroupVersions?: string[];
  /** One message per resource whose deletion failed. */
  contentErrors: string[];
  /** Objects still present, by `<resource>.<group>` (group may be empty: `configmaps.`). */
  remainingByResource: Map<string, number>;
  /** Objects still present, by finalizer. */
  remainingByFinalizer: Map<string, number>;
}

/** The failing ("True") conditions an outcome calls for; types not returned are to be set to their ok variant. */
export function failingConditions(o: DeletionOutcome, now: string): NamespaceCondition[] {
  const out: NamespaceCondition[] = [];
  const failed = (type: NamespaceConditionType, reason: string, message: string) =>
    out.push({ type, status: 'True', lastTransitionTime: now, reason, message });
  if (o.discoveryError !== undefined) {
    failed('NamespaceDeletionDiscoveryFailure', 'DiscoveryFailed', o.discoveryError);
  } else if (o.failedGroups && o.failedGroups.size > 0) {
    const parts = [...o.failedGroups].sort(([a], [b]) => a.localeCompare(b)).map(([gv, msg]) => `${gv}: ${msg}`);
    failed(
      'NamespaceDeletionDiscoveryFailure',
      'DiscoveryFailed',
      `Discovery failed for some groups, ${o.failedGroups.size} failing: unable to retrieve the complete list of server APIs: ${parts.join(', ')}`,
    );
  }
  if (o.unparsableGroupVersions && o.unparsableGroupVersions.length > 0) {
    failed('NamespaceDeletionGroupVersionParsingFailure', 'GroupVersionParsingFailed', o.unparsableGroupVersions.map((gv) => `unexpected GroupVersion string: ${gv}`).join(', '));
  }
  if (o.contentErrors.length > 0) {
    const msgs = [...o.contentErrors].sort();
    failed('NamespaceDeletionContentFailure', 'ContentDeletionFailed', `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`);
  }
  const remaining = [...o.remainingByResource].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
  if (o.remainingByResource.size > 0) {
    failed('NamespaceContentRemaining', 'SomeResourcesRemain', `Some resources are remaining: ${remaining.join(', ')}`);
  }
  const byFinalizer = [...o.remainingByFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
  if (o.remainingByFinalizer.size > 0) {
    failed('NamespaceFinalizersRemaining', 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${byFinalizer.join(', ')}`);
  }
  return out;
}

/** The ok ("False") variant of a condition type. */
export function successfulCondition(type: NamespaceConditionType, now: string): NamespaceCondition {
  return { type, status: 'False', lastTransitionTime: now, reason: okReasons[type], message: okMessages[type] };
}

/**
 * Merges the desired state of the five owned condition types into existing conditions (the deleter's
 * updateConditions): missing ones are appended in the canonical order, changed ones are updated in place
 * (lastTransitionTime moves only when status flips: setStatusCondition), other condition types are kept as they are.
 * Returns the new list and whether anything changed.
 */
export function mergeNamespaceConditions(
  existing: NamespaceCondition[],
  failing: NamespaceCondition[],
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const conditions = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const type of namespaceConditionTypes) {
    if (setStatusCondition(conditions, failing.find((c) => c.type === type) ?? successfulCondition(type, now), now)) changed = true;
  }
  return { conditions, changed };
}
