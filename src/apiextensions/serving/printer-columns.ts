/**
 * The Table convertor of a custom resource version (apiextensions tableconvertor): a Name column, then the version's
 * additionalPrinterColumns, or a single Age column when it defines none. The server renders every column; kubectl
 * hides priority>0 ones unless `-o wide`.
 */
import type { JsonObject } from '../../apimachinery/object.js';
import { translateTimestampSince } from '../../apimachinery/table/duration.js';
import { column, type TableColumnDefinition } from '../../apimachinery/table/table.js';
import type { TablePrinter } from '../../apimachinery/table/builtin-printers.js';
import type { CRDColumn } from '../crd/types.js';
import { type CompiledJSONPath, compileJSONPath } from './jsonpath.js';

const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** What a CRD version without additionalPrinterColumns shows (besides Name). */
export const defaultCRColumns: CRDColumn[] = [{ name: 'Age', type: 'date', description: creationTimestampDescription, jsonPath: '.metadata.creationTimestamp' }];

interface PreparedColumn {
  def: CRDColumn;
  path: CompiledJSONPath | undefined;
}

/** Builds the printer; columns whose jsonPath does not parse print <none> rather than failing the request. */
export function printerForColumns(columns: CRDColumn[] | undefined): TablePrinter {
  const cols = columns && columns.length ? columns : defaultCRColumns;
  const prepared: PreparedColumn[] = cols.map((c) => {
    let path: CompiledJSONPath | undefined;
    try {
      path = compileJSONPath(c.jsonPath ?? '');
    } catch {
      path = undefined;
    }
    return { def: c, path };
  });
  const definitions: TableColumnDefinition[] = [
    column('Name', 'string', nameDescription, { format: 'name' }),
    ...cols.map((c) => column(c.name ?? '', c.type ?? 'string', c.description ?? '', { format: c.format ?? '', priority: c.priority ?? 0 })),
  ];
  return {
    columns: definitions,
    row(obj: JsonObject, now: number | Date): unknown[] {
      const meta = (obj.metadata ?? {}) as { name?: string };
      return [meta.name ?? '', ...prepared.map((p) => cell(p, obj, now))];
    },
  };
}

/**
 * One cell as upstream's tableconvertor does it: only the first value the path finds counts (`.spec.ports[*].name`
 * shows the first name), then cellForJSONValue: an integer column truncates a float (2.7 → 2), a date column shows
 * `<invalid>` for a string that is not RFC 3339.
 */
function cell(p: PreparedColumn, obj: JsonObject, now: number | Date): unknown {
  const found = p.path?.find(obj) ?? [];
  if (found.length === 0 || found[0] === undefined || found[0] === null) return null;
  const v = found[0];
  switch (p.def.type) {
    case 'integer':
      if (typeof v === 'bigint') return Number(v);
      return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'date':
      if (typeof v !== 'string') return null;
      // metav1.Time.UnmarshalQueryParameter: "" and "null" are the zero time, anything else must parse as RFC 3339.
      if (v !== '' && v !== 'null' && !isRFC3339(v)) return '<invalid>';
      return translateTimestampSince(v === 'null' ? '' : v, now);
    default:
      return printValue(v);
  }
}

/** Whether Go's time.Parse(time.RFC3339, s) accepts `s`. */
function isRFC3339(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s));
}

/** How jsonpath's text printer renders a value: strings bare, everything else as JSON. */
function printValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
