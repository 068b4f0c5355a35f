/**
 * What kube-apiserver 1.32 does to a new Pod's pod (anti-)affinity terms before validating it
 * (MatchLabelKeysInPodAffinity, beta and on): each key of matchLabelKeys / mismatchLabelKeys that the Pod's own labels
 * have becomes a `key In (value)` / `key NotIn (value)` expression of the term's selector. The scheduler then needs no
 * pod labels to evaluate the term, and validation sees — and rejects — a key that the selector already named.
 * Only Pods get this, on create; templates keep their terms as written.
 */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { list, obj, str } from './pod-validation-helpers.js';

function mergeInto(term: JsonObject, labels: JsonObject): void {
  const match = list(term.matchLabelKeys);
  const mismatch = list(term.mismatchLabelKeys);
  // A term without a selector matches nothing; upstream leaves it alone (validation then forbids its keys).
  if ((match.length === 0 && mismatch.length === 0) || !isPlainObject(term.labelSelector)) return;
  const selector = term.labelSelector;
  const added: JsonObject[] = [];
  for (const [keys, operator] of [[match, 'In'], [mismatch, 'NotIn']] as const) {
    for (const key of keys.map(str)) if (typeof labels[key] === 'string') added.push({ key, operator, values: [labels[key]] });
  }
  if (added.length) selector.matchExpressions = [...list(selector.matchExpressions), ...added];
}

/** Merges the label keys of every pod affinity and anti-affinity term of the Pod `pod`, in place. */
export function mergeAffinityLabelKeys(pod: JsonObject): void {
  const affinity = obj(obj(pod.spec).affinity);
  const labels = obj(obj(pod.metadata).labels);
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (!isPlainObject(a)) continue;
    for (const w of list(a.preferredDuringSchedulingIgnoredDuringExecution)) if (isPlainObject(w) && isPlainObject(w.podAffinityTerm)) mergeInto(w.podAffinityTerm, labels);
    for (const t of list(a.requiredDuringSchedulingIgnoredDuringExecution)) if (isPlainObject(t)) mergeInto(t, labels);
  }
}
