/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies into the JSON objects the rest of atrium
 * works with.
 *
 * Wire format (k8s.io/apimachinery runtime/serializer/protobuf): the 4-byte magic `6b 38 73 00` ("k8s\0"),
 * then a runtime.Unknown message:
 *   Unknown  { TypeMeta typeMeta = 1; bytes raw = 2; string contentEncoding = 3; string contentType = 4; }
 *   TypeMeta { string apiVersion = 1; string kind = 2; }
 * `raw` is the object itself, encoded with the k8s.io/api generated.proto field numbers that the type catalog
 * records. See decode-message.ts for how protobuf presence maps onto JSON's omitted fields.
 */
import { builtinCatalog, builtinProtobufHints, definitionNameFor, type ProtobufFieldHints } from '../schema/builtin/index.js';
import type { TypeCatalog, TypeDescriptor } from '../schema/types.js';
import { ProtobufDecodeError } from './decode-error.js';
import { MessageDecoder } from './decode-message.js';
import { WireReader, WireType } from './wire-reader.js';

export { ProtobufDecodeError } from './decode-error.js';

/** The media type of Kubernetes protobuf bodies. */
export const KUBERNETES_PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** The 4 bytes every Kubernetes protobuf body starts with. */
export const KUBERNETES_PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A decoded body: the envelope's apiVersion and kind, and the object in its JSON form (apiVersion and kind set). */
export interface DecodedKubernetesObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/** True when `body` starts with the Kubernetes protobuf magic number. Never throws. */
export function isKubernetesProtobuf(body: Uint8Array): boolean {
  return body.length >= 4 && KUBERNETES_PROTOBUF_MAGIC.every((byte, i) => body[i] === byte);
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  rawOffset: number;
  contentEncoding: string;
  contentType: string;
}

function readEnvelope(body: Uint8Array): Envelope {
  const envelope: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), rawOffset: 4, contentEncoding: '', contentType: '' };
  const reader = new WireReader(body, 4, body.length, 4);
  while (!reader.done()) {
    const { field, wireType } = reader.tag();
    if (field >= 1 && field <= 4 && wireType !== WireType.LengthDelimited) {
      throw new ProtobufDecodeError(`runtime.Unknown field ${field} has wire type ${wireType}, expected 2 (length-delimited)`);
    }
    switch (field) {
      case 1: {
        const typeMeta = reader.subReader();
        while (!typeMeta.done()) {
          const inner = typeMeta.tag();
          if ((inner.field === 1 || inner.field === 2) && inner.wireType === WireType.LengthDelimited) {
            if (inner.field === 1) envelope.apiVersion = typeMeta.string();
            else envelope.kind = typeMeta.string();
          } else {
            typeMeta.skip(inner.wireType);
          }
        }
        break;
      }
      case 2:
        envelope.raw = reader.bytes();
        envelope.rawOffset = reader.offset() - envelope.raw.length;
        break;
      case 3:
        envelope.contentEncoding = reader.string();
        break;
      case 4:
        envelope.contentType = reader.string();
        break;
      default:
        reader.skip(wireType);
    }
  }
  return envelope;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function describeGvk(apiVersion: string, kind: string): string {
  return `${apiVersion || '<no apiVersion>'}, Kind=${kind}`;
}

const decoders = new WeakMap<TypeCatalog, WeakMap<ProtobufFieldHints, MessageDecoder>>();

function decoderFor(catalog: TypeCatalog, hints: ProtobufFieldHints): MessageDecoder {
  let byHints = decoders.get(catalog);
  if (!byHints) decoders.set(catalog, (byHints = new WeakMap()));
  let decoder = byHints.get(hints);
  if (!decoder) byHints.set(hints, (decoder = new MessageDecoder(catalog, hints)));
  return decoder;
}

/**
 * Decodes a Kubernetes protobuf body (magic prefix + runtime.Unknown) into the object a JSON client would have
 * sent: `apiVersion` and `kind` come from the envelope, everything else from `raw` via the type catalog.
 * DeleteOptions is accepted under any apiVersion ("v1", "meta.k8s.io/v1", or the resource's group version).
 *
 * Throws ProtobufDecodeError (an Error whose message says what is wrong and where) when the magic is missing,
 * the envelope has no kind, the kind is not in the catalog, a content encoding is used, or the bytes are
 * truncated or corrupt. Never loops on bad input.
 */
export function decodeKubernetesProtobuf(
  body: Uint8Array,
  catalog: TypeCatalog = builtinCatalog,
  hints: ProtobufFieldHints = builtinProtobufHints,
): DecodedKubernetesObject {
  if (!isKubernetesProtobuf(body)) {
    throw new ProtobufDecodeError('the body is not Kubernetes protobuf: it does not start with the magic bytes 6b 38 73 00 ("k8s\\0")');
  }
  let envelope: Envelope;
  try {
    envelope = readEnvelope(body);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw err;
    throw new ProtobufDecodeError(`malformed runtime.Unknown envelope: ${(err as Error).message}`);
  }
  const { apiVersion, kind } = envelope;
  if (!kind) throw new ProtobufDecodeError('the protobuf envelope names no kind (runtime.Unknown typeMeta.kind is empty)');
  if (envelope.contentEncoding) {
    throw new ProtobufDecodeError(`protobuf content encoding "${envelope.contentEncoding}" is not supported; send the object unencoded`);
  }
  if (envelope.contentType && envelope.contentType !== KUBERNETES_PROTOBUF_CONTENT_TYPE) {
    throw new ProtobufDecodeError(`the protobuf envelope holds content type "${envelope.contentType}"; only ${KUBERNETES_PROTOBUF_CONTENT_TYPE} is supported`);
  }
  const { group, version } = splitApiVersion(apiVersion);
  const typeName = definitionNameFor(group, version, kind, catalog);
  // Types described only for JSON (kcp's tenancy API, served like custom resources) have no protobuf form: refuse
  // them as kube-apiserver refuses protobuf for custom resources.
  if (typeName === undefined || !hasProtobufForm(catalog.get(typeName))) {
    throw new ProtobufDecodeError(`protobuf is not supported for ${describeGvk(apiVersion, kind)}; send the body as application/json`);
  }
  const decoder = decoderFor(catalog, hints);
  let fields: Record<string, unknown>;
  try {
    fields = decoder.decode(new WireReader(envelope.raw, 0, envelope.raw.length, envelope.rawOffset), typeName);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new ProtobufDecodeError(`invalid protobuf body for ${describeGvk(apiVersion, kind)}: ${detail}`);
  }
  const object: Record<string, unknown> = { apiVersion, kind };
  for (const [name, value] of Object.entries(fields)) if (name !== 'apiVersion' && name !== 'kind') object[name] = value;
  return { apiVersion, kind, object };
}

function hasProtobufForm(t: TypeDescriptor | undefined): boolean {
  return !!t && t.fields.some((f) => f.proto !== undefined && f.name !== 'metadata');
}
