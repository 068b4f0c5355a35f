/**
 * Pruning of unknown fields (apiextensions-apiserver schema/pruning): every object key the structural schema does not
 * declare is deleted, except under `x-kubernetes-preserve-unknown-fields: true`, and except `apiVersion`, `kind` and
 * `metadata` at the resource root and in `x-kubernetes-embedded-resource` objects (ObjectMeta is trimmed separately,
 * see object-meta.ts).
 */
import { isPlainObject } from '../../apimachinery/object.js';
import { pruneNonNullableNullsWithoutDefaults } from './default.js';
import type { Structural } from './structural.js';

export interface PruneOptions {
  /** True for a whole custom resource: the root then behaves as an embedded resource (meta fields kept). */
  isResourceRoot?: boolean;
  /**
   * Also drop the `null` fields whose schema is neither nullable nor defaulted, in the same walk: the decoder's
   * pruneNonNullableNullsWithoutDefaults step (default.ts), which upstream runs right after pruning.
   */
  dropNonNullableNulls?: boolean;
}

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Prunes `obj` in place and returns the paths of the removed fields, sorted, in upstream's notation for
 * fieldValidation (`spec.foo`, `spec.items[0].bar`): object keys joined by `.`, list indexes as `[i]`.
 * A value whose schema is missing (e.g. inside `additionalProperties: true`) loses all its object keys.
 */
export function prune(obj: unknown, schema: Structural | undefined, opts: PruneOptions = {}): string[] {
  const ctx: Walk = { unknown: [], dropNulls: opts.dropNonNullableNulls === true };
  let s = schema;
  if (opts.isResourceRoot && (!s || !s.embeddedResource)) s = { ...(s ?? emptyStructural), embeddedResource: true };
  pruneValue(obj, s, new PrunePath(), ctx);
  return ctx.unknown.sort();
}

interface Walk {
  unknown: string[];
  dropNulls: boolean;
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

/**
 * The path of the value being pruned as a stack of segments; the dotted text (`spec.items[0].bar`) is rendered only
 * for a field actually pruned.
 */
class PrunePath {
  private readonly segments: (string | number)[] = [];
  push(segment: string | number): void {
    this.segments.push(segment);
  }
  pop(): void {
    this.segments.pop();
  }
  get isRoot(): boolean {
    return this.segments.length === 0;
  }
  /** The text of the path extended by `key`. */
  with(key: string): string {
    let out = '';
    for (const seg of this.segments) out = typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg;
    return out ? `${out}.${key}` : key;
  }
}

/**
 * Keeps field `k` of `x` (described by `sub`): with dropNulls a null the schema neither allows nor defaults is
 * deleted (reading as unset), otherwise the value is pruned further.
 */
function keep(x: Record<string, unknown>, k: string, sub: Structural | undefined, path: PrunePath, ctx: Walk): void {
  const v = x[k];
  if (ctx.dropNulls && v === null && sub && !sub.nullable && sub.default === undefined) delete x[k];
  else if (v !== null && typeof v === 'object') {
    path.push(k);
    pruneValue(v, sub, path, ctx);
    path.pop();
  }
}

function pruneValue(x: unknown, s: Structural | undefined, path: PrunePath, ctx: Walk): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, path, ctx);
    return;
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      path.push(i);
      pruneValue(x[i], s?.items, path, ctx);
      path.pop();
    }
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s?.embeddedResource && metaFields.has(k)) {
      // Kept unpruned (ObjectMeta is trimmed separately), but still subject to the null rule.
      if (ctx.dropNulls) dropNulls(x, k, s.properties?.get(k) ?? s.additionalProperties?.schema);
      continue;
    }
    const prop = s?.properties?.get(k);
    if (prop) keep(x, k, prop, path, ctx);
    else if (s?.additionalProperties) keep(x, k, s.additionalProperties.schema, path, ctx);
    else {
      if (!metaFields.has(k) || !path.isRoot) ctx.unknown.push(path.with(k));
      delete x[k];
    }
  }
}

/** The null rule alone, for fields pruning leaves untouched. */
function dropNulls(x: Record<string, unknown>, k: string, sub: Structural | undefined): void {
  if (!sub) return;
  if (x[k] === null && !sub.nullable && sub.default === undefined) delete x[k];
  else pruneNonNullableNullsWithoutDefaults(x[k], sub);
}

/** Below preserve-unknown-fields: unknown keys stay, but declared properties are still pruned inside. */
function skipPrune(x: unknown, s: Structural, path: PrunePath, ctx: Walk): void {
  if (Array.isArray(x)) {
    if (s.items) {
      for (let i = 0; i < x.length; i++) {
        path.push(i);
        skipPrune(x[i], s.items, path, ctx);
        path.pop();
      }
    }
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s.embeddedResource && metaFields.has(k)) {
      if (ctx.dropNulls) dropNulls(x, k, s.properties?.get(k) ?? s.additionalProperties?.schema);
      continue;
    }
    const prop = s.properties?.get(k);
    if (prop) keep(x, k, prop, path, ctx);
    else if (s.additionalProperties) keep(x, k, s.additionalProperties.schema, path, ctx);
  }
}
