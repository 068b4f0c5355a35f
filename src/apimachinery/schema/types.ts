/**
 * The catalog format that describes every built-in (compiled-in) type atrium serves: Namespace,
 * ConfigMap, ObjectMeta, Lease, RBAC, ... One description drives several consumers:
 *   - protobuf request-body decoding (field numbers from k8s.io/api generated.proto),
 *   - OpenAPI v2/v3 documents (descriptions, types, GVK extensions) for kubectl explain/validation,
 *   - strategic merge patch (patchStrategy / patchMergeKey),
 *   - server-side apply (listType / mapType semantics),
 *   - strict field validation (unknown fields are those not described here).
 *
 * Type names are the OpenAPI definition names kube-apiserver uses, e.g. `io.k8s.api.core.v1.ConfigMap`,
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`.
 */

/** Scalar kinds and how they map to JSON / OpenAPI / protobuf wire types. */
export type ScalarType =
  | 'string'
  | 'boolean'
  | 'int32' // JSON number; proto varint (int32)
  | 'int64' // JSON number; proto varint (int64)
  | 'double' // JSON number; proto fixed64 double
  | 'bytes' // JSON base64 string; proto length-delimited bytes
  | 'time' // metav1.Time: JSON RFC3339 string; proto message Time{seconds(1) int64, nanos(2) int32}
  | 'microTime' // metav1.MicroTime: JSON RFC3339 with 6 fractional digits; proto like Time
  | 'duration' // metav1.Duration: JSON string like "1h0m0s"; proto message Duration{duration(1) int64 ns}
  | 'intOrString' // intstr.IntOrString: JSON number or string; proto message IntOrString{type(1),intVal(2),strVal(3)}
  | 'quantity' // resource.Quantity: JSON string; proto message Quantity{string(1)}
  | 'rawExtension' // runtime.RawExtension: JSON any; proto message RawExtension{raw(1) bytes (JSON)}
  | 'json'; // apiextensions JSON: JSON any; proto message JSON{raw(1) bytes}

/** A field's value type: a scalar, a named message type, a list, or a string-keyed map. */
export type FieldType =
  | { scalar: ScalarType }
  | { ref: string }
  | { list: FieldType }
  | { map: FieldType }; // map<string, T>; proto map entries key(1) value(2)

export interface FieldDescriptor {
  /** JSON name, e.g. `generateName`. */
  name: string;
  /** Protobuf field number in the k8s.io generated.proto message; absent when the field has none. */
  proto?: number;
  type: FieldType;
  description?: string;
  required?: boolean;
  /** Strategic merge patch: `merge`, `retainKeys` or `merge,retainKeys`. Absent = replace (atomic). */
  patchStrategy?: string;
  patchMergeKey?: string;
  /** Server-side apply list semantics: atomic (default), set, map. */
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  /** Server-side apply map/struct semantics. */
  mapType?: 'atomic' | 'granular';
  /** Default value documented in OpenAPI (informational). */
  default?: unknown;
  /** Allowed string values, if it is an enum. */
  enum?: string[];
}

export interface TypeDescriptor {
  /** OpenAPI definition name, e.g. io.k8s.api.core.v1.ConfigMap. */
  name: string;
  description?: string;
  fields: FieldDescriptor[];
  /** Set for top-level kinds: the GVKs this type is served as (x-kubernetes-group-version-kind). */
  gvk?: { group: string; version: string; kind: string }[];
  /** Struct-level SSA semantics (e.g. atomic for LabelSelectorRequirement's parent? rarely used). */
  mapType?: 'atomic' | 'granular';
}

/** A registry of type descriptors by name. */
export type TypeCatalog = ReadonlyMap<string, TypeDescriptor>;

const fieldIndexes = new WeakMap<TypeDescriptor, ReadonlyMap<string, FieldDescriptor>>();

/**
 * A type's fields by name, built once per descriptor: the decoding walks (unknown fields, type errors) look fields up
 * for every object of every request, and rebuilding the map each time showed in profiles.
 */
export function fieldsByName(t: TypeDescriptor): ReadonlyMap<string, FieldDescriptor> {
  let index = fieldIndexes.get(t);
  if (!index) {
    index = new Map(t.fields.map((f) => [f.name, f]));
    fieldIndexes.set(t, index);
  }
  return index;
}
