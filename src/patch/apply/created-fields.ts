/**
 * The FieldsV1 of what creating an object sets, written straight from the object: the managedFields entry of a
 * create (an Update with nothing before it) owns every field the object holds, so no comparison and no field-set
 * trie are needed, only one walk that emits the wire trie with its keys sorted as kube-apiserver writes them. For a
 * custom resource with keyed lists (hundreds of entries) this is several times cheaper than building the set and
 * encoding it, and creates are the most common write.
 *
 * Equal by construction (and by test) to encoding compareObjects({}, obj, t).added, less `stripped` (its members)
 * and `ignored` (whole subtrees): every field present and not null is a member; granular maps, structs and keyed
 * list items also carry their children.
 */
import type { FieldSet } from './field-set.js';
import { indexItems, listItemElements } from './list-items.js';
import { fieldElement } from './path-element.js';
import { effectiveType, isLeaf, isObjectValue, memberType, type SsaType } from './schema.js';

type FieldsV1 = Record<string, unknown>;

/**
 * The FieldsV1 trie (root level, no `.`) of the fields `obj` sets under type `t`, without the members of `stripped`
 * and without the subtrees under the members of `ignored`. Empty when nothing is left.
 */
export function createdFieldsV1(obj: unknown, t: SsaType, stripped: FieldSet, ignored: FieldSet): FieldsV1 {
  const root = childrenOf(obj, effectiveType(t, obj), false) ?? {};
  removeMembers(root, stripped);
  removeSubtrees(root, ignored);
  return root;
}

/**
 * The trie of a granular value's children, keys sorted (names sort like their `f:` elements), written into a new
 * object that starts with `.` when `member`; undefined when it has no children.
 */
function childrenOf(value: unknown, t: SsaType, member: boolean): FieldsV1 | undefined {
  let out: FieldsV1 | undefined;
  if (t.kind === 'struct' || t.kind === 'map') {
    if (!isObjectValue(value)) return undefined;
    const names = Object.keys(value);
    if (names.length > 1) names.sort();
    for (const name of names) {
      const node = nodeOf(value[name], memberType(t, name));
      if (!node) continue;
      out ??= member ? { '.': {} } : {};
      out[fieldElement(name)] = node;
    }
  } else if (t.kind === 'list' && Array.isArray(value)) {
    const items = indexItems(listItemElements(t, value)!, value);
    const elements = Array.from(items.keys());
    if (elements.length > 1) elements.sort();
    for (const e of elements) {
      const node = nodeOf(items.get(e), t.items);
      if (!node) continue;
      out ??= member ? { '.': {} } : {};
      out[e] = node;
    }
  }
  return out;
}

/** The trie of one present value (always a member): `{}` for a leaf, `{".": {}, ...children}` otherwise. */
function nodeOf(value: unknown, declared: SsaType): FieldsV1 | undefined {
  if (value === undefined || value === null) return undefined;
  const t = effectiveType(declared, value);
  if (isLeaf(t) || (t.kind === 'list' && listItemElements(t, value as unknown[]) === undefined)) return {};
  return childrenOf(value, t, true) ?? {};
}

/** Whether a trie node is itself a member: a leaf `{}`, or a node carrying `.`. */
function isMember(node: FieldsV1): boolean {
  if ('.' in node) return true;
  for (const _ in node) return false;
  return true;
}

/** Drops the members of `set` from the trie in place (FieldSet.difference), removing nodes left empty. */
function removeMembers(trie: FieldsV1, set: FieldSet): void {
  for (const [e, s] of set.children) {
    const node = trie[e] as FieldsV1 | undefined;
    if (!node) continue;
    const member = isMember(node) && !s.member;
    removeMembers(node, s);
    settle(trie, e, node, member);
  }
}

/** Drops everything at or below the members of `set` (FieldSet.recursiveDifference), in place. */
function removeSubtrees(trie: FieldsV1, set: FieldSet): void {
  for (const [e, s] of set.children) {
    const node = trie[e] as FieldsV1 | undefined;
    if (!node) continue;
    if (s.member) {
      delete trie[e];
      continue;
    }
    const member = isMember(node);
    removeSubtrees(node, s);
    settle(trie, e, node, member);
  }
}

/** Rewrites `node` (under `e` in `parent`) for its membership after children were removed: `.` only with children. */
function settle(parent: FieldsV1, e: string, node: FieldsV1, member: boolean): void {
  delete node['.'];
  const hasChildren = Object.keys(node).length > 0;
  if (!member && !hasChildren) delete parent[e];
  else if (member && hasChildren) parent[e] = { '.': {}, ...node };
}
