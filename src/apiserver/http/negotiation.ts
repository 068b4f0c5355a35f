import { errors } from '../../apimachinery/status.js';

export interface MediaRange {
  type: string; // e.g. application/json
  params: Record<string, string>;
}

/** Parses an Accept (or Content-Type) header into media ranges, in the order given. */
export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    if (params.q === '0') continue;
    out.push({ type: type.toLowerCase(), params });
  }
  return out;
}

export type ObjectOutput =
  | { kind: 'object'; format: 'json' | 'yaml' | 'protobuf' }
  | { kind: 'table'; version: 'v1' | 'v1beta1'; includeObject: 'None' | 'Metadata' | 'Object' }
  | { kind: 'partial'; version: 'v1' | 'v1beta1' };

const plainJson = new Set(['application/json', 'application/*', '*/*', '*']);

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/**
 * Picks how to render an object or list response from Accept. kube-apiserver serves JSON, YAML, protobuf (built-in
 * kinds: `protobuf` says whether the resource's kind has a protobuf form; custom resources have none, so a client
 * accepting only protobuf gets 406 for them, as from apiextensions-apiserver), Table and PartialObjectMetadata[List]
 * (both in JSON). Nothing acceptable → 406.
 */
export function negotiateObjectOutput(accept: string | undefined, includeObjectParam: string | null, allowTransform: boolean, protobuf = false): ObjectOutput {
  const ranges = parseMediaRanges(accept);
  if (ranges.length === 0) return { kind: 'object', format: 'json' };
  for (const r of ranges) {
    const as = r.params.as;
    if (as) {
      if (!allowTransform) continue;
      if (r.type !== 'application/json' || r.params.g !== 'meta.k8s.io') continue;
      const version = r.params.v === 'v1beta1' ? 'v1beta1' : r.params.v === 'v1' ? 'v1' : undefined;
      if (!version) continue;
      if (as === 'Table') {
        // handlers/response.go optionsForTransform: TableOptions are validated only once a Table was chosen.
        if (includeObjectParam && !['None', 'Metadata', 'Object'].includes(includeObjectParam)) {
          throw errors.badRequest(
            `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(includeObjectParam)}: must be 'Metadata', 'Object', 'None', or empty`,
          );
        }
        const inc = includeObjectParam === 'None' || includeObjectParam === 'Object' ? includeObjectParam : 'Metadata';
        return { kind: 'table', version, includeObject: inc };
      }
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'partial', version };
      continue;
    }
    if (plainJson.has(r.type)) return { kind: 'object', format: 'json' };
    if (r.type === 'application/yaml') return { kind: 'object', format: 'yaml' };
    if (protobuf && r.type === protobufMediaType) return { kind: 'object', format: 'protobuf' };
  }
  throw errors.notAcceptable(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
}

/** Whether the client asked for aggregated discovery (apidiscovery.k8s.io v2 or v2beta1), and which. */
export function wantsAggregatedDiscovery(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  for (const r of parseMediaRanges(accept)) {
    if (r.params.as === 'APIGroupDiscoveryList' && r.params.g === 'apidiscovery.k8s.io') {
      if (r.params.v === 'v2') return 'v2';
      if (r.params.v === 'v2beta1') return 'v2beta1';
    }
    if (!r.params.as && plainJson.has(r.type)) return undefined;
  }
  return undefined;
}

/** The bare media type of a Content-Type header (parameters such as charset dropped). */
export function bareMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Whether an error Status goes out in protobuf: the first media range of Accept that names a serialization is
 * protobuf (responsewriters.ErrorNegotiated with the server's codecs, which can encode a Status in protobuf).
 */
export function statusInProtobuf(accept: string | undefined): boolean {
  for (const r of parseMediaRanges(accept)) {
    if (r.params.as) continue;
    if (r.type === protobufMediaType) return true;
    if (plainJson.has(r.type) || r.type === 'application/yaml') return false;
  }
  return false;
}
