/**
 * The single entry the PATCH handler uses: map the request's Content-Type to a patch type and apply the
 * body to the current object, failing with the StatusError kube-apiserver would send.
 *
 * Server-side apply (`application/apply-patch+yaml`) is recognised here but applied elsewhere.
 *
 * A `metadata.resourceVersion` inside any patch simply lands in the patched object; the update that
 * follows compares it with the stored object's and answers 409 Conflict on a mismatch, which is how
 * kube-apiserver turns it into a precondition (kubectl diff and client-side apply rely on that).
 */

import { errors } from '../apimachinery/status.js';
import { applyJsonPatch } from './json-patch.js';
import { isJsonObject, jsonKindName } from './json-value.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatchRequest, type StrategicMergePatchSchema } from './strategic-merge-patch.js';

/** Patch types atrium applies itself. */
export type PatchType = 'json' | 'merge' | 'strategic';

export const JSON_PATCH_CONTENT_TYPE = 'application/json-patch+json';
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH_CONTENT_TYPE = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

const CONTENT_TYPES: Record<string, PatchType | 'apply'> = {
  [JSON_PATCH_CONTENT_TYPE]: 'json',
  [MERGE_PATCH_CONTENT_TYPE]: 'merge',
  [STRATEGIC_MERGE_PATCH_CONTENT_TYPE]: 'strategic',
  [APPLY_PATCH_CONTENT_TYPE]: 'apply',
};

/**
 * The patch type a PATCH request's Content-Type names, or undefined when it names none.
 * Like kube-apiserver, everything from the first `;` on (e.g. `; charset=utf-8`) is ignored and the
 * rest must match exactly (case-sensitive, no surrounding whitespace).
 */
export function patchTypeFromContentType(contentType: string | undefined): PatchType | 'apply' | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  const mediaType = semicolon > 0 ? contentType.slice(0, semicolon) : contentType;
  return Object.prototype.hasOwnProperty.call(CONTENT_TYPES, mediaType) ? CONTENT_TYPES[mediaType] : undefined;
}

/**
 * The Content-Types a resource accepts for PATCH, in kube-apiserver's order (used in the 415 message).
 * Custom resources have no strategic merge patch.
 */
export function supportedPatchContentTypes(strategicMergePatch: boolean): string[] {
  return strategicMergePatch
    ? [JSON_PATCH_CONTENT_TYPE, MERGE_PATCH_CONTENT_TYPE, STRATEGIC_MERGE_PATCH_CONTENT_TYPE, APPLY_PATCH_CONTENT_TYPE]
    : [JSON_PATCH_CONTENT_TYPE, MERGE_PATCH_CONTENT_TYPE, APPLY_PATCH_CONTENT_TYPE];
}

/**
 * Applies `patchBody` (already JSON-decoded) of the given type to `original` and returns the patched
 * document; inputs are not mutated.
 *   - json: RFC 6902, see json-patch.ts (400 malformed body, 413 too many operations, 422 failed operation);
 *   - merge: RFC 7386; the body must be a JSON object, as kube-apiserver's strict pre-decode demands
 *     (400 `error decoding patch: json: cannot unmarshal <kind> into Go value of type map[string]interface {}`,
 *     and 400 `Invalid JSON Patch` for `null`);
 *   - strategic: needs `schema` (the object's type in the catalog); without one the resource does not
 *     support it, which kube-apiserver reports as 415 listing the other patch types.
 */
export function applyPatch(patchType: PatchType, original: unknown, patchBody: unknown, schema?: StrategicMergePatchSchema): unknown {
  switch (patchType) {
    case 'json':
      return applyJsonPatch(original, patchBody);
    case 'merge':
      if (patchBody === null) throw errors.badRequest('Invalid JSON Patch');
      if (!isJsonObject(patchBody)) {
        throw errors.badRequest(
          `error decoding patch: json: cannot unmarshal ${jsonKindName(patchBody)} into Go value of type map[string]interface {}`,
        );
      }
      return applyMergePatch(original, patchBody);
    case 'strategic': {
      if (!schema) {
        throw errors.unsupportedMediaType(STRATEGIC_MERGE_PATCH_CONTENT_TYPE, supportedPatchContentTypes(false));
      }
      const current = isJsonObject(original) ? original : {};
      return applyStrategicMergePatchRequest(current, patchBody, schema);
    }
  }
}
