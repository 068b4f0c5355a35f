/**
 * The set of fields an object sets (structured-merge-diff's ToFieldSet): every leaf (scalar, atomic list/map/struct),
 * plus the item itself for each item of a set- or map-type list. Granular maps and structs contribute only their
 * members, so an empty one contributes nothing.
 */
import { FieldSet } from './field-set.js';
import { listItemElements } from './list-items.js';
import { fieldElement } from './path-element.js';
import { effectiveType, isLeaf, isObjectValue, memberType, type SsaType } from './schema.js';

/** The fields `obj` sets, read against type `t` (usually a resource's root type). */
export function fieldSetOf(obj: unknown, t: SsaType): FieldSet {
  const root = new FieldSet();
  collectChildren(root, obj, effectiveType(t, obj));
  return root;
}

function collectChildren(node: FieldSet, value: unknown, t: SsaType): void {
  if (t.kind === 'struct' || t.kind === 'map') {
    if (!isObjectValue(value)) return;
    for (const [name, v] of Object.entries(value)) {
      if (v === undefined) continue;
      collect(node, fieldElement(name), v, memberType(t, name));
    }
  } else if (t.kind === 'list' && Array.isArray(value)) {
    const elements = listItemElements(t, value);
    if (!elements) return;
    elements.forEach((e, i) => collect(node, e, value[i], t.items, true));
  }
}

function collect(parent: FieldSet, element: string, value: unknown, declared: SsaType, listItem = false): void {
  const t = effectiveType(declared, value);
  const granularList = t.kind === 'list' && Array.isArray(value) && !isLeaf(t) && listItemElements(t, value) !== undefined;
  if (isLeaf(t) || value === null || (t.kind === 'list' && !granularList)) {
    parent.child(element).member = true;
    return;
  }
  const node = parent.child(element);
  collectChildren(node, value, t);
  if (listItem) node.member = true;
  if (!node.member && node.isEmpty()) parent.children.delete(element);
}

/**
 * The set plus, as members, every named struct field along its paths (EnsureNamedFieldsAreMembers). Pruning uses
 * it so that removing the last field a manager applied under a struct field also removes that struct field, while
 * map keys and list items are never implied.
 */
export function withNamedFieldsAsMembers(set: FieldSet, t: SsaType): FieldSet {
  const out = set.clone();
  const walk = (node: FieldSet, type: SsaType) => {
    for (const [e, c] of node.children) {
      if (type.kind === 'struct' && e.startsWith('f:')) {
        c.member = true;
        walk(c, memberType(type, e.slice(2)));
      } else if (type.kind === 'map' && e.startsWith('f:')) {
        walk(c, type.values);
      } else if (type.kind === 'list') {
        walk(c, type.items);
      } else {
        walk(c, { kind: 'deduced' });
      }
    }
  };
  walk(out, t);
  return out;
}
