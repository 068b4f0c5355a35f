/**
 * The structural schema of a built-in kind, from the type catalog (src/apimachinery/schema/builtin/): the same OpenAPI
 * v3 schema atrium publishes for it, converted as a cluster's is (from-openapi.ts), so negotiation compares like with
 * like when it enforces a type atrium serves natively.
 */
import { builtinCatalog } from '../../apimachinery/schema/builtin/index.js';
import { schemasFromCatalog } from '../../apiserver/openapi/schema-from-catalog.js';
import { structuralSchemaFromOpenAPI } from './from-openapi.js';

type Schema = Record<string, unknown>;

const cache = new Map<string, Schema>();

/** The structural schema of catalog definition `definitionName` (e.g. io.k8s.api.apps.v1.Deployment); cached, do not modify. */
export function builtinStructuralSchema(definitionName: string): Schema {
  let schema = cache.get(definitionName);
  if (!schema) {
    schema = structuralSchemaFromOpenAPI(schemasFromCatalog(builtinCatalog, 'v3', [definitionName]) as Record<string, unknown>, definitionName);
    cache.set(definitionName, schema);
  }
  return schema;
}
