/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), applied the way apimachinery's
 * `strategicpatch.StrategicMergeMapPatch` does for kube-apiserver's PATCH handler.
 *
 * Semantics, per field of the object being patched:
 *   - `null` removes the field;
 *   - objects merge recursively (unless the field's patchStrategy is `replace`);
 *   - lists are replaced, unless the field's patchStrategy includes `merge`: then lists of scalars
 *     become a de-duplicated union and lists of objects merge item by item on the patchMergeKey;
 *   - a value of a different JSON type than the current one replaces it;
 *   - fields the TypeCatalog does not describe have no strategy, i.e. behave like JSON merge patch.
 * Directives:
 *   - `$patch: replace` in an object: the object (minus the marker) replaces the current one;
 *   - `$patch: delete` in an object: the object becomes `{}`;
 *   - in a merge list, `{"$patch": "delete", <key>: v}` removes every item whose merge key is v, and an item
 *     `{"$patch": "replace"}` makes the other patch items replace the list; `$patch: merge` is refused;
 *   - `$retainKeys: [..]` in an object: current fields not listed are cleared (every non-null patch
 *     field must be listed);
 *   - `$deleteFromPrimitiveList/<field>: [..]`: removes those scalars from the list `<field>`;
 *   - `$setElementOrder/<field>: [..]`: orders the merged list `<field>` (items not mentioned keep
 *     their relative position from the current list).
 * Ordering of merged lists without `$setElementOrder` follows apimachinery exactly: patch items keep
 * the patch's order, current-only items keep theirs, and the two are interleaved by their position in
 * the current list — so an item new to the list lands before the current items that follow it, which
 * in the common case means at the front (`[a,b]` + `[c]` → `[c,a,b]`).
 *
 * One deliberate difference: kube-apiserver decodes the merged map into a typed object, which silently
 * drops leftover directive keys and null fields in content copied verbatim from the patch. atrium keeps
 * the result as JSON, so that content is cleaned here instead (see {@link sanitizeInsertedValue}).
 *
 * Errors are {@link StrategicMergePatchError}s whose message is apimachinery's text and whose
 * `disposition` says which HTTP status kube-apiserver answers with; {@link strategicMergePatchStatusError}
 * converts them.
 */

import type { TypeCatalog } from '../apimachinery/schema/types.js';
import { errors, isStatusError, type StatusError } from '../apimachinery/status.js';
import { goFormatValue } from '../apimachinery/go-fmt.js';
import { goFormatString, goTypeName } from './go-format.js';
import { deepCloneJson, deleteOwn, getOwn, hasOwn, isJsonObject, jsonKindName, setOwn, type JsonObject } from './json-value.js';
import { genericUnprocessableEntity, unknownServerError } from './patch-errors.js';
import {
  lookupPatchMetaForList,
  lookupPatchMetaForMap,
  patchSchemaName,
  rootPatchSchema,
  type PatchMeta,
  type PatchSchema,
} from './patch-meta.js';

const DIRECTIVE_MARKER = '$patch';
const DELETE_DIRECTIVE = 'delete';
const REPLACE_DIRECTIVE = 'replace';
const MERGE_DIRECTIVE = 'merge';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/** The schema a strategic merge patch is interpreted against: the top-level type in a catalog. */
export interface StrategicMergePatchSchema {
  catalog: TypeCatalog;
  /** OpenAPI definition name, e.g. `io.k8s.api.core.v1.ConfigMap`. */
  typeName: string;
}

/**
 * How kube-apiserver answers an error (handlers/patch.go `interpretStrategicMergePatchError`):
 * BadRequest → 400, Unprocessable → generic 422, Internal → 500 with the error text and no reason
 * (errors that kube-apiserver passes through unconverted).
 */
export type StrategicMergePatchErrorDisposition = 'BadRequest' | 'Unprocessable' | 'Internal';

/** A failure to apply a strategic merge patch; `message` is apimachinery's error text. */
export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly disposition: StrategicMergePatchErrorDisposition,
  ) {
    super(message);
    this.name = 'StrategicMergePatchError';
  }
}

/**
 * Applies strategic merge patch `patch` to `original`, interpreting fields through `schema`.
 * Neither input is mutated and the result shares no structure with them.
 * Throws {@link StrategicMergePatchError} for malformed directives or shapes.
 */
export function applyStrategicMergePatch(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  schema: StrategicMergePatchSchema,
): Record<string, unknown> {
  const root = rootPatchSchema(schema.catalog, schema.typeName);
  return mergeMap(deepCloneJson(original), deepCloneJson(patch), root);
}

/**
 * The request-level entry kube-apiserver's handler implements: decodes `patchBody` (a JSON object; `null`
 * is an empty patch), applies it and converts failures to the StatusError kube-apiserver sends:
 *   - a body that is not an object → 400 `json: cannot unmarshal <kind> into Go value of type map[string]interface {}`;
 *   - malformed directives → 400 with apimachinery's text (`invalid patch format of retainKeys`, ...);
 *   - lists of lists → generic 422; other failures (missing merge key, unknown `$patch` value, ...) → 500.
 */
export function applyStrategicMergePatchRequest(
  original: Record<string, unknown>,
  patchBody: unknown,
  schema: StrategicMergePatchSchema,
): Record<string, unknown> {
  if (patchBody !== null && !isJsonObject(patchBody)) {
    throw errors.badRequest(`json: cannot unmarshal ${jsonKindName(patchBody)} into Go value of type map[string]interface {}`);
  }
  try {
    return applyStrategicMergePatch(original, patchBody ?? {}, schema);
  } catch (err) {
    throw strategicMergePatchStatusError(err);
  }
}

/** Converts an error thrown by {@link applyStrategicMergePatch} into the StatusError kube-apiserver would send. */
export function strategicMergePatchStatusError(err: unknown): StatusError {
  if (isStatusError(err)) return err;
  if (err instanceof StrategicMergePatchError) {
    switch (err.disposition) {
      case 'BadRequest':
        return errors.badRequest(err.message);
      case 'Unprocessable':
        return genericUnprocessableEntity();
      default:
        return unknownServerError(err.message);
    }
  }
  return unknownServerError(err instanceof Error ? err.message : String(err));
}

// ---- apimachinery's error texts (util/mergepatch/errors.go and strategicpatch/patch.go) ----

const fail = {
  badPatchFormatForPrimitiveList: () => new StrategicMergePatchError('invalid patch format of primitive list', 'BadRequest'),
  badPatchFormatForRetainKeys: () => new StrategicMergePatchError('invalid patch format of retainKeys', 'BadRequest'),
  badPatchFormatForSetElementOrderList: () => new StrategicMergePatchError('invalid patch format of setElementOrder list', 'BadRequest'),
  noListOfLists: () => new StrategicMergePatchError('lists of lists are not supported', 'Unprocessable'),
  noMergeKey: (m: JsonObject, key: string) =>
    new StrategicMergePatchError(`map: ${goFormatValue(m)} does not contain declared merge key: ${key}`, 'Internal'),
  badArgType: (expected: 'map[string]interface {}' | '[]interface {}', actual: unknown) =>
    new StrategicMergePatchError(`expected a ${expected}, but received a ${goTypeName(actual)}`, 'Internal'),
  badPatchType: (directive: unknown, m: JsonObject) =>
    new StrategicMergePatchError(`unknown patch type: ${goFormatString(directive)} in map: ${goFormatValue(m)}`, 'Internal'),
  internal: (message: string) => new StrategicMergePatchError(message, 'Internal'),
};

// ---- merging objects ----

/** Merges `patch` into `original` (both private copies, mutated freely) and returns the merged object. */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return applyMapDirective(patch[DIRECTIVE_MARKER], patch);
  const target = original ?? {};
  applyRetainKeysDirective(target, patch);
  // $setElementOrder lists (and the lists they order) are merged first and removed from the patch.
  mergeOrderedLists(target, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey];
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      key = extractDirectiveKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      isDeleteList = true;
    }

    if (patchValue === null) {
      deleteOwn(target, key);
      continue;
    }
    if (!hasOwn(target, key) || goTypeName(target[key]) !== goTypeName(patchValue)) {
      // A deletion list never creates or retypes the list it names.
      if (!isDeleteList) insertPatchValue(target, key, patchValue);
      continue;
    }

    const current = target[key];
    if (isJsonObject(current)) {
      const { schema: sub, meta } = lookupPatchMetaForMap(schema, key);
      const strategy = nonRetainKeysStrategy(meta);
      setOwn(target, key, strategy === REPLACE_DIRECTIVE ? sanitizeInsertedValue(patchValue) : mergeMap(current, patchValue as JsonObject, sub));
    } else if (Array.isArray(current)) {
      const { schema: sub, meta } = lookupPatchMetaForList(schema, key);
      const merged = mergeListField(current, patchValue, sub, nonRetainKeysStrategy(meta), meta.mergeKey, isDeleteList);
      setOwn(target, key, merged);
    } else {
      insertPatchValue(target, key, patchValue);
    }
  }
  return target;
}

/** `$patch` inside an object: `replace` yields the patch without the marker, `delete` an empty object. */
function applyMapDirective(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    deleteOwn(patch, DIRECTIVE_MARKER);
    return sanitizeInsertedValue(patch) as JsonObject;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw fail.badPatchType(directive, patch);
}

/**
 * `$retainKeys`: clears every field of `original` that the list does not name. Every non-null field of
 * the patch (directives aside) must be named, otherwise the patch is malformed.
 */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retainKeys = patch[RETAIN_KEYS_DIRECTIVE];
  deleteOwn(patch, RETAIN_KEYS_DIRECTIVE);
  if (!Array.isArray(retainKeys)) throw fail.badPatchFormatForRetainKeys();
  const retained = new Set<unknown>(retainKeys);
  for (const key of Object.keys(patch)) {
    if (patch[key] === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retained.has(key)) throw fail.badPatchFormatForRetainKeys();
  }
  for (const key of Object.keys(original)) {
    if (!retained.has(key)) delete original[key];
  }
}

/** Puts a patch value where the original has nothing comparable: nulls are dropped, directive-bearing objects discarded. */
function insertPatchValue(target: JsonObject, key: string, patchValue: unknown): void {
  const cleaned = removeDirectives(discardNullFields(patchValue));
  if (cleaned.keep) setOwn(target, key, cleaned.value);
  else deleteOwn(target, key);
}

/** The field's strategy other than retainKeys (which only matters when building patches). */
function nonRetainKeysStrategy(meta: PatchMeta): string {
  const strategies = meta.strategies;
  if (strategies.length === 0) return '';
  if (strategies.length === 1) return strategies[0] === RETAIN_KEYS_STRATEGY ? '' : strategies[0]!;
  if (strategies.length === 2) {
    if (strategies[0] === RETAIN_KEYS_STRATEGY) return strategies[1]!;
    if (strategies[1] === RETAIN_KEYS_STRATEGY) return strategies[0]!;
  }
  throw fail.internal(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

/** The field name after `<prefix>/`, or the prefix's malformed-format error. */
function extractDirectiveKey(directiveKey: string, prefix: string): string {
  const slash = directiveKey.indexOf('/');
  if (slash < 0 || directiveKey.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? fail.badPatchFormatForPrimitiveList() : fail.badPatchFormatForSetElementOrderList();
  }
  return directiveKey.slice(slash + 1);
}

// ---- $setElementOrder ----

/**
 * Handles every `$setElementOrder/<field>` of this object level: merges `<field>` (if patched), then
 * orders the result — items named by the directive in its order, current-only items interleaved by
 * their current position. The directive and the list it ordered are removed from `patch`.
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[directiveKey];
    deleteOwn(patch, directiveKey);
    if (!Array.isArray(order)) throw fail.badArgType('[]interface {}', order);
    const key = extractDirectiveKey(directiveKey, SET_ELEMENT_ORDER_PREFIX);

    const foundOriginal = hasOwn(original, key);
    const foundPatch = hasOwn(patch, key);
    const originalList = foundOriginal ? original[key] : undefined;
    const patchList = foundPatch ? patch[key] : undefined;
    if (foundOriginal && !Array.isArray(originalList)) throw fail.badArgType('[]interface {}', originalList);
    if (foundPatch && !Array.isArray(patchList)) throw fail.badArgType('[]interface {}', patchList);
    const originalItems = (originalList ?? []) as unknown[];
    const patchItems = (patchList ?? []) as unknown[];

    const { schema: sub, meta } = lookupPatchMetaForList(schema, key);
    const strategy = nonRetainKeysStrategy(meta);
    const mergeKey = meta.mergeKey;
    validatePatchAgainstOrder(patchItems, order, mergeKey);

    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeListField(originalItems, patchItems, sub, strategy, mergeKey, false);
    else if (foundOriginal) merged = originalItems;
    else if (foundPatch) merged = removeDirectives(patchItems).value as unknown[];
    else continue;

    const [ordered, serverOnly] = mergeKey ? partitionMapsByPresence(merged, order, mergeKey) : partitionScalarsByPresence(merged, order);
    const kind = listElementKind(originalItems, patchItems);
    setOwn(original, key, normalizeElementOrder(ordered, serverOnly, order, originalItems, mergeKey, kind));
    deleteOwn(patch, key);
  }
}

/**
 * The patch list must be consistent with `$setElementOrder`: its items (deletions and directive items
 * aside) must appear in the directive, in the same relative order.
 */
function validatePatchAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const candidates = mergeKey ? withoutDeleteItems(patchList) : patchList;
  let p = 0;
  let o = 0;
  while (p < candidates.length && o < order.length) {
    if (hasDirectiveMarker(candidates[p])) {
      p++;
      continue;
    }
    if (mergeKeyValuesEqual(candidates[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < candidates.length && o >= order.length) {
    throw fail.internal(
      `The order in patch list:\n${goFormatValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormatValue(order)}\n`,
    );
  }
}

function mergeKeyValuesEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isJsonObject(left)) throw fail.badArgType('map[string]interface {}', left);
  if (!isJsonObject(right)) throw fail.badArgType('map[string]interface {}', right);
  if (!hasOwn(left, mergeKey)) throw fail.noMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw fail.noMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}

// ---- merging lists ----

/**
 * Merges a list field: deletion lists and `merge`-strategy lists merge item-wise, every other list is
 * replaced by the patch's list.
 */
function mergeListField(
  original: unknown[],
  patch: unknown,
  schema: PatchSchema,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): unknown[] {
  if (!Array.isArray(patch)) throw fail.badArgType('[]interface {}', patch);
  if (strategy === MERGE_DIRECTIVE || isDeleteList) return mergeList(original, patch, schema, mergeKey, isDeleteList);
  return sanitizeInsertedValue(patch) as unknown[];
}

function mergeList(original: unknown[], patch: unknown[], schema: PatchSchema, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = listElementKind(original, patch);

  let merged: unknown[];
  let patchOrder = patch;
  let serverOrder = original;
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((item) => !patch.some((d) => scalarEqual(d, item)));
    merged = dedupeScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw fail.internal(`cannot merge lists without merge key for ${patchSchemaName(schema)}`);
    const special = applyListItemDirectives(original, patch, mergeKey);
    serverOrder = special.original;
    patchOrder = special.patch;
    merged = mergeListItems(serverOrder, patchOrder, mergeKey, schema);
  }

  const [patchItems, serverOnly] = mergeKey ? partitionMapsByPresence(merged, patchOrder, mergeKey) : partitionScalarsByPresence(merged, patchOrder);
  return normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind);
}

/**
 * Applies the `$patch` items of a list of objects: `delete` removes matching current items, `replace`
 * makes the remaining patch items the whole list. Returns the current list to merge into and the
 * patch items left to merge.
 */
function applyListItemDirectives(original: unknown[], patch: unknown[], mergeKey: string): { original: unknown[]; patch: unknown[] } {
  const plainItems: unknown[] = [];
  let remaining = original;
  let replace = false;
  for (const item of patch) {
    const m = item as JsonObject;
    if (!hasOwn(m, DIRECTIVE_MARKER)) {
      plainItems.push(item);
      continue;
    }
    const directive = m[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!hasOwn(m, mergeKey)) throw fail.noMergeKey(m, mergeKey);
      const value = m[mergeKey];
      remaining = remaining.filter((current, index) => {
        if (!isJsonObject(current)) throw fail.internal(`value for key ${index} is not a map`);
        return !(hasOwn(current, mergeKey) && scalarEqual(current[mergeKey], value));
      });
    } else if (directive === REPLACE_DIRECTIVE) {
      replace = true; // keep scanning so the other directive items are dropped too
    } else if (directive === MERGE_DIRECTIVE) {
      throw fail.internal('merging lists cannot yet be specified in the patch');
    } else {
      throw fail.badPatchType(directive, m);
    }
  }
  if (replace) return { original: plainItems.map(sanitizeInsertedValue), patch: [] };
  return { original: remaining, patch: plainItems };
}

/** Merges each patch item into the current item with the same merge key value, or appends it. */
function mergeListItems(original: unknown[], patch: unknown[], mergeKey: string, schema: PatchSchema): unknown[] {
  const merged = [...original];
  for (const item of patch) {
    const m = item as JsonObject;
    if (!hasOwn(m, mergeKey)) throw fail.noMergeKey(m, mergeKey);
    const index = findByMergeKey(merged, mergeKey, m[mergeKey]);
    if (index >= 0) merged[index] = mergeMap(merged[index] as JsonObject, m, schema);
    else merged.push(sanitizeInsertedValue(m));
  }
  return merged;
}

function findByMergeKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isJsonObject(item)) throw fail.internal(`value for key ${i} is not a map`);
    if (hasOwn(item, mergeKey) && scalarEqual(item[mergeKey], value)) return i;
  }
  return -1;
}

/**
 * The common element type of the lists, as apimachinery requires: `map` for objects, otherwise the Go
 * type name. Lists of lists are refused (422), mixed element types and all-empty lists are errors.
 */
function listElementKind(...lists: unknown[][]): string {
  let kind: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const itemKind = goTypeName(item);
      if (kind === undefined) {
        if (Array.isArray(item)) throw fail.noListOfLists();
        kind = itemKind;
      } else if (kind !== itemKind) {
        throw fail.internal(`list element types are not identical: ${goFormatValue(lists)}`);
      }
    }
  }
  if (kind === undefined) throw fail.internal('no elements in any of the given slices');
  return kind === 'map[string]interface {}' ? 'map' : kind;
}

function dedupeScalars(items: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const item of items) if (!out.some((seen) => scalarEqual(seen, item))) out.push(item);
  return out;
}

function withoutDeleteItems(list: unknown[]): unknown[] {
  return list.filter((item) => {
    if (!isJsonObject(item)) throw fail.badArgType('map[string]interface {}', item);
    return getOwn(item, DIRECTIVE_MARKER) !== DELETE_DIRECTIVE;
  });
}

// ---- ordering ----

/** Splits `items` into those present in `by` and the rest (scalars compared by value). */
function partitionScalarsByPresence(items: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) (by.some((b) => scalarEqual(b, item)) ? present : absent).push(item);
  return [present, absent];
}

/** Splits objects into those whose merge key value appears in `by` and the rest. */
function partitionMapsByPresence(items: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) throw fail.badArgType('map[string]interface {}', item);
    if (!hasOwn(item, mergeKey)) throw fail.noMergeKey(item, mergeKey);
    (findByMergeKey(by, mergeKey, item[mergeKey]) >= 0 ? present : absent).push(item);
  }
  return [present, absent];
}

/**
 * Sorts `patchItems` by `patchOrder` and `serverOnly` by `serverOrder`, then interleaves them: a
 * server-only item is emitted before a patch item only when both occur in `serverOrder` and it comes
 * first there. Relative order within each group is always kept.
 */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: string,
): unknown[] {
  const sortedPatch = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const sortedServer = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < sortedServer.length || j < sortedPatch.length) {
    if (i >= sortedServer.length) out.push(sortedPatch[j++]);
    else if (j >= sortedPatch.length) out.push(sortedServer[i++]);
    else {
      const si = positionIn(serverOrder, sortedServer[i], mergeKey, kind);
      const pi = positionIn(serverOrder, sortedPatch[j], mergeKey, kind);
      if (si >= 0 && pi >= 0 && si < pi) out.push(sortedServer[i++]);
      else out.push(sortedPatch[j++]);
    }
  }
  return out;
}

/** Stable sort of `items` by their position in `order`; `$patch: delete` objects go last. */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: string): unknown[] {
  let toSort = items;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isJsonObject(item)) throw fail.badArgType('map[string]interface {}', item);
        if (!hasOwn(item, mergeKey)) throw fail.noMergeKey(item, mergeKey);
      }
    }
    toSort = items.filter((item) => getOwn(item as JsonObject, DIRECTIVE_MARKER) !== DELETE_DIRECTIVE);
    deletions = items.filter((item) => getOwn(item as JsonObject, DIRECTIVE_MARKER) === DELETE_DIRECTIVE);
  }
  const rank = (item: unknown) => {
    const p = positionIn(order, item, mergeKey, kind);
    return p < 0 ? Number.MAX_SAFE_INTEGER : p;
  };
  const sorted = toSort
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((e) => e.item);
  return [...sorted, ...deletions];
}

/** Index of `item` in `list`: by merge key value for objects, by value for scalars; -1 when absent. */
function positionIn(list: unknown[], item: unknown, mergeKey: string, kind: string): number {
  const keyOf = (v: unknown) => (kind === 'map' ? (isJsonObject(v) ? getOwn(v, mergeKey) : undefined) : v);
  const wanted = keyOf(item);
  return list.findIndex((v) => scalarEqual(keyOf(v), wanted));
}

// ---- directives in copied content ----

function hasDirectiveMarker(item: unknown): boolean {
  return isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER);
}

function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE_MARKER ||
    key === RETAIN_KEYS_DIRECTIVE ||
    key.startsWith(`${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/`) ||
    key.startsWith(`${SET_ELEMENT_ORDER_PREFIX}/`)
  );
}

/**
 * Drops what a patch value must not carry into the document when it is inserted where nothing was:
 * objects holding a `$patch` marker disappear entirely (as in apimachinery's `removeDirectives`), and
 * other directive keys are removed.
 */
function removeDirectives(value: unknown): { value: unknown; keep: boolean } {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const r = removeDirectives(item);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  if (isJsonObject(value)) {
    if (hasOwn(value, DIRECTIVE_MARKER)) return { value: undefined, keep: false };
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      if (isDirectiveKey(key)) continue;
      const r = removeDirectives(value[key]);
      if (r.keep) setOwn(out, key, r.value);
    }
    return { value: out, keep: true };
  }
  return { value, keep: true };
}

/** Removes null-valued object fields at every depth (array elements are kept, even null ones). */
function discardNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(discardNullFields);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      if (value[key] !== null) setOwn(out, key, discardNullFields(value[key]));
    }
    return out;
  }
  return value;
}

/**
 * Cleans patch content that replaces or joins the document verbatim (replaced lists, `$patch: replace`
 * objects, appended merge-list items): null fields and directive keys are dropped, the content is kept.
 * This is what kube-apiserver's decode of the merged map into a typed object leaves of it.
 */
function sanitizeInsertedValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitizeInsertedValue);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      if (value[key] === null || isDirectiveKey(key)) continue;
      setOwn(out, key, sanitizeInsertedValue(value[key]));
    }
    return out;
  }
  return value;
}

/** Go `==` on decoded JSON scalars; objects and arrays never compare equal (Go would panic instead). */
function scalarEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' && a !== null) return false;
  return a === b;
}
