import { type KubeObject, type ObjectMeta, isPlainObject, jsonEqual } from '../../apimachinery/object.js';

/**
 * dedupOwnerReferencesAndAddWarning (handlers/rest.go): an owner reference whose UID was seen before and that equals
 * one already kept is dropped, and the request gets a warning listing the dropped UIDs. Create and update do this
 * before and after mutating admission, a patch only after (its own wording).
 */
export function dedupOwnerReferences(obj: KubeObject, afterMutatingAdmission: boolean): string[] {
  const refs = isPlainObject(obj.metadata) ? obj.metadata.ownerReferences : undefined;
  if (!Array.isArray(refs) || refs.length < 2) return [];
  const kept: unknown[] = [];
  const seen = new Set<unknown>();
  const duplicates: string[] = [];
  for (const ref of refs) {
    const uid = isPlainObject(ref) ? (ref.uid ?? '') : undefined;
    if (!seen.has(uid) || !kept.some((k) => jsonEqual(k, ref))) {
      seen.add(uid);
      kept.push(ref);
    } else {
      duplicates.push(String(uid));
    }
  }
  if (duplicates.length === 0) return [];
  obj.metadata!.ownerReferences = kept as NonNullable<ObjectMeta['ownerReferences']>;
  const what = afterMutatingAdmission ? 'contains duplicate entries after mutating admission happens' : 'contains duplicate entries';
  return [
    `.metadata.ownerReferences ${what}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates.join(', ')}`,
  ];
}
