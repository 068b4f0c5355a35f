/**
 * RFC 6902 JSON patch (`application/json-patch+json`) as kube-apiserver applies it
 * (handlers/patch.go `applyJSPatch`, evanphx/json-patch v4).
 *
 * Status codes and texts:
 *   - a body that does not decode as a list of operations → 400 BadRequest
 *     `error decoding patch: json: cannot unmarshal <kind> into Go value of type []handlers.jsonPatchOp`
 *     (the strict pre-decode kube-apiserver runs under fieldValidation Warn — the default — and Strict);
 *   - more than 10000 operations → 413 `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got N`;
 *   - any operation that cannot be applied, including a failed `test` → 422 Invalid with the generic
 *     message `the server rejected our request due to an error in our request` (kube-apiserver wraps the
 *     library error in NewGenericServerResponse, which drops its text).
 */

import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { errors, type StatusError } from '../apimachinery/status.js';
import { deepCloneJson, getOwn, hasOwn, isJsonObject, jsonKindName } from './json-value.js';
import { genericUnprocessableEntity } from './patch-errors.js';

/** kube-apiserver's `maxJSONPatchOperations`. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

const STRING_FIELDS = ['op', 'path', 'from'] as const;

/**
 * Checks that `patchBody` has the shape of a JSON patch and returns its operations.
 * A JSON `null` body decodes to an empty patch (no operations), as it does in Go.
 * Throws 400 for a body or operation of the wrong JSON kind, 413 beyond {@link MAX_JSON_PATCH_OPERATIONS}.
 * Whether each operation is meaningful (known op, valid path, value present) is checked when applying.
 */
export function decodeJsonPatch(patchBody: unknown): unknown[] {
  if (patchBody === null) return [];
  if (!Array.isArray(patchBody)) throw decodeError(`Go value of type []handlers.jsonPatchOp`, patchBody);
  for (const op of patchBody) {
    if (op === null) continue; // decodes to an empty operation, rejected when applied
    if (!isJsonObject(op)) throw decodeError('Go value of type handlers.jsonPatchOp', op);
    for (const field of STRING_FIELDS) {
      const v = getOwn(op, field);
      if (v !== undefined && v !== null && typeof v !== 'string') {
        throw decodeError(`Go struct field jsonPatchOp.${field} of type string`, v);
      }
    }
  }
  if (patchBody.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patchBody.length}`,
    );
  }
  return patchBody;
}

/**
 * Applies the JSON patch `patchBody` to `original` and returns the patched document.
 *
 * Atomic: either every operation applies or a StatusError is thrown and nothing is observable.
 * Neither argument is mutated; the result shares no structure with them.
 * Semantics that follow evanphx/json-patch rather than a literal RFC reading:
 *   - the empty path (the whole document) is not addressable by any operation;
 *   - `add`/`replace` without a `value` write `null`;
 *   - `test` with a `null` or absent value passes when the parent object exists and the member is missing or null.
 * Modifying `__proto__` or `constructor/prototype` is refused (422) rather than risking prototype pollution.
 */
export function applyJsonPatch(original: unknown, patchBody: unknown): unknown {
  const operations = decodeJsonPatch(patchBody);
  let document = deepCloneJson(original);
  for (const raw of operations) {
    const op = deepCloneJson(raw);
    if (!isJsonObject(op)) throw genericUnprocessableEntity();
    if (getOwn(op, 'path') === '' || getOwn(op, 'from') === '') throw genericUnprocessableEntity();
    const kind = getOwn(op, 'op');
    if ((kind === 'add' || kind === 'replace') && !hasOwn(op, 'value')) op['value'] = null;
    if (kind === 'test' && nullTestPasses(document, op)) continue;
    try {
      document = fastJsonPatch.applyOperation(document, op as unknown as Operation, true, true, true).newDocument;
    } catch {
      throw genericUnprocessableEntity();
    }
  }
  return document;
}

function decodeError(target: string, value: unknown): StatusError {
  return errors.badRequest(`error decoding patch: json: cannot unmarshal ${jsonKindName(value)} into ${target}`);
}

/**
 * evanphx/json-patch lets a `test` whose value is null or absent pass when the parent object exists and
 * the member is missing or null; fast-json-patch would fail it (missing) or refuse it (absent value).
 */
function nullTestPasses(doc: unknown, op: Record<string, unknown>): boolean {
  if (getOwn(op, 'value') !== null && hasOwn(op, 'value')) return false;
  const path = getOwn(op, 'path');
  if (typeof path !== 'string' || !path.startsWith('/')) return false;
  const tokens = path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = tokens.pop()!;
  let parent = doc;
  for (const token of tokens) {
    if (Array.isArray(parent)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= parent.length) return false;
      parent = parent[Number(token)];
    } else if (isJsonObject(parent) && hasOwn(parent, token)) {
      parent = parent[token];
    } else {
      return false;
    }
  }
  return isJsonObject(parent) && (!hasOwn(parent, last) || parent[last] === null);
}
