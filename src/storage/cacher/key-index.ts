/**
 * The live keys of one resource root, in the order the backends list them: by the bytes of their UTF-8 encoding
 * (SQLite's BINARY collation, etcd's byte order). A sorted key array with binary-search inserts and removals, and a
 * map to the values; a prefix is a contiguous run of the array, so a list of one workspace or namespace among many
 * costs its own size plus a binary search.
 */
import type { KeyValue } from '../interface.js';

/**
 * Compares two strings by their UTF-8 bytes. UTF-16 code-unit order equals code-point (and so UTF-8 byte) order
 * except between a surrogate (a code point above U+FFFF) and U+E000–U+FFFF, which code-unit order puts first.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return rank(x) - rank(y);
  }
  return a.length - b.length;
}

function rank(unit: number): number {
  if (unit < 0xd800) return unit;
  if (unit <= 0xdfff) return unit + 0x2000;
  return unit - 0x800;
}

export class KeyIndex {
  private readonly keys: string[] = [];
  private readonly values = new Map<string, KeyValue>();
  private storedBytes = 0;

  get size(): number {
    return this.keys.length;
  }

  /** The stored bytes of the values held (for the cache's memory budget). */
  get bytes(): number {
    return this.storedBytes;
  }

  get(key: string): KeyValue | undefined {
    return this.values.get(key);
  }

  /** Adds or replaces the value of kv.key. */
  put(kv: KeyValue): void {
    const old = this.values.get(kv.key);
    if (old !== undefined) this.storedBytes -= old.value.length;
    else this.keys.splice(this.lowerBound(kv.key), 0, kv.key);
    this.values.set(kv.key, kv);
    this.storedBytes += kv.value.length;
  }

  delete(key: string): void {
    const old = this.values.get(key);
    if (old === undefined) return;
    this.values.delete(key);
    this.storedBytes -= old.value.length;
    this.keys.splice(this.lowerBound(key), 1);
  }

  /** The values of every key starting with prefix, in key order (a new array: later writes do not change it). */
  prefix(prefix: string): KeyValue[] {
    const out: KeyValue[] = [];
    for (let i = this.lowerBound(prefix); i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) break;
      out.push(this.values.get(key)!);
    }
    return out;
  }

  /** The index of the first key not ordered before `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareUtf8(this.keys[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
