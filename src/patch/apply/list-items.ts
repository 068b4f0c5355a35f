/** Naming the items of set- and map-type lists by path element, shared by field-set extraction, compare and merge. */
import { keyElement, valueElement } from './path-element.js';
import type { SsaType } from './schema.js';

type ListType = Extract<SsaType, { kind: 'list' }>;

/**
 * The path element of every item of a granular list, in order; undefined when an item cannot be named (a map-list
 * item without its key fields, or a set item that is not a scalar), in which case callers handle the list as atomic.
 */
export function listItemElements(t: ListType, items: readonly unknown[]): string[] | undefined {
  const out: string[] = [];
  for (const item of items) {
    let element: string | undefined;
    if (t.listType === 'set') {
      element = typeof item === 'object' && item !== null ? undefined : valueElement(item);
    } else {
      element = keyElement(item, t.keys);
    }
    if (element === undefined) return undefined;
    out.push(element);
  }
  return out;
}

/** Items by element; for duplicates the first one wins (stored objects may hold duplicates). */
export function indexItems(elements: readonly string[], items: readonly unknown[]): Map<string, unknown> {
  const m = new Map<string, unknown>();
  elements.forEach((e, i) => {
    if (!m.has(e)) m.set(e, items[i]);
  });
  return m;
}
