import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldPath } from '../../../src/apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../../src/apiextensions/schema/json-schema-props.js';
import { toStructural } from '../../../src/apiextensions/schema/structural.js';
import { prune } from '../../../src/apiextensions/schema/prune.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from '../../../src/apiextensions/schema/default.js';
import { validateListSetsAndMaps } from '../../../src/apiextensions/schema/list-type.js';
import { coerceObjectMeta } from '../../../src/apiextensions/schema/object-meta.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { x: { type: 'string' } } } } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
        anything: { type: 'object', additionalProperties: true },
      },
    },
  },
};
const s = toStructural(schema);

interface PruneCase {
  name: string;
  in: Record<string, unknown>;
  out: Record<string, unknown>;
  unknown: string[];
}

const pruneCases: PruneCase[] = [
  { name: 'keeps root meta fields', in: { apiVersion: 'v', kind: 'K', metadata: { name: 'n' } }, out: { apiVersion: 'v', kind: 'K', metadata: { name: 'n' } }, unknown: [] },
  { name: 'drops unknown root field', in: { spec: {}, extra: 1 }, out: { spec: {} }, unknown: ['extra'] },
  { name: 'drops nested unknown field', in: { spec: { name: 'a', foo: 1 } }, out: { spec: { name: 'a' } }, unknown: ['spec.foo'] },
  { name: 'drops inside list items', in: { spec: { items: [{ a: 'x', b: 1 }, { c: 2 }] } }, out: { spec: { items: [{ a: 'x' }, {}] } }, unknown: ['spec.items[0].b', 'spec.items[1].c'] },
  { name: 'keeps map keys', in: { spec: { labels: { k: 'v', j: 'w' } } }, out: { spec: { labels: { k: 'v', j: 'w' } } }, unknown: [] },
  {
    name: 'preserve-unknown-fields keeps unknown but prunes known',
    in: { spec: { free: { whatever: { deep: 1 }, known: { x: 'a', y: 'b' } } } },
    out: { spec: { free: { whatever: { deep: 1 }, known: { x: 'a' } } } },
    unknown: ['spec.free.known.y'],
  },
  {
    name: 'embedded resource keeps its meta fields',
    in: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'i', other: 1 }, status: {} } } },
    out: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'i' } } } },
    unknown: ['spec.template.spec.other', 'spec.template.status'],
  },
  { name: 'schemaless map values lose their object keys', in: { spec: { anything: { k: { a: 1 }, s: 'x' } } }, out: { spec: { anything: { k: {}, s: 'x' } } }, unknown: ['spec.anything.k.a'] },
];

for (const c of pruneCases) {
  test(`prune: ${c.name}`, () => {
    const obj = structuredClone(c.in);
    assert.deepEqual(prune(obj, s, { isResourceRoot: true }), c.unknown);
    assert.deepEqual(obj, c.out);
  });
}

test('prune: without isResourceRoot, root meta fields are dropped but, as upstream, not reported', () => {
  const obj: Record<string, unknown> = { kind: 'K', spec: {} };
  assert.deepEqual(prune(obj, s), []);
  assert.deepEqual(obj, { spec: {} });
});

test('coerceObjectMeta trims metadata to ObjectMeta at the root and in embedded resources', () => {
  const obj = { metadata: { name: 'n', bogus: 1 }, spec: { template: { metadata: { labels: {}, nope: 2 } } } };
  assert.deepEqual(coerceObjectMeta(obj, s, true), ['metadata.bogus', 'spec.template.metadata.nope']);
  assert.deepEqual(obj, { metadata: { name: 'n' }, spec: { template: { metadata: { labels: {} } } } });
});

const defaults = toStructural({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', default: 'auto' },
        opt: { type: 'string', nullable: true, default: 'x' },
        ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
        env: { type: 'object', additionalProperties: { type: 'string', default: 'v' } },
        plain: { type: 'string' },
        nested: { type: 'object', default: { a: {} }, properties: { a: { type: 'object', properties: { b: { type: 'integer', default: 7 } } } } },
      },
    },
  },
});

interface DefaultCase {
  name: string;
  in: Record<string, unknown>;
  out: Record<string, unknown>;
}

const defaultCases: DefaultCase[] = [
  {
    name: 'absent object defaulted then its fields',
    in: {},
    out: { spec: { replicas: 1, mode: 'auto', opt: 'x', nested: { a: { b: 7 } } } },
  },
  { name: 'present value kept', in: { spec: { replicas: 5, mode: 'm', opt: 'o', nested: {} } }, out: { spec: { replicas: 5, mode: 'm', opt: 'o', nested: {} } } },
  { name: 'non-nullable null replaced', in: { spec: { replicas: null, mode: 'm', opt: 'o', nested: {} } }, out: { spec: { replicas: 1, mode: 'm', opt: 'o', nested: {} } } },
  { name: 'nullable null kept', in: { spec: { replicas: 2, mode: 'm', opt: null, nested: {} } }, out: { spec: { replicas: 2, mode: 'm', opt: null, nested: {} } } },
  {
    name: 'list items defaulted',
    in: { spec: { replicas: 1, mode: 'm', opt: 'o', nested: {}, ports: [{}, { protocol: 'UDP' }] } },
    out: { spec: { replicas: 1, mode: 'm', opt: 'o', nested: {}, ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }] } },
  },
  {
    name: 'map null values defaulted',
    in: { spec: { replicas: 1, mode: 'm', opt: 'o', nested: {}, env: { A: null, B: 'b' } } },
    out: { spec: { replicas: 1, mode: 'm', opt: 'o', nested: {}, env: { A: 'v', B: 'b' } } },
  },
];

for (const c of defaultCases) {
  test(`applyDefaults: ${c.name}`, () => {
    const obj = structuredClone(c.in);
    applyDefaults(obj, defaults);
    assert.deepEqual(obj, c.out);
  });
}

test('applyDefaults: defaults are copied, not shared', () => {
  const a: Record<string, unknown> = {};
  const b: Record<string, unknown> = {};
  applyDefaults(a, defaults);
  applyDefaults(b, defaults);
  ((a['spec'] as Record<string, unknown>)['nested'] as Record<string, unknown>)['a'] = 'changed';
  assert.deepEqual((b['spec'] as Record<string, unknown>)['nested'], { a: { b: 7 } });
});

test('pruneNonNullableNullsWithoutDefaults drops nulls that cannot be defaulted', () => {
  const obj = { spec: { plain: null, replicas: null, opt: null } };
  pruneNonNullableNullsWithoutDefaults(obj, defaults);
  assert.deepEqual(obj, { spec: { replicas: null, opt: null } });
});

const lists = toStructural({
  type: 'object',
  properties: {
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
    },
    byName: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' } } },
    },
    atomic: { type: 'array', items: { type: 'string' } },
  },
});

interface ListCase {
  name: string;
  obj: Record<string, unknown>;
  want: { type: string; field: string; value: unknown }[];
}

const listCases: ListCase[] = [
  { name: 'set unique', obj: { tags: ['a', 'b'] }, want: [] },
  { name: 'set duplicate reported once', obj: { tags: ['a', 'b', 'a', 'a'] }, want: [{ type: 'FieldValueDuplicate', field: 'tags[2]', value: 'a' }] },
  { name: 'atomic list may repeat', obj: { atomic: ['a', 'a'] }, want: [] },
  {
    name: 'map duplicate composite key',
    obj: { ports: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { port: 80, protocol: 'TCP' }] },
    want: [{ type: 'FieldValueDuplicate', field: 'ports[2]', value: { port: 80, protocol: 'TCP' } }],
  },
  { name: 'map duplicate single key', obj: { byName: [{ name: 'x' }, { name: 'x' }] }, want: [{ type: 'FieldValueDuplicate', field: 'byName[1]', value: { name: 'x' } }] },
  {
    name: 'map item must be an object',
    obj: { byName: [{ name: 'x' }, 'y'] },
    want: [{ type: 'FieldValueInvalid', field: 'byName[1]', value: 'y' }],
  },
];

for (const c of listCases) {
  test(`validateListSetsAndMaps: ${c.name}`, () => {
    const errs = validateListSetsAndMaps(lists, c.obj, FieldPath.root()).map((e) => ({ type: e.type, field: e.field, value: e.value }));
    assert.deepEqual(errs, c.want);
  });
}
