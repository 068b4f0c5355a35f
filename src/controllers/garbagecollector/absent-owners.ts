/**
 * Owners the garbage collector has confirmed gone (upstream's absentOwnerCache). A uid is never reused, so once an
 * owner with a given uid was seen deleted, or a live GET at its coordinates answered 404 or another uid, every later
 * dependent naming those same coordinates may be treated as dangling without asking the server again: this is what
 * turns "10,000 dependents of one deleted owner" from 10,000 GETs into none.
 *
 * Entries are keyed by the full coordinates (logical cluster, namespace the owner was looked up in, group, kind, name,
 * uid), never by uid alone: a dependent in namespace B naming a uid that lives in namespace A gets "absent" for B,
 * which must not make A's legitimate dependents look orphaned.
 */

/** Where an owner was (or would have been) found. `namespace` is "" for cluster-scoped kinds. */
export interface OwnerCoordinates {
  cluster: string;
  namespace: string;
  group: string;
  kind: string;
  name: string;
  uid: string;
}

/** A bounded set of confirmed-absent owners; the oldest entries are forgotten first (a miss only costs a GET). */
export class AbsentOwnerCache {
  private readonly entries = new Set<string>();

  constructor(private readonly capacity = 1000) {}

  /** Records that no object exists at these coordinates with this uid. */
  add(owner: OwnerCoordinates): void {
    const key = keyOf(owner);
    // Re-adding moves the entry to the young end, so busy owners stay.
    this.entries.delete(key);
    this.entries.add(key);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.values().next().value!);
  }

  /** True when these exact coordinates were confirmed absent. */
  has(owner: OwnerCoordinates): boolean {
    return this.entries.has(keyOf(owner));
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(o: OwnerCoordinates): string {
  return JSON.stringify([o.cluster, o.namespace, o.group, o.kind, o.name, o.uid]);
}
