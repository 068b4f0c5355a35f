/**
 * Fields a downstream controller owns (an HPA scaling a Deployment, a cluster-local admission default a controller
 * keeps writing) must not be fought over: the syncer would reset them on every write and the controller would set
 * them again.
 *
 * The rule: a field under `spec` is downstream-owned when, in the downstream object's managedFields, a manager other
 * than the syncer (SYNCER_FIELD_MANAGER) owns it through the main resource or a non-status subresource (`scale`).
 * Such fields keep their downstream value when the syncer rewrites the object, and that value is mirrored into the
 * upstream object's spec, so upstream shows what really runs. While a downstream manager owns a field, upstream edits
 * of it are overwritten by the downstream value. Server-side ownership does the bookkeeping: an Update takes only the
 * fields it changes, so the syncer re-sending the same value does not take a field back.
 *
 * Ownership is tracked down to plain fields (`f:` keys). A list of which another manager owns elements (`k:`, `v:`,
 * `i:` keys, e.g. a sidecar container added downstream) counts as downstream-owned as a whole: the syncer writes
 * lists whole, so it can only keep or replace them entirely.
 */
import { deepCopy, jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { SPEC_HASH_ANNOTATION, SYNCER_FIELD_MANAGER, STATE_LABEL_PREFIX } from '../api/types.js';
import { contentHash } from './transform.js';

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
}

/** Leaf field paths (`['spec', 'replicas']`) under `f:spec` in a fieldsV1 set. */
function specLeaves(fields: Record<string, unknown> | undefined): string[][] {
  const spec = fields?.['f:spec'];
  if (!spec || typeof spec !== 'object') return [];
  const out: string[][] = [];
  const walk = (node: Record<string, unknown>, path: string[]) => {
    const children = Object.keys(node).filter((k) => k.startsWith('f:'));
    // A node with no field children is owned as a whole (a scalar, or a list/map set in one piece).
    if (children.length === 0 || Object.keys(node).some((k) => !k.startsWith('f:') && k !== '.')) {
      out.push(path);
      return;
    }
    for (const k of children) walk((node[k] ?? {}) as Record<string, unknown>, [...path, k.slice(2)]);
  };
  walk(spec as Record<string, unknown>, ['spec']);
  return out;
}

/**
 * The spec fields of `down` that another manager than `syncerManager` owns (sorted, deduplicated, as dotted
 * paths split into arrays). Status-subresource entries never count. An object without managedFields owns nothing.
 */
export function downstreamOwnedPaths(down: KubeObject | undefined, syncerManager = SYNCER_FIELD_MANAGER): string[][] {
  const entries = (down?.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  const seen = new Map<string, string[]>();
  for (const e of entries) {
    if (e.manager === syncerManager || e.subresource === 'status' || e.fieldsType !== 'FieldsV1') continue;
    for (const p of specLeaves(e.fieldsV1)) seen.set(p.join('.'), p);
  }
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}

function getPath(obj: unknown, path: string[]): { found: boolean; value?: unknown } {
  let cur = obj;
  for (const p of path) {
    if (!cur || typeof cur !== 'object' || !(p in (cur as Record<string, unknown>))) return { found: false };
    cur = (cur as Record<string, unknown>)[p];
  }
  return { found: true, value: cur };
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (!cur[p] || typeof cur[p] !== 'object') cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = deepCopy(value);
}

/**
 * Copies the downstream values of `paths` into `desired` (a toDownstream result; mutated), paths absent downstream
 * left alone, and recomputes its SPEC_HASH_ANNOTATION over the result so the hash keeps describing the content.
 */
export function keepDownstreamOwned(desired: KubeObject, down: KubeObject, paths: string[][]): void {
  let changed = false;
  for (const p of paths) {
    const v = getPath(down, p);
    if (!v.found || jsonEqual(getPath(desired, p).value, v.value)) continue;
    setPath(desired as Record<string, unknown>, p, v.value);
    changed = true;
  }
  const annotations = desired.metadata?.annotations;
  if (!changed || !annotations) return;
  delete annotations[SPEC_HASH_ANNOTATION];
  annotations[SPEC_HASH_ANNOTATION] = contentHash(desired);
}

/**
 * The merge patch that makes upstream's `paths` equal the downstream values, or undefined when they already agree
 * (or nothing is downstream-owned).
 */
export function upstreamMirrorPatch(up: KubeObject, down: KubeObject, paths: string[][]): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  let any = false;
  for (const p of paths) {
    const d = getPath(down, p);
    if (!d.found) continue;
    const u = getPath(up, p);
    if (u.found && jsonEqual(u.value, d.value)) continue;
    setPath(patch, p, d.value);
    any = true;
  }
  return any ? patch : undefined;
}

/**
 * Whether `up` is assigned to other targets besides `key` through state labels. Mirroring downstream-owned values
 * up is then skipped: two clusters' controllers would take turns overwriting the one upstream value.
 */
export function assignedElsewhere(up: KubeObject, key: string): boolean {
  return Object.entries(up.metadata?.labels ?? {}).some(([k, v]) => k.startsWith(STATE_LABEL_PREFIX) && k !== STATE_LABEL_PREFIX + key && v === 'Sync');
}
