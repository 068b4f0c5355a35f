/**
 * What a controller's own writes returned, kept until its informer has caught up with them (client-go's
 * MutationCache, for the same reason).
 *
 * A controller compares what it would write with its cache and writes only on a difference. Between its write and the
 * watch event bringing that write into the cache, other events start more reconciles of the same object; under load
 * that gap is seconds, and each of those reconciles saw the old object and wrote the same thing again — every such
 * write one more request, watch event and reconcile for everyone watching (a split Deployment's status was written
 * ten times for the three or four changes its children reported).
 *
 * resourceVersions are compared as the integers this server (and etcd) hands out; one that is not an integer is
 * never taken for newer, so the cached object is used as before.
 */
import type { KubeObject } from '../../apimachinery/object.js';

export class WriteCache {
  private readonly written = new Map<string, KubeObject>();

  /** Remembers the object a write under `key` returned. */
  remember(key: string, obj: KubeObject): void {
    if (resourceVersionOf(obj) !== undefined) this.written.set(key, obj);
  }

  /**
   * The newer of the informer's object and the one last written under `key`: the written one while the cache has not
   * seen it yet. Once the cache holds it (or something newer), or the object is gone, it is forgotten.
   */
  freshest<T extends KubeObject>(key: string, cached: T | undefined): T | undefined {
    const mine = this.written.get(key);
    if (!mine) return cached;
    const cachedRv = cached ? resourceVersionOf(cached) : undefined;
    const mineRv = resourceVersionOf(mine)!;
    if (!cached || cachedRv === undefined || cachedRv >= mineRv || cached.metadata?.uid !== mine.metadata?.uid) {
      this.written.delete(key);
      return cached;
    }
    return mine as T;
  }

  /** Forgets `key` (its object was deleted). */
  forget(key: string): void {
    this.written.delete(key);
  }

  /** Forgets every key starting with `prefix` (a workspace no longer watched). */
  forgetPrefix(prefix: string): void {
    for (const key of [...this.written.keys()]) if (key.startsWith(prefix)) this.written.delete(key);
  }
}

function resourceVersionOf(obj: KubeObject): bigint | undefined {
  const rv = obj.metadata?.resourceVersion;
  return rv && /^[0-9]{1,30}$/.test(rv) ? BigInt(rv) : undefined;
}
