/**
 * Converts the built-in type catalog (src/apimachinery/schema/types.ts) into OpenAPI schema objects,
 * shaped the way kube-apiserver publishes them:
 *   - v3 (`/openapi/v3/<gv>`): references are `#/components/schemas/<name>`, and a reference that
 *     carries siblings (description, default) is wrapped as `allOf: [{$ref}]`, because OpenAPI 3.0
 *     ignores siblings of `$ref`;
 *   - v2 (`/openapi/v2`): references are `#/definitions/<name>` with siblings kept beside `$ref`.
 *
 * Scalars with their own upstream definition (metav1.Time, MicroTime, IntOrString, Quantity,
 * RawExtension, apiextensions JSON) are emitted as references to those definitions, and the
 * definitions themselves come from wellKnownSchemas(); this keeps `kubectl explain` output
 * (`creationTimestamp <Time>`) like upstream.
 *
 * Descriptions are Kubernetes' own where it publishes the type (same definition name): read from the npm package
 * kubernetes-types 1.30.0 by ./upstream-descriptions.ts, so `kubectl explain` reads as on Kubernetes; the catalog's
 * own descriptions are the fallback for types, fields and texts that package lacks.
 */
import type { FieldDescriptor, FieldType, ScalarType, TypeCatalog, TypeDescriptor } from '../../apimachinery/schema/types.js';
import { upstreamFieldDescription, upstreamTypeDescription } from './upstream-descriptions.js';

export type OpenAPIVersion = 'v2' | 'v3';

/** A JSON-serialisable OpenAPI schema object. Kept loose on purpose: CRD schemas flow through too. */
export type OpenAPISchema = { [key: string]: unknown };

/** The `$ref` prefix of each document version. */
export const REF_PREFIX: Record<OpenAPIVersion, string> = {
  v2: '#/definitions/',
  v3: '#/components/schemas/',
};

/** Upstream definition names of scalar types that are published as named schemas. */
export const WELL_KNOWN_DEFINITIONS = {
  time: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  microTime: 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
  intOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
  json: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
} as const satisfies Partial<Record<ScalarType, string>>;

type WellKnownScalar = keyof typeof WELL_KNOWN_DEFINITIONS;

function isWellKnown(s: ScalarType): s is WellKnownScalar {
  return Object.hasOwn(WELL_KNOWN_DEFINITIONS, s);
}

/**
 * The named schemas for scalar types with an upstream definition, in the given document version.
 * IntOrString additionally carries `x-kubernetes-int-or-string: true` (the structural-schema marker
 * CRDs use) so consumers that only know that marker still treat it as int-or-string.
 */
export function wellKnownSchemas(version: OpenAPIVersion, options: SchemaOptions = {}): Record<string, OpenAPISchema> {
  const dateTime = (description: string): OpenAPISchema => ({ description, type: 'string', format: 'date-time' });
  const described = (name: string, schema: OpenAPISchema): OpenAPISchema => {
    const upstream = options.upstreamDescriptions === false ? undefined : upstreamTypeDescription(name);
    return upstream === undefined ? schema : { ...schema, description: upstream };
  };
  const schemas: Record<string, OpenAPISchema> = {
    [WELL_KNOWN_DEFINITIONS.time]: dateTime('Time is a timestamp in RFC 3339 form with second precision, always in UTC.'),
    [WELL_KNOWN_DEFINITIONS.microTime]: dateTime('MicroTime is a timestamp in RFC 3339 form with microsecond precision.'),
    [WELL_KNOWN_DEFINITIONS.intOrString]: {
      description: 'IntOrString holds either an int32 or a string; JSON carries whichever one is set.',
      format: 'int-or-string',
      ...(version === 'v3' ? { oneOf: [{ type: 'integer' }, { type: 'string' }] } : { type: 'string' }),
      'x-kubernetes-int-or-string': true,
    },
    [WELL_KNOWN_DEFINITIONS.quantity]: {
      description:
        'Quantity is a fixed-point number with an optional SI or binary suffix, such as "100m", "1Gi" or "2.5", serialised as a string.',
      ...(version === 'v3' ? { oneOf: [{ type: 'string' }, { type: 'number' }] } : { type: 'string' }),
    },
    [WELL_KNOWN_DEFINITIONS.rawExtension]: {
      description: 'RawExtension holds an embedded object of any kind, serialised as that object.',
      type: 'object',
    },
    [WELL_KNOWN_DEFINITIONS.json]: {
      description: 'JSON is any JSON value: a boolean, number, string, array, object or null.',
    },
  };
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, described(name, schema)]));
}

/**
 * Whether descriptions come from Kubernetes' published types where it has the definition (the default), or only from
 * the catalog (`upstreamDescriptions: false`: test fixtures whose own wording is under test).
 */
export interface SchemaOptions {
  upstreamDescriptions?: boolean;
}

/** A `$ref` to a named schema. */
export function refTo(name: string, version: OpenAPIVersion): OpenAPISchema {
  return { $ref: REF_PREFIX[version] + name };
}

/**
 * A reference with sibling keywords: v3 wraps the reference in `allOf` (siblings of `$ref` are
 * ignored in OpenAPI 3.0), v2 keeps them side by side. Without siblings both give a bare `$ref`.
 */
export function refWithSiblings(name: string, siblings: OpenAPISchema, version: OpenAPIVersion): OpenAPISchema {
  if (Object.keys(siblings).length === 0) return refTo(name, version);
  if (version === 'v3') return { allOf: [refTo(name, version)], ...siblings };
  return { ...refTo(name, version), ...siblings };
}

/** The schema of a value of `type`, without field-level keywords (description, extensions). */
export function schemaForFieldType(type: FieldType, version: OpenAPIVersion): OpenAPISchema {
  if ('ref' in type) return refTo(type.ref, version);
  if ('list' in type) return { type: 'array', items: schemaForFieldType(type.list, version) };
  if ('map' in type) return { type: 'object', additionalProperties: schemaForFieldType(type.map, version) };
  return scalarSchema(type.scalar, version);
}

function scalarSchema(scalar: ScalarType, version: OpenAPIVersion): OpenAPISchema {
  if (isWellKnown(scalar)) return refTo(WELL_KNOWN_DEFINITIONS[scalar], version);
  switch (scalar) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'double':
      return { type: 'number', format: 'double' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'duration':
      // metav1.Duration publishes as a plain string ("1h0m0s"), without a definition of its own.
      return { type: 'string' };
  }
}

/**
 * The property schema for one field: its value schema plus description, default, enum and the
 * x-kubernetes-* extensions for strategic merge patch and server-side apply. Keywords that sit
 * beside a reference go through refWithSiblings. Given the enclosing `definition`'s name, the description is
 * Kubernetes' published one for that definition's field when there is one.
 */
export function schemaForField(field: FieldDescriptor, version: OpenAPIVersion, definition?: string): OpenAPISchema {
  const extra: OpenAPISchema = {};
  const description = (definition !== undefined ? upstreamFieldDescription(definition, field.name) : undefined) ?? field.description;
  if (description !== undefined) extra.description = description;
  if (field.default !== undefined) extra.default = field.default;
  if (field.enum !== undefined) extra.enum = [...field.enum];
  if (field.listType !== undefined) extra['x-kubernetes-list-type'] = field.listType;
  if (field.listMapKeys !== undefined) extra['x-kubernetes-list-map-keys'] = [...field.listMapKeys];
  if (field.mapType !== undefined) extra['x-kubernetes-map-type'] = field.mapType;
  if (field.patchMergeKey !== undefined) extra['x-kubernetes-patch-merge-key'] = field.patchMergeKey;
  if (field.patchStrategy !== undefined) extra['x-kubernetes-patch-strategy'] = field.patchStrategy;

  const base = schemaForFieldType(field.type, version);
  if (typeof base.$ref === 'string' && Object.keys(base).length === 1) {
    const name = base.$ref.slice(REF_PREFIX[version].length);
    return refWithSiblings(name, extra, version);
  }
  return { ...base, ...extra };
}

/**
 * The named schema for a type descriptor: an object with its properties (sorted by name, as
 * upstream's JSON is), `required` in declaration order, and the GVK / map-type extensions.
 */
export function schemaForType(desc: TypeDescriptor, version: OpenAPIVersion, options: SchemaOptions = {}): OpenAPISchema {
  const upstream = options.upstreamDescriptions !== false;
  const out: OpenAPISchema = {};
  const description = (upstream ? upstreamTypeDescription(desc.name) : undefined) ?? desc.description;
  if (description !== undefined) out.description = description;
  const fields = [...desc.fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (fields.length > 0) {
    const properties: Record<string, OpenAPISchema> = {};
    for (const f of fields) properties[f.name] = schemaForField(f, version, upstream ? desc.name : undefined);
    out.properties = properties;
  }
  const required = desc.fields.filter((f) => f.required).map((f) => f.name);
  if (required.length > 0) out.required = required;
  out.type = 'object';
  if (desc.gvk !== undefined && desc.gvk.length > 0) {
    out['x-kubernetes-group-version-kind'] = desc.gvk.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
  }
  if (desc.mapType !== undefined) out['x-kubernetes-map-type'] = desc.mapType;
  return out;
}

/** The definition names a field type refers to directly (well-known scalars included). */
function namesReferencedBy(type: FieldType, into: Set<string>): void {
  if ('ref' in type) into.add(type.ref);
  else if ('list' in type) namesReferencedBy(type.list, into);
  else if ('map' in type) namesReferencedBy(type.map, into);
  else if (isWellKnown(type.scalar)) into.add(WELL_KNOWN_DEFINITIONS[type.scalar]);
}

/**
 * All definition names reachable from `roots` through field references, roots included, in
 * discovery order. Throws if a reference names a type the catalog lacks (a catalog bug that would
 * otherwise surface as a dangling `$ref` in kubectl).
 */
export function catalogClosure(catalog: TypeCatalog, roots: Iterable<string>): string[] {
  const wellKnown = new Set<string>(Object.values(WELL_KNOWN_DEFINITIONS));
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    if (wellKnown.has(name) && !catalog.has(name)) continue;
    const desc = catalog.get(name);
    if (!desc) throw new Error(`OpenAPI: type ${name} is referenced but not in the type catalog`);
    const refs = new Set<string>();
    for (const f of desc.fields) namesReferencedBy(f.type, refs);
    for (const r of refs) if (!seen.has(r)) queue.push(r);
  }
  return [...seen];
}

/**
 * Converts catalog types to named schemas: the closure of `roots` when given, otherwise the whole
 * catalog plus every well-known scalar definition. Well-known definitions always come from
 * wellKnownSchemas(), even if the catalog has an entry of the same name (a struct-shaped catalog
 * entry for Time would be wrong in OpenAPI).
 */
export function schemasFromCatalog(
  catalog: TypeCatalog,
  version: OpenAPIVersion,
  roots?: Iterable<string>,
  options: SchemaOptions = {},
): Record<string, OpenAPISchema> {
  const wellKnown = wellKnownSchemas(version, options);
  const names = roots ? catalogClosure(catalog, roots) : [...catalog.keys(), ...Object.keys(wellKnown)];
  const out: Record<string, OpenAPISchema> = {};
  for (const name of [...new Set(names)].sort()) {
    const known = wellKnown[name];
    if (known) out[name] = known;
    else out[name] = schemaForType(catalog.get(name)!, version, options);
  }
  return out;
}

/**
 * The definition names `schema` references through `$ref` (at any depth), given the document
 * version's prefix. References to other documents are ignored.
 */
export function collectSchemaRefs(schema: unknown, version: OpenAPIVersion, into: Set<string> = new Set()): Set<string> {
  const prefix = REF_PREFIX[version];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string') {
          if (v.startsWith(prefix)) into.add(v.slice(prefix.length));
        } else {
          visit(v);
        }
      }
    }
  };
  visit(schema);
  return into;
}

/**
 * The subset of `schemas` reachable from `roots` via `$ref`, roots included. Missing names are
 * skipped silently: callers decide whether a dangling reference is an error.
 */
export function schemaClosure(
  schemas: Record<string, object>,
  roots: Iterable<string>,
  version: OpenAPIVersion,
): Record<string, object> {
  const out: Record<string, object> = {};
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (Object.hasOwn(out, name) || !Object.hasOwn(schemas, name)) continue;
    out[name] = schemas[name];
    for (const r of collectSchemaRefs(schemas[name], version)) if (!Object.hasOwn(out, r)) queue.push(r);
  }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}
