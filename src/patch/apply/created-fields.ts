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
  return childrenOf(obj, effectiveType(t, obj), false, stripped, ignored) ?? {};
}

/**
 * The trie of a granular value's children, keys sorted (names sort like their `f:` elements), written into a new
 * object that starts with `.` when `member`; undefined when it has no children. `strip` and `ignore` are the parts
 * of the stripped and ignored sets at this node, if any.
 */
function childrenOf(value: unknown, t: SsaType, member: boolean, strip: FieldSet | undefined, ignore: FieldSet | undefined): FieldsV1 | undefined {
  let out: FieldsV1 | undefined;
  const add = (e: string, v: unknown, type: SsaType) => {
    const ig = ignore?.children.get(e);
    if (ig?.member) return;
    const node = nodeOf(v, type, strip?.children.get(e), ig);
    if (!node) return;
    out ??= member ? { '.': {} } : {};
    out[e] = node;
  };
  if (t.kind === 'struct' || t.kind === 'map') {
    if (!isObjectValue(value)) return undefined;
    const names = Object.keys(value);
    if (names.length > 1) names.sort();
    for (const name of names) add(fieldElement(name), value[name], memberType(t, name));
  } else if (t.kind === 'list' && Array.isArray(value)) {
    const items = indexItems(listItemElements(t, value)!, value);
    const elements = Array.from(items.keys());
    if (elements.length > 1) elements.sort();
    for (const e of elements) add(e, items.get(e), t.items);
  }
  return out;
}

/**
 * The trie of one present value: `{}` for a leaf, `{".": {}, ...children}` otherwise; without `.` (and without the
 * node, if nothing is below it) when `strip` makes it a non-member. Undefined when nothing is left.
 */
function nodeOf(value: unknown, declared: SsaType, strip: FieldSet | undefined, ignore: FieldSet | undefined): FieldsV1 | undefined {
  if (value === undefined || value === null) return undefined;
  const member = !strip?.member;
  const t = effectiveType(declared, value);
  if (isLeaf(t) || (t.kind === 'list' && listItemElements(t, value as unknown[]) === undefined)) return member ? {} : undefined;
  return childrenOf(value, t, member, strip, ignore) ?? (member ? {} : undefined);
}
