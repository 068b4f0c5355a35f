/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`): apply, and compute from two documents.
 *
 * Both functions are pure: inputs are never mutated and results share no structure with them.
 */

import { deepCloneJson, deleteOwn, getOwn, hasOwn, isJsonObject, jsonEqual, setOwn, type JsonObject } from './json-value.js';

/**
 * Applies merge patch `patch` to `original` (RFC 7386 §2):
 *   - a patch that is not an object (array, scalar, null) replaces the document wholesale;
 *   - otherwise each member of the patch is merged into the target (a non-object target counts as `{}`):
 *     `null` removes the member, an object recurses, anything else (arrays included) replaces it.
 * Nulls nested in a patch object that creates a new member are therefore dropped, while arrays are
 * taken as given. Keys such as `__proto__` are ordinary data.
 *
 * kube-apiserver additionally rejects non-object patch bodies before applying; that check lives in
 * apply-patch.ts, so this function stays a plain RFC 7386 implementation. (evanphx/json-patch, which
 * kube-apiserver uses, also strips null members of objects nested inside a new array value; for typed
 * objects that difference disappears when the result is decoded, so it is not reproduced.)
 */
export function applyMergePatch(original: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return deepCloneJson(patch);
  const target: JsonObject = isJsonObject(original) ? deepCloneJson(original) : {};
  mergeInto(target, patch);
  return target;
}

function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      deleteOwn(target, key);
    } else if (isJsonObject(value)) {
      const current = getOwn(target, key);
      const child: JsonObject = isJsonObject(current) ? current : {};
      mergeInto(child, value);
      setOwn(target, key, child);
    } else {
      setOwn(target, key, deepCloneJson(value));
    }
  }
}

/**
 * Computes a merge patch that turns `original` into `modified`, i.e.
 * `applyMergePatch(original, createMergePatch(original, modified))` equals `modified`:
 *   - members missing from `modified` become `null`;
 *   - members whose values are both objects are diffed recursively and kept only if something changed;
 *   - any other differing member (arrays included, since merge patch cannot edit arrays) carries the new value.
 * When either side is not an object, the patch is `modified` itself. Equal documents give `{}`.
 * Limitation inherent to RFC 7386: an explicit `null` inside `modified` cannot be expressed (it reads as a deletion).
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isJsonObject(original) || !isJsonObject(modified)) return deepCloneJson(modified);
  return diffObjects(original, modified);
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!hasOwn(modified, key)) setOwn(patch, key, null);
  }
  for (const key of Object.keys(modified)) {
    const after = modified[key];
    if (!hasOwn(original, key)) {
      setOwn(patch, key, deepCloneJson(after));
      continue;
    }
    const before = original[key];
    if (isJsonObject(before) && isJsonObject(after)) {
      const sub = diffObjects(before, after);
      if (Object.keys(sub).length > 0) setOwn(patch, key, sub);
    } else if (!jsonEqual(before, after)) {
      setOwn(patch, key, deepCloneJson(after));
    }
  }
  return patch;
}
