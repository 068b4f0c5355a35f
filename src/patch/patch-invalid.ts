/**
 * The 422 kube-apiserver answers when a patch's result cannot be decoded into the resource's Go type
 * (handlers/patch.go: jsonPatcher.applyPatchToCurrentObject and applyPatchToObject):
 *   ` "" is invalid: patch: Invalid value: "<value>": <decoding error>`
 * with an empty group, kind and name. The value is the patched document as JSON for JSON and merge patches, and Go's
 * `%+v` of the decoded patch map for strategic merge patches.
 */
import { errors, type StatusError } from '../apimachinery/status.js';
import { goFormatValue } from '../apimachinery/go-fmt.js';
import { OBJECT_META_FIELDS } from '../apimachinery/object.js';
import { isJsonObject } from './json-value.js';
import type { PatchType } from './apply-patch.js';

export function patchInvalid(patchType: PatchType, patched: unknown, patch: unknown, detail: string): StatusError {
  return errors.invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value: renderPatchValue(patchType, patched, patch), detail }]);
}

/** The same 422 for a value already rendered (renderPatchValue). */
export function patchInvalidValue(value: string, detail: string): StatusError {
  return errors.invalid('', '', '', [{ type: 'FieldValueInvalid', field: 'patch', value, detail }]);
}

/** The bad value upstream prints for this patch type. */
export function renderPatchValue(patchType: PatchType, patched: unknown, patch: unknown): string {
  if (patchType === 'strategic') return goFormatValue(patch);
  // json.Marshal escapes <, > and & (and U+2028/U+2029) for HTML safety.
  return JSON.stringify(goPatchedDocument(patchType, patched, patch)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The patched document with its keys in the order kube-apiserver's JSON or merge patch produces them, which is the
 * order the result is decoded (and its unknown fields found) in. Subtrees are shared with `patched`, not copied.
 */
export function goPatchedDocument(patchType: PatchType, patched: unknown, patch: unknown): unknown {
  return sortedAlong(withGoMetadataOrder(patched), patchPaths(patchType, patch));
}


function withGoMetadataOrder(doc: unknown): unknown {
  if (!isJsonObject(doc) || !isJsonObject(doc.metadata)) return doc;
  const meta = doc.metadata;
  const rank = (k: string) => {
    const i = OBJECT_META_FIELDS.indexOf(k);
    return i < 0 ? OBJECT_META_FIELDS.length : i;
  };
  const ordered = Object.fromEntries(Object.keys(meta).sort((a, b) => rank(a) - rank(b)).map((k) => [k, meta[k]]));
  return { ...doc, metadata: ordered };
}

/**
 * evanphx/json-patch v4 re-marshals (with Go's sorted map keys) the objects it opened to apply the patch (the top level
 * and the containers along each path) and keeps every other subtree's bytes as they came from the stored object. The
 * paths here are the patch's: a merge patch's nested objects, or each JSON patch operation's parent containers.
 */
interface PathTree {
  [key: string]: PathTree;
}

function patchPaths(patchType: PatchType, patch: unknown): PathTree {
  if (patchType === 'merge') return mergeTree(patch);
  const tree: PathTree = {};
  if (!Array.isArray(patch)) return tree;
  for (const op of patch) {
    if (!isJsonObject(op)) continue;
    for (const key of ['path', 'from']) {
      const path = op[key];
      if (typeof path !== 'string' || !path.startsWith('/')) continue;
      const tokens = path
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
      tokens.pop();
      let node = tree;
      for (const t of tokens) node = Object.prototype.hasOwnProperty.call(node, t) ? node[t]! : (node[t] = {});
    }
  }
  return tree;
}

function mergeTree(patch: unknown): PathTree {
  const tree: PathTree = {};
  if (!isJsonObject(patch)) return tree;
  for (const [k, v] of Object.entries(patch)) if (isJsonObject(v)) tree[k] = mergeTree(v);
  return tree;
}

function sortedAlong(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) {
    return value.map((item, i) => (Object.prototype.hasOwnProperty.call(tree, String(i)) ? sortedAlong(item, tree[String(i)]!) : item));
  }
  if (!isJsonObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    out[k] = Object.prototype.hasOwnProperty.call(tree, k) ? sortedAlong(value[k], tree[k]!) : value[k];
  }
  return out;
}
