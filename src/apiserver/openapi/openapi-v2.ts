/**
 * The swagger 2.0 document of /openapi/v2, covering every served resource. Argo CD reads it (as
 * protobuf, see openapi-v2-protobuf.ts) to build its structured-diff type parser, so every served
 * kind, custom resources included, needs a definition carrying x-kubernetes-group-version-kind.
 */
import type { APIResourceDescriptor } from '../../apimachinery/api-resource.js';
import { refTo, type OpenAPISchema } from './schema-from-catalog.js';
import {
  META_DEFINITIONS,
  PRETTY_PARAMETER,
  QUERY_PARAMETERS,
  bodyDefinition,
  resourceOperations,
  type ResourceOperation,
  type ResponseBody, PATCH_SCHEMA, STATUS_TEXT } from './resource-operations.js';
import { DEFAULT_OPENAPI_INFO, type OpenAPIInfoOptions } from './openapi-v3.js';

export { encodeOpenAPIV2Protobuf } from './openapi-v2-protobuf.js';


/**
 * Builds the swagger 2.0 JSON document over `resources` (any mix of group/versions).
 *
 * `definitions` are v2 schemas (references `#/definitions/<name>`), all of which are published,
 * sorted by name, plus the meta Patch definition when absent. Bodies whose definition is missing
 * are described inline as `{type: object}`. Paths are sorted; an operation path shared by two
 * descriptors (which would be a caller bug) keeps the last one.
 */
export function buildOpenAPIV2(
  resources: APIResourceDescriptor[],
  definitions: Record<string, object>,
  info: OpenAPIInfoOptions = {},
): OpenAPISchema {
  const available: Record<string, object> = { [META_DEFINITIONS.patch]: PATCH_SCHEMA, ...definitions };
  const paths: Record<string, OpenAPISchema> = {};
  for (const r of resources) {
    for (const op of resourceOperations(r)) {
      const item = (paths[op.path] ??= { parameters: pathParameters(op, r.kind) });
      item[op.method] = renderOperation(op, available);
    }
  }
  return {
    swagger: '2.0',
    info: { title: info.title ?? DEFAULT_OPENAPI_INFO.title, version: info.version ?? DEFAULT_OPENAPI_INFO.version },
    paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
    definitions: Object.fromEntries(Object.keys(available).sort().map((n) => [n, available[n]])),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

function pathParameters(op: ResourceOperation, kind: string): OpenAPISchema[] {
  const params: OpenAPISchema[] = [];
  if (op.pathParams.includes('name')) {
    params.push({ name: 'name', in: 'path', required: true, description: `name of the ${kind}`, type: 'string', uniqueItems: true });
  }
  if (op.pathParams.includes('namespace')) {
    params.push({ name: 'namespace', in: 'path', required: true, description: 'object name and auth scope, such as for teams and projects', type: 'string', uniqueItems: true });
  }
  params.push({ name: PRETTY_PARAMETER.name, in: 'query', description: PRETTY_PARAMETER.description, type: PRETTY_PARAMETER.type, uniqueItems: true });
  return params;
}

function schemaFor(name: string | undefined, available: Record<string, object>): OpenAPISchema {
  return name !== undefined && Object.hasOwn(available, name) ? refTo(name, 'v2') : { type: 'object' };
}

function renderOperation(op: ResourceOperation, available: Record<string, object>): OpenAPISchema {
  const watch = op.responses.some((r) => r.body.kind === 'watchEvent') || op.action === 'list';
  const out: OpenAPISchema = {
    description: op.description,
    consumes: op.requestBody === 'patch' ? [...(op.patchContentTypes ?? [])] : ['*/*'],
    produces: watch
      ? ['application/json', 'application/yaml', 'application/json;stream=watch']
      : ['application/json', 'application/yaml'],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
  };
  const params: OpenAPISchema[] = [];
  if (op.requestBody === 'object') {
    const name = op.requestDefinition ?? bodyDefinition(op.responses[0].body, available);
    params.push({ name: 'body', in: 'body', required: true, schema: schemaFor(name, available) });
  } else if (op.requestBody === 'patch') {
    params.push({ name: 'body', in: 'body', required: true, schema: schemaFor(META_DEFINITIONS.patch, available) });
  } else if (op.requestBody === 'deleteOptions') {
    params.push({ name: 'body', in: 'body', schema: schemaFor(META_DEFINITIONS.deleteOptions, available) });
  }
  for (const name of op.queryParams) {
    params.push({ name, in: 'query', description: QUERY_PARAMETERS[name].description, type: QUERY_PARAMETERS[name].type, uniqueItems: true });
  }
  if (params.length > 0) out.parameters = params;
  const responses: OpenAPISchema = {};
  for (const { code, body } of op.responses) {
    responses[code] = { description: STATUS_TEXT[code], schema: responseSchema(body, available) };
  }
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  if (op.deprecated) out.deprecated = true;
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return out;
}

function responseSchema(body: ResponseBody, available: Record<string, object>): OpenAPISchema {
  return schemaFor(bodyDefinition(body, available), available);
}
