/**
 * Cooperation with kubectl's client-side apply annotation (fieldmanager lastappliedmanager.go and
 * lastappliedupdater.go). Both only act for the field manager `kubectl`, the one `kubectl apply --server-side` uses:
 *   - conflicts on fields whose live value is still what the last-applied annotation says are allowed, so switching
 *     an object from client-side to server-side apply does not conflict with `kubectl-client-side-apply`;
 *   - after such an apply, an existing annotation is rewritten to the new configuration, so that switching back to
 *     client-side apply computes the right three-way patch.
 */
import { deepCopy, type KubeObject, isPlainObject } from '../../apimachinery/object.js';
import { compareObjects } from './compare.js';
import type { FieldSet } from './field-set.js';
import { fieldSetOf } from './object-fields.js';
import { canonicalJson } from './path-element.js';
import type { SsaType } from './schema.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Fields of the live object's last-applied configuration that still hold the values it lists; undefined without one. */
export function allowedLastAppliedConflicts(live: KubeObject | null, root: SsaType): FieldSet | undefined {
  const raw = live?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (typeof raw !== 'string' || raw === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isPlainObject(lastApplied)) return undefined;
  const cmp = compareObjects(lastApplied, live, root);
  return fieldSetOf(lastApplied, root).difference(cmp.modified);
}

/**
 * `merged` with its last-applied annotation (when it has a non-empty one) set to `config` minus that annotation,
 * as compact JSON with sorted keys like Go's encoding of an unstructured object. Mutates and returns `merged`.
 */
export function syncLastApplied(merged: KubeObject, config: KubeObject): KubeObject {
  const annotations = merged.metadata?.annotations;
  if (!annotations || typeof annotations[LAST_APPLIED_ANNOTATION] !== 'string' || annotations[LAST_APPLIED_ANNOTATION] === '') return merged;
  const copy = deepCopy(config);
  if (copy.metadata?.annotations) delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  annotations[LAST_APPLIED_ANNOTATION] = canonicalJson(copy);
  return merged;
}
