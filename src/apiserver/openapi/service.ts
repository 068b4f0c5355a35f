import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIResourceDescriptor } from '../../apimachinery/api-resource.js';
import { groupVersionString } from '../../apimachinery/api-resource.js';
import { builtinCatalog } from '../../apimachinery/schema/builtin/index.js';
import { parseMediaRanges } from '../http/negotiation.js';
import { writeRaw } from '../http/response.js';
import { errors } from '../../apimachinery/status.js';
import { hashDocument } from './document-hash.js';
import { buildOpenAPIV2, encodeOpenAPIV2Protobuf } from './openapi-v2.js';
import { buildOpenAPIV3GroupVersion, buildOpenAPIV3Root, openAPIV3PathKey } from './openapi-v3.js';
import { schemasFromCatalog, type OpenAPISchema } from './schema-from-catalog.js';
import { META_DEFINITIONS, PATCH_SCHEMA } from './resource-operations.js';
import { upstreamTypeDescription } from './upstream-descriptions.js';

/** A resource that brings its own OpenAPI schemas (custom resources); built-ins come from the type catalog. */
export interface SchemaProvidingResource extends APIResourceDescriptor {
  openAPISchemas?: { v2: Record<string, OpenAPISchema>; v3: Record<string, OpenAPISchema> };
  /** Changes whenever the schemas change (a CRD's resourceVersion), so cached documents are rebuilt. */
  schemaVersion?: string;
}

const protobufV2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const protobufV2Alt = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface CachedDoc {
  json: string;
  hash: string;
  etag: string;
  proto?: Buffer;
}

/**
 * Serves /openapi/v2 and /openapi/v3 from the resources served in a logical cluster. Documents are built lazily and
 * cached by the identity of the resource set, so a new CRD shows up in the very next request and nothing is rebuilt
 * while the set is unchanged.
 */
export class OpenAPIService {
  private readonly v3Cache = new Map<string, CachedDoc>();
  private readonly v2Cache = new Map<string, CachedDoc>();
  private builtinV3?: Record<string, OpenAPISchema>;
  private builtinV2?: Record<string, OpenAPISchema>;

  private schemas(version: 'v2' | 'v3', resources: SchemaProvidingResource[]): Record<string, OpenAPISchema> {
    let base: Record<string, OpenAPISchema>;
    if (version === 'v3') base = this.builtinV3 ??= withPublishedPatch(schemasFromCatalog(builtinCatalog, 'v3'));
    else base = this.builtinV2 ??= withPublishedPatch(schemasFromCatalog(builtinCatalog, 'v2'));
    const extra = resources.filter((r) => r.openAPISchemas);
    if (extra.length === 0) return base;
    const out = { ...base };
    for (const r of extra) Object.assign(out, r.openAPISchemas![version]);
    return out;
  }

  private key(resources: SchemaProvidingResource[]): string {
    return resources.map((r) => `${r.group}/${r.version}/${r.resource}@${r.schemaVersion ?? ''}`).join(',');
  }

  private groupVersionDoc(gv: string, resources: SchemaProvidingResource[]): CachedDoc {
    const inGv = resources.filter((r) => groupVersionString(r.group, r.version) === gv);
    const key = `${gv}|${this.key(inGv)}`;
    let doc = this.v3Cache.get(key);
    if (!doc) {
      const json = JSON.stringify(buildOpenAPIV3GroupVersion(inGv, this.schemas('v3', inGv)));
      const hash = hashDocument(JSON.parse(json));
      doc = { json, hash, etag: `"${hash}"` };
      if (this.v3Cache.size > 512) this.v3Cache.clear();
      this.v3Cache.set(key, doc);
    }
    return doc;
  }

  serveV3Root(_req: IncomingMessage, res: ServerResponse, resources: SchemaProvidingResource[]): void {
    const gvs = [...new Set(resources.map((r) => groupVersionString(r.group, r.version)))];
    const root = buildOpenAPIV3Root(gvs, (gv) => this.groupVersionDoc(gv, resources).hash);
    writeRaw(res, 200, JSON.stringify(root), 'application/json');
  }

  /** /openapi/v3/api/v1 or /openapi/v3/apis/<g>/<v>; false when no such group/version is served. */
  serveV3GroupVersion(req: IncomingMessage, res: ServerResponse, subpath: string, resources: SchemaProvidingResource[]): boolean {
    const gv = subpath.startsWith('api/') ? subpath.slice(4) : subpath.startsWith('apis/') ? subpath.slice(5) : undefined;
    if (!gv || !resources.some((r) => groupVersionString(r.group, r.version) === gv)) return false;
    void openAPIV3PathKey;
    const doc = this.groupVersionDoc(gv, resources);
    const hashed = new URL(req.url ?? '/', 'https://x').searchParams.get('hash');
    const headers: Record<string, string> = { ETag: doc.etag, Vary: 'Accept' };
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    // A request for the current hash may be cached forever (the URL changes when the document does).
    if (hashed === doc.hash) headers['Cache-Control'] = 'public, immutable';
    res.setHeader('Cache-Control', headers['Cache-Control'] ?? 'no-cache, private');
    writeRaw(res, 200, doc.json, 'application/json', headers);
    return true;
  }

  serveV2(req: IncomingMessage, res: ServerResponse, resources: SchemaProvidingResource[]): void {
    const key = this.key(resources);
    let doc = this.v2Cache.get(key);
    if (!doc) {
      const built = buildOpenAPIV2(resources, this.schemas('v2', resources));
      const json = JSON.stringify(built);
      const hash = hashDocument(built);
      doc = { json, hash, etag: `"${hash}"`, proto: Buffer.from(encodeOpenAPIV2Protobuf(built as never)) };
      if (this.v2Cache.size > 64) this.v2Cache.clear();
      this.v2Cache.set(key, doc);
    }
    const ranges = parseMediaRanges(req.headers.accept);
    const headers = { ETag: doc.etag, Vary: 'Accept' };
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    for (const r of ranges.length ? ranges : [{ type: 'application/json', params: {} }]) {
      if (r.type === protobufV2 || r.type === protobufV2Alt) {
        // kube-apiserver names the type with a dot before the version (a media type may not contain '@'), and kubectl's
        // validation rejects the '@' spelling in a response.
        writeRaw(res, 200, doc.proto!, protobufV2Alt, headers);
        return;
      }
      if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') {
        writeRaw(res, 200, doc.json, 'application/json', headers);
        return;
      }
    }
    throw errors.notAcceptable(['application/json', protobufV2]);
  }
}

/**
 * The built-in schemas plus meta/v1 Patch (the body of every PATCH, not in the type catalog) described as Kubernetes
 * publishes it (kubernetes-types 1.30.0, see ./upstream-descriptions.ts); the documents supply PATCH_SCHEMA otherwise.
 */
function withPublishedPatch(schemas: Record<string, OpenAPISchema>): Record<string, OpenAPISchema> {
  const description = upstreamTypeDescription(META_DEFINITIONS.patch);
  if (description === undefined || Object.hasOwn(schemas, META_DEFINITIONS.patch)) return schemas;
  return { ...schemas, [META_DEFINITIONS.patch]: { ...PATCH_SCHEMA, description } };
}
