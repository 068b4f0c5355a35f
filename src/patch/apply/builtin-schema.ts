/**
 * Server-side apply types for built-in kinds, read from the type catalog (src/apimachinery/schema). List semantics
 * follow upstream: an explicit `listType` wins; otherwise a `patchStrategy: merge` list is a map keyed by its
 * `patchMergeKey` (or a set for scalar items); every other list is atomic. Struct and map `mapType: atomic` make
 * them single leaves. json / rawExtension values are deduced from the data.
 */
import type { FieldDescriptor, FieldType, ScalarType, TypeCatalog } from '../../apimachinery/schema/types.js';
import { DEDUCED, type ScalarKind, type SsaSchema, type SsaType } from './schema.js';
import { resolveJSONSchemaUnion } from '../../apimachinery/schema/unknown-fields.js';

const DEDUCED_SCALARS = new Set(['json', 'rawExtension']);

/**
 * smd's scalar for a catalog scalar, as kube-openapi's schemaconv converts the OpenAPI types: integers and numbers are
 * numeric, strings (also format byte) string, booleans boolean; any other string format (date-time, int-or-string)
 * and Quantity are untyped (any scalar).
 */
const SCALAR_KINDS: Record<ScalarType, ScalarKind> = {
  string: 'string',
  boolean: 'boolean',
  int32: 'numeric',
  int64: 'numeric',
  double: 'numeric',
  bytes: 'string',
  time: 'untyped',
  microTime: 'untyped',
  duration: 'string',
  intOrString: 'untyped',
  quantity: 'untyped',
  rawExtension: 'untyped',
  json: 'untyped',
};
const SCALARS = new Map<ScalarType, SsaType>(Object.entries(SCALAR_KINDS).map(([k, v]) => [k as ScalarType, { kind: 'scalar', scalar: v }]));

function scalarOf(t: ScalarType): SsaType {
  return DEDUCED_SCALARS.has(t) ? DEDUCED : SCALARS.get(t)!;
}

/** Builds SSA types for one catalog, caching each named type (types may be recursive, e.g. JSONSchemaProps). */
export class BuiltinSsaTypes {
  private readonly structs = new Map<string, SsaType>();

  constructor(private readonly catalog: TypeCatalog) {}

  /** The schema whose root is the named catalog type, or undefined when the catalog does not know it. */
  schemaFor(typeName: string): SsaSchema | undefined {
    if (!this.catalog.has(typeName)) return undefined;
    return { root: this.named(typeName) };
  }

  /** The SSA type of a named catalog type (deduced when unknown). */
  named(typeName: string, atomicOverride?: boolean): SsaType {
    // The apiextensions unions (JSONSchemaProps.items, additionalProperties, additionalItems, dependencies) have no
    // type in upstream's OpenAPI (OpenAPISchemaType() is nil): smd deduces them from the value, a schema object being
    // a granular map. As field-less structs they would refuse every field of a CRD's `items` schema.
    if (resolveJSONSchemaUnion(typeName) !== typeName) return DEDUCED;
    const desc = this.catalog.get(typeName);
    if (!desc) return DEDUCED;
    const atomic = atomicOverride ?? desc.mapType === 'atomic';
    const cacheKey = `${typeName}#${atomic}`;
    const cached = this.structs.get(cacheKey);
    if (cached) return cached;
    const fieldTypes = new Map<string, SsaType>();
    const byName = new Map(desc.fields.map((f) => [f.name, f]));
    const struct: SsaType = {
      kind: 'struct',
      atomic,
      // Built-in structs declare every field: upstream's schema gives them no element type.
      closed: true,
      field: (name: string) => {
        const hit = fieldTypes.get(name);
        if (hit) return hit;
        const f = byName.get(name);
        if (!f) return undefined;
        const t = this.fieldType(f);
        fieldTypes.set(name, t);
        return t;
      },
    };
    this.structs.set(cacheKey, struct);
    return struct;
  }

  private fieldType(f: FieldDescriptor): SsaType {
    const t = f.type;
    if ('list' in t) {
      const items = this.valueType(t.list);
      const listType = f.listType ?? this.listTypeFromPatchStrategy(f);
      const keys = listType === 'map' ? (f.listMapKeys ?? (f.patchMergeKey ? [f.patchMergeKey] : [])) : [];
      // A map list without keys cannot name its items; upstream would reject the schema, atrium falls back to atomic.
      return { kind: 'list', listType: listType === 'map' && keys.length === 0 ? 'atomic' : listType, keys, items };
    }
    if ('map' in t) return { kind: 'map', atomic: f.mapType === 'atomic', values: this.valueType(t.map) };
    if ('ref' in t) return this.named(t.ref, f.mapType === undefined ? undefined : f.mapType === 'atomic');
    return scalarOf(t.scalar);
  }

  private listTypeFromPatchStrategy(f: FieldDescriptor): 'atomic' | 'set' | 'map' {
    if (!f.patchStrategy?.split(',').includes('merge')) return 'atomic';
    if (f.patchMergeKey) return 'map';
    return 'list' in f.type && 'scalar' in f.type.list ? 'set' : 'atomic';
  }

  private valueType(t: FieldType): SsaType {
    if ('ref' in t) return this.named(t.ref);
    if ('list' in t) return { kind: 'list', listType: 'atomic', keys: [], items: this.valueType(t.list) };
    if ('map' in t) return { kind: 'map', atomic: false, values: this.valueType(t.map) };
    return scalarOf(t.scalar);
  }
}
