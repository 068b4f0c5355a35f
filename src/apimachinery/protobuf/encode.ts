/**
 * Catalog-driven encoder from a JSON object to a Kubernetes protobuf body (magic + runtime.Unknown), as
 * kube-apiserver answers clients that accept `application/vnd.kubernetes.protobuf` (client-go's typed clients): single
 * objects, lists (`metadata = 1; repeated items = 2`, as every generated *List message), Status, and watch events
 * (length-prefixed metav1.WatchEvent frames). Custom resources and kinds described only for JSON have no protobuf form.
 *
 * Unlike gogo-protobuf it writes only the fields present in the JSON object, so zero-valued scalars that JSON omits
 * are simply absent (a decoder reads both as the zero value). Map entries are written in key order. Embedded messages
 * (hints.embeddedMessages) come first, built from the parent object's inlined fields.
 */
import protobuf from 'protobufjs/minimal.js';
import { builtinCatalog, builtinProtobufHints, definitionNameFor, fieldHintKey, type ProtobufFieldHints } from '../schema/builtin/index.js';
import type { FieldType, ScalarType, TypeCatalog, TypeDescriptor } from '../schema/types.js';
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
  return envelope(apiVersion, kind, raw.finish());
}

/** magic + runtime.Unknown{typeMeta{apiVersion, kind}, raw} (k8s.io/apimachinery runtime/serializer/protobuf). */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(key(1, WireType.LengthDelimited)).fork();
  w.uint32(key(1, WireType.LengthDelimited)).string(apiVersion);
  w.uint32(key(2, WireType.LengthDelimited)).string(kind);
  w.ldelim();
  w.uint32(key(2, WireType.LengthDelimited)).bytes(raw);
  const body = w.finish();
  const out = new Uint8Array(KUBERNETES_PROTOBUF_MAGIC.length + body.length);
  out.set(KUBERNETES_PROTOBUF_MAGIC, 0);
  out.set(body, KUBERNETES_PROTOBUF_MAGIC.length);
  return out;
}

function hasProtobufForm(t: TypeDescriptor | undefined): boolean {
  return !!t && t.fields.some((f) => f.proto !== undefined && f.name !== 'metadata');
}

/**
 * The catalog type a kind is encoded with in protobuf, or undefined when it has none: custom resources, and kinds
 * the catalog describes only for JSON (kcp's tenancy API, served like custom resources).
 */
export function protobufTypeFor(group: string, version: string, kind: string, catalog: TypeCatalog = builtinCatalog): string | undefined {
  const name = definitionNameFor(group, version, kind, catalog);
  return name !== undefined && hasProtobufForm(catalog.get(name)) ? name : undefined;
}

/**
 * Encodes a list (`<Kind>List{ListMeta metadata = 1; repeated <Kind> items = 2}`, the shape of every generated list
 * message) of `itemKind` objects. Items carry no TypeMeta in protobuf, as upstream's.
 */
export function encodeKubernetesProtobufList(
  apiVersion: string,
  listKind: string,
  itemKind: string,
  listMeta: Record<string, unknown>,
  items: readonly Record<string, unknown>[],
  catalog: TypeCatalog = builtinCatalog,
  hints: ProtobufFieldHints = builtinProtobufHints,
): Uint8Array {
  const slash = apiVersion.indexOf('/');
  const typeName = protobufTypeFor(slash < 0 ? '' : apiVersion.slice(0, slash), slash < 0 ? apiVersion : apiVersion.slice(slash + 1), itemKind, catalog);
  if (typeName === undefined) throw new Error(`no protobuf type for ${apiVersion}, Kind=${itemKind}`);
  const encoder = new MessageEncoder(catalog, hints);
  const raw = protobuf.Writer.create();
  raw.uint32(key(1, WireType.LengthDelimited)).fork();
  encoder.message(raw, 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', listMeta);
  raw.ldelim();
  for (const item of items) {
    raw.uint32(key(2, WireType.LengthDelimited)).fork();
    encoder.message(raw, typeName, item);
    raw.ldelim();
  }
  return envelope(apiVersion, listKind, raw.finish());
}

/**
 * One frame of a protobuf watch (`application/vnd.kubernetes.protobuf;stream=watch`): a 4-byte big-endian length,
 * then metav1.WatchEvent{string type = 1; RawExtension object = 2 {bytes raw = 1}} written by the raw (envelope-less)
 * serializer, whose object is the event's object as a full protobuf body (magic + runtime.Unknown).
 */
export function encodeWatchEventFrame(type: string, object: Uint8Array): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(key(1, WireType.LengthDelimited)).string(type);
  w.uint32(key(2, WireType.LengthDelimited)).fork();
  w.uint32(key(1, WireType.LengthDelimited)).bytes(object);
  w.ldelim();
  const event = w.finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}

/**
 * One item of a list as its list message carries it: the `<Kind>` message alone (no envelope, no TypeMeta), for
 * encodeKubernetesProtobufListOfEncoded. Undefined when the kind has no protobuf form.
 */
export function encodeKubernetesProtobufListItem(
  apiVersion: string,
  itemKind: string,
  item: Record<string, unknown>,
  catalog: TypeCatalog = builtinCatalog,
  hints: ProtobufFieldHints = builtinProtobufHints,
): Uint8Array {
  const slash = apiVersion.indexOf('/');
  const typeName = protobufTypeFor(slash < 0 ? '' : apiVersion.slice(0, slash), slash < 0 ? apiVersion : apiVersion.slice(slash + 1), itemKind, catalog);
  if (typeName === undefined) throw new Error(`no protobuf type for ${apiVersion}, Kind=${itemKind}`);
  const raw = protobuf.Writer.create();
  new MessageEncoder(catalog, hints).message(raw, typeName, item);
  return raw.finish();
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/**
 * The same bytes as encodeKubernetesProtobufList, from items already encoded by encodeKubernetesProtobufListItem:
 * written straight into one buffer, each item copied once.
 */
export function encodeKubernetesProtobufListOfEncoded(
  apiVersion: string,
  listKind: string,
  listMeta: Record<string, unknown>,
  items: readonly Uint8Array[],
  catalog: TypeCatalog = builtinCatalog,
  hints: ProtobufFieldHints = builtinProtobufHints,
): Buffer {
  const metaWriter = protobuf.Writer.create();
  metaWriter.uint32(key(1, WireType.LengthDelimited)).fork();
  new MessageEncoder(catalog, hints).message(metaWriter, 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', listMeta);
  metaWriter.ldelim();
  const meta = metaWriter.finish();
  let rawLength = meta.length;
  for (const item of items) rawLength += 1 + varintLength(item.length) + item.length;
  const typeMetaWriter = protobuf.Writer.create();
  typeMetaWriter.uint32(key(1, WireType.LengthDelimited)).fork();
  typeMetaWriter.uint32(key(1, WireType.LengthDelimited)).string(apiVersion);
  typeMetaWriter.uint32(key(2, WireType.LengthDelimited)).string(listKind);
  typeMetaWriter.ldelim();
  const typeMeta = typeMetaWriter.finish();
  const total = KUBERNETES_PROTOBUF_MAGIC.length + typeMeta.length + 1 + varintLength(rawLength) + rawLength;
  const out = Buffer.allocUnsafe(total);
  out.set(KUBERNETES_PROTOBUF_MAGIC, 0);
  let at = KUBERNETES_PROTOBUF_MAGIC.length;
  out.set(typeMeta, at);
  at += typeMeta.length;
  out[at++] = key(2, WireType.LengthDelimited);
  at = writeVarint(out, at, rawLength);
  out.set(meta, at);
  at += meta.length;
  const itemKey = key(2, WireType.LengthDelimited);
  for (const item of items) {
    out[at++] = itemKey;
    at = writeVarint(out, at, item.length);
    out.set(item, at);
    at += item.length;
  }
  if (at !== total) throw new Error(`protobuf list length ${at} != ${total}`);
  return out;
}
