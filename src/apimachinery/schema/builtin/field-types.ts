/**
 * Building blocks for the built-in type descriptors: the OpenAPI name prefixes of each API package, the scalar
 * field types, constructors for list/map/ref types, and the fields every top-level kind shares.
 */
import type { FieldDescriptor, FieldType } from '../types.js';

export const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const CORE_V1 = 'io.k8s.api.core.v1';
export const EVENTS_V1 = 'io.k8s.api.events.v1';
export const COORDINATION_V1 = 'io.k8s.api.coordination.v1';
export const RBAC_V1 = 'io.k8s.api.rbac.v1';
export const AUTHORIZATION_V1 = 'io.k8s.api.authorization.v1';
export const AUTHENTICATION_V1 = 'io.k8s.api.authentication.v1';
export const AUTOSCALING_V1 = 'io.k8s.api.autoscaling.v1';
export const APIEXTENSIONS_V1 = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
export const ADMISSIONREGISTRATION_V1 = 'io.k8s.api.admissionregistration.v1';

export const STRING: FieldType = { scalar: 'string' };
export const BOOLEAN: FieldType = { scalar: 'boolean' };
export const INT32: FieldType = { scalar: 'int32' };
export const INT64: FieldType = { scalar: 'int64' };
export const DOUBLE: FieldType = { scalar: 'double' };
export const BYTES: FieldType = { scalar: 'bytes' };
export const TIME: FieldType = { scalar: 'time' };
export const MICRO_TIME: FieldType = { scalar: 'microTime' };
export const DURATION: FieldType = { scalar: 'duration' };
export const INT_OR_STRING: FieldType = { scalar: 'intOrString' };
export const QUANTITY: FieldType = { scalar: 'quantity' };
export const RAW_EXTENSION: FieldType = { scalar: 'rawExtension' };
/** Arbitrary JSON carried as raw bytes in protobuf (apiextensions JSON, metav1.FieldsV1). */
export const JSON_VALUE: FieldType = { scalar: 'json' };

/** A list whose items have type `item`. */
export function list(item: FieldType): FieldType {
  return { list: item };
}

/** A string-keyed map whose values have type `value`. */
export function map(value: FieldType): FieldType {
  return { map: value };
}

/** A reference to the named message type `<prefix>.<name>`. */
export function ref(prefix: string, name: string): FieldType {
  return { ref: `${prefix}.${name}` };
}

/** apiVersion and kind, inlined from metav1.TypeMeta into every top-level kind; they have no protobuf number. */
export const TYPE_META_FIELDS: readonly FieldDescriptor[] = [
  {
    name: 'apiVersion',
    type: STRING,
    description: 'Versioned schema of this representation, such as "v1" or "group/v1"; servers may convert to the version they prefer.',
  },
  {
    name: 'kind',
    type: STRING,
    description: 'CamelCase type of this object; servers infer it from the endpoint, and clients cannot change it.',
  },
];

/** The standard `metadata` field of a top-level kind (ObjectMeta, protobuf field 1). */
export const OBJECT_META_FIELD: FieldDescriptor = {
  name: 'metadata',
  proto: 1,
  type: ref(META_V1, 'ObjectMeta'),
  description: 'Standard object metadata: name, namespace, labels, annotations and server-maintained bookkeeping.',
};
