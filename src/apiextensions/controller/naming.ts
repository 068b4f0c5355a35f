/**
 * The naming decision of apiextensions' naming controller: which names a CRD may be served under, given the names
 * the other CRDs of its group already hold, and the NamesAccepted condition that explains it.
 */
import type { CRDCondition, CRDNames, CustomResourceDefinition } from '../crd/types.js';

export interface NamingResult {
  acceptedNames: CRDNames;
  namesAccepted: Omit<CRDCondition, 'lastTransitionTime'>;
}

/** A requested name is fine when the CRD already holds it or nobody else does. */
function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (!requested || requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

/**
 * Decides acceptedNames and NamesAccepted for `crd` against `others` (the other CRDs of the same logical cluster).
 * Only CRDs of the same group compete. On a conflict the previously accepted names stay.
 */
export function calculateNames(crd: CustomResourceDefinition, others: CustomResourceDefinition[]): NamingResult {
  const requested = crd.spec.names;
  const accepted = crd.status?.acceptedNames ?? {};
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.metadata?.name === crd.metadata?.name || o.spec?.group !== crd.spec.group) continue;
    const n = o.status?.acceptedNames ?? {};
    for (const r of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) kinds.add(k);
  }
  const nameProblems = [
    conflict(requested.plural, accepted.plural, resources),
    conflict(requested.singular, accepted.singular, resources),
    ...(requested.shortNames ?? []).map((s) => (accepted.shortNames ?? []).includes(s) ? undefined : conflict(s, undefined, resources)),
  ].filter((x): x is string => !!x);
  if (nameProblems.length) {
    return { acceptedNames: accepted, namesAccepted: { type: 'NamesAccepted', status: 'False', reason: 'NameConflict', message: nameProblems[0]! } };
  }
  const kindProblem = conflict(requested.kind, accepted.kind, kinds) ?? conflict(requested.listKind, accepted.listKind, kinds);
  if (kindProblem) {
    return { acceptedNames: accepted, namesAccepted: { type: 'NamesAccepted', status: 'False', reason: 'KindConflict', message: kindProblem } };
  }
  const names: CRDNames = { plural: requested.plural, singular: requested.singular };
  if (requested.shortNames?.length) names.shortNames = [...requested.shortNames];
  names.kind = requested.kind;
  names.listKind = requested.listKind;
  if (requested.categories?.length) names.categories = [...requested.categories];
  return { acceptedNames: names, namesAccepted: { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' } };
}
