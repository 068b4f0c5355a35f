/**
 * Catalog-driven encoder from a JSON object to a Kubernetes protobuf body (magic + runtime.Unknown).
 *
 * Used by tests to round-trip every catalog type through the decoder; atrium never needs to answer in protobuf
 * (every client also accepts JSON). Unlike gogo-protobuf it writes only the fields present in the JSON object,
 * so zero-valued scalars that JSON omits are simply absent. Map entries are written in key order. Embedded messages
 * (hints.embeddedMessages) come first, built from the parent object's inlined fields.
 */
import protobuf from 'protobufjs/minimal.js';
import { builtinCatalog, builtinProtobufHints, definitionNameFor, fieldHintKey, type ProtobufFieldHints } from '../schema/builtin/index.js';
import type { FieldType, ScalarType, TypeCatalog } from '../schema/types.js';
import {
  JSON_SCHEMA_PROPS,
  JSON_SCHEMA_PROPS_OR_ARRAY,
  JSON_SCHEMA_PROPS_OR_BOOL,
  isJsonSchemaUnion,
} from './json-schema-unions.js';
import { KUBERNETES_PROTOBUF_MAGIC } from './decode.js';
import { parseDuration, parseTimestamp } from './well-known.js';
import { WireType } from './wire-reader.js';

type Writer = protobuf.Writer;

function key(field: number, wireType: number): number {
  return ((field << 3) | wireType) >>> 0;
}

function wireTypeOf(type: FieldType): number {
  if (!('scalar' in type)) return WireType.LengthDelimited;
  switch (type.scalar) {
    case 'boolean':
    case 'int32':
    case 'int64':
      return WireType.Varint;
    case 'double':
      return WireType.Fixed64;
    default:
      return WireType.LengthDelimited;
  }
}

class MessageEncoder {
  constructor(
    private readonly catalog: TypeCatalog,
    private readonly hints: ProtobufFieldHints,
  ) {}

  message(writer: Writer, typeName: string, value: unknown): void {
    const descriptor = this.catalog.get(typeName);
    if (!descriptor) throw new Error(`no type descriptor for ${typeName}`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${typeName} needs a JSON object`);
    const object = value as Record<string, unknown>;
    // Embedded structs take their (JSON-inlined) fields from the same object. Like gogo-protobuf, which always
    // writes a non-pointer embedded struct, the message is written even when none of its fields is set.
    for (const embed of this.hints.embeddedMessages?.get(typeName) ?? []) {
      writer.uint32(key(embed.proto, WireType.LengthDelimited)).fork();
      this.message(writer, embed.type, object);
      writer.ldelim();
    }
    for (const field of descriptor.fields) {
      const fieldValue = object[field.name];
      if (field.proto === undefined || fieldValue === undefined || fieldValue === null) continue;
      const type = field.type;
      if ('list' in type) {
        const items = fieldValue as unknown[];
        if (this.hints.wrappedList.has(fieldHintKey(typeName, field.name))) this.wrappedList(writer, field.proto, type.list, items);
        else for (const item of items) this.item(writer, field.proto, type.list, item);
      } else if ('map' in type) {
        for (const mapKey of Object.keys(fieldValue as object).sort()) {
          writer.uint32(key(field.proto, WireType.LengthDelimited)).fork();
          writer.uint32(key(1, WireType.LengthDelimited)).string(mapKey);
          this.item(writer, 2, type.map, (fieldValue as Record<string, unknown>)[mapKey]);
          writer.ldelim();
        }
      } else {
        this.item(writer, field.proto, type, fieldValue);
      }
    }
  }

  private wrappedList(writer: Writer, field: number, item: FieldType, items: unknown[]): void {
    writer.uint32(key(field, WireType.LengthDelimited)).fork();
    for (const element of items) this.item(writer, 1, item, element);
    writer.ldelim();
  }

  /** Writes one value as field `field`; lists nested in lists or maps become `{ repeated items = 1 }` wrappers. */
  private item(writer: Writer, field: number, type: FieldType, value: unknown): void {
    if ('list' in type) return this.wrappedList(writer, field, type.list, value as unknown[]);
    if ('map' in type) throw new Error('maps nested in lists or maps have no protobuf representation');
    if ('ref' in type) {
      writer.uint32(key(field, WireType.LengthDelimited)).fork();
      if (isJsonSchemaUnion(type.ref)) this.union(writer, type.ref, value);
      else this.message(writer, type.ref, value);
      writer.ldelim();
      return;
    }
    writer.uint32(key(field, wireTypeOf(type)));
    this.scalar(writer, type.scalar, value);
  }

  private union(writer: Writer, typeName: string, value: unknown): void {
    const schemaField = typeName === JSON_SCHEMA_PROPS_OR_BOOL ? 2 : 1;
    if (typeof value === 'boolean') {
      writer.uint32(key(1, WireType.Varint)).bool(value);
    } else if (Array.isArray(value)) {
      for (const element of value) {
        if (typeName === JSON_SCHEMA_PROPS_OR_ARRAY) this.item(writer, 2, { ref: JSON_SCHEMA_PROPS }, element);
        else writer.uint32(key(2, WireType.LengthDelimited)).string(String(element));
      }
    } else {
      if (typeName === JSON_SCHEMA_PROPS_OR_BOOL) writer.uint32(key(1, WireType.Varint)).bool(true);
      this.item(writer, schemaField, { ref: JSON_SCHEMA_PROPS }, value);
    }
  }

  private scalar(writer: Writer, scalar: ScalarType, value: unknown): void {
    switch (scalar) {
      case 'string':
        writer.string(String(value));
        return;
      case 'bytes':
        writer.bytes(Buffer.from(String(value), 'base64'));
        return;
      case 'boolean':
        writer.bool(Boolean(value));
        return;
      case 'int32':
        writer.int32(Number(value));
        return;
      case 'int64':
        writer.int64(Number(value));
        return;
      case 'double':
        writer.double(Number(value));
        return;
    }
    writer.fork();
    switch (scalar) {
      case 'time':
      case 'microTime': {
        const { seconds, nanos } = parseTimestamp(String(value));
        writer.uint32(key(1, WireType.Varint)).int64(Number(seconds));
        if (scalar === 'microTime') writer.uint32(key(2, WireType.Varint)).int32(nanos);
        break;
      }
      case 'duration':
        writer.uint32(key(1, WireType.Varint)).int64(Number(parseDuration(String(value))));
        break;
      case 'intOrString':
        if (typeof value === 'number') writer.uint32(key(1, WireType.Varint)).int64(0).uint32(key(2, WireType.Varint)).int32(value);
        else writer.uint32(key(1, WireType.Varint)).int64(1).uint32(key(3, WireType.LengthDelimited)).string(String(value));
        break;
      case 'quantity':
        writer.uint32(key(1, WireType.LengthDelimited)).string(String(value));
        break;
      case 'rawExtension':
      case 'json':
        writer.uint32(key(1, WireType.LengthDelimited)).bytes(Buffer.from(JSON.stringify(value), 'utf8'));
        break;
    }
    writer.ldelim();
  }
}

/**
 * Encodes `obj` (which must carry apiVersion and kind naming a catalog type) as a Kubernetes protobuf body.
 * Throws when the GVK is not in the catalog or a value does not fit its field type.
 */
export function encodeKubernetesProtobuf(
  obj: Record<string, unknown>,
  catalog: TypeCatalog = builtinCatalog,
  hints: ProtobufFieldHints = builtinProtobufHints,
): Uint8Array {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const typeName = definitionNameFor(group, version, kind, catalog);
  if (typeName === undefined) throw new Error(`no catalog type for ${apiVersion}, Kind=${kind}`);
  const raw = protobuf.Writer.create();
  new MessageEncoder(catalog, hints).message(raw, typeName, obj);
  const envelope = protobuf.Writer.create();
  envelope.uint32(key(1, WireType.LengthDelimited)).fork();
  envelope.uint32(key(1, WireType.LengthDelimited)).string(apiVersion);
  envelope.uint32(key(2, WireType.LengthDelimited)).string(kind);
  envelope.ldelim();
  envelope.uint32(key(2, WireType.LengthDelimited)).bytes(raw.finish());
  const body = envelope.finish();
  const out = new Uint8Array(KUBERNETES_PROTOBUF_MAGIC.length + body.length);
  out.set(KUBERNETES_PROTOBUF_MAGIC, 0);
  out.set(body, KUBERNETES_PROTOBUF_MAGIC.length);
  return out;
}
