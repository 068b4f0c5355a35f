import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, errorString } from '../../../src/apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../../src/apiextensions/schema/json-schema-props.js';
import { validateStructural } from '../../../src/apiextensions/schema/structural.js';
import { validateCRDSchema } from '../../../src/apiextensions/schema/validate-crd-schema.js';

const at = FieldPath.root('spec').child('validation').child('openAPIV3Schema');
const P = 'spec.validation.openAPIV3Schema';

function structural(schema: JSONSchemaProps): string[] {
  return validateStructural(schema, at).map(errorString);
}
function crd(schema: JSONSchemaProps): string[] {
  return validateCRDSchema(schema, at).map(errorString);
}

interface Case {
  name: string;
  schema: JSONSchemaProps;
  want: string[];
}

const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });

const structuralCases: Case[] = [
  { name: 'minimal valid', schema: obj({ spec: obj({ replicas: { type: 'integer' } }) }), want: [] },
  { name: 'root type missing', schema: { properties: { spec: { type: 'object' } } }, want: [`${P}.type: Required value: must not be empty at the root`] },
  { name: 'root not object', schema: { type: 'string' }, want: [`${P}.type: Invalid value: "string": must be object at the root`] },
  { name: 'field type missing', schema: obj({ spec: {} }), want: [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`] },
  {
    name: 'items type missing',
    schema: obj({ list: { type: 'array', items: {} } }),
    want: [`${P}.properties[list].items.type: Required value: must not be empty for specified array items`],
  },
  { name: 'array without items', schema: obj({ list: { type: 'array' } }), want: [`${P}.properties[list].items: Required value: must be specified`] },
  { name: 'type may be empty under int-or-string', schema: obj({ port: { 'x-kubernetes-int-or-string': true } }), want: [] },
  { name: 'type may be empty under preserve-unknown-fields', schema: obj({ any: { 'x-kubernetes-preserve-unknown-fields': true } }), want: [] },
  { name: 'additionalProperties at the root', schema: { type: 'object', additionalProperties: { type: 'string' } }, want: [`${P}.additionalProperties: Forbidden: must not be used at the root`] },
  {
    name: 'metadata with more than name',
    schema: obj({ metadata: obj({ labels: { type: 'object' } }) }),
    want: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  { name: 'metadata restricting name is fine', schema: obj({ metadata: obj({ name: { type: 'string', maxLength: 10 } }) }), want: [] },
  {
    name: 'type inside anyOf',
    schema: obj({ a: { type: 'string', anyOf: [{ type: 'string' }] } }),
    want: [`${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`],
  },
  { name: 'int-or-string anyOf pattern allowed', schema: obj({ a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }), want: [] },
  {
    name: 'embedded resource needs object',
    schema: obj({ tpl: { type: 'string', 'x-kubernetes-embedded-resource': true } }),
    want: [
      `${P}.properties[tpl].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[tpl].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
    ],
  },
  {
    name: 'embedded resource needs properties',
    schema: obj({ tpl: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
    want: [`${P}.properties[tpl].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`],
  },
  {
    name: 'int-or-string with preserve',
    schema: obj({ a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    want: [`${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
  },
  {
    name: 'value validation property not in structure',
    schema: { type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ properties: { b: { minLength: 1 } } }] },
    want: [`${P}.properties[b]: Required value: because it is defined in ${P}.anyOf[0].properties[b]`],
  },
  {
    name: 'bad pattern (lookahead is not RE2)',
    schema: obj({ a: { type: 'string', pattern: '^(?=a)' } }),
    want: [`${P}.properties[a].pattern: Invalid value: "^(?=a)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``],
  },
];

for (const c of structuralCases) {
  test(`validateStructural: ${c.name}`, () => assert.deepEqual(structural(c.schema), c.want));
}

const crdCases: Case[] = [
  { name: 'nullable root', schema: { type: 'object', nullable: true }, want: [`${P}.nullable: Forbidden: nullable cannot be true at the root`] },
  { name: '$ref', schema: obj({ a: { type: 'string', $ref: '#/x' } }), want: [`${P}.properties[a].$ref: Forbidden: $ref is not supported`] },
  { name: 'uniqueItems', schema: obj({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }), want: [`${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`] },
  {
    name: 'properties with additionalProperties',
    schema: obj({ a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: { type: 'string' } } }),
    want: [`${P}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  },
  { name: 'unknown type', schema: obj({ a: { type: 'float' } }), want: [`${P}.properties[a].type: Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"`] },
  { name: 'default in top-level metadata', schema: obj({ metadata: { type: 'object', default: {} } }), want: [`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`] },
  {
    name: 'list-type map without keys',
    schema: obj({ a: { type: 'array', 'x-kubernetes-list-type': 'map', items: obj({ name: { type: 'string' } }) } }),
    want: [`${P}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`],
  },
  {
    name: 'list-map-keys must be required or defaulted',
    schema: obj({ a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: obj({ name: { type: 'string' } }) } }),
    want: [`${P}.properties[a].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`],
  },
  {
    name: 'list-map-keys must be scalars',
    schema: obj({ a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: obj({ k: obj({}) }, { required: ['k'] }) } }),
    want: [`${P}.properties[a].items.properties[k].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`],
  },
  {
    name: 'list-map-keys must name properties',
    schema: obj({ a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['nope'], items: obj({ k: { type: 'string' } }) } }),
    want: [`${P}.properties[a].x-kubernetes-list-map-keys: Invalid value: "array": entries must all be names of item properties`],
  },
  { name: 'bad list type', schema: obj({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } }), want: [`${P}.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`] },
  { name: 'list type on non-array', schema: obj({ a: { type: 'string', 'x-kubernetes-list-type': 'set' } }), want: [`${P}.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`] },
  { name: 'preserve false', schema: obj({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }), want: [`${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`] },
  { name: 'default of wrong type', schema: obj({ n: { type: 'integer', default: 'x' } }), want: [`${P}.properties[n].default: Invalid value: "string":  in body must be of type integer: "string"`] },
  {
    name: 'default with unknown fields',
    schema: obj({ o: obj({ a: { type: 'string' } }, { default: { a: 'x', b: 'y' } }) }),
    want: [`${P}.properties[o].default: Invalid value: "object": must not have unknown fields`],
  },
  { name: 'valid default', schema: obj({ n: { type: 'integer', default: 3, minimum: 1 } }), want: [] },
  { name: 'rule not specified', schema: obj({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: ' ' }] } }), want: [`${P}.properties[a].x-kubernetes-validations[0].rule: Required value: rule is not specified`] },
  {
    name: 'unsupported reason',
    schema: obj({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'true', reason: 'Nope' }] } }),
    want: [`${P}.properties[a].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`],
  },
];

for (const c of crdCases) {
  test(`validateCRDSchema: ${c.name}`, () => assert.deepEqual(crd(c.schema), c.want));
}
