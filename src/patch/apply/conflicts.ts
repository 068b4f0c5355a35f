/**
 * The 409 an apply answers when it would change fields other managers own (fieldmanager/internal conflict.go).
 * Single conflict: `Apply failed with 1 conflict: conflict with "mgr" using v1: .data.key`; several: one
 * `conflicts with <manager>:` line per manager (managers sorted) followed by `- <path>` lines.
 */
import { StatusError } from '../../apimachinery/status.js';
import type { FieldSet } from './field-set.js';
import type { ManagedEntry } from './managed-fields.js';
import { pathToString } from './path-element.js';

export interface ManagerConflict {
  entry: ManagedEntry;
  fields: FieldSet;
}

/**
 * How a manager is named in conflict messages: quoted name, `with subresource "x"` when set, and for Update entries
 * `using <apiVersion>` (the time is not part of a manager's identity, so it never appears).
 */
export function describeManager(e: ManagedEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/** The StatusError for a non-empty list of conflicts. */
export function applyConflictError(conflicts: readonly ManagerConflict[]): StatusError {
  const flat: { manager: string; path: string }[] = [];
  const sorted = [...conflicts].sort((a, b) => (describeManager(a.entry) < describeManager(b.entry) ? -1 : 1));
  for (const c of sorted) {
    for (const p of c.fields.paths()) flat.push({ manager: describeManager(c.entry), path: pathToString(p) });
  }
  let message: string;
  if (flat.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${flat[0]!.manager}: ${flat[0]!.path}`;
  } else {
    const lines: string[] = [];
    let last = '';
    for (const f of flat) {
      if (f.manager !== last) lines.push(`conflicts with ${f.manager}:`);
      last = f.manager;
      lines.push(`- ${f.path}`);
    }
    message = `Apply failed with ${flat.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Conflict',
    details: { causes: flat.map((f) => ({ reason: 'FieldManagerConflict', message: `conflict with ${f.manager}`, field: f.path })) },
    code: 409,
  });
}
