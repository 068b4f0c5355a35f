/**
 * The garbage collector's view of ownership, derived entirely from informer events (nothing in it survives a
 * restart, nothing needs to): which object has which uid, and which objects name a uid as owner. Objects are
 * identified by a node id `<group>/<resource>#<cluster>|<namespace>/<name>`.
 */
import type { KubeObject } from '../../apimachinery/object.js';
import { keyOf } from '../../client/store.js';
import { ownerReferencesOf } from './owner-references.js';

export interface GraphResource {
  group: string;
  resource: string;
}

/** `<group>/<resource>#<store key>`. */
export function nodeId(r: GraphResource, obj: KubeObject): string {
  return `${r.group}/${r.resource}#${keyOf(obj)}`;
}

/** Splits a node id into its resource and store key. */
export function parseNodeId(id: string): { group: string; resource: string; key: string } {
  const hash = id.indexOf('#');
  const gr = id.slice(0, hash);
  const slash = gr.indexOf('/');
  return { group: gr.slice(0, slash), resource: gr.slice(slash + 1), key: id.slice(hash + 1) };
}

export class OwnershipGraph {
  /** uid → node id. */
  private readonly byUid = new Map<string, string>();
  /** node id → uid. */
  private readonly uidOf = new Map<string, string>();
  /** owner uid → dependent node ids. */
  private readonly dependents = new Map<string, Set<string>>();
  /** node id → the owner uids it references. */
  private readonly ownersOf = new Map<string, string[]>();
  /** owner uid → dependent node ids whose reference to it says blockOwnerDeletion: true. */
  private readonly blocking = new Map<string, Set<string>>();
  /** node id → the owner uids it blocks. */
  private readonly blocksOf = new Map<string, string[]>();

  /** Records an object (add or update). Returns the owner uids it referenced before (for change detection). */
  upsert(id: string, obj: KubeObject): string[] {
    const uid = obj.metadata?.uid ?? '';
    const previousOwners = this.ownersOf.get(id) ?? [];
    const oldUid = this.uidOf.get(id);
    if (oldUid && oldUid !== uid && this.byUid.get(oldUid) === id) this.byUid.delete(oldUid);
    if (uid) {
      this.byUid.set(uid, id);
      this.uidOf.set(id, uid);
    }
    for (const o of previousOwners) this.dependents.get(o)?.delete(id);
    const owners = ownerReferencesOf(obj).map((r) => r.uid).filter(Boolean);
    for (const o of owners) {
      let set = this.dependents.get(o);
      if (!set) this.dependents.set(o, (set = new Set()));
      set.add(id);
    }
    if (owners.length > 0) this.ownersOf.set(id, owners);
    else this.ownersOf.delete(id);
    this.forgetBlocks(id);
    const blocks = ownerReferencesOf(obj)
      .filter((r) => r.uid && r.blockOwnerDeletion === true)
      .map((r) => r.uid);
    for (const o of blocks) {
      let set = this.blocking.get(o);
      if (!set) this.blocking.set(o, (set = new Set()));
      set.add(id);
    }
    if (blocks.length > 0) this.blocksOf.set(id, blocks);
    return previousOwners;
  }

  /** Forgets an object. Returns the owner uids it referenced. */
  remove(id: string): string[] {
    const uid = this.uidOf.get(id);
    if (uid && this.byUid.get(uid) === id) this.byUid.delete(uid);
    this.uidOf.delete(id);
    const owners = this.ownersOf.get(id) ?? [];
    for (const o of owners) {
      const set = this.dependents.get(o);
      set?.delete(id);
      if (set && set.size === 0) this.dependents.delete(o);
    }
    this.ownersOf.delete(id);
    this.forgetBlocks(id);
    return owners;
  }

  private forgetBlocks(id: string): void {
    for (const o of this.blocksOf.get(id) ?? []) {
      const set = this.blocking.get(o);
      set?.delete(id);
      if (set && set.size === 0) this.blocking.delete(o);
    }
    this.blocksOf.delete(id);
  }

  /** Node id of the object with this uid, if known. */
  nodeOfUid(uid: string): string | undefined {
    return this.byUid.get(uid);
  }

  /** Node ids of the objects that name `uid` as an owner. */
  dependentsOf(uid: string): string[] {
    return [...(this.dependents.get(uid) ?? [])];
  }

  /**
   * Node ids of the dependents whose reference to `uid` has blockOwnerDeletion: true (live view; do not mutate).
   * Kept as its own index so a foreground owner with thousands of dependents checks "still blocked?" without a scan.
   */
  blockingDependentsOf(uid: string): ReadonlySet<string> {
    return this.blocking.get(uid) ?? emptySet;
  }
}

const emptySet: ReadonlySet<string> = new Set();
