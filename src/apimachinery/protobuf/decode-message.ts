/**
 * Catalog-driven decoding of one protobuf message into the JSON object the Kubernetes JSON wire format carries
 * for the same Go value.
 *
 * Presence rules (protobuf cannot tell "absent" from "zero" for the scalars gogo-protobuf always writes):
 *   - A singular scalar read as its zero value ("", 0, false, empty bytes) is dropped, unless the field is marked
 *     emitZero in the hints (Go pointer field, or a json tag without omitempty), in which case it is kept. So
 *     `gracePeriodSeconds: 0`, `orphanDependents: false` and RoleRef's `apiGroup: ""` survive, while Go's
 *     always-written empty `generateName`/`namespace` do not appear.
 *   - metav1.Time/MicroTime arrive as an empty message when zero; Go's JSON prints null for them, so they are dropped.
 *   - Nested messages that are present are kept, even when empty (Go's JSON prints `"spec": {}` for them).
 *   - Lists and maps with no entries are absent (protobuf writes nothing for them).
 *   - Map values and list items are kept as read, zeros included.
 * Lists nested directly in a map or list (e.g. authorization ExtraValue, `map<string, ExtraValue>`) arrive as a
 * wrapper message `{ repeated T items = 1; }`, which go-to-protobuf generates for named slice types; fields
 * marked protoWrappedList (metav1.Verbs) use the same wrapper. Embedded messages (hints.embeddedMessages: Go
 * structs JSON inlines but protobuf nests, such as Volume's VolumeSource) are decoded as their own type and their
 * fields merged into the parent, as JSON has them; a repeated occurrence merges over the earlier one. Error paths
 * name the inlined fields at the parent's level, as JSON does. Unknown field numbers are skipped. int64 values
 * become JSON numbers; beyond 2^53 they are rounded, which is the best a JSON number in JavaScript can hold
 * (no built-in type carries a string-typed int64).
 */
import { fieldHintKey, type EmbeddedMessage, type ProtobufFieldHints } from '../schema/builtin/builtin-type.js';
import type { FieldDescriptor, FieldType, ScalarType, TypeCatalog, TypeDescriptor } from '../schema/types.js';
import { ProtobufDecodeError } from './decode-error.js';
import { decodeJsonSchemaUnion, isJsonSchemaUnion, JSON_SCHEMA_PROPS } from './json-schema-unions.js';
import { formatDuration, formatMicroTime, formatTime, parseRawJson } from './well-known.js';
import { WireType, type WireReader } from './wire-reader.js';

/** Deepest message nesting accepted; guards the stack against hostile input. Real CRD schemas stay far below. */
export const MAX_MESSAGE_DEPTH = 256;

const WIRE_TYPE_NAMES = ['varint', 'fixed64', 'length-delimited', 'start-group', 'end-group', 'fixed32'];

function expectWire(actual: number, expected: number, what: string): void {
  if (actual !== expected) {
    throw new Error(`expected wire type ${expected} (${WIRE_TYPE_NAMES[expected]}) for ${what}, got ${actual} (${WIRE_TYPE_NAMES[actual] ?? 'invalid'})`);
  }
}

function int64ToJson(value: bigint): number {
  return Number(value);
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function isZeroScalar(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function fieldPath(parent: string, step: string): string {
  if (!parent || !step) return parent + step;
  return step.startsWith('[') ? parent + step : `${parent}.${step}`;
}

/** Scalars gogo-protobuf writes even at their zero value; the wrapper-message scalars are present only when set. */
const PLAIN_SCALARS: ReadonlySet<ScalarType> = new Set(['string', 'bytes', 'boolean', 'int32', 'int64', 'double']);

/** Varint-encoded scalars, which may also arrive packed in a length-delimited field. */
const PACKABLE: ReadonlySet<ScalarType> = new Set(['boolean', 'int32', 'int64', 'double']);

export class MessageDecoder {
  private readonly fieldIndexes = new Map<string, Map<number, FieldDescriptor | EmbeddedMessage>>();

  constructor(
    private readonly catalog: TypeCatalog,
    private readonly hints: ProtobufFieldHints,
  ) {}

  /**
   * Decodes the message in `reader` as the catalog type `typeName`. `path` prefixes error messages.
   * Throws ProtobufDecodeError on malformed input or a type missing from the catalog.
   */
  decode(reader: WireReader, typeName: string, path = '', depth = 0): Record<string, unknown> {
    if (depth > MAX_MESSAGE_DEPTH) throw new ProtobufDecodeError(`messages nested deeper than ${MAX_MESSAGE_DEPTH} levels`, path);
    const descriptor = this.catalog.get(typeName);
    if (!descriptor) throw new ProtobufDecodeError(`no type descriptor for ${typeName}`, path);
    const index = this.indexFor(descriptor);
    const values = new Map<string, unknown>();
    while (!reader.done()) {
      let tag: { field: number; wireType: number };
      try {
        tag = reader.tag();
      } catch (err) {
        throw this.wrap(err, path);
      }
      const field = index.get(tag.field);
      const here = field && 'name' in field ? fieldPath(path, field.name) : path;
      try {
        if (!field) {
          reader.skip(tag.wireType);
          continue;
        }
        if ('name' in field) this.readField(reader, tag.wireType, descriptor, field, values, here, depth);
        else this.readEmbedded(reader, tag.wireType, field, values, path, depth);
      } catch (err) {
        throw this.wrap(err, here);
      }
    }
    const result: Record<string, unknown> = {};
    for (const field of descriptor.fields) {
      if (values.has(field.name)) result[field.name] = values.get(field.name);
    }
    return result;
  }

  private wrap(err: unknown, path: string): ProtobufDecodeError {
    if (err instanceof ProtobufDecodeError) return err;
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      return new ProtobufDecodeError('message nesting too deep', path);
    }
    return new ProtobufDecodeError(err instanceof Error ? err.message : String(err), path);
  }

  private indexFor(descriptor: TypeDescriptor): Map<number, FieldDescriptor | EmbeddedMessage> {
    let index = this.fieldIndexes.get(descriptor.name);
    if (!index) {
      index = new Map();
      for (const field of descriptor.fields) if (field.proto !== undefined) index.set(field.proto, field);
      for (const embed of this.hints.embeddedMessages?.get(descriptor.name) ?? []) index.set(embed.proto, embed);
      this.fieldIndexes.set(descriptor.name, index);
    }
    return index;
  }

  /**
   * Reads an embedded message and merges its fields into the parent's values, where JSON puts them. Its path is
   * the parent's: the embedded struct has no JSON name of its own.
   */
  private readEmbedded(reader: WireReader, wireType: number, embed: EmbeddedMessage, values: Map<string, unknown>, path: string, depth: number): void {
    expectWire(wireType, WireType.LengthDelimited, `embedded ${embed.type}`);
    const inlined = this.decode(reader.subReader(), embed.type, path, depth + 1);
    for (const [name, value] of Object.entries(inlined)) values.set(name, value);
  }

  private readField(
    reader: WireReader,
    wireType: number,
    owner: TypeDescriptor,
    field: FieldDescriptor,
    values: Map<string, unknown>,
    path: string,
    depth: number,
  ): void {
    const type = field.type;
    if ('list' in type) {
      let items = values.get(field.name) as unknown[] | undefined;
      if (!items) values.set(field.name, (items = []));
      if (this.hints.wrappedList.has(fieldHintKey(owner.name, field.name))) {
        items.push(...this.readWrappedList(reader, wireType, type.list, path, depth));
      } else {
        this.readListItems(reader, wireType, type.list, items, path, depth);
      }
      return;
    }
    if ('map' in type) {
      let entries = values.get(field.name) as Record<string, unknown> | undefined;
      if (!entries) values.set(field.name, (entries = {}));
      this.readMapEntry(reader, wireType, type.map, entries, path, depth);
      return;
    }
    const value = this.readValue(reader, wireType, type, path, depth);
    const droppable = 'scalar' in type && PLAIN_SCALARS.has(type.scalar) && isZeroScalar(value);
    if (value === undefined || (droppable && !this.hints.emitZero.has(fieldHintKey(owner.name, field.name)))) {
      values.delete(field.name);
    }
    else values.set(field.name, value);
  }

  /** Reads one occurrence of a repeated field, which may carry several packed scalars. */
  private readListItems(reader: WireReader, wireType: number, item: FieldType, items: unknown[], path: string, depth: number): void {
    const at = fieldPath(path, `[${items.length}]`);
    if ('scalar' in item && PACKABLE.has(item.scalar) && wireType === WireType.LengthDelimited) {
      const packed = reader.subReader();
      const elementWire = item.scalar === 'double' ? WireType.Fixed64 : WireType.Varint;
      while (!packed.done()) items.push(this.readScalar(packed, elementWire, item.scalar));
      return;
    }
    if ('list' in item) {
      items.push(this.readWrappedList(reader, wireType, item.list, at, depth));
      return;
    }
    if ('map' in item) throw new Error('maps nested in lists have no protobuf representation');
    items.push(this.readValue(reader, wireType, item, at, depth) ?? null);
  }

  /** Reads a `{ repeated T items = 1; }` wrapper message into an array. */
  private readWrappedList(reader: WireReader, wireType: number, item: FieldType, path: string, depth: number): unknown[] {
    expectWire(wireType, WireType.LengthDelimited, 'a wrapped list');
    if (depth + 1 > MAX_MESSAGE_DEPTH) throw new Error(`messages nested deeper than ${MAX_MESSAGE_DEPTH} levels`);
    const wrapper = reader.subReader();
    const items: unknown[] = [];
    while (!wrapper.done()) {
      const { field, wireType: inner } = wrapper.tag();
      if (field === 1) this.readListItems(wrapper, inner, item, items, path, depth + 1);
      else wrapper.skip(inner);
    }
    return items;
  }

  /** Reads one `{ string key = 1; V value = 2; }` map entry into `entries`. */
  private readMapEntry(reader: WireReader, wireType: number, valueType: FieldType, entries: Record<string, unknown>, path: string, depth: number): void {
    expectWire(wireType, WireType.LengthDelimited, 'a map entry');
    const entry = reader.subReader();
    let key = '';
    let value: unknown;
    let hasValue = false;
    while (!entry.done()) {
      const { field, wireType: inner } = entry.tag();
      if (field === 1) {
        expectWire(inner, WireType.LengthDelimited, 'a map key');
        key = entry.string();
      } else if (field === 2) {
        const at = fieldPath(path, `[${key}]`);
        if ('list' in valueType) value = this.readWrappedList(entry, inner, valueType.list, at, depth);
        else if ('map' in valueType) throw new Error('maps nested in maps have no protobuf representation');
        else value = this.readValue(entry, inner, valueType, at, depth);
        hasValue = true;
      } else {
        entry.skip(inner);
      }
    }
    // Entries are ordinary JSON object members: define them so a key like "__proto__" stays data.
    Object.defineProperty(entries, key, {
      value: hasValue ? (value ?? null) : this.zeroValue(valueType),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }

  /** The JSON value Go prints for a map value the entry omitted. */
  private zeroValue(type: FieldType): unknown {
    if ('list' in type) return [];
    if ('map' in type) return {};
    if ('ref' in type) return isJsonSchemaUnion(type.ref) ? null : {};
    switch (type.scalar) {
      case 'string':
      case 'bytes':
      case 'quantity':
        return '';
      case 'boolean':
        return false;
      case 'int32':
      case 'int64':
      case 'double':
      case 'intOrString':
        return 0;
      case 'duration':
        return '0s';
      default:
        return null;
    }
  }

  /** Reads a singular (non-list, non-map) value; undefined means "absent in JSON". */
  private readValue(reader: WireReader, wireType: number, type: FieldType, path: string, depth: number): unknown {
    if ('scalar' in type) return this.readScalar(reader, wireType, type.scalar);
    if ('ref' in type) {
      expectWire(wireType, WireType.LengthDelimited, type.ref);
      const nested = reader.subReader();
      if (isJsonSchemaUnion(type.ref)) {
        if (depth + 1 > MAX_MESSAGE_DEPTH) throw new Error(`messages nested deeper than ${MAX_MESSAGE_DEPTH} levels`);
        return decodeJsonSchemaUnion(
          type.ref,
          nested,
          (schemaReader, step) => this.decode(schemaReader, JSON_SCHEMA_PROPS, fieldPath(path, step), depth + 2),
          expectWire,
        );
      }
      return this.decode(nested, type.ref, path, depth + 1);
    }
    throw new Error('a list or map cannot appear here');
  }

  private readScalar(reader: WireReader, wireType: number, scalar: ScalarType): unknown {
    switch (scalar) {
      case 'string':
        expectWire(wireType, WireType.LengthDelimited, 'a string');
        return reader.string();
      case 'bytes':
        expectWire(wireType, WireType.LengthDelimited, 'bytes');
        return base64(reader.bytes());
      case 'boolean':
        expectWire(wireType, WireType.Varint, 'a boolean');
        return reader.bool();
      case 'int32':
        expectWire(wireType, WireType.Varint, 'an int32');
        return reader.int32();
      case 'int64':
        expectWire(wireType, WireType.Varint, 'an int64');
        return int64ToJson(reader.int64());
      case 'double':
        expectWire(wireType, WireType.Fixed64, 'a double');
        return reader.double();
      default:
        expectWire(wireType, WireType.LengthDelimited, scalar);
        return this.readWellKnown(reader.subReader(), scalar);
    }
  }

  /** Decodes the small wrapper messages behind time, duration, int-or-string, quantity and raw JSON values. */
  private readWellKnown(message: WireReader, scalar: ScalarType): unknown {
    if (scalar === 'time' || scalar === 'microTime') {
      // metav1.Time marshals the zero time as an empty message; Go's JSON prints null for it.
      if (message.done()) return undefined;
      let seconds = 0n;
      let nanos = 0;
      while (!message.done()) {
        const { field, wireType } = message.tag();
        if (field === 1) {
          expectWire(wireType, WireType.Varint, 'Timestamp.seconds');
          seconds = message.int64();
        } else if (field === 2) {
          expectWire(wireType, WireType.Varint, 'Timestamp.nanos');
          nanos = message.int32();
        } else message.skip(wireType);
      }
      return scalar === 'time' ? formatTime(seconds) : formatMicroTime(seconds, nanos);
    }
    const parts = new Map<number, unknown>();
    while (!message.done()) {
      const { field, wireType } = message.tag();
      if (scalar === 'duration' && field === 1) {
        expectWire(wireType, WireType.Varint, 'Duration.duration');
        parts.set(1, message.int64());
      } else if (scalar === 'intOrString' && (field === 1 || field === 2)) {
        expectWire(wireType, WireType.Varint, field === 1 ? 'IntOrString.type' : 'IntOrString.intVal');
        parts.set(field, field === 1 ? message.int64() : message.int32());
      } else if ((scalar === 'intOrString' && field === 3) || (scalar === 'quantity' && field === 1)) {
        expectWire(wireType, WireType.LengthDelimited, scalar === 'quantity' ? 'Quantity.string' : 'IntOrString.strVal');
        parts.set(field, message.string());
      } else if ((scalar === 'rawExtension' || scalar === 'json') && field === 1) {
        expectWire(wireType, WireType.LengthDelimited, 'raw JSON bytes');
        parts.set(1, message.bytes());
      } else {
        message.skip(wireType);
      }
    }
    switch (scalar) {
      case 'duration':
        return formatDuration((parts.get(1) as bigint | undefined) ?? 0n);
      case 'intOrString':
        return parts.get(1) === 1n ? ((parts.get(3) as string | undefined) ?? '') : ((parts.get(2) as number | undefined) ?? 0);
      case 'quantity':
        return (parts.get(1) as string | undefined) ?? '';
      default:
        return parseRawJson((parts.get(1) as Uint8Array | undefined) ?? new Uint8Array(0));
    }
  }
}
