/**
 * One compiled CRD version schema: everything derived from `openAPIV3Schema` (structural form, value validators with
 * their regexes, CEL programs) is built once, so a CompiledSchema can be cached per CRD generation and reused for
 * every request.
 */
import { type FieldError, FieldPath, invalid } from '../../apimachinery/field-errors.js';
import { applyDefaults } from './default.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { validateListSetsAndMaps } from './list-type.js';
import { coerceObjectMeta, validateEmbeddedResources } from './object-meta.js';
import { prune } from './prune.js';
import { type Structural, toStructural } from './structural.js';
import { type CompiledValueSchema, compileValueSchema, validateValue } from './validate.js';
import { RuntimeCELCostBudget } from './cel/cost.js';
import { CelValidator } from './cel/validator.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface ProcessOptions {
  /** How unknown fields are treated; the server default is Warn. */
  fieldValidation?: FieldValidation;
}

export interface ProcessResult {
  /** Validation errors, to be returned as one 422 Invalid. */
  errors: FieldError[];
  /**
   * Paths of the pruned unknown fields (`spec.foo`, `metadata.bar`), sorted. Empty for Ignore. Under Strict a
   * non-empty list means the object was not defaulted or validated: the caller rejects it with 400
   * (`strict decoding error: unknown field "spec.foo"`); under Warn each becomes a `unknown field "spec.foo"` warning.
   */
  unknownFields: string[];
}

/** Error types after which CEL rules are skipped (customresource strategy hasBlockingErr). */
const blockingTypes = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

export class CompiledSchema {
  readonly structural: Structural;
  private readonly values: CompiledValueSchema;
  private readonly cel: CelValidator;

  constructor(readonly openAPIV3Schema: JSONSchemaProps) {
    this.structural = toStructural(openAPIV3Schema);
    this.values = compileValueSchema(openAPIV3Schema);
    this.cel = new CelValidator(this.structural, true);
  }

  /**
   * Decodes-side processing of a request body, in upstream's order, mutating `obj` in place:
   * prune unknown fields and trim metadata to ObjectMeta (recording their paths), drop non-nullable nulls without
   * defaults, apply defaults, then validate: schema values, embedded resources, list sets/maps (on update only when
   * the old object's lists were valid), and finally CEL rules unless an earlier error blocks them. `old` is the
   * stored object (already defaulted) on update, undefined on create.
   */
  process(obj: Record<string, unknown>, old: Record<string, unknown> | undefined, opts: ProcessOptions = {}): ProcessResult {
    const fieldValidation = opts.fieldValidation ?? 'Warn';
    const unknown = this.prune(obj);
    const unknownFields = fieldValidation === 'Ignore' ? [] : unknown;
    if (fieldValidation === 'Strict' && unknownFields.length > 0) return { errors: [], unknownFields };
    applyDefaults(obj, this.structural);
    return { errors: this.validate(obj, old), unknownFields };
  }

  /** Pruning half of process(): returns the sorted unknown field paths. */
  prune(obj: Record<string, unknown>): string[] {
    const unknown = prune(obj, this.structural, { isResourceRoot: true, dropNonNullableNulls: true });
    unknown.push(...coerceObjectMeta(obj, this.structural, true));
    return unknown.sort();
  }

  /** Defaulting as applied to objects read from storage. */
  applyDefaults(obj: Record<string, unknown>): void {
    applyDefaults(obj, this.structural);
  }

  /** Validation half of process() for an already pruned and defaulted object. */
  validate(obj: Record<string, unknown>, old?: Record<string, unknown>): FieldError[] {
    const root = FieldPath.root();
    const errs = validateValue(obj, this.values, root);
    errs.push(...validateEmbeddedResources(obj, this.structural, root));
    if (!old || validateListSetsAndMaps(this.structural, old, root).length === 0) {
      errs.push(...validateListSetsAndMaps(this.structural, obj, root));
    }
    if (this.cel.hasRules) {
      if (errs.some((e) => blockingTypes.has(e.type))) {
        // Upstream reports this with a nil field path, which prints as `<nil>`.
        errs.push(invalid('<nil>', null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
      } else {
        errs.push(...this.cel.validate(obj, old, root, RuntimeCELCostBudget).errors);
      }
    }
    return errs;
  }
}

/** Builds the CompiledSchema of one CRD version. Assumes the schema passed validateCRDSchema. */
export function compileSchema(openAPIV3Schema: JSONSchemaProps): CompiledSchema {
  return new CompiledSchema(openAPIV3Schema);
}
