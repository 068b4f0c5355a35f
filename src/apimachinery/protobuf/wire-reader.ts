/**
 * A minimal protobuf wire-format reader.
 *
 * Why not protobufjs's Reader: its 64-bit varints come back as `Long` objects or lossy numbers depending on
 * whether the optional `long` package is loadable, and its bounds errors ("index out of range: 3 + 10 > 12") do
 * not say what was being read. This reader decodes varints exactly as BigInt, checks every length against the
 * buffer before touching it, and throws `ProtobufWireError` with the byte offset. It never loops without
 * consuming input, so truncated or corrupt bodies end in an exception, not a hang.
 */

/** Protobuf wire types. Groups (3, 4) are obsolete but may still be skipped. */
export const WireType = {
  Varint: 0,
  Fixed64: 1,
  LengthDelimited: 2,
  StartGroup: 3,
  EndGroup: 4,
  Fixed32: 5,
} as const;

/** Thrown for input that is not valid protobuf wire format. */
export class ProtobufWireError extends Error {
  override name = 'ProtobufWireError';
}

const MAX_GROUP_DEPTH = 64;
// Lenient like Go: gogo-protobuf does not validate UTF-8, and Go's JSON encoder later replaces bad bytes with U+FFFD.
const utf8 = new TextDecoder('utf-8');

export class WireReader {
  private pos: number;
  private readonly view: DataView;

  /** Reads `buf` from `start` (inclusive) to `end` (exclusive); `baseOffset` makes reported offsets absolute. */
  constructor(
    private readonly buf: Uint8Array,
    private readonly start = 0,
    private readonly end = buf.length,
    private readonly baseOffset = 0,
  ) {
    this.pos = start;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** True once every byte has been consumed. */
  done(): boolean {
    return this.pos >= this.end;
  }

  /** Absolute offset of the next byte, for error messages. */
  offset(): number {
    return this.baseOffset + this.pos - this.start;
  }

  /** Reads a field key; throws on field number 0 or an unknown wire type. */
  tag(): { field: number; wireType: number } {
    const at = this.offset();
    const key = this.varint();
    const wireType = Number(key & 7n);
    const field = key >> 3n;
    if (field === 0n || field > 0x1fffffffn) throw new ProtobufWireError(`invalid field number ${field} at offset ${at}`);
    if (wireType > 5) throw new ProtobufWireError(`invalid wire type ${wireType} at offset ${at}`);
    return { field: Number(field), wireType };
  }

  /** Reads an unsigned varint of up to 64 bits. */
  varint(): bigint {
    const at = this.offset();
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new ProtobufWireError(`truncated varint at offset ${at}`);
      const byte = this.buf[this.pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new ProtobufWireError(`varint longer than 10 bytes at offset ${at}`);
  }

  /** Reads an int64 varint (two's complement). */
  int64(): bigint {
    return BigInt.asIntN(64, this.varint());
  }

  /** Reads an int32 varint; negative values arrive sign-extended to 64 bits. */
  int32(): number {
    return Number(BigInt.asIntN(32, this.varint()));
  }

  /** Reads a bool varint; any non-zero value is true. */
  bool(): boolean {
    return this.varint() !== 0n;
  }

  /** Reads a little-endian IEEE 754 double (wire type 1). */
  double(): number {
    this.need(8, 'double');
    const value = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  /** Reads a length-delimited field's payload position: returns a reader over exactly those bytes. */
  subReader(): WireReader {
    const { from, to } = this.lengthDelimited();
    return new WireReader(this.buf, from, to, this.baseOffset + from - this.start);
  }

  /** Reads a length-delimited field as bytes (a view into the input, not a copy). */
  bytes(): Uint8Array {
    const { from, to } = this.lengthDelimited();
    return this.buf.subarray(from, to);
  }

  /** Reads a length-delimited field as UTF-8 text; invalid sequences become U+FFFD. */
  string(): string {
    return utf8.decode(this.bytes());
  }

  /** Skips a field of the given wire type (nested groups included). */
  skip(wireType: number, depth = 0): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.Fixed64:
        this.need(8, 'fixed64');
        this.pos += 8;
        return;
      case WireType.LengthDelimited:
        this.lengthDelimited();
        return;
      case WireType.Fixed32:
        this.need(4, 'fixed32');
        this.pos += 4;
        return;
      case WireType.StartGroup: {
        if (depth >= MAX_GROUP_DEPTH) throw new ProtobufWireError(`groups nested too deeply at offset ${this.offset()}`);
        for (;;) {
          if (this.done()) throw new ProtobufWireError(`unterminated group at offset ${this.offset()}`);
          const { wireType: inner } = this.tag();
          if (inner === WireType.EndGroup) return;
          this.skip(inner, depth + 1);
        }
      }
      default:
        throw new ProtobufWireError(`unexpected wire type ${wireType} at offset ${this.offset()}`);
    }
  }

  private lengthDelimited(): { from: number; to: number } {
    const at = this.offset();
    const length = this.varint();
    if (length > BigInt(this.end - this.pos)) {
      throw new ProtobufWireError(`length ${length} at offset ${at} runs past the end of its enclosing message`);
    }
    const from = this.pos;
    this.pos += Number(length);
    return { from, to: this.pos };
  }

  private need(count: number, what: string): void {
    if (this.end - this.pos < count) throw new ProtobufWireError(`truncated ${what} at offset ${this.offset()}`);
  }
}
