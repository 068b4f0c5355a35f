/**
 * metav1.Table, the server-side rendering kubectl asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, and its assembly as
 * apiserver's handlers/response.go (asTable) does it.
 */
import type { JsonObject } from '../object.js';

export const TABLE_API_VERSION = 'meta.k8s.io/v1';

/** metav1.TableColumnDefinition. All five fields are always serialized (no omitempty upstream). */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  /** OpenAPI format; `name` marks the column kubectl prefixes with `kind/` for multi-kind output. */
  format: string;
  description: string;
  /** 0 = always shown; >0 = only with `-o wide`. */
  priority: number;
}

/** metav1.TableRow on the wire. `object` is null when includeObject=None. */
export interface TableRow {
  cells: unknown[];
  object: JsonObject | null;
}

/** metav1.ListMeta (empty fields omitted). */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  /** null when headers were suppressed (every Table event of a watch after the first). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** metav1.IncludeObjectPolicy; the server default is Metadata. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';

/** A row before the object policy is applied: the cells plus the object they were computed from. */
export interface RowSource {
  cells: unknown[];
  object: JsonObject;
}

export interface BuildTableOptions {
  /** Omit column definitions (TableOptions.noHeaders / later watch events). */
  noHeaders?: boolean;
  /** Table group-version when the client asked for meta.k8s.io/v1beta1. */
  apiVersion?: string;
  /** The metadata a row's PartialObjectMetadata carries (TablePrinter.rowMetadata), when not the object's own. */
  rowMetadata?: (metadata: JsonObject) => JsonObject;
}

/** A column definition with upstream's zero values for omitted fields. */
export function column(name: string, type: string, description: string, opts: { format?: string; priority?: number } = {}): TableColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/** The `{kind: PartialObjectMetadata, apiVersion, metadata}` that stands in for the object under includeObject=Metadata. */
export function partialObjectMetadata(obj: JsonObject, apiVersion: string = TABLE_API_VERSION, rowMetadata?: (metadata: JsonObject) => JsonObject): JsonObject {
  const metadata = (obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : {}) as JsonObject;
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: rowMetadata ? rowMetadata(metadata) : metadata };
}

/**
 * Assembles the wire Table: list metadata with empty fields dropped, column definitions (null with
 * noHeaders), and one row per source whose `object` follows `includeObject`: None → null,
 * Metadata → PartialObjectMetadata carrying the full metadata (kubectl needs it for -A, -L and
 * --show-labels), Object → the object as given (the caller converts it to the requested version).
 */
export function buildTable(
  columns: TableColumnDefinition[],
  rows: RowSource[],
  listMeta: ListMeta,
  includeObject: IncludeObjectPolicy = 'Metadata',
  opts: BuildTableOptions = {},
): Table {
  const apiVersion = opts.apiVersion ?? TABLE_API_VERSION;
  const metadata: ListMeta = {};
  if (listMeta.resourceVersion) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined && listMeta.remainingItemCount !== null) metadata.remainingItemCount = listMeta.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion,
    metadata,
    columnDefinitions: opts.noHeaders ? null : columns.map((c) => ({ ...c })),
    rows: rows.map((r) => ({
      cells: r.cells,
      object: includeObject === 'None' ? null : includeObject === 'Object' ? r.object : partialObjectMetadata(r.object, apiVersion, opts.rowMetadata),
    })),
  };
}

/** Parses the includeObject query value; undefined for anything else (upstream: 400 `unrecognized includeObject value: "x"`). */
export function parseIncludeObject(value: string | undefined | null): IncludeObjectPolicy | undefined {
  if (value === undefined || value === null || value === '') return 'Metadata';
  return value === 'None' || value === 'Metadata' || value === 'Object' ? value : undefined;
}
