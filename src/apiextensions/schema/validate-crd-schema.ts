/**
 * The checks a CustomResourceDefinition's `openAPIV3Schema` must pass before the CRD is accepted (apiextensions
 * validation.go ValidateCustomResourceDefinitionOpenAPISchema and friends): unsupported keywords, structural rules,
 * list/map extensions, defaults that must validate and survive pruning, and x-kubernetes-validations rules that must
 * compile and fit the cost limits.
 */
import { type FieldError, type FieldPath, forbidden, invalid, notSupported, required } from '../../apimachinery/field-errors.js';
import { applyDefaults } from './default.js';
import { type JSONSchemaProps, additionalPropertiesSchema, itemsSchema } from './json-schema-props.js';
import { jsonEqual } from './json-equal.js';
import { validateEmbeddedResources } from './object-meta.js';
import { prune } from './prune.js';
import { type Structural, toStructural, validateStructural } from './structural.js';
import { validateValue } from './validate.js';
import { compileRules } from './cel/compile.js';
import { StaticEstimatedCRDCostLimit, StaticEstimatedCostLimit, unboundedCardinality } from './cel/cost.js';
import { parseRuleFieldPath } from './cel/rule-field-path.js';
import { CelValidator } from './cel/validator.js';

const openAPIV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);

/** `exceeds budget by factor of ...` as upstream's getCostErrorMessage words it. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface Context {
  allowDefaults: boolean;
  disallowDefaultsReason?: string;
  insideResourceMeta: boolean;
  /** Path of the list or map that makes oldSelf unusable below it, if any. */
  uncorrelatablePath?: string;
  /** Upper bound of how many times a rule at this node can run for one object (product of enclosing list/map sizes). */
  cardinality: number;
  /** The structural node for CEL, when the schema is structural. */
  structural?: Structural;
}

interface CostEntry {
  path: string;
  cost: number;
}

/**
 * Validates `schema` (found at `fldPath`, e.g. `spec.versions[0].schema.openAPIV3Schema`) and returns every error.
 * CEL rules are compiled only when the schema is structural and its defaults are valid, as upstream does.
 */
export function validateCRDSchema(schema: JSONSchemaProps, fldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (schema.nullable) errs.push(forbidden(fldPath.child('nullable').toString(), 'nullable cannot be true at the root'));
  let root: Structural | undefined;
  const structuralErrs = validateStructural(schema, fldPath);
  if (structuralErrs.length > 0) errs.push(...structuralErrs);
  else {
    const s = toStructural(schema);
    const defaultErrs = validateDefaults(s, fldPath);
    if (defaultErrs.length > 0) errs.push(...defaultErrs);
    else root = s;
  }
  const costs: CostEntry[] = [];
  const schemaErrs: FieldError[] = [];
  const celErrs: FieldError[] = [];
  walk(schema, fldPath, true, { allowDefaults: true, insideResourceMeta: false, cardinality: 1, structural: root }, schemaErrs, celErrs, costs);
  errs.push(...schemaErrs, ...celErrs);
  if (root) {
    const total = costs.reduce((a, c) => a + c.cost, 0);
    if (total > StaticEstimatedCRDCostLimit) {
      for (const c of [...costs].sort((a, b) => b.cost - a.cost).slice(0, 4)) {
        errs.push(forbidden(c.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
      }
      errs.push(
        forbidden(fldPath.toString(), costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, StaticEstimatedCRDCostLimit)),
      );
    }
  }
  return errs;
}

function childCardinality(parent: number, bound: number | undefined, elem: Structural | undefined): number {
  return Math.min(parent * (bound ?? unboundedCardinality(elem)), Number.MAX_SAFE_INTEGER);
}

function walk(
  s: JSONSchemaProps,
  p: FieldPath,
  isRoot: boolean,
  ctx: Context,
  schemaErrs: FieldError[],
  celErrs: FieldError[],
  costs: CostEntry[],
): void {
  const before = schemaErrs.length;
  standardChecks(s, p, ctx, schemaErrs);
  if (s.uniqueItems) schemaErrs.push(forbidden(p.child('uniqueItems').toString(), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const ap = additionalPropertiesSchema(s);
  if (s.additionalProperties !== undefined) {
    if (Object.keys(s.properties ?? {}).length > 0 && (s.additionalProperties === false || ap)) {
      schemaErrs.push(forbidden(p.child('additionalProperties').toString(), 'additionalProperties and properties are mutual exclusive'));
    }
    if (ap) {
      const sub: Context = {
        ...ctx,
        ...(ctx.insideResourceMeta ? { allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : {}),
        cardinality: childCardinality(ctx.cardinality, s.maxProperties, ctx.structural?.additionalProperties?.schema),
        structural: ctx.structural?.additionalProperties?.schema,
      };
      walk(ap, p.child('additionalProperties'), false, sub, schemaErrs, celErrs, costs);
    }
  }
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    let sub: Context = { ...ctx, structural: ctx.structural?.properties?.get(name) };
    if (s['x-kubernetes-map-type'] === 'atomic' && sub.uncorrelatablePath === undefined) sub.uncorrelatablePath = p.toString();
    if ((isRoot || s['x-kubernetes-embedded-resource']) && metaFields.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${name}` };
    }
    walk(prop, p.child('properties').key(name), false, sub, schemaErrs, celErrs, costs);
  }
  const noCel: Context = { ...ctx, structural: undefined };
  if (s.not) walk(s.not, p.child('not'), false, noCel, schemaErrs, celErrs, costs);
  s.allOf?.forEach((x, i) => walk(x, p.child('allOf').index(i), false, noCel, schemaErrs, celErrs, costs));
  s.oneOf?.forEach((x, i) => walk(x, p.child('oneOf').index(i), false, noCel, schemaErrs, celErrs, costs));
  s.anyOf?.forEach((x, i) => walk(x, p.child('anyOf').index(i), false, noCel, schemaErrs, celErrs, costs));
  const items = itemsSchema(s);
  if (items) {
    const sub: Context = {
      ...ctx,
      cardinality: childCardinality(ctx.cardinality, s.maxItems, ctx.structural?.items),
      structural: ctx.structural?.items,
    };
    if (s['x-kubernetes-list-type'] !== 'map' && sub.uncorrelatablePath === undefined) sub.uncorrelatablePath = p.toString();
    walk(items, p.child('items'), false, sub, schemaErrs, celErrs, costs);
  }
  extensionChecks(s, p, schemaErrs);
  mapListKeysMapSet(s, p, schemaErrs);
  ruleChecks(s, p, isRoot, ctx, schemaErrs.length > before, schemaErrs, celErrs, costs);
}

function standardChecks(s: JSONSchemaProps, p: FieldPath, ctx: Context, errs: FieldError[]): void {
  if (s.type && !openAPIV3Types.includes(s.type) && s.type !== 'null') errs.push(notSupported(p.child('type').toString(), s.type, openAPIV3Types));
  if (s.default !== undefined && !ctx.allowDefaults) {
    errs.push(forbidden(p.child('default').toString(), `must not be set${ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : ''}`));
  }
  if (s.id) errs.push(forbidden(p.child('id').toString(), 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(forbidden(p.child('additionalItems').toString(), 'additionalItems is not supported'));
  if (Object.keys(s.patternProperties ?? {}).length) errs.push(forbidden(p.child('patternProperties').toString(), 'patternProperties is not supported'));
  if (Object.keys(s.definitions ?? {}).length) errs.push(forbidden(p.child('definitions').toString(), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(forbidden(p.child('dependencies').toString(), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(forbidden(p.child('$ref').toString(), '$ref is not supported'));
  if (s.type === 'null') errs.push(forbidden(p.child('type').toString(), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items)) errs.push(forbidden(p.child('items').toString(), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource']) {
    errs.push(forbidden(p.child('x-kubernetes-embedded-resource').toString(), 'must not be used inside of resource meta'));
  }
}

function extensionChecks(s: JSONSchemaProps, p: FieldPath, errs: FieldError[]): void {
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve === false) errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields').toString(), false, 'must be true or undefined'));
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type) errs.push(required(p.child('type').toString(), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalid(p.child('type').toString(), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(notSupported(p.child('x-kubernetes-map-type').toString(), mapType, ['atomic', 'granular']));
  }
  const listType = s['x-kubernetes-list-type'];
  const items = itemsSchema(s);
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type) errs.push(required(p.child('type').toString(), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalid(p.child('type').toString(), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(invalid(p.child('items').child('x-kubernetes-list-type').toString(), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(invalid(p.child('items').child('x-kubernetes-map-type').toString(), items['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) {
    errs.push(notSupported(p.child('x-kubernetes-list-type').toString(), listType, ['atomic', 'set', 'map']));
  }
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(required(p.child('x-kubernetes-list-type').toString(), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalid(p.child('x-kubernetes-list-type').toString(), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(required(p.child('x-kubernetes-list-map-keys').toString(), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errs.push(required(p.child('items').toString(), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) errs.push(invalid(p.child('items').toString(), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') {
      errs.push(invalid(p.child('items').child('type').toString(), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    }
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const prop = items.properties?.[k];
        if (prop) {
          if (prop.type === 'array' || prop.type === 'object') {
            errs.push(invalid(p.child('items').child('properties').key(k).child('type').toString(), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(invalid(p.child('x-kubernetes-list-map-keys').toString(), mapKeys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errs.push(invalid(p.child('x-kubernetes-list-map-keys').toString(), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
}

function mapListKeysMapSet(s: JSONSchemaProps, p: FieldPath, errs: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  const items = itemsSchema(s);
  if (!items || (listType !== 'set' && listType !== 'map')) return;
  if (items.nullable) errs.push(forbidden(p.child('items').child('nullable').toString(), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return;
  const requiredKeys = new Set(items.required ?? []);
  for (const k of s['x-kubernetes-list-map-keys'] ?? []) {
    const prop = items.properties?.[k];
    if (!prop) continue;
    if (!requiredKeys.has(k) && prop.default === undefined) {
      errs.push(
        required(
          p.child('items').child('properties').key(k).child('default').toString(),
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    }
    if (prop.nullable) {
      errs.push(forbidden(p.child('items').child('properties').key(k).child('nullable').toString(), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
}

function ruleChecks(
  s: JSONSchemaProps,
  p: FieldPath,
  isRoot: boolean,
  ctx: Context,
  hasSchemaErrors: boolean,
  schemaErrs: FieldError[],
  celErrs: FieldError[],
  costs: CostEntry[],
): void {
  const rules = s['x-kubernetes-validations'] ?? [];
  if (rules.length === 0) return;
  const before = schemaErrs.length;
  rules.forEach((rule, i) => {
    const at = p.child('x-kubernetes-validations').index(i);
    const trimmedRule = (rule.rule ?? '').trim();
    const trimmedMsg = (rule.message ?? '').trim();
    if (trimmedRule === '') schemaErrs.push(required(at.child('rule').toString(), 'rule is not specified'));
    else if (rule.message !== undefined && rule.message.length > 0 && trimmedMsg === '') {
      schemaErrs.push(invalid(at.child('message').toString(), rule.message, 'must be non-empty if specified'));
    } else if (/[\n\r]/.test(trimmedMsg)) schemaErrs.push(invalid(at.child('message').toString(), rule.message, 'must not contain line breaks'));
    else if (/[\n\r]/.test(trimmedRule) && trimmedMsg === '') {
      schemaErrs.push(required(at.child('message').toString(), 'message must be specified if rule contains line breaks'));
    }
    if (rule.messageExpression !== undefined && rule.messageExpression.length > 0 && rule.messageExpression.trim() === '') {
      schemaErrs.push(required(at.child('messageExpression').toString(), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !supportedReasons.includes(rule.reason)) {
      schemaErrs.push(notSupported(at.child('reason').toString(), rule.reason, supportedReasons));
    }
    if (rule.fieldPath !== undefined) {
      if (rule.fieldPath.length > 0 && rule.fieldPath.trim() === '') {
        schemaErrs.push(invalid(at.child('fieldPath').toString(), rule.fieldPath, 'must be non-empty if specified'));
      }
      if (/[\n\r]/.test(rule.fieldPath)) schemaErrs.push(invalid(at.child('fieldPath').toString(), rule.fieldPath, 'must not contain line breaks'));
      if (rule.fieldPath.length > 0 && ctx.structural && parseRuleFieldPath(rule.fieldPath, ctx.structural).error !== undefined) {
        schemaErrs.push(invalid(at.child('fieldPath').toString(), rule.fieldPath, 'must be a valid path'));
      }
    }
  });
  if (hasSchemaErrors || schemaErrs.length > before || !ctx.structural) return;
  // The resource root exposes apiVersion, kind and metadata to rules like an embedded resource does.
  const compileAs = isRoot && !ctx.structural.embeddedResource ? { ...ctx.structural, embeddedResource: true } : ctx.structural;
  const compiled = compileRules(compileAs);
  compiled.forEach((cr, i) => {
    const at = p.child('x-kubernetes-validations').index(i);
    const cost = Math.min(cr.cost * ctx.cardinality, Number.MAX_SAFE_INTEGER);
    if (cost > StaticEstimatedCostLimit) celErrs.push(forbidden(at.child('rule').toString(), costErrorMessage('estimated rule cost', cost, StaticEstimatedCostLimit)));
    costs.push({ path: at.child('rule').toString(), cost });
    if (cr.error) {
      if (cr.error.type === 'Required') celErrs.push(required(at.child('rule').toString(), cr.error.detail));
      else celErrs.push(invalid(at.child('rule').toString(), rules[i], cr.error.detail));
    }
    if (cr.messageError) celErrs.push(invalid(at.child('messageExpression').toString(), rules[i], cr.messageError.detail));
    else if (cr.messageProgram) {
      const msgCost = Math.min(cr.messageCost * ctx.cardinality, Number.MAX_SAFE_INTEGER);
      if (msgCost > StaticEstimatedCostLimit) {
        celErrs.push(forbidden(at.child('messageExpression').toString(), costErrorMessage('estimated messageExpression cost', msgCost, StaticEstimatedCostLimit)));
      }
      costs.push({ path: at.child('messageExpression').toString(), cost: msgCost });
    }
    if (cr.usesOldSelf) {
      if (ctx.uncorrelatablePath !== undefined) {
        celErrs.push(invalid(at.child('rule').toString(), rules[i]!.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${ctx.uncorrelatablePath}`));
      }
    } else if (rules[i]!.optionalOldSelf !== undefined) {
      celErrs.push(invalid(at.child('optionalOldSelf').toString(), rules[i]!.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
}

/**
 * Every `default` must survive pruning unchanged, describe valid embedded resources and pass the value validation and
 * CEL rules of its own node (structural defaulting/validation.go). Defaults under root metadata are rejected earlier.
 */
function validateDefaults(root: Structural, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const visit = (s: Structural, at: FieldPath, insideMeta: boolean): void => {
    if (s.default !== undefined && !insideMeta) {
      const defaultPath = at.child('default');
      const pruned = structuredClone(s.default);
      prune(pruned, s, { isResourceRoot: s.embeddedResource });
      if (!jsonEqual(pruned, s.default)) errs.push(invalid(defaultPath.toString(), s.default, 'must not have unknown fields'));
      const metaErrs = validateEmbeddedResources(s.default, s, defaultPath);
      const valueErrs = metaErrs.length ? [] : validateValue(s.default, s.raw, defaultPath);
      errs.push(...metaErrs, ...valueErrs);
      if (metaErrs.length === 0 && valueErrs.length === 0 && s.validations.length > 0) {
        const withDefaults = structuredClone(s.default);
        applyDefaults(withDefaults, s);
        errs.push(...new CelValidator(s, false).validate(withDefaults, withDefaults, defaultPath).errors);
      }
    }
    if (s.items) visit(s.items, at.child('items'), insideMeta);
    for (const [k, sub] of s.properties ?? []) {
      visit(sub, at.child('properties').key(k), insideMeta || ((s === root || s.embeddedResource) && metaFields.has(k)));
    }
  };
  visit(root, p, false);
  return errs;
}
