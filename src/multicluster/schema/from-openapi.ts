/**
 * Turns a resource's schema from a cluster's OpenAPI v3 document into a structural schema a CRD can carry (what
 * kcp's CRD puller did from the swagger models): references inlined, metadata reduced to `type: object`, Kubernetes
 * scalar types mapped to their CRD forms, and anything without a structural shape kept as
 * `x-kubernetes-preserve-unknown-fields`. Descriptions are dropped below the top level: they make CRDs large and
 * play no part in validation or negotiation.
 */
type Schema = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
/** Formats the structural-schema engine validates; others are dropped (they only document). */
const keptFormats = new Set(['int32', 'int64', 'float', 'double', 'byte', 'date-time', 'date']);
/** Nesting beyond this (recursive types) becomes preserve-unknown-fields. */
const maxDepth = 30;

function isObj(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The definition name a schema refers to (directly or as `allOf: [{$ref}]`), if any. */
function refOf(s: Schema): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref;
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && isObj(s.allOf[0]) && typeof s.allOf[0].$ref === 'string') return refOf(s.allOf[0]);
  return undefined;
}

/**
 * The structural schema of definition `name` in `schemas` (an OpenAPI v3 `components.schemas` map). Throws when the
 * definition is missing. The top-level `metadata` becomes `{type: object}`, as CRD schemas require.
 */
export function structuralSchemaFromOpenAPI(schemas: Record<string, unknown>, name: string): Schema {
  const root = schemas[name];
  if (!isObj(root)) throw new Error(`OpenAPI definition ${name} not found`);
  const out = convert(schemas, root, [], 0);
  out.type = 'object';
  const props = isObj(out.properties) ? out.properties : (out.properties = {});
  props.metadata = { type: 'object' };
  delete out['x-kubernetes-preserve-unknown-fields'];
  if (typeof root.description === 'string') out.description = root.description;
  return out;
}

function convert(schemas: Record<string, unknown>, s: Schema, refStack: string[], depth: number): Schema {
  const ref = refOf(s);
  if (ref !== undefined) {
    if (ref === OBJECT_META) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    if (ref === QUANTITY) return { 'x-kubernetes-int-or-string': true };
    const target = schemas[ref];
    if (!isObj(target) || refStack.includes(ref) || depth > maxDepth) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const inner = convert(schemas, target, [...refStack, ref], depth + 1);
    // Siblings of an allOf reference (nullable, default) refine the referenced schema.
    if (s.nullable === true) inner.nullable = true;
    return inner;
  }
  if (s['x-kubernetes-int-or-string'] === true) return { 'x-kubernetes-int-or-string': true };
  const out: Schema = {};
  const type = typeof s.type === 'string' ? s.type : undefined;
  if (!type) {
    // No structural type (RawExtension, oneOf without a marker, free-form JSON): accept anything.
    if (isObj(s.properties)) return convert(schemas, { ...s, type: 'object' }, refStack, depth);
    return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  }
  out.type = type;
  if (typeof s.format === 'string' && keptFormats.has(s.format)) out.format = s.format;
  if (Array.isArray(s.enum)) out.enum = [...s.enum];
  if (s.nullable === true) out.nullable = true;
  for (const k of ['x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-preserve-unknown-fields']) {
    if (s[k] !== undefined) out[k] = s[k];
  }
  // A CRD's map-list keys must be required or defaulted, and published schemas rarely say which (a port's protocol
  // defaults server-side): such lists are kept as atomic lists, which accept the same objects.
  if (out['x-kubernetes-list-type'] === 'map') delete out['x-kubernetes-list-type'];
  if (type === 'array') {
    out.items = isObj(s.items) ? convert(schemas, s.items, refStack, depth + 1) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  } else if (type === 'object') {
    if (isObj(s.properties)) {
      const props: Schema = {};
      for (const [k, v] of Object.entries(s.properties)) if (isObj(v)) props[k] = convert(schemas, v, refStack, depth + 1);
      out.properties = props;
      if (Array.isArray(s.required)) out.required = s.required.filter((r) => typeof r === 'string' && r in props);
      if ((out.required as string[] | undefined)?.length === 0) delete out.required;
    } else if (isObj(s.additionalProperties)) {
      out.additionalProperties = convert(schemas, s.additionalProperties, refStack, depth + 1);
    } else if (out['x-kubernetes-preserve-unknown-fields'] === undefined) {
      out['x-kubernetes-preserve-unknown-fields'] = true;
    }
  }
  return out;
}

/** The definition name of a kind in an OpenAPI v3 document: the one whose x-kubernetes-group-version-kind matches. */
export function definitionNameFor(schemas: Record<string, unknown>, gvk: { group: string; version: string; kind: string }): string | undefined {
  for (const [name, s] of Object.entries(schemas)) {
    if (!isObj(s) || !Array.isArray(s['x-kubernetes-group-version-kind'])) continue;
    for (const g of s['x-kubernetes-group-version-kind'] as Schema[]) {
      if (g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind) return name;
    }
  }
  return undefined;
}
