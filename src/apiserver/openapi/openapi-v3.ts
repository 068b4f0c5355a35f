/**
 * The OpenAPI v3 documents of /openapi/v3: a root listing one URL per group/version, and one
 * document per group/version with that group's paths and the schemas they reach.
 *
 * kubectl relies on: the PATCH operation's `fieldValidation` parameter (strict validation in apply,
 * create, replace), the PATCH requestBody content types (strategic merge patch support), and
 * `x-kubernetes-group-version-kind` on operations and schemas (explain).
 */
import type { APIResourceDescriptor } from '../../apimachinery/api-resource.js';
import { refTo, schemaClosure, collectSchemaRefs, type OpenAPISchema } from './schema-from-catalog.js';
import {
  META_DEFINITIONS,
  PRETTY_PARAMETER,
  QUERY_PARAMETERS,
  bodyDefinition,
  resourceOperations,
  type ResourceOperation,
  type ResponseBody, PATCH_SCHEMA, STATUS_TEXT } from './resource-operations.js';

/** Title and version reported in `info`. */
export interface OpenAPIInfoOptions {
  title?: string;
  /** The server's gitVersion, e.g. v1.32.4. */
  version?: string;
}

export const DEFAULT_OPENAPI_INFO = { title: 'Kubernetes', version: 'v1.32.4' } as const;

export interface OpenAPIV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

/**
 * The path key of a group/version in the /openapi/v3 root: `api/v1` for the core group, `apis/g/v`
 * otherwise. Accepts "v1" / "g/v" (discovery spelling) or an already-prefixed "api/v1" / "apis/g/v".
 */
export function openAPIV3PathKey(groupVersion: string): string {
  if (groupVersion.startsWith('api/') || groupVersion.startsWith('apis/')) return groupVersion;
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

/**
 * The /openapi/v3 root. Each `serverRelativeURL` starts with `/openapi/v3` (not with a cluster
 * prefix) because client-go resolves it relative to the configured host path, which keeps a
 * `/clusters/<name>` prefix working. `hashOf` receives each entry of `groupVersions` as given.
 * Entries are sorted by path key; duplicates collapse.
 */
export function buildOpenAPIV3Root(groupVersions: string[], hashOf: (gv: string) => string): OpenAPIV3Root {
  const entries = groupVersions.map((gv) => [openAPIV3PathKey(gv), gv] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const paths: OpenAPIV3Root['paths'] = {};
  for (const [key, gv] of entries) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(gv)}` };
  return { paths };
}


/**
 * The OpenAPI v3 document for one group/version.
 *
 * `resources` must all share one group and version (throws otherwise; an empty list gives a
 * document with no paths). `schemas` may hold every known schema, keyed by definition name with
 * v3 `#/components/schemas/` references; only those reachable from the operations end up in
 * `components.schemas`. A body whose definition is absent from `schemas` is described inline as
 * `{type: object}` rather than as a dangling reference. The meta Patch schema is supplied if the
 * caller has none.
 */
export function buildOpenAPIV3GroupVersion(
  resources: APIResourceDescriptor[],
  schemas: Record<string, object>,
  info: OpenAPIInfoOptions = {},
): OpenAPISchema {
  assertOneGroupVersion(resources);
  const available: Record<string, object> = { [META_DEFINITIONS.patch]: PATCH_SCHEMA, ...schemas };
  const paths: Record<string, OpenAPISchema> = {};
  for (const r of resources) {
    for (const op of resourceOperations(r)) {
      const item = (paths[op.path] ??= { parameters: pathParameters(op, r.kind) });
      item[op.method] = renderOperation(op, available);
    }
  }
  const sortedPaths = Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]]));
  const roots = collectSchemaRefs(sortedPaths, 'v3');
  return {
    openapi: '3.0.0',
    info: { title: info.title ?? DEFAULT_OPENAPI_INFO.title, version: info.version ?? DEFAULT_OPENAPI_INFO.version },
    paths: sortedPaths,
    components: {
      schemas: schemaClosure(available, roots, 'v3'),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
}

function assertOneGroupVersion(resources: APIResourceDescriptor[]): void {
  const gvs = new Set(resources.map((r) => `${r.group}/${r.version}`));
  if (gvs.size > 1) throw new Error(`buildOpenAPIV3GroupVersion: resources span several group/versions: ${[...gvs].join(', ')}`);
}

/** Path-level parameters: the path placeholders plus `pretty`, as upstream declares them. */
function pathParameters(op: ResourceOperation, kind: string): OpenAPISchema[] {
  const params: OpenAPISchema[] = [];
  if (op.pathParams.includes('name')) {
    params.push({ name: 'name', in: 'path', required: true, description: `name of the ${kind}`, schema: { type: 'string', uniqueItems: true } });
  }
  if (op.pathParams.includes('namespace')) {
    params.push({ name: 'namespace', in: 'path', required: true, description: 'object name and auth scope, such as for teams and projects', schema: { type: 'string', uniqueItems: true } });
  }
  params.push({ name: PRETTY_PARAMETER.name, in: 'query', description: PRETTY_PARAMETER.description, schema: { type: PRETTY_PARAMETER.type, uniqueItems: true } });
  return params;
}

function bodySchema(body: ResponseBody, available: Record<string, object>): OpenAPISchema {
  const name = bodyDefinition(body, available);
  return name !== undefined && Object.hasOwn(available, name) ? refTo(name, 'v3') : { type: 'object' };
}

function namedSchema(name: string, available: Record<string, object>): OpenAPISchema {
  return Object.hasOwn(available, name) ? refTo(name, 'v3') : { type: 'object' };
}

function renderOperation(op: ResourceOperation, available: Record<string, object>): OpenAPISchema {
  const out: OpenAPISchema = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.queryParams.length > 0) {
    out.parameters = op.queryParams.map((name) => ({
      name,
      in: 'query',
      description: QUERY_PARAMETERS[name].description,
      schema: { type: QUERY_PARAMETERS[name].type, uniqueItems: true },
    }));
  }
  if (op.requestBody === 'object') {
    const schema = op.requestDefinition ? namedSchema(op.requestDefinition, available) : bodySchema(op.responses[0].body, available);
    out.requestBody = { content: { '*/*': { schema } }, required: true };
  } else if (op.requestBody === 'patch') {
    const schema = namedSchema(META_DEFINITIONS.patch, available);
    out.requestBody = { content: Object.fromEntries((op.patchContentTypes ?? []).map((t) => [t, { schema }])), required: true };
  } else if (op.requestBody === 'deleteOptions') {
    out.requestBody = { content: { '*/*': { schema: namedSchema(META_DEFINITIONS.deleteOptions, available) } } };
  }
  const responses: OpenAPISchema = {};
  for (const { code, body } of op.responses) {
    const schema = bodySchema(body, available);
    const types = body.kind === 'watchEvent' ? ['application/json', 'application/json;stream=watch', 'application/yaml'] : ['application/json', 'application/yaml'];
    responses[code] = { description: STATUS_TEXT[code], content: Object.fromEntries(types.map((t) => [t, { schema }])) };
  }
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  if (op.deprecated) out.deprecated = true;
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}
