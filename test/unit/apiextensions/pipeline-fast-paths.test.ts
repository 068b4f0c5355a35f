/**
 * The shortcuts that keep the CR schema pipeline cheap must give exactly the answers of the long way round:
 * rule costs computed once at compile time equal the per-call estimate for every value, CEL values converted only
 * for the fields a rule reads equal the same fields of the full conversion, pruning with the null rule folded in
 * equals pruning followed by pruneNonNullableNullsWithoutDefaults, and error paths rendered lazily read as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Environment } from '@marcbachmann/cel-js';
import { FieldPath, errorString } from '../../../src/apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../../src/apiextensions/schema/json-schema-props.js';
import { toStructural } from '../../../src/apiextensions/schema/structural.js';
import { estimateCost, valueIndependentCost } from '../../../src/apiextensions/schema/cel/cost.js';
import { compileRules } from '../../../src/apiextensions/schema/cel/compile.js';
import { toCelValue, toCelValueFields } from '../../../src/apiextensions/schema/cel/values.js';
import { prune } from '../../../src/apiextensions/schema/prune.js';
import { pruneNonNullableNullsWithoutDefaults } from '../../../src/apiextensions/schema/default.js';
import { validateValue } from '../../../src/apiextensions/schema/validate.js';
import { compileSchema } from '../../../src/apiextensions/schema/compile.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    min: { type: 'integer' },
    max: { type: 'integer' },
    ratio: { type: 'number' },
    on: { type: 'boolean' },
    name: { type: 'string', maxLength: 64 },
    port: { 'x-kubernetes-int-or-string': true },
    items: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 16 } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    when: { type: 'string', format: 'date-time' },
    nested: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } } },
  },
};
const s = toStructural(schema);
const env = new Environment({ enableOptionalTypes: true }).registerVariable('self', 'dyn').registerVariable('oldSelf', 'dyn');

const values: Record<string, unknown>[] = [
  {},
  { min: 1, max: 2, ratio: 0.5, on: true, name: 'x', port: 80, items: [], labels: {}, nested: { a: 1 } },
  { min: 5, max: 1, name: 'a-much-longer-name-than-before', port: 'http', items: ['a', 'bb', 'ccc'], labels: { a: 'b', c: 'd' }, nested: { a: 2, b: 'zz' } },
];

test('valueIndependentCost: defined exactly when the per-call cost never varies, and equal to it', () => {
  const cases: [string, boolean][] = [
    ['self.min <= self.max', true],
    ['self.ratio > 0.5 && self.on', true],
    ['has(self.nested) && self.nested.a == 1', true],
    ['size(self.items) < 3', true],
    ["self.name == 'x'", false],
    ["self.name != ''", true],
    ["self.name.startsWith('a')", false],
    ['self.items.all(i, i != "")', false],
    ['self.port == 80', false],
    ['self == oldSelf', false],
    ["'a' in self.labels", false],
  ];
  for (const [expr, constant] of cases) {
    const ast = env.parse(expr).ast;
    const cost = valueIndependentCost(ast, s);
    assert.equal(cost !== undefined, constant, expr);
    if (cost === undefined) continue;
    for (const raw of values) {
      const v = toCelValue(raw, s);
      assert.equal(estimateCost(ast, { schema: s, known: true, value: v }, { schema: s, known: true, value: v }), cost, `${expr} on ${JSON.stringify(raw)}`);
    }
  }
});

test('compileRules: selfFields lists the fields selected on self/oldSelf, or nothing when the whole value is used', () => {
  const cases: [string, string | undefined, string[] | undefined][] = [
    ['self.min <= self.max', undefined, ['max', 'min']],
    ['!has(self.nested) || self.nested.a > 0', undefined, ['nested']],
    ['self.min == oldSelf.min', undefined, ['min']],
    ['self.min > 0', "'min is ' + string(self.max)", ['max', 'min']],
    ['self == oldSelf', undefined, undefined],
    ['self.min > 0', 'string(self)', undefined],
    ["self.exists(k, k == 'min')", undefined, undefined],
  ];
  for (const [rule, messageExpression, fields] of cases) {
    const st = toStructural({ ...schema, 'x-kubernetes-validations': [{ rule, ...(messageExpression ? { messageExpression } : {}) }] });
    const [compiled] = compileRules(st);
    assert.equal(compiled!.error, undefined, rule);
    assert.deepEqual(compiled!.selfFields ? [...compiled!.selfFields].sort() : undefined, fields, rule);
  }
});

test('toCelValueFields: the chosen fields of the full conversion, nothing more', () => {
  const embedded = toStructural({ ...schema, 'x-kubernetes-embedded-resource': true });
  const map = toStructural({ type: 'object', additionalProperties: { type: 'integer' } });
  const preserve = toStructural({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const cases: [string, typeof s, Record<string, unknown>, string[]][] = [
    ['declared properties', s, { min: 1, when: '2025-01-01T00:00:00Z', name: 'n', undeclared: 1 }, ['min', 'when', 'undeclared', 'absent']],
    ['embedded meta fields', embedded, { apiVersion: 'v1', kind: 'K', metadata: { name: 'a', generation: 2 }, min: 3 }, ['metadata', 'kind', 'min']],
    ['a map', map, { a: 1, b: 2, c: 3 }, ['a', 'c', 'z']],
    ['preserve-unknown-fields', preserve, { a: 1.5, b: { c: 2 } }, ['b']],
  ];
  for (const [name, st, raw, fields] of cases) {
    const full = toCelValue(raw, st) as Record<string, unknown>;
    const expected = Object.fromEntries(fields.filter((f) => f in full).map((f) => [f, full[f]]));
    assert.deepEqual(toCelValueFields(raw, st, fields), expected, name);
  }
});

test('prune with dropNonNullableNulls equals prune then pruneNonNullableNullsWithoutDefaults', () => {
  const st = toStructural({
    type: 'object',
    properties: {
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: 'string', nullable: true },
          c: { type: 'string', default: 'x' },
          list: { type: 'array', items: { type: 'object', properties: { d: { type: 'integer' } } } },
          open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { e: { type: 'integer' } } },
          map: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  });
  const objects: unknown[] = [
    { metadata: null, spec: { a: null, b: null, c: null, unknown: null } },
    { metadata: { name: 'x' }, spec: { list: [{ d: null, x: 1 }, null], open: { e: null, free: null }, map: { k: null, j: 'v' } } },
    { spec: null, other: null },
  ];
  for (const obj of objects) {
    const twoWalks = structuredClone(obj);
    const unknownTwo = prune(twoWalks, st, { isResourceRoot: true });
    pruneNonNullableNullsWithoutDefaults(twoWalks, st);
    const oneWalk = structuredClone(obj);
    const unknownOne = prune(oneWalk, st, { isResourceRoot: true, dropNonNullableNulls: true });
    assert.deepEqual(oneWalk, twoWalks, JSON.stringify(obj));
    assert.deepEqual(unknownOne, unknownTwo, JSON.stringify(obj));
  }
});

test('value validation names nested, indexed and root-map paths as kube-openapi does', () => {
  const cases: [string, JSONSchemaProps, unknown, string[]][] = [
    [
      'nested list of objects',
      { type: 'object', properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } } } } },
      { spec: { list: [{ n: 1 }, { n: 'x' }, {}] } },
      ['spec.list[1].n: Invalid value: "string": spec.list[1].n in body must be of type integer: "string"', 'spec.list[2].n: Required value'],
    ],
    [
      'a map at the root',
      { type: 'object', additionalProperties: { type: 'integer', minimum: 3 } },
      { a: 1, b: 5 },
      ['a: Invalid value: 1: .a in body should be greater than or equal to 3'],
    ],
    ['a top-level array', { type: 'array', items: { type: 'string', maxLength: 1 } }, ['a', 'bb'], ['[1]: Too long: may not be more than 1 bytes']],
  ];
  for (const [name, sch, data, expected] of cases) {
    assert.deepEqual(validateValue(data, sch, FieldPath.root()).map(errorString), expected, name);
  }
});

test('the compiled pipeline reports CEL errors on list-map items by index after the fast paths', () => {
  const compiled = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min above max' }],
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], 'x-kubernetes-validations': [{ rule: 'self.port > 0 || self.name == "none"' }], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
        },
      },
    },
  });
  const obj = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { min: 3, max: 1, ports: [{ name: 'a', port: 1 }, { name: 'b', port: 0 }, { name: 'a', port: 2 }] } };
  const r = compiled.process(structuredClone(obj), undefined);
  assert.deepEqual(r.errors.map(errorString), [
    'spec.ports[2]: Duplicate value: map[string]interface {}{"name":"a"}',
    'spec: Invalid value: "object": min above max',
    'spec.ports[1]: Invalid value: "object": failed rule: self.port > 0 || self.name == "none"',
  ]);
});
