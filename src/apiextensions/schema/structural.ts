/**
 * The structural form of a CRD schema (apiextensions-apiserver pkg/apiserver/schema/structural.go): the part of an
 * OpenAPI v3 schema that describes the shape of the data (types, properties, items, additionalProperties and the
 * x-kubernetes extensions). Pruning, defaulting and CEL work on this form; value validation (kube-openapi) works on
 * the raw schema, which each node keeps in `raw`.
 */
import { type FieldError, type FieldPath, errorString, forbidden, invalid, required } from '../../apimachinery/field-errors.js';
import { type JSONSchemaProps, type ValidationRule, additionalPropertiesSchema, itemsSchema } from './json-schema-props.js';
import { compilePattern } from './pattern.js';

export interface Structural {
  /** '' when unset (allowed only under int-or-string or preserve-unknown-fields). */
  type: string;
  format: string;
  nullable: boolean;
  /** The `default` value, or undefined when none is declared. */
  default?: unknown;
  properties?: Map<string, Structural>;
  items?: Structural;
  /** Present when `additionalProperties` is set: `allows` is false for `additionalProperties: false`. */
  additionalProperties?: { allows: boolean; schema?: Structural };
  preserveUnknownFields: boolean;
  embeddedResource: boolean;
  intOrString: boolean;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
  validations: ValidationRule[];
  maxItems?: number;
  maxLength?: number;
  maxProperties?: number;
  required: string[];
  enum?: unknown[];
  /** The schema this node came from, for value validation. */
  raw: JSONSchemaProps;
}

/**
 * Converts an openAPIV3Schema into its structural form. Value-validation keywords stay reachable through `raw`;
 * allOf/anyOf/oneOf/not contribute nothing to the structure (a structural schema may not declare types there).
 * A missing schema yields an empty structural node that prunes everything.
 */
export function toStructural(s: JSONSchemaProps): Structural {
  const out: Structural = {
    type: s.type ?? '',
    format: s.format ?? '',
    nullable: s.nullable === true,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    intOrString: s['x-kubernetes-int-or-string'] === true,
    validations: s['x-kubernetes-validations'] ?? [],
    required: s.required ?? [],
    raw: s,
  };
  if (s.default !== undefined) out.default = s.default;
  if (s.properties) {
    out.properties = new Map();
    for (const [k, v] of Object.entries(s.properties)) out.properties.set(k, toStructural(v));
  }
  const items = itemsSchema(s);
  if (items) out.items = toStructural(items);
  if (s.additionalProperties !== undefined) {
    const ap = additionalPropertiesSchema(s);
    out.additionalProperties = ap ? { allows: true, schema: toStructural(ap) } : { allows: s.additionalProperties === true };
  }
  if (s['x-kubernetes-list-type'] !== undefined) out.listType = s['x-kubernetes-list-type'];
  if (s['x-kubernetes-list-map-keys'] !== undefined) out.listMapKeys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-map-type'] !== undefined) out.mapType = s['x-kubernetes-map-type'];
  if (s.maxItems !== undefined) out.maxItems = s.maxItems;
  if (s.maxLength !== undefined) out.maxLength = s.maxLength;
  if (s.maxProperties !== undefined) out.maxProperties = s.maxProperties;
  if (s.enum !== undefined) out.enum = s.enum;
  return out;
}

type Level = 'root' | 'item' | 'field';

/**
 * The structural-schema rules (apiextensions-apiserver schema/validation.go ValidateStructural): `type` set
 * everywhere except under int-or-string / preserve-unknown-fields, `object` at the root, no additionalProperties at
 * the root or on embedded resources, root `metadata` restricted to name/generateName, no shape keywords inside
 * allOf/anyOf/oneOf/not, properties named in value validations also specified structurally, valid patterns.
 * Errors are sorted by their text, as upstream does.
 */
export function validateStructural(schema: JSONSchemaProps, fldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  invariants(schema, 'root', fldPath, errs);
  completeness(schema, schema, fldPath, fldPath, errs);
  return errs.sort((a, b) => (errorString(a) < errorString(b) ? -1 : errorString(a) > errorString(b) ? 1 : 0));
}

const isIntOrStringAnyOf = (v: JSONSchemaProps[] | undefined): boolean =>
  v !== undefined &&
  v.length === 2 &&
  v.every((x) => Object.keys(x).length === 1) &&
  v[0]!.type === 'integer' &&
  v[1]!.type === 'string';

function invariants(s: JSONSchemaProps | undefined, lvl: Level, p: FieldPath, errs: FieldError[]): void {
  if (!s) return;
  const items = itemsSchema(s);
  if (s.type === 'array' && s.items === undefined) errs.push(required(p.child('items').toString(), 'must be specified'));
  invariants(items, 'item', p.child('items'), errs);
  for (const [k, v] of Object.entries(s.properties ?? {})) invariants(v, 'field', p.child('properties').key(k), errs);
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(forbidden(p.child('additionalProperties').toString(), 'must not be used at the root'));
    invariants(additionalPropertiesSchema(s), 'field', p.child('additionalProperties'), errs);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) {
    errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields').toString(), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    errs.push(invalid(p.child('x-kubernetes-embedded-resource').toString(), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAnyOf(s.allOf?.[0]?.anyOf), p, errs);

  const type = s.type ?? '';
  if (embedded && type !== 'object') {
    if (type === '') errs.push(required(p.child('type').toString(), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(p.child('type').toString(), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail =
      lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(required(p.child('type').toString(), detail));
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push(forbidden(p.child('additionalProperties').toString(), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(invalid(p.child('type').toString(), type, 'must be object at the root'));

  const checkMetadata = lvl === 'root' || embedded;
  for (const name of ['kind', 'apiVersion']) {
    const sub = s.properties?.[name];
    if (sub && checkMetadata && sub.type !== 'string') {
      errs.push(invalid(p.child('properties').key(name).child('type').toString(), sub.type ?? '', 'must be string'));
    }
  }
  const metadata = s.properties?.['metadata'];
  if (metadata) metadataInvariants(metadata, checkMetadata, lvl, p.child('properties').key('metadata'), errs);
  if (embedded && !preserve && Object.keys(s.properties ?? {}).length === 0) {
    errs.push(
      required(p.child('properties').toString(), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    );
  }
}

/** Keys of the root metadata schema that upstream's structural comparison ignores (checked elsewhere or harmless). */
const rootMetadataIgnoredKeys = new Set(['type', 'default', 'properties']);

function metadataInvariants(s: JSONSchemaProps, checkMetadata: boolean, lvl: Level, p: FieldPath, errs: FieldError[]): void {
  if (checkMetadata && s.type !== 'object') errs.push(invalid(p.child('type').toString(), s.type ?? '', 'must be object'));
  if (lvl !== 'root') return;
  const props = Object.keys(s.properties ?? {});
  const onlyNameKeys = props.every((k) => k === 'name' || k === 'generateName');
  const otherKeys = Object.keys(s).filter((k) => !rootMetadataIgnoredKeys.has(k) && (s as Record<string, unknown>)[k] !== undefined);
  // `nullable: false` and empty lists are the zero values of the Go struct, so they do not count as "specified".
  const specified = otherKeys.filter((k) => {
    const v = (s as Record<string, unknown>)[k];
    return !(v === false || (Array.isArray(v) && v.length === 0) || v === '');
  });
  if (!onlyNameKeys || specified.length > 0) {
    errs.push(forbidden(p.toString(), 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

function valueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, p: FieldPath, errs: FieldError[]): void {
  if (!skipAnyOf) s.anyOf?.forEach((v, i) => nestedValueValidation(v, false, p.child('anyOf').index(i), errs));
  s.allOf?.forEach((v, i) => nestedValueValidation(v, skipFirstAllOfAnyOf && i === 0, p.child('allOf').index(i), errs));
  s.oneOf?.forEach((v, i) => nestedValueValidation(v, false, p.child('oneOf').index(i), errs));
  if (s.not) nestedValueValidation(s.not, false, p.child('not'), errs);
  if (s.pattern !== undefined && s.pattern !== '') {
    const compiled = compilePattern(s.pattern);
    if (compiled.error !== undefined) {
      errs.push(invalid(p.child('pattern').toString(), s.pattern, `must be a valid regular expression, but isn't: ${compiled.error}`));
    }
  }
}

function nestedValueValidation(v: JSONSchemaProps | undefined, skipAnyOf: boolean, p: FieldPath, errs: FieldError[]): void {
  if (!v) return;
  valueValidation(v, skipAnyOf, false, p, errs);
  nestedValueValidation(itemsSchema(v), false, p.child('items'), errs);
  for (const [k, f] of Object.entries(v.properties ?? {})) nestedValueValidation(f, false, p.child('properties').key(k), errs);
  if (v.type) errs.push(forbidden(p.child('type').toString(), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined) errs.push(forbidden(p.child('additionalProperties').toString(), 'must be undefined to be structural'));
  if (v.default !== undefined) errs.push(forbidden(p.child('default').toString(), 'must be undefined to be structural'));
  if (v.title) errs.push(forbidden(p.child('title').toString(), 'must be empty to be structural'));
  if (v.description) errs.push(forbidden(p.child('description').toString(), 'must be empty to be structural'));
  if (v.nullable) errs.push(forbidden(p.child('nullable').toString(), 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields']) {
    errs.push(forbidden(p.child('x-kubernetes-preserve-unknown-fields').toString(), 'must be false to be structural'));
  }
  if (v['x-kubernetes-embedded-resource']) errs.push(forbidden(p.child('x-kubernetes-embedded-resource').toString(), 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string']) errs.push(forbidden(p.child('x-kubernetes-int-or-string').toString(), 'must be false to be structural'));
  if (v['x-kubernetes-list-map-keys']?.length) errs.push(forbidden(p.child('x-kubernetes-list-map-keys').toString(), 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined) errs.push(forbidden(p.child('x-kubernetes-list-type').toString(), 'must be undefined to be structural'));
  if (v['x-kubernetes-map-type'] !== undefined) errs.push(forbidden(p.child('x-kubernetes-map-type').toString(), 'must be undefined to be structural'));
  if (v['x-kubernetes-validations']?.length) errs.push(forbidden(p.child('x-kubernetes-validations').toString(), 'must be empty to be structural'));
  if (v.properties?.['metadata']) errs.push(forbidden(p.child('properties').key('metadata').toString(), 'must not be specified in a nested context'));
}

/** Properties and items named inside allOf/anyOf/oneOf/not of the root must also exist in the structural part. */
function completeness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: FieldPath, vPath: FieldPath, errs: FieldError[]): void {
  const nested = (n: JSONSchemaProps | undefined, at: FieldPath) => nestedCompleteness(n, s, sPath, at, errs);
  nested(v.not, vPath.child('not'));
  v.allOf?.forEach((n, i) => nested(n, vPath.child('allOf').index(i)));
  v.anyOf?.forEach((n, i) => nested(n, vPath.child('anyOf').index(i)));
  v.oneOf?.forEach((n, i) => nested(n, vPath.child('oneOf').index(i)));
}

function nestedCompleteness(v: JSONSchemaProps | undefined, s: JSONSchemaProps | undefined, sPath: FieldPath, vPath: FieldPath, errs: FieldError[]): void {
  if (!v) return;
  if (!s) {
    errs.push(required(sPath.toString(), `because it is defined in ${vPath.toString()}`));
    return;
  }
  completeness(v, s, sPath, vPath, errs);
  nestedCompleteness(itemsSchema(v), s.items === undefined ? undefined : itemsSchema(s), sPath.child('items'), vPath.child('items'), errs);
  for (const [k, f] of Object.entries(v.properties ?? {})) {
    const sf = s.properties?.[k];
    if (!sf) {
      errs.push(required(sPath.child('properties').key(k).toString(), `because it is defined in ${vPath.child('properties').key(k).toString()}`));
    } else {
      nestedCompleteness(f, sf, sPath.child('properties').key(k), vPath.child('properties').key(k), errs);
    }
  }
}
