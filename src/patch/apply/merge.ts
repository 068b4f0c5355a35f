/**
 * The value-level operations of server-side apply: merging an apply configuration over the live object, and removing
 * the members of a field set from an object. Inputs are never mutated.
 */
import { FieldSet } from './field-set.js';
import { indexItems, listItemElements } from './list-items.js';
import { fieldElement } from './path-element.js';
import { effectiveType, isLeaf, isObjectValue, memberType, ownField, setField, type SsaType } from './schema.js';

/**
 * `config` merged over `live` (structured-merge-diff's Merge): leaves and atomic values come from the config; granular
 * structs and maps keep live members the config does not mention; set- and map-type lists keep live-only items and
 * merge shared ones, with the config deciding the order of the items it names.
 */
export function mergeValues(live: unknown, config: unknown, t: SsaType): unknown {
  if (config === undefined) return live;
  if (live === undefined) return config;
  const ct = effectiveType(t, config);
  const lt = effectiveType(t, live);
  if (isLeaf(ct) || ct.kind !== lt.kind || config === null || live === null) return config;
  if (ct.kind === 'struct' || ct.kind === 'map') {
    const l = live as Record<string, unknown>;
    const c = config as Record<string, unknown>;
    const out: Record<string, unknown> = { ...l };
    for (const [name, v] of Object.entries(c)) setField(out, name, mergeValues(ownField(l, name), v, memberType(ct, name)));
    return out;
  }
  if (ct.kind === 'list') return mergeLists(ct, live as unknown[], config as unknown[]);
  return config;
}

function mergeLists(t: Extract<SsaType, { kind: 'list' }>, live: unknown[], config: unknown[]): unknown[] {
  const le = listItemElements(t, live);
  const ce = listItemElements(t, config);
  if (!le || !ce) return config;
  const liveItems = indexItems(le, live);
  const configItems = indexItems(ce, config);
  // Items both sides name, in the config's order: a shared live item is only emitted when it is the next one due.
  const shared = ce.filter((e) => liveItems.has(e));
  let nextShared = 0;
  const emitted = new Set<string>();
  const out: unknown[] = [];
  const emit = (e: string, value: unknown) => {
    if (emitted.has(e)) return;
    emitted.add(e);
    out.push(value);
    if (shared[nextShared] === e) nextShared++;
  };
  let li = 0;
  let ri = 0;
  while (li < le.length || ri < ce.length) {
    if (li < le.length) {
      const e = le[li]!;
      if (emitted.has(e)) {
        li++;
        continue;
      }
      if (!configItems.has(e)) {
        emit(e, live[li]);
        li++;
        continue;
      }
      if (ri < ce.length && ce[ri] === e) {
        emit(e, mergeValues(liveItems.get(e), configItems.get(e), t.items));
        li++;
        ri++;
        continue;
      }
      if (shared[nextShared] !== e) {
        // A shared item that is not due yet: the config places it later.
        li++;
        continue;
      }
    }
    if (ri < ce.length) {
      const e = ce[ri]!;
      emit(e, mergeValues(liveItems.get(e), configItems.get(e), t.items));
      ri++;
      continue;
    }
    li++;
  }
  return out;
}

/**
 * `value` without the members of `set` (structured-merge-diff's RemoveItems): a member struct field or map key is
 * deleted with everything under it, a member list item is dropped; non-member nodes are descended into.
 */
export function removeMembers(value: unknown, set: FieldSet, t: SsaType): unknown {
  if (set.isEmpty() || value === null || value === undefined) return value;
  const et = effectiveType(t, value);
  if (isObjectValue(value) && (et.kind === 'struct' || et.kind === 'map')) {
    const out: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(value)) {
      const sub = set.children.get(fieldElement(name));
      if (!sub) setField(out, name, v);
      else if (!sub.member) setField(out, name, removeMembers(v, sub, memberType(et, name)));
    }
    return out;
  }
  if (Array.isArray(value) && et.kind === 'list' && !isLeaf(et)) {
    const elements = listItemElements(et, value);
    if (!elements) return value;
    const out: unknown[] = [];
    elements.forEach((e, i) => {
      const sub = set.children.get(e);
      if (!sub) out.push(value[i]);
      else if (!sub.member) out.push(removeMembers(value[i], sub, et.items));
    });
    return out;
  }
  return value;
}
