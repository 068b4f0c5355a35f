/**
 * Decoded objects of list responses, shared between requests (the role of kube-apiserver's watch cache objects with
 * their cached serializations). An entry is one stored key as one store decoded it at one modRevision: a key's value
 * at a modRevision never changes, so an entry whose revision matches the one storage returns is exactly what decoding
 * the stored bytes again would give, and an entry for an older revision is simply not used (and ages out).
 *
 * The objects are shared: whoever receives them must not mutate them (the list handler only serialises them). Their
 * encodings (JSON, protobuf) are cached beside them by the response writer (render.ts), keyed by object identity, so a
 * LIST of unchanged objects concatenates bytes encoded once instead of parsing and serialising every item again.
 *
 * Bounded by the stored bytes of the entries it holds (least recently used first out).
 */
import type { KubeObject } from '../../apimachinery/object.js';

interface Entry {
  revision: number;
  obj: KubeObject;
  bytes: number;
}

/** Stored bytes kept (~4× that in memory with the decoded object and its encodings): 32 MiB ≈ 23,000 1 KB objects. */
const DEFAULT_BUDGET = Number(process.env.ATRIUM_LIST_CACHE_BYTES ?? 32 * 1024 * 1024);

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private total = 0;

  constructor(private readonly budget = DEFAULT_BUDGET) {}

  /** The shared object for id at exactly revision, or undefined. */
  get(id: string, revision: number): KubeObject | undefined {
    const e = this.entries.get(id);
    if (e === undefined) return undefined;
    if (e.revision !== revision) return undefined;
    // Most recently used last.
    this.entries.delete(id);
    this.entries.set(id, e);
    return e.obj;
  }

  set(id: string, revision: number, obj: KubeObject, bytes: number): void {
    if (this.budget <= 0 || bytes > this.budget) return;
    const old = this.entries.get(id);
    if (old !== undefined) {
      this.total -= old.bytes;
      this.entries.delete(id);
    }
    this.entries.set(id, { revision, obj, bytes });
    this.total += bytes;
    if (this.total <= this.budget) return;
    for (const [k, e] of this.entries) {
      if (this.total <= this.budget) break;
      this.entries.delete(k);
      this.total -= e.bytes;
    }
  }

  /** Entries and stored bytes held (tests, metrics). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.total };
  }
}

/** One cache for every store of the process, so the budget is the server's. */
export const sharedReadCache = new ReadCache();
