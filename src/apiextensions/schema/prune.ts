/**
 * Pruning of unknown fields (apiextensions-apiserver schema/pruning): every object key the structural schema does not
 * declare is deleted, except under `x-kubernetes-preserve-unknown-fields: true`, and except `apiVersion`, `kind` and
 * `metadata` at the resource root and in `x-kubernetes-embedded-resource` objects (ObjectMeta is trimmed separately,
 * see object-meta.ts).
 */
import type { Structural } from './structural.js';

export interface PruneOptions {
  /** True for a whole custom resource: the root then behaves as an embedded resource (meta fields kept). */
  isResourceRoot?: boolean;
}

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Prunes `obj` in place and returns the paths of the removed fields, sorted, in upstream's notation for
 * fieldValidation (`spec.foo`, `spec.items[0].bar`): object keys joined by `.`, list indexes as `[i]`.
 * A value whose schema is missing (e.g. inside `additionalProperties: true`) loses all its object keys.
 */
export function prune(obj: unknown, schema: Structural | undefined, opts: PruneOptions = {}): string[] {
  const unknown: string[] = [];
  let s = schema;
  if (opts.isResourceRoot && (!s || !s.embeddedResource)) s = { ...(s ?? emptyStructural), embeddedResource: true };
  pruneValue(obj, s, '', unknown);
  return unknown.sort();
}

const emptyStructural: Structural = {
  type: '',
  format: '',
  nullable: false,
  preserveUnknownFields: false,
  embeddedResource: false,
  intOrString: false,
  validations: [],
  required: [],
  raw: {},
};

const join = (parent: string, key: string): string => (parent ? `${parent}.${key}` : key);

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function pruneValue(x: unknown, s: Structural | undefined, path: string, unknown: string[]): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, path, unknown);
    return;
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) pruneValue(x[i], s?.items, `${path}[${i}]`, unknown);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s?.embeddedResource && metaFields.has(k)) continue;
    const prop = s?.properties?.get(k);
    if (prop) pruneValue(x[k], prop, join(path, k), unknown);
    else if (s?.additionalProperties) pruneValue(x[k], s.additionalProperties.schema, join(path, k), unknown);
    else {
      if (!metaFields.has(k) || path !== '') unknown.push(join(path, k));
      delete x[k];
    }
  }
}

/** Below preserve-unknown-fields: unknown keys stay, but declared properties are still pruned inside. */
function skipPrune(x: unknown, s: Structural, path: string, unknown: string[]): void {
  if (Array.isArray(x)) {
    if (s.items) for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, unknown);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s.embeddedResource && metaFields.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop) pruneValue(x[k], prop, join(path, k), unknown);
    else if (s.additionalProperties) pruneValue(x[k], s.additionalProperties.schema, join(path, k), unknown);
  }
}
