import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath, errorString } from '../../../src/apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../../src/apiextensions/schema/json-schema-props.js';
import { validateValue } from '../../../src/apiextensions/schema/validate.js';

/** A CR schema with one field `spec.x` described by `field`. */
function specField(field: JSONSchemaProps, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties: { x: field }, ...extra } } };
}

function messages(schema: JSONSchemaProps, obj: unknown): string[] {
  return validateValue(obj, schema, FieldPath.root()).map(errorString);
}

interface Case {
  name: string;
  field: JSONSchemaProps;
  value: unknown;
  want: string[];
}

const cases: Case[] = [
  { name: 'integer ok', field: { type: 'integer' }, value: 3, want: [] },
  { name: 'integer given string', field: { type: 'integer' }, value: 'a', want: ['spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"'] },
  { name: 'integer given float', field: { type: 'integer' }, value: 1.5, want: ['spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"'] },
  { name: 'number accepts integer', field: { type: 'number' }, value: 2, want: [] },
  { name: 'string given bool', field: { type: 'string' }, value: true, want: ['spec.x: Invalid value: "boolean": spec.x in body must be of type string: "boolean"'] },
  { name: 'object given array', field: { type: 'object' }, value: [], want: ['spec.x: Invalid value: "array": spec.x in body must be of type object: "array"'] },
  { name: 'null not nullable', field: { type: 'string' }, value: null, want: ['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"'] },
  { name: 'null nullable', field: { type: 'string', nullable: true }, value: null, want: [] },
  { name: 'int-or-string int', field: { 'x-kubernetes-int-or-string': true }, value: 80, want: [] },
  { name: 'int-or-string string', field: { 'x-kubernetes-int-or-string': true }, value: '80%', want: [] },
  {
    name: 'int-or-string bool',
    field: { 'x-kubernetes-int-or-string': true },
    value: false,
    want: ['spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean"'],
  },
  { name: 'enum ok', field: { type: 'string', enum: ['a', 'b'] }, value: 'a', want: [] },
  { name: 'enum bad', field: { type: 'string', enum: ['a', 'b'] }, value: 'c', want: ['spec.x: Unsupported value: "c": supported values: "a", "b"'] },
  { name: 'enum numbers', field: { type: 'integer', enum: [1, 2] }, value: 3, want: ['spec.x: Unsupported value: 3: supported values: "1", "2"'] },
  { name: 'pattern ok', field: { type: 'string', pattern: '^[a-z]+$' }, value: 'abc', want: [] },
  { name: 'pattern bad', field: { type: 'string', pattern: '^[a-z]+$' }, value: 'AB', want: ["spec.x: Invalid value: \"AB\": spec.x in body should match '^[a-z]+$'"] },
  { name: 'pattern with Go inline flag', field: { type: 'string', pattern: '(?i)^ab$' }, value: 'AB', want: [] },
  { name: 'maxLength', field: { type: 'string', maxLength: 3 }, value: 'abcd', want: ['spec.x: Too long: may not be more than 3 bytes'] },
  { name: 'maxLength counts code points', field: { type: 'string', maxLength: 2 }, value: 'é😀', want: [] },
  { name: 'minLength', field: { type: 'string', minLength: 2 }, value: 'a', want: ['spec.x: Invalid value: "a": spec.x in body should be at least 2 chars long'] },
  { name: 'maximum', field: { type: 'integer', maximum: 10 }, value: 11, want: ['spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10'] },
  { name: 'exclusiveMaximum', field: { type: 'integer', maximum: 10, exclusiveMaximum: true }, value: 10, want: ['spec.x: Invalid value: 10: spec.x in body should be less than 10'] },
  { name: 'minimum', field: { type: 'integer', minimum: 1 }, value: 0, want: ['spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1'] },
  { name: 'exclusiveMinimum', field: { type: 'number', minimum: 0.5, exclusiveMinimum: true }, value: 0.5, want: ['spec.x: Invalid value: 0.5: spec.x in body should be greater than 0.5'] },
  { name: 'float bound printed like Go', field: { type: 'number', maximum: 1000000 }, value: 1000000.5, want: ['spec.x: Invalid value: 1.0000005e+06: spec.x in body should be less than or equal to 1e+06'] },
  { name: 'multipleOf', field: { type: 'integer', multipleOf: 5 }, value: 7, want: ['spec.x: Invalid value: 7: spec.x in body should be a multiple of 5'] },
  { name: 'multipleOf float ok', field: { type: 'number', multipleOf: 0.1 }, value: 0.3, want: [] },
  { name: 'minItems', field: { type: 'array', items: { type: 'string' }, minItems: 2 }, value: ['a'], want: ['spec.x: Invalid value: 1: spec.x in body should have at least 2 items'] },
  { name: 'uniqueItems', field: { type: 'array', items: { type: 'integer' }, uniqueItems: true }, value: [1, 1], want: ['spec.x: Invalid value: "": spec.x in body shouldn\'t contain duplicates'] },
  { name: 'item type', field: { type: 'array', items: { type: 'integer' } }, value: [1, 'a'], want: ['spec.x[1]: Invalid value: "string": spec.x[1] in body must be of type integer: "string"'] },
  { name: 'minProperties', field: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 }, value: {}, want: ['spec.x: Invalid value: 0: spec.x in body should have at least 1 properties'] },
  { name: 'additionalProperties values', field: { type: 'object', additionalProperties: { type: 'string' } }, value: { k: 1 }, want: ['spec.x.k: Invalid value: "integer": spec.x.k in body must be of type string: "integer"'] },
  { name: 'required', field: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, value: {}, want: ['spec.x.a: Required value'] },
  { name: 'format date-time ok', field: { type: 'string', format: 'date-time' }, value: '2024-01-02T03:04:05Z', want: [] },
  { name: 'format date-time bad', field: { type: 'string', format: 'date-time' }, value: 'yesterday', want: ['spec.x: Invalid value: "yesterday": spec.x in body must be of type date-time: "yesterday"'] },
  { name: 'format date bad', field: { type: 'string', format: 'date' }, value: '2024-02-30', want: ['spec.x: Invalid value: "2024-02-30": spec.x in body must be of type date: "2024-02-30"'] },
  { name: 'format uuid', field: { type: 'string', format: 'uuid' }, value: 'nope', want: ['spec.x: Invalid value: "nope": spec.x in body must be of type uuid: "nope"'] },
  { name: 'format ipv4', field: { type: 'string', format: 'ipv4' }, value: '10.0.0.256', want: ['spec.x: Invalid value: "10.0.0.256": spec.x in body must be of type ipv4: "10.0.0.256"'] },
  { name: 'format cidr ok', field: { type: 'string', format: 'cidr' }, value: 'fd00::/8', want: [] },
  { name: 'format byte bad', field: { type: 'string', format: 'byte' }, value: '!!', want: ['spec.x: Invalid value: "!!": spec.x in body must be of type byte: "!!"'] },
  { name: 'format int32 is not checked', field: { type: 'integer', format: 'int32' }, value: 2 ** 40, want: [] },
  { name: 'format unknown is ignored', field: { type: 'string', format: 'no-such-format' }, value: 'x', want: [] },
  {
    name: 'anyOf none',
    field: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 1 }] },
    value: 5,
    want: ['Invalid value: "": "spec.x" must validate at least one schema (anyOf)', 'spec.x: Invalid value: 5: spec.x in body should be greater than or equal to 10'],
  },
  { name: 'anyOf one', field: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 1 }] }, value: 0, want: [] },
  {
    name: 'oneOf two',
    field: { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] },
    value: 5,
    want: ['Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
  },
  {
    name: 'allOf',
    field: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^a' }] },
    value: 'b',
    want: [
      'spec.x: Invalid value: "b": spec.x in body should be at least 2 chars long',
      "spec.x: Invalid value: \"b\": spec.x in body should match '^a'",
      'Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated',
    ],
  },
  { name: 'not', field: { type: 'string', not: { enum: ['x'] } }, value: 'x', want: ['Invalid value: "": "spec.x" must not validate the schema (not)'] },
  { name: 'additionalProperties false', field: { type: 'object', additionalProperties: false }, value: { k: 1 }, want: ['spec.x: Invalid value: "k": spec.x.k in body is a forbidden property'] },
];

for (const c of cases) {
  test(`validateValue: ${c.name}`, () => {
    assert.deepEqual(messages(specField(c.field), { spec: { x: c.value } }), c.want);
  });
}

// Upstream renders these with the actual count: `spec.x: Too many: 2: must have at most 1 items`.
const tooMany: Case[] = [
  { name: 'maxItems', field: { type: 'array', items: { type: 'string' }, maxItems: 1 }, value: ['a', 'b'], want: ['spec.x: Too many: 2: must have at most 1 items'] },
  { name: 'maxProperties', field: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 }, value: { a: 'x', b: 'y' }, want: ['spec.x: Too many: 2: must have at most 1 items'] },
];
for (const c of tooMany) {
  test(`validateValue: ${c.name} is Too many with the actual count`, () => {
    assert.deepEqual(messages(specField(c.field), { spec: { x: c.value } }), c.want);
  });
}

test('validateValue: root required and nested paths collect every error', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    required: ['spec'],
    properties: { spec: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'string' } } } },
  };
  assert.deepEqual(messages(schema, {}), ['spec: Required value']);
  assert.deepEqual(messages(schema, { spec: {} }), ['spec.a: Required value', 'spec.b: Required value']);
});

test('validateValue: a base path prefixes field paths but not messages', () => {
  const errs = validateValue('x', { type: 'integer' }, FieldPath.root('spec').child('default'));
  assert.deepEqual(errs.map(errorString), ['spec.default: Invalid value: "string":  in body must be of type integer: "string"']);
});
