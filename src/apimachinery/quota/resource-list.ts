/**
 * ResourceLists (`{ "requests.cpu": "500m", "count/widgets.example.com": "3" }`) and the operations quota accounting
 * does on them (k8s.io/apiserver pkg/quota/v1 resources.go): add, subtract, mask, compare, pretty-print.
 */
import { isPlainObject } from '../object.js';
import {
  type ExactQuantity,
  addQuantity,
  compareQuantity,
  formatQuantity,
  parseExactQuantity,
  subtractQuantity,
} from '../exact-quantity.js';

export type ResourceList = Map<string, ExactQuantity>;

/** A ResourceList from its JSON form; values that are not quantities are skipped (validation reports them). */
export function resourceListFrom(json: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isPlainObject(json)) return out;
  for (const [k, v] of Object.entries(json)) {
    try {
      out.set(k, parseExactQuantity(v));
    } catch {
      // left to validation
    }
  }
  return out;
}

/** The JSON form, keys sorted as Go's encoding/json prints a map. */
export function resourceListJSON(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k)!);
  return out;
}

/** a + b for every key of either (quota.Add). */
export function addResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const mine = out.get(k);
    out.set(k, mine ? addQuantity(mine, v) : v);
  }
  return out;
}

/** a - b for a's keys, never below zero (quota.SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    const diff = other ? subtractQuantity(v, other) : v;
    out.set(k, diff.nanos < 0n ? { nanos: 0n, format: diff.format } : diff);
  }
  return out;
}

/** Only the entries named (quota.Mask). */
export function maskResources(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = list.get(n);
    if (v) out.set(n, v);
  }
  return out;
}

/** The entries of `list` whose value exceeds `limits`' (for names both hold): quota.LessThanOrEqual's second result. */
export function exceededResources(list: ResourceList, limits: ResourceList): string[] {
  const out: string[] = [];
  for (const [k, v] of list) {
    const limit = limits.get(k);
    if (limit && compareQuantity(v, limit) > 0) out.push(k);
  }
  return out;
}

export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, v]) => v.nanos !== 0n));
}

export function negativeResources(list: ResourceList): string[] {
  return [...list].filter(([, v]) => v.nanos < 0n).map(([k]) => k);
}

/** Same names and equal values (quota.Equals). */
export function resourcesEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || compareQuantity(v, w) !== 0) return false;
  }
  return true;
}

/** `name=value,...` sorted by name, as the quota admission messages print a ResourceList (prettyPrint). */
export function prettyPrintResources(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${formatQuantity(list.get(k)!)}`).join(',');
}
