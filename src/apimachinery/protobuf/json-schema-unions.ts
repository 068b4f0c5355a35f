/**
 * Protobuf layout of the three apiextensions union types whose JSON form is not an object with fixed properties.
 * In the catalog they are pseudo-types without fields; their wire messages are:
 *
 *   JSONSchemaPropsOrArray       { JSONSchemaProps schema = 1; repeated JSONSchemaProps jSONSchemas = 2; }
 *     JSON: the array when jSONSchemas is non-empty, else the schema, else absent.
 *   JSONSchemaPropsOrBool        { bool allows = 1; JSONSchemaProps schema = 2; }
 *     JSON: the schema when present, else the boolean `allows`.
 *   JSONSchemaPropsOrStringArray { JSONSchemaProps schema = 1; repeated string property = 2; }
 *     JSON: the string array when non-empty, else the schema, else absent.
 *
 * These rules mirror the Go MarshalJSON methods of the three types.
 */
import { WireType, type WireReader } from './wire-reader.js';

const PREFIX = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
export const JSON_SCHEMA_PROPS = `${PREFIX}.JSONSchemaProps`;
export const JSON_SCHEMA_PROPS_OR_ARRAY = `${PREFIX}.JSONSchemaPropsOrArray`;
export const JSON_SCHEMA_PROPS_OR_BOOL = `${PREFIX}.JSONSchemaPropsOrBool`;
export const JSON_SCHEMA_PROPS_OR_STRING_ARRAY = `${PREFIX}.JSONSchemaPropsOrStringArray`;

const UNION_TYPES = new Set([JSON_SCHEMA_PROPS_OR_ARRAY, JSON_SCHEMA_PROPS_OR_BOOL, JSON_SCHEMA_PROPS_OR_STRING_ARRAY]);

/** True for the pseudo-type names whose decoding this module handles. */
export function isJsonSchemaUnion(typeName: string): boolean {
  return UNION_TYPES.has(typeName);
}

/** Decodes a nested JSONSchemaProps message; `step` is the path segment to report errors under. */
export type SchemaDecoder = (reader: WireReader, step: string) => Record<string, unknown>;

/** A wire-type mismatch reporter supplied by the caller so errors carry the field path. */
export type WireTypeCheck = (actual: number, expected: number, what: string) => void;

/**
 * Decodes one union wrapper message from `reader` (positioned inside it). Returns undefined when the JSON form
 * would be null/absent. Unknown field numbers are skipped.
 */
export function decodeJsonSchemaUnion(
  typeName: string,
  reader: WireReader,
  decodeSchema: SchemaDecoder,
  check: WireTypeCheck,
): unknown {
  let schema: Record<string, unknown> | undefined;
  let allows = false;
  const schemas: Record<string, unknown>[] = [];
  const properties: string[] = [];
  const schemaField = typeName === JSON_SCHEMA_PROPS_OR_BOOL ? 2 : 1;
  while (!reader.done()) {
    const { field, wireType } = reader.tag();
    if (field === schemaField) {
      check(wireType, WireType.LengthDelimited, 'schema');
      schema = decodeSchema(reader.subReader(), '');
    } else if (typeName === JSON_SCHEMA_PROPS_OR_BOOL && field === 1) {
      check(wireType, WireType.Varint, 'allows');
      allows = reader.bool();
    } else if (typeName === JSON_SCHEMA_PROPS_OR_ARRAY && field === 2) {
      check(wireType, WireType.LengthDelimited, 'jSONSchemas');
      schemas.push(decodeSchema(reader.subReader(), `[${schemas.length}]`));
    } else if (typeName === JSON_SCHEMA_PROPS_OR_STRING_ARRAY && field === 2) {
      check(wireType, WireType.LengthDelimited, 'property');
      properties.push(reader.string());
    } else {
      reader.skip(wireType);
    }
  }
  switch (typeName) {
    case JSON_SCHEMA_PROPS_OR_ARRAY:
      return schemas.length > 0 ? schemas : schema;
    case JSON_SCHEMA_PROPS_OR_BOOL:
      return schema ?? allows;
    default:
      return properties.length > 0 ? properties : schema;
  }
}
