/**
 * Defaulting of a CustomResourceDefinition as apiextensions v1 defaults.go does it, applied to the request body
 * before validation: singular and listKind from the kind, conversion strategy None, a conversion webhook
 * service's port 443.
 */
import type { CustomResourceDefinition } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Deletes `obj[key]` when it holds `zero` or an empty list: what an omitempty field of that type encodes to nothing. */
function dropZero(obj: Obj, key: string, zero: unknown): void {
  const v = obj[key];
  if (v === zero || (zero === 'list' && Array.isArray(v) && v.length === 0)) delete obj[key];
}

/**
 * `items` that is neither a schema nor a list of schemas decodes to nothing (JSONSchemaPropsOrArray ignores other
 * JSON values), through every nested schema.
 */
function dropNonSchemaItems(schema: unknown): void {
  if (!isObj(schema)) return;
  if ('items' in schema && !isObj(schema.items) && !Array.isArray(schema.items)) delete schema.items;
  const each = (v: unknown) => (Array.isArray(v) ? v.forEach(dropNonSchemaItems) : dropNonSchemaItems(v));
  const values = (v: unknown) => isObj(v) && Object.values(v).forEach(dropNonSchemaItems);
  each(schema.items);
  for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[k])) each(schema[k]);
  for (const k of ['not', 'additionalProperties', 'additionalItems']) dropNonSchemaItems(schema[k]);
  for (const k of ['properties', 'patternProperties', 'definitions', 'dependencies']) values(schema[k]);
}

/**
 * The typed round trip of a decoded spec: zero values of omitempty fields are dropped (`priority: 0`,
 * `deprecated: false`, empty lists, empty strings), missing non-omitempty fields of a version are written as their zero values (`served: false`, `name: ""`).
 */
function normaliseSpec(spec: Obj): void {
  dropZero(spec, 'preserveUnknownFields', false);
  if (isObj(spec.names)) {
    for (const k of ['singular', 'listKind']) dropZero(spec.names, k, '');
    for (const k of ['shortNames', 'categories']) dropZero(spec.names, k, 'list');
  }
  if (isObj(spec.conversion)) {
    const cc = isObj(spec.conversion.webhook) ? spec.conversion.webhook.clientConfig : undefined;
    if (isObj(cc)) dropZero(cc, 'caBundle', '');
  }
  if (!Array.isArray(spec.versions)) return;
  for (const v of spec.versions) {
    if (!isObj(v)) continue;
    v.name ??= '';
    v.served ??= false;
    v.storage ??= false;
    dropZero(v, 'deprecated', false);
    for (const k of ['additionalPrinterColumns', 'selectableFields']) dropZero(v, k, 'list');
    if (Array.isArray(v.additionalPrinterColumns)) {
      for (const c of v.additionalPrinterColumns) {
        if (!isObj(c)) continue;
        for (const k of ['format', 'description']) dropZero(c, k, '');
        dropZero(c, 'priority', 0);
      }
    }
    if (isObj(v.schema)) dropNonSchemaItems(v.schema.openAPIV3Schema);
  }
}

/** Fills defaulted fields in place; leaves malformed input (no spec) for validation to report. */
export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  normaliseSpec(spec as unknown as Obj);
  const names = (spec.names ??= {});
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  // SetDefaults_ServiceReference
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && typeof service === 'object') service.port ??= 443;
  if (!Array.isArray(spec.versions)) spec.versions = [];
}

/** Adds the storage version to status.storedVersions when missing (strategy PrepareForCreate/PrepareForUpdate). */
export function recordStorageVersion(crd: CustomResourceDefinition): void {
  const version = crd.spec?.versions?.find((v) => v.storage);
  if (!version) return;
  // An empty name is recorded too, as upstream does (validation then reports only the version's name).
  const storage = typeof version.name === 'string' ? version.name : '';
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage)) stored.push(storage);
}
