/**
 * Encodes a swagger 2.0 JSON document as the gnostic `openapi.v2.Document` protobuf
 * (github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto), the body of
 * `GET /openapi/v2` with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
 * client-go's DiscoveryClient.OpenAPISchema() (Argo CD, kubectl's v2 fallback) proto.Unmarshals it.
 *
 * kube-apiserver produces these bytes with gnostic's ParseDocument(json) + proto.Marshal; this
 * encoder aims for the same message: fields in field-number order, JSON key order kept for maps
 * (which gnostic models as repeated Named* pairs), proto3 defaults omitted, and every free-form
 * value (default, enum members, example, x-* extensions) carried as `Any{yaml}` text.
 *
 * Keys gnostic would reject (anything that is neither a modelled keyword nor `x-*`) are dropped.
 */
import YAML from 'yaml';

// ---------------------------------------------------------------------------------------------
// A minimal protobuf writer. Sub-messages are encoded to bytes first and then length-prefixed,
// which is simple and fast enough for documents of a few megabytes.

class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** proto3 scalar string: omitted when empty. */
  string(field: number, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    return this.bytesField(field, Buffer.from(value, 'utf8'));
  }

  /** A string that must be present even if empty (elements of repeated fields, oneof members). */
  stringAlways(field: number, value: string): this {
    return this.bytesField(field, Buffer.from(value, 'utf8'));
  }

  strings(field: number, values: readonly string[] | undefined): this {
    for (const v of values ?? []) this.stringAlways(field, v);
    return this;
  }

  /** proto3 bool: omitted when false unless `always` (oneof members have presence). */
  bool(field: number, value: boolean | undefined, always = false): this {
    if (value === undefined || (!value && !always)) return this;
    this.tag(field, 0);
    this.varint(value ? 1 : 0);
    return this;
  }

  int64(field: number, value: number | undefined): this {
    if (value === undefined || value === 0) return this;
    this.tag(field, 0);
    this.varint(BigInt(Math.trunc(value)));
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (value === undefined || value === 0) return this;
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    this.push(b);
    return this;
  }

  /** An embedded message; written even when empty, since message presence is observable. */
  message(field: number, encoded: Uint8Array | undefined): this {
    if (encoded === undefined) return this;
    return this.bytesField(field, encoded);
  }

  private bytesField(field: number, bytes: Uint8Array): this {
    this.tag(field, 2);
    this.varint(bytes.length);
    this.push(bytes);
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: Json): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: Json): number | undefined => (typeof v === 'number' ? v : undefined);
const bool = (v: Json): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const strList = (v: Json): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : undefined;

/** Any{yaml(2)}: the value as YAML text (gnostic stores free-form values this way). */
function encodeAny(value: Json): Uint8Array {
  return new ProtoWriter().stringAlways(2, YAML.stringify(value)).finish();
}

/** NamedAny{name(1), value(2)=Any} for each `x-*` key of `obj`, in key order. */
function writeVendorExtensions(w: ProtoWriter, field: number, obj: JsonObject): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!k.startsWith('x-')) continue;
    w.message(field, new ProtoWriter().stringAlways(1, k).message(2, encodeAny(v)).finish());
  }
}

/** Encodes a JSON swagger 2.0 document (as built by buildOpenAPIV2) to gnostic protobuf bytes. */
export function encodeOpenAPIV2Protobuf(doc: Json): Uint8Array {
  if (!isObject(doc)) throw new Error('encodeOpenAPIV2Protobuf: document must be an object');
  const w = new ProtoWriter()
    .string(1, str(doc.swagger))
    .message(2, isObject(doc.info) ? encodeInfo(doc.info) : undefined)
    .string(3, str(doc.host))
    .string(4, str(doc.basePath))
    .strings(5, strList(doc.schemes))
    .strings(6, strList(doc.consumes))
    .strings(7, strList(doc.produces))
    .message(8, isObject(doc.paths) ? encodePaths(doc.paths) : undefined)
    .message(9, isObject(doc.definitions) ? encodeNamedSchemas(doc.definitions) : undefined);
  if (Array.isArray(doc.security)) for (const s of doc.security) if (isObject(s)) w.message(12, encodeSecurityRequirement(s));
  if (isObject(doc.securityDefinitions)) w.message(13, encodeSecurityDefinitions(doc.securityDefinitions));
  writeVendorExtensions(w, 16, doc);
  return w.finish();
}

function encodeInfo(info: JsonObject): Uint8Array {
  const w = new ProtoWriter().string(1, str(info.title)).string(2, str(info.version)).string(3, str(info.description));
  writeVendorExtensions(w, 7, info);
  return w.finish();
}

function encodeSecurityRequirement(req: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  for (const [name, scopes] of Object.entries(req)) {
    const arr = new ProtoWriter().strings(1, strList(scopes)).finish();
    w.message(1, new ProtoWriter().stringAlways(1, name).message(2, arr).finish());
  }
  return w.finish();
}

function encodeSecurityDefinitions(defs: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  for (const [name, def] of Object.entries(defs)) {
    if (!isObject(def) || def.type !== 'apiKey') continue; // only the apiKey scheme is ever published
    const apiKey = new ProtoWriter()
      .string(1, str(def.type))
      .string(2, str(def.name))
      .string(3, str(def.in))
      .string(4, str(def.description));
    writeVendorExtensions(apiKey, 5, def);
    const item = new ProtoWriter().message(2, apiKey.finish()).finish();
    w.message(1, new ProtoWriter().stringAlways(1, name).message(2, item).finish());
  }
  return w.finish();
}

function encodePaths(paths: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  writeVendorExtensions(w, 1, paths);
  for (const [path, item] of Object.entries(paths)) {
    if (path.startsWith('x-') || !isObject(item)) continue;
    w.message(2, new ProtoWriter().stringAlways(1, path).message(2, encodePathItem(item)).finish());
  }
  return w.finish();
}

const PATH_ITEM_METHODS: [string, number][] = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['options', 6],
  ['head', 7],
  ['patch', 8],
];

function encodePathItem(item: JsonObject): Uint8Array {
  const w = new ProtoWriter().string(1, str(item.$ref));
  for (const [method, field] of PATH_ITEM_METHODS) {
    const op = item[method];
    if (isObject(op)) w.message(field, encodeOperation(op));
  }
  writeParameters(w, 9, item.parameters);
  writeVendorExtensions(w, 10, item);
  return w.finish();
}

function encodeOperation(op: JsonObject): Uint8Array {
  const w = new ProtoWriter()
    .strings(1, strList(op.tags))
    .string(2, str(op.summary))
    .string(3, str(op.description))
    .string(5, str(op.operationId))
    .strings(6, strList(op.produces))
    .strings(7, strList(op.consumes));
  writeParameters(w, 8, op.parameters);
  if (isObject(op.responses)) w.message(9, encodeResponses(op.responses));
  w.strings(10, strList(op.schemes)).bool(11, bool(op.deprecated));
  writeVendorExtensions(w, 13, op);
  return w.finish();
}

/** ParametersItem{parameter(1)=Parameter | json_reference(2)} for each entry. */
function writeParameters(w: ProtoWriter, field: number, params: Json): void {
  if (!Array.isArray(params)) return;
  for (const p of params) {
    if (!isObject(p)) continue;
    const item = new ProtoWriter();
    if (typeof p.$ref === 'string') {
      item.message(2, new ProtoWriter().stringAlways(1, p.$ref).string(2, str(p.description)).finish());
    } else {
      item.message(1, encodeParameter(p));
    }
    w.message(field, item.finish());
  }
}

/** Parameter{body_parameter(1) | non_body_parameter(2)=NonBodyParameter{header(1)|formData(2)|query(3)|path(4)}}. */
function encodeParameter(p: JsonObject): Uint8Array {
  if (p.in === 'body') {
    const body = new ProtoWriter()
      .string(1, str(p.description))
      .string(2, str(p.name))
      .string(3, str(p.in))
      .bool(4, bool(p.required))
      .message(5, isObject(p.schema) ? encodeSchema(p.schema) : undefined);
    writeVendorExtensions(body, 6, p);
    return new ProtoWriter().message(1, body.finish()).finish();
  }
  // Query and path sub-schemas share their first fields; query has allow_empty_value(5) shifting the rest by one.
  const isQuery = p.in === 'query';
  const s = new ProtoWriter()
    .bool(1, bool(p.required))
    .string(2, str(p.in))
    .string(3, str(p.description))
    .string(4, str(p.name));
  const o = isQuery ? 1 : 0;
  if (isQuery) s.bool(5, bool(p.allowEmptyValue));
  s.string(5 + o, str(p.type)).string(6 + o, str(p.format));
  if (p.default !== undefined) s.message(9 + o, encodeAny(p.default));
  s.bool(19 + o, bool(p.uniqueItems));
  if (Array.isArray(p.enum)) for (const e of p.enum) s.message(20 + o, encodeAny(e));
  writeVendorExtensions(s, 22 + o, p);
  const nonBodyField = isQuery ? 3 : p.in === 'path' ? 4 : p.in === 'header' ? 1 : 2;
  // Header sub-schema numbering equals the path one; formData is not used by Kubernetes.
  return new ProtoWriter().message(2, new ProtoWriter().message(nonBodyField, s.finish()).finish()).finish();
}

function encodeResponses(responses: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  for (const [code, r] of Object.entries(responses)) {
    if (code.startsWith('x-') || !isObject(r)) continue;
    let value: Uint8Array;
    if (typeof r.$ref === 'string') {
      value = new ProtoWriter().message(2, new ProtoWriter().stringAlways(1, r.$ref).finish()).finish();
    } else {
      const resp = new ProtoWriter().string(1, str(r.description));
      if (isObject(r.schema)) resp.message(2, new ProtoWriter().message(1, encodeSchema(r.schema)).finish());
      writeVendorExtensions(resp, 5, r);
      value = new ProtoWriter().message(1, resp.finish()).finish();
    }
    w.message(1, new ProtoWriter().stringAlways(1, code).message(2, value).finish());
  }
  writeVendorExtensions(w, 2, responses);
  return w.finish();
}

/** Definitions / Properties: repeated NamedSchema{name(1), value(2)} at field 1. */
function encodeNamedSchemas(schemas: JsonObject): Uint8Array {
  const w = new ProtoWriter();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObject(schema)) continue;
    w.message(1, new ProtoWriter().stringAlways(1, name).message(2, encodeSchema(schema)).finish());
  }
  return w.finish();
}

/** gnostic Schema (field numbers from OpenAPIv2.proto). */
function encodeSchema(s: JsonObject): Uint8Array {
  const w = new ProtoWriter()
    .string(1, str(s.$ref))
    .string(2, str(s.format))
    .string(3, str(s.title))
    .string(4, str(s.description));
  if (s.default !== undefined) w.message(5, encodeAny(s.default));
  w.double(6, num(s.multipleOf))
    .double(7, num(s.maximum))
    .bool(8, bool(s.exclusiveMaximum))
    .double(9, num(s.minimum))
    .bool(10, bool(s.exclusiveMinimum))
    .int64(11, num(s.maxLength))
    .int64(12, num(s.minLength))
    .string(13, str(s.pattern))
    .int64(14, num(s.maxItems))
    .int64(15, num(s.minItems))
    .bool(16, bool(s.uniqueItems))
    .int64(17, num(s.maxProperties))
    .int64(18, num(s.minProperties))
    .strings(19, strList(s.required));
  if (Array.isArray(s.enum)) for (const e of s.enum) w.message(20, encodeAny(e));
  if (isObject(s.additionalProperties)) {
    w.message(21, new ProtoWriter().message(1, encodeSchema(s.additionalProperties)).finish());
  } else if (typeof s.additionalProperties === 'boolean') {
    w.message(21, new ProtoWriter().bool(2, s.additionalProperties, true).finish());
  }
  const types = strList(s.type);
  if (types) w.message(22, new ProtoWriter().strings(1, types).finish());
  if (s.items !== undefined) {
    const items = new ProtoWriter();
    for (const i of Array.isArray(s.items) ? s.items : [s.items]) if (isObject(i)) items.message(1, encodeSchema(i));
    w.message(23, items.finish());
  }
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isObject(a)) w.message(24, encodeSchema(a));
  if (isObject(s.properties)) w.message(25, encodeNamedSchemas(s.properties));
  w.string(26, str(s.discriminator)).bool(27, bool(s.readOnly));
  if (s.example !== undefined) w.message(30, encodeAny(s.example));
  writeVendorExtensions(w, 31, s);
  return w.finish();
}
