/**
 * managedFields bookkeeping for one endpoint of one resource (k8s.io/apiserver fieldmanager): Update operations
 * (create, update, non-apply patch) take ownership of what they change, and Apply merges a configuration over the
 * live object, prunes what the applier dropped, and refuses to change fields other managers own unless forced.
 */
import { type KubeObject, deepCopy, jsonEqual, nowRFC3339 } from '../../apimachinery/object.js';
import { compareObjects, type Comparison } from './compare.js';
import { createdFieldsV1 } from './created-fields.js';
import { applyConflictError, type ManagerConflict } from './conflicts.js';
import { FieldSet } from './field-set.js';
import { allowedLastAppliedConflicts, syncLastApplied } from './last-applied.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  entryIdentity,
  type ManagedEntry,
} from './managed-fields.js';
import { mergeValues, removeMembers } from './merge.js';
import { fieldSetOf, withNamedFieldsAsMembers } from './object-fields.js';
import { isObjectValue, type SsaType } from './schema.js';

/** The manager that owns everything an object held before its first apply when it had no managedFields. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';

/** Fields no manager ever owns: type and identity metadata the server controls (stripmeta.go). */
const STRIPPED = (() => {
  const s = new FieldSet();
  s.insert(['f:apiVersion']);
  s.insert(['f:kind']);
  s.insert(['f:metadata']);
  for (const f of ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']) {
    s.insert(['f:metadata', `f:${f}`]);
  }
  return s;
})();

export interface FieldManagerOptions {
  /** The type of the whole object. */
  root: SsaType;
  /** The apiVersion entries are recorded at, e.g. `v1` or `rbac.authorization.k8s.io/v1`. */
  apiVersion: string;
  /** The subresource written through ('' for the main resource). */
  subresource: string;
  /**
   * Fields this endpoint resets (status on the main resource, spec on /status), as dotted paths (`status.conditions`);
   * nobody gains them here.
   */
  resetFields?: readonly string[];
  /**
   * Paths of the struct fields the Go zero value of the type holds (value structs: `spec`, ...), outermost first.
   * A create is recorded as an Update from that zero value, so they are not members of the creator's entry.
   */
  zeroStructs?: readonly string[][];
  /**
   * Paths of the atomic value structs of the zero value (RoleRef, a LabelSelector): leaves the creator owns unless
   * they still hold the zero value `{}`, which a create then leaves as it found it.
   */
  zeroLeaves?: readonly string[][];
  /** Clock for entry times (tests). */
  now?: () => string;
}

export class FieldManager {
  private readonly ignored = new FieldSet();
  private readonly revisions = new Map<string, DecodedRevision>();
  private readonly now: () => string;
  private readonly createStripped: FieldSet;

  /** The type of the whole object, which configurations are checked against. */
  get rootType(): SsaType {
    return this.opts.root;
  }

  constructor(private readonly opts: FieldManagerOptions) {
    for (const f of opts.resetFields ?? []) this.ignored.insert(f.split('.').map((name) => `f:${name}`));
    this.now = opts.now ?? nowRFC3339;
    this.createStripped = STRIPPED;
    if (opts.zeroStructs?.length) {
      const s = new FieldSet();
      for (const p of opts.zeroStructs) s.insert(p.map((f) => `f:${f}`));
      this.createStripped = STRIPPED.union(s);
    }
  }

  /**
   * Records an Update by `manager` turning `live` (null on create) into `next`, and returns `next` with its
   * managedFields set (the input is not mutated, unless `inPlace`: then it is `next` itself). managedFields sent in `next` replace the live ones when they decode
   * and are non-empty (how clients edit them; `[{}]` decodes to one empty entry and so resets them); otherwise, and
   * always on subresources, the live ones are kept. An update of an object that has no managedFields is not tracked,
   * as upstream only starts tracking on create or apply.
   */
  update(live: KubeObject | null, next: KubeObject, manager: string, inPlace = false): KubeObject {
    const out = inPlace ? next : deepCopy(next);
    const liveEntries = decodeManagedFields(live?.metadata?.managedFields) ?? [];
    const sent = this.opts.subresource ? undefined : decodeManagedFields(next.metadata?.managedFields);
    let entries = sent && sent.length > 0 ? sent : liveEntries;
    if (live !== null && entries.length === 0) {
      setManagedFields(out, undefined);
      return out;
    }
    if (live === null && entries.length === 0) {
      setManagedFields(out, this.createdEntry(out, manager));
      return out;
    }
    entries = this.recordUpdate(entries, live ?? {}, out, manager);
    setManagedFields(out, encodeManagedFields(capUpdateManagers(entries)));
    return out;
  }

  /**
   * The wire managedFields of a create without managedFields sent, the common case: what recordUpdate([], {}, next)
   * and encodeManagedFields would give, written in one walk (created-fields.ts). The manager owns everything the
   * object holds but what the server controls or this endpoint resets.
   */
  private createdEntry(next: KubeObject, manager: string): Record<string, unknown>[] | undefined {
    const fieldsV1 = createdFieldsV1(withoutManagedFields(next), this.opts.root, this.createStripped, this.ignored);
    for (const path of this.opts.zeroLeaves ?? []) if (isEmptyObjectAt(next, path)) dropFieldsV1Path(fieldsV1, path);
    if (Object.keys(fieldsV1).length === 0) return undefined;
    // manager is omitempty, as in encodeManagedFields.
    const entry: Record<string, unknown> = { ...(manager === '' ? {} : { manager }), operation: 'Update', apiVersion: this.opts.apiVersion, time: this.now(), fieldsType: 'FieldsV1', fieldsV1 };
    if (this.opts.subresource) entry.subresource = this.opts.subresource;
    return [entry];
  }

  /**
   * Applies `config` by `manager` over `live` (null when the object does not exist yet) and returns the new object
   * with managedFields. Throws the 409 apply conflict when the change would modify fields other managers own and
   * `force` is false. Callers check the configuration's apiVersion/kind/managedFields first. When the apply changes
   * nothing at all (object and managedFields alike) the result is `live` itself, so callers can recognise the no-op
   * by identity and skip the write path; otherwise it is a new object the caller may mutate.
   */
  apply(live: KubeObject | null, config: KubeObject, manager: string, force: boolean): KubeObject {
    const liveObj: KubeObject = live ? withoutManagedFields(live) : {};
    const decoded = live ? this.decodedRevision(live) : undefined;
    let entries = decoded ? decoded.entries.map((e) => ({ ...e })) : (decodeManagedFields(live?.metadata?.managedFields) ?? []);
    if (live !== null && entries.length === 0) {
      entries = this.recordUpdate([], {}, liveObj, BEFORE_FIRST_APPLY);
    }
    const self = { manager, operation: 'Apply' as const, apiVersion: this.opts.apiVersion, subresource: this.opts.subresource };
    const selfId = entryIdentity(self);
    const previous = entries.find((e) => entryIdentity(e) === selfId);
    const others = entries.filter((e) => e !== previous).map((e) => ({ ...e }));
    const applied = this.owned(fieldSetOf(config, this.opts.root));
    const sameSet = previous !== undefined && previous.apiVersion === this.opts.apiVersion && previous.fields.equals(applied);

    let merged = mergeValues(liveObj, withoutManagedFields(config), this.opts.root) as KubeObject;
    // The steady state of re-applying a configuration: the applier's set is unchanged (so nothing is pruned) and the
    // merge reproduces the live object, so there is nothing to conflict on and no entry moves. kubectl is excluded
    // because its last-applied annotation is synced below.
    if (sameSet && manager !== 'kubectl' && live !== null && jsonEqual(merged, liveObj) && (decoded?.canonical ?? this.managedFieldsCanonical(live, entries))) {
      return live;
    }
    if (previous && !previous.fields.isEmpty() && !sameSet) merged = this.prune(merged, previous.fields, applied, others);

    const cmp = this.compare(liveObj, merged);
    const changed = cmp.modified.union(cmp.added);
    let conflicts: ManagerConflict[] = [];
    for (const e of others) {
      const c = e.fields.intersection(changed);
      if (!c.isEmpty()) conflicts.push({ entry: e, fields: c });
    }
    if (conflicts.length > 0 && !force) {
      // kubectl's own migration from client-side apply: conflicts on fields the last-applied annotation lists are allowed.
      const allowed = manager === 'kubectl' ? allowedLastAppliedConflicts(live, this.opts.root) : undefined;
      const remaining = conflicts
        .map((c) => ({ entry: c.entry, fields: allowed ? c.fields.difference(allowed) : c.fields }))
        .filter((c) => !c.fields.isEmpty());
      if (remaining.length > 0) throw applyConflictError(remaining);
    }
    for (const c of conflicts) c.entry.fields = c.entry.fields.difference(c.fields);
    for (const e of others) e.fields = e.fields.difference(cmp.removed);
    conflicts = [];

    // managedFieldsUpdater stamps the applier's time only when the object itself changed (smd's Apply returns no new
    // object when the merge equals the live one): a manager that only takes ownership of values already there keeps
    // its previous time, or has none (and so sorts first).
    const objectChanged = !jsonEqual(merged, liveObj);
    const entry: ManagedEntry = { ...self, fields: applied, time: objectChanged ? this.now() : previous?.time };
    // The merge shares subtrees with the configuration and the live object; callers may mutate what they get.
    const copy = deepCopy(merged);
    const result = manager === 'kubectl' ? syncLastApplied(copy, config) : copy;
    setManagedFields(result, encodeManagedFields(capUpdateManagers([...others, entry])));
    return result;
  }

  /**
   * The decoded managedFields of a stored revision (and whether they are canonical), cached by uid and
   * resourceVersion: a revision's content never changes, and re-applying the same configuration is the common case.
   * Undefined for objects that are not stored revisions or whose managedFields do not decode. The cached entries are
   * shared: callers copy an entry before reassigning its fields (FieldSets themselves are never mutated here).
   */
  private decodedRevision(live: KubeObject): DecodedRevision | undefined {
    const meta = live.metadata;
    const raw = meta?.managedFields;
    if (!meta?.uid || !meta.resourceVersion || !Array.isArray(raw) || raw.length === 0) return undefined;
    const key = `${meta.uid}/${meta.resourceVersion}`;
    const hit = this.revisions.get(key);
    // A cheap guard against objects that merely reuse a uid and resourceVersion (hand-built ones in tests).
    if (hit && hit.raw.length === raw.length && hit.raw.every((r, i) => sameEntryHeader(r, raw[i]))) {
      this.revisions.delete(key); // refresh its place in the LRU order
      this.revisions.set(key, hit);
      return hit;
    }
    const entries = decodeManagedFields(raw);
    if (!entries) return undefined;
    const rev: DecodedRevision = { raw, entries, canonical: this.managedFieldsCanonical(live, entries) };
    this.revisions.set(key, rev);
    if (this.revisions.size > REVISION_CACHE_SIZE) this.revisions.delete(this.revisions.keys().next().value!);
    return rev;
  }

  /**
   * Whether the live managedFields are exactly what re-encoding their decoded `entries` yields (order, dropped empty
   * sets, the cap on Update managers), so that an apply that changes nothing may hand back the live object as is.
   */
  private managedFieldsCanonical(live: KubeObject, entries: ManagedEntry[]): boolean {
    const raw = live.metadata?.managedFields;
    if (raw === undefined) return false; // a first apply over an untracked object records before-first-apply
    // Copies: capping folds entries into an ancient-changes bucket in place.
    return jsonEqual(encodeManagedFields(capUpdateManagers(entries.map((e) => ({ ...e })))), raw);
  }

  /** The manager's Update entry grows by what changed; everyone loses what changed or went away. */
  private recordUpdate(entries: readonly ManagedEntry[], live: KubeObject, next: KubeObject, manager: string): ManagedEntry[] {
    const cmp = this.compare(withoutManagedFields(live), withoutManagedFields(next));
    const changed = cmp.modified.union(cmp.added);
    const out = entries.map((e) => ({ ...e, fields: e.fields.difference(changed).difference(cmp.removed) }));
    const gained = this.owned(changed);
    if (gained.isEmpty()) return out;
    const id = entryIdentity({ manager, operation: 'Update', apiVersion: this.opts.apiVersion, subresource: this.opts.subresource });
    const mine = out.find((e) => entryIdentity(e) === id);
    if (mine) {
      mine.fields = this.owned(mine.fields.union(gained));
      mine.time = this.now();
    } else {
      out.push({ manager, operation: 'Update', apiVersion: this.opts.apiVersion, subresource: this.opts.subresource, time: this.now(), fields: gained });
    }
    return out;
  }

  /**
   * Removes what the applier owned before and no longer applies, unless another manager (or the new configuration)
   * still owns it. Named struct fields count as owned by whoever owns something below them.
   */
  private prune(merged: KubeObject, previous: FieldSet, applied: FieldSet, others: readonly ManagedEntry[]): KubeObject {
    const root = this.opts.root;
    // Server-controlled fields (metadata itself, its name, ...) are never pruned, though nobody owns them.
    let keep = withNamedFieldsAsMembers(applied, root).union(STRIPPED);
    for (const e of others) keep = keep.union(withNamedFieldsAsMembers(e.fields, root));
    const removal = withNamedFieldsAsMembers(previous, root).difference(keep);
    return removeMembers(merged, removal, root) as KubeObject;
  }

  private compare(live: KubeObject, next: KubeObject): Comparison {
    const cmp = compareObjects(live, next, this.opts.root);
    if (this.ignored.isEmpty()) return cmp;
    return {
      added: cmp.added.recursiveDifference(this.ignored),
      modified: cmp.modified.recursiveDifference(this.ignored),
      removed: cmp.removed.recursiveDifference(this.ignored),
    };
  }

  /** A set without the server-controlled fields and what this endpoint resets. */
  private owned(set: FieldSet): FieldSet {
    const kept = set.difference(STRIPPED);
    return this.ignored.isEmpty() ? kept : kept.recursiveDifference(this.ignored);
  }
}

/** Revisions whose decoded managedFields a FieldManager keeps. */
const REVISION_CACHE_SIZE = 1024;

interface DecodedRevision {
  /** The managedFields as stored, for the guard in decodedRevision. */
  raw: unknown[];
  entries: ManagedEntry[];
  /** Whether re-encoding the entries reproduces `raw` exactly. */
  canonical: boolean;
}

/** Whether two wire entries agree on everything but their field sets. */
function sameEntryHeader(a: unknown, b: unknown): boolean {
  if (!isObjectValue(a) || !isObjectValue(b)) return false;
  return a.manager === b.manager && a.operation === b.operation && a.apiVersion === b.apiVersion && a.time === b.time && a.subresource === b.subresource && a.fieldsType === b.fieldsType;
}

function withoutManagedFields(obj: KubeObject): KubeObject {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _mf, ...meta } = obj.metadata;
  void _mf;
  return { ...obj, metadata: meta };
}

function setManagedFields(obj: KubeObject, encoded: Record<string, unknown>[] | undefined): void {
  if (!obj.metadata) {
    if (encoded) obj.metadata = { managedFields: encoded };
    return;
  }
  if (encoded) obj.metadata.managedFields = encoded;
  else delete obj.metadata.managedFields;
}

/** Whether `obj` holds an empty object at `path` (JSON names). */
function isEmptyObjectAt(obj: unknown, path: readonly string[]): boolean {
  let v: unknown = obj;
  for (const name of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    v = (v as Record<string, unknown>)[name];
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** Removes the trie entry at `path` (JSON names) and the parents it leaves empty. */
function dropFieldsV1Path(trie: Record<string, unknown>, path: readonly string[]): void {
  const [head, ...rest] = path;
  const key = `f:${head}`;
  const child = trie[key] as Record<string, unknown> | undefined;
  if (!child) return;
  if (rest.length > 0) dropFieldsV1Path(child, rest);
  if (rest.length === 0 || Object.keys(child).length === 0) delete trie[key];
}
