/**
 * Server-side apply types for custom resources, from a CRD version's structural schema (`openAPIV3Schema` as JSON):
 *   - `x-kubernetes-list-type` atomic (the default) / set / map with `x-kubernetes-list-map-keys`;
 *   - `x-kubernetes-map-type: atomic` makes an object a single leaf (granular is the default);
 *   - `properties` make a struct, `additionalProperties` a map; an object with neither is deduced from the data
 *     (as with `x-kubernetes-preserve-unknown-fields`), as is a schema with no type;
 *   - `metadata` at the root is always ObjectMeta from the built-in catalog, whatever the schema says.
 */
import { builtinCatalog } from '../../apimachinery/schema/builtin/index.js';
import { BuiltinSsaTypes } from './builtin-schema.js';
import { DEDUCED, isObjectValue, type ScalarKind, type SsaSchema, type SsaType } from './schema.js';

const STRING: SsaType = { kind: 'scalar', scalar: 'string' };
const scalar = (k: ScalarKind): SsaType => ({ kind: 'scalar', scalar: k });

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
let builtinTypes: BuiltinSsaTypes | undefined;

/** The SSA schema of a custom resource whose version has this `openAPIV3Schema` (undefined → everything deduced). */
export function ssaSchemaFromStructural(openAPIV3Schema: unknown): SsaSchema {
  builtinTypes ??= new BuiltinSsaTypes(builtinCatalog);
  const objectMeta = builtinTypes.named(OBJECT_META);
  const body = isObjectValue(openAPIV3Schema) ? convert(openAPIV3Schema) : DEDUCED;
  const root: SsaType = {
    kind: 'struct',
    atomic: false,
    closed: body.kind === 'struct' && body.closed === true,
    field: (name) => {
      if (name === 'metadata') return objectMeta;
      if (name === 'apiVersion' || name === 'kind') return STRING;
      return body.kind === 'struct' ? body.field(name) : body.kind === 'map' ? body.values : undefined;
    },
  };
  return { root };
}

function convert(s: Record<string, unknown>): SsaType {
  if (s['x-kubernetes-int-or-string'] === true) return scalar('untyped');
  const type = s.type;
  if (type === 'array') {
    const items = isObjectValue(s.items) ? convert(s.items) : DEDUCED;
    const declared = s['x-kubernetes-list-type'];
    const listType = declared === 'set' || declared === 'map' ? declared : 'atomic';
    const keys = listType === 'map' && Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
    return { kind: 'list', listType: listType === 'map' && keys.length === 0 ? 'atomic' : listType, keys, items };
  }
  if (type === 'object' || (type === undefined && (isObjectValue(s.properties) || isObjectValue(s.additionalProperties)))) {
    const atomic = s['x-kubernetes-map-type'] === 'atomic';
    if (isObjectValue(s.properties)) {
      const props = s.properties;
      const cache = new Map<string, SsaType>();
      // Undeclared fields are rejected unless the schema preserves them; an embedded resource always has its
      // apiVersion, kind and metadata.
      const embedded = s['x-kubernetes-embedded-resource'] === true;
      return {
        kind: 'struct',
        atomic,
        closed: s['x-kubernetes-preserve-unknown-fields'] !== true,
        field: (name) => {
          if (embedded && !Object.hasOwn(props, name) && (name === 'apiVersion' || name === 'kind' || name === 'metadata')) return DEDUCED;
          if (!Object.hasOwn(props, name) || !isObjectValue(props[name])) return undefined;
          let t = cache.get(name);
          if (!t) cache.set(name, (t = convert(props[name] as Record<string, unknown>)));
          return t;
        },
      };
    }
    if (isObjectValue(s.additionalProperties)) return { kind: 'map', atomic, values: convert(s.additionalProperties) };
    return atomic ? { kind: 'map', atomic: true, values: DEDUCED } : DEDUCED;
  }
  if (type === undefined) return DEDUCED;
  // kube-openapi schemaconv: a string with a format other than byte is untyped, as is an unknown type.
  if (type === 'integer' || type === 'number') return scalar('numeric');
  if (type === 'boolean') return scalar('boolean');
  if (type === 'string') return s.format === undefined || s.format === '' || s.format === 'byte' ? STRING : scalar('untyped');
  return scalar('untyped');
}
