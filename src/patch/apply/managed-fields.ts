/**
 * metadata.managedFields in memory and on the wire (k8s.io/apiserver fieldmanager/internal managedfields.go).
 * An entry is identified by (manager, operation, subresource) plus apiVersion for Update operations: appliers keep
 * one entry across versions.
 */
import { nowRFC3339 } from '../../apimachinery/object.js';
import { FieldSet } from './field-set.js';
import { isObjectValue } from './schema.js';

export type ManagedOperation = 'Apply' | 'Update';

export interface ManagedEntry {
  manager: string;
  operation: ManagedOperation;
  apiVersion: string;
  /** RFC 3339, seconds precision; undefined when a client sent none. */
  time?: string;
  subresource: string;
  fields: FieldSet;
}

/** The identity of an entry: two entries with the same identity are one entry. */
export function entryIdentity(e: Pick<ManagedEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([e.manager, e.operation, e.operation === 'Apply' ? '' : e.apiVersion, e.subresource]);
}

/**
 * Decodes managedFields. Returns undefined when they cannot be decoded (not a list, an entry that is not an object,
 * an unknown fieldsType, malformed fieldsV1): callers then fall back as kube-apiserver does. An entry without fieldsV1
 * (e.g. the `{}` of a `managedFields: [{}]` reset) decodes to an empty set.
 */
export function decodeManagedFields(raw: unknown): ManagedEntry[] | undefined {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return undefined;
  const out: ManagedEntry[] = [];
  for (const item of raw) {
    if (!isObjectValue(item)) return undefined;
    const fieldsType = item.fieldsType ?? '';
    let fields = new FieldSet();
    if (item.fieldsV1 !== undefined && item.fieldsV1 !== null) {
      if (fieldsType !== 'FieldsV1') return undefined;
      try {
        fields = FieldSet.fromFieldsV1(item.fieldsV1);
      } catch {
        return undefined;
      }
    } else if (fieldsType !== '' && fieldsType !== 'FieldsV1') {
      return undefined;
    }
    out.push({
      manager: typeof item.manager === 'string' ? item.manager : '',
      operation: item.operation === 'Apply' ? 'Apply' : 'Update',
      apiVersion: typeof item.apiVersion === 'string' ? item.apiVersion : '',
      time: typeof item.time === 'string' ? item.time : undefined,
      subresource: typeof item.subresource === 'string' ? item.subresource : '',
      fields,
    });
  }
  return out;
}

/**
 * What is wrong with managedFields as upstream's DecodeManagedFields words it (managedfields.ValidateManagedFields),
 * or undefined when they decode: every entry's operation is Apply or Update, its apiVersion set, its fieldsType
 * FieldsV1, its fieldsV1 a field set.
 */
export function managedFieldsProblem(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) return 'managedFields is not a list';
  for (const [i, item] of raw.entries()) {
    if (!isObjectValue(item)) return `managed fields entry ${i} is not an object`;
    if (item.operation !== 'Apply' && item.operation !== 'Update') return 'operation must be `Apply` or `Update`';
    if (typeof item.apiVersion !== 'string' || item.apiVersion.length < 1) return 'apiVersion must not be empty';
    if (item.fieldsType === undefined || item.fieldsType === '') return `missing fieldsType in managed fields entry ${i}`;
    if (item.fieldsType !== 'FieldsV1') return `invalid fieldsType ${JSON.stringify(item.fieldsType)} in managed fields entry ${i}`;
    if (item.fieldsV1 !== undefined && item.fieldsV1 !== null) {
      try {
        FieldSet.fromFieldsV1(item.fieldsV1);
      } catch (err) {
        return `error decoding versioned set: error decoding set: ${(err as Error).message}`;
      }
    }
  }
  return undefined;
}

/**
 * The wire form: entries with empty sets dropped, sorted like kube-apiserver (operation, time, manager, apiVersion,
 * subresource), keys in the order of metav1.ManagedFieldsEntry. An empty result is undefined (the field is omitted).
 */
export function encodeManagedFields(entries: readonly ManagedEntry[]): Record<string, unknown>[] | undefined {
  const kept = entries.filter((e) => !e.fields.isEmpty());
  if (kept.length === 0) return undefined;
  kept.sort(compareEntries);
  return kept.map((e) => {
    // manager is omitempty: a write with no fieldManager and no User-Agent records an entry without one.
    const out: Record<string, unknown> = e.manager === '' ? {} : { manager: e.manager };
    out.operation = e.operation;
    out.apiVersion = e.apiVersion;
    if (e.time !== undefined) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.fields.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

function compareEntries(p: ManagedEntry, q: ManagedEntry): number {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
  const pt = p.time ? Date.parse(p.time) : 0;
  const qt = q.time ? Date.parse(q.time) : 0;
  if (pt !== qt) return pt - qt;
  for (const k of ['manager', 'apiVersion', 'subresource'] as const) {
    if (p[k] !== q[k]) return p[k] < q[k] ? -1 : 1;
  }
  return 0;
}

/** At most this many Update entries are kept; older ones are folded into one (capmanagers.go). */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/**
 * Folds the oldest Update entries into an `ancient-changes` entry until at most MAX_UPDATE_MANAGERS remain, so that
 * controllers with ever-changing names cannot grow managedFields without bound.
 */
export function capUpdateManagers(entries: ManagedEntry[]): ManagedEntry[] {
  const updates = entries.filter((e) => e.operation === 'Update' && !e.fields.isEmpty());
  if (updates.length <= MAX_UPDATE_MANAGERS) return entries;
  updates.sort((a, b) => (a.time ? Date.parse(a.time) : 0) - (b.time ? Date.parse(b.time) : 0));
  let result = [...entries];
  for (const oldest of updates) {
    const count = result.filter((e) => e.operation === 'Update' && !e.fields.isEmpty()).length;
    if (count <= MAX_UPDATE_MANAGERS) break;
    if (oldest.manager === ANCIENT_CHANGES) continue;
    result = result.filter((e) => e !== oldest);
    const bucket = result.find((e) => e.manager === ANCIENT_CHANGES && e.operation === 'Update' && e.apiVersion === oldest.apiVersion);
    if (bucket) bucket.fields = bucket.fields.union(oldest.fields);
    else result.push({ ...oldest, manager: ANCIENT_CHANGES, subresource: '', time: oldest.time ?? nowRFC3339() });
  }
  return result;
}
