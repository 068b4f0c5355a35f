import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinCatalog } from '../../../../src/apimachinery/schema/builtin/index.js';
import { BuiltinSsaTypes } from '../../../../src/patch/apply/builtin-schema.js';
import { compareObjects } from '../../../../src/patch/apply/compare.js';
import { createdFieldsV1 } from '../../../../src/patch/apply/created-fields.js';
import { FieldSet } from '../../../../src/patch/apply/field-set.js';
import { mergeValues, removeMembers } from '../../../../src/patch/apply/merge.js';
import { fieldSetOf } from '../../../../src/patch/apply/object-fields.js';
import { DEDUCED } from '../../../../src/patch/apply/schema.js';
import { ssaSchemaFromStructural } from '../../../../src/patch/apply/structural-schema.js';

const types = new BuiltinSsaTypes(builtinCatalog);
const configMap = types.schemaFor('io.k8s.api.core.v1.ConfigMap')!.root;
const serviceAccount = types.schemaFor('io.k8s.api.core.v1.ServiceAccount')!.root;
const role = types.schemaFor('io.k8s.api.rbac.v1.Role')!.root;
const cr = ssaSchemaFromStructural({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'], items: { type: 'object', properties: { port: { type: 'integer' }, name: { type: 'string' } } } },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
      },
    },
  },
}).root;

describe('fieldSetOf', () => {
  const cases: { name: string; type: typeof configMap; obj: unknown; want: string[] }[] = [
    { name: 'configmap leaves only', type: configMap, obj: { data: { a: '1', b: '2' }, metadata: { labels: { x: 'y' } } }, want: ['.data.a', '.data.b', '.metadata.labels.x'] },
    { name: 'empty map contributes nothing', type: configMap, obj: { data: {} }, want: [] },
    { name: 'finalizers are a set', type: configMap, obj: { metadata: { finalizers: ['a', 'b'] } }, want: ['.metadata.finalizers[="a"]', '.metadata.finalizers[="b"]'] },
    {
      name: 'ownerReferences are a map keyed by uid, items atomic',
      type: configMap,
      obj: { metadata: { ownerReferences: [{ uid: 'u1', name: 'n', kind: 'K', apiVersion: 'v1' }] } },
      want: ['.metadata.ownerReferences[uid="u1"]'],
    },
    // ObjectReference is a structType=atomic struct, so each item is one leaf.
    { name: 'patchMergeKey list becomes a map list', type: serviceAccount, obj: { secrets: [{ name: 's1' }] }, want: ['.secrets[name="s1"]'] },
    { name: 'atomic built-in list', type: role, obj: { rules: [{ verbs: ['get'] }] }, want: ['.rules'] },
    { name: 'CRD map list', type: cr, obj: { spec: { ports: [{ port: 80, name: 'http' }] } }, want: ['.spec.ports[port=80]', '.spec.ports[port=80].name', '.spec.ports[port=80].port'] },
    { name: 'CRD default list type is atomic', type: cr, obj: { spec: { args: ['a'] } }, want: ['.spec.args'] },
    { name: 'CRD atomic map', type: cr, obj: { spec: { selector: { a: 'b' } } }, want: ['.spec.selector'] },
    { name: 'deduced: maps granular, lists atomic', type: DEDUCED, obj: { a: { b: 1 }, c: [1] }, want: ['.a.b', '.c'] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(fieldSetOf(c.obj, c.type).pathStrings(), [...c.want].sort()));
});

describe('compareObjects', () => {
  it('reports added, modified and removed, including new granular nodes', () => {
    const cmp = compareObjects({ data: { a: '1', b: '2' } }, { data: { a: '9', c: '3' }, metadata: { labels: { x: 'y' } } }, configMap);
    assert.deepEqual(cmp.added.pathStrings(), ['.data.c', '.metadata', '.metadata.labels', '.metadata.labels.x']);
    assert.deepEqual(cmp.modified.pathStrings(), ['.data.a']);
    assert.deepEqual(cmp.removed.pathStrings(), ['.data.b']);
  });
  it('creating data owns the map itself', () => {
    assert.deepEqual(compareObjects({}, { data: { a: '1' } }, configMap).added.toFieldsV1(), { 'f:data': { '.': {}, 'f:a': {} } });
  });
  it('set items are compared by value', () => {
    const cmp = compareObjects({ spec: { tags: ['a', 'b'] } }, { spec: { tags: ['b', 'c'] } }, cr);
    assert.deepEqual(cmp.added.pathStrings(), ['.spec.tags[="c"]']);
    assert.deepEqual(cmp.removed.pathStrings(), ['.spec.tags[="a"]']);
  });
});

describe('mergeValues', () => {
  const cases: { name: string; type: typeof configMap; live: unknown; config: unknown; want: unknown }[] = [
    { name: 'granular maps keep live keys', type: configMap, live: { data: { a: '1', b: '2' } }, config: { data: { a: '9' } }, want: { data: { a: '9', b: '2' } } },
    { name: 'atomic lists are replaced', type: cr, live: { spec: { args: ['a', 'b'] } }, config: { spec: { args: ['c'] } }, want: { spec: { args: ['c'] } } },
    { name: 'atomic maps are replaced', type: cr, live: { spec: { selector: { a: '1', b: '2' } } }, config: { spec: { selector: { c: '3' } } }, want: { spec: { selector: { c: '3' } } } },
    { name: 'sets are unioned', type: cr, live: { spec: { tags: ['a', 'b'] } }, config: { spec: { tags: ['c', 'a'] } }, want: { spec: { tags: ['c', 'a', 'b'] } } },
    {
      name: 'map lists merge items by key',
      type: cr,
      live: { spec: { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] } },
      config: { spec: { ports: [{ port: 443, name: 'tls' }] } },
      want: { spec: { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'tls' }] } },
    },
    { name: 'config order wins for shared items', type: cr, live: { spec: { tags: ['a', 'b', 'c'] } }, config: { spec: { tags: ['c', 'a'] } }, want: { spec: { tags: ['b', 'c', 'a'] } } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(mergeValues(c.live, c.config, c.type), c.want));
});

describe('removeMembers', () => {
  it('removes fields, list items and whole subtrees', () => {
    const s = new FieldSet();
    s.insert(['f:spec', 'f:ports', 'k:{"port":80}']);
    s.insert(['f:spec', 'f:tags', 'v:"a"']);
    s.insert(['f:spec', 'f:selector']);
    const obj = { spec: { ports: [{ port: 80 }, { port: 81 }], tags: ['a', 'b'], selector: { x: 'y' } } };
    assert.deepEqual(removeMembers(obj, s, cr), { spec: { ports: [{ port: 81 }], tags: ['b'] } });
    assert.equal(obj.spec.ports.length, 2, 'input untouched');
  });
});

describe('createdFieldsV1 (the create fast path)', () => {
  // A small deterministic generator: values of every shape the types meet, incl. nulls, duplicates, items without
  // their keys (a map list that cannot be named is atomic), shapes contradicting the schema, and empty containers.
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const scalar = () => pick<unknown>(['a', 'b', 1, 80, 443, true, null, '']);
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth > 3 || r < 0.4) return scalar();
    if (r < 0.7) return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [pick(['a', 'b', 'c', 'name', 'port', 'labels']), value(depth + 1)]));
    return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
  };
  const port = () => (rand() < 0.9 ? { port: pick([80, 443, 8080]), ...(rand() < 0.5 ? { name: pick(['http', 'https', null]) } : {}) } : { name: 'no-key' });
  const object = () => ({
    apiVersion: pick<unknown>(['v1', null, { odd: 1 }]),
    kind: 'Thing',
    metadata: rand() < 0.1 ? { name: 'n' } : { name: pick<unknown>(['n', { odd: true }]), uid: 'u', generation: 2, labels: rand() < 0.5 ? { a: 'b', c: null } : undefined, finalizers: rand() < 0.5 ? ['x', 'y', 'x'] : undefined, ownerReferences: rand() < 0.3 ? [{ uid: 'u1', name: 'o' }] : undefined },
    data: rand() < 0.5 ? { k: 'v', e: '' } : value(1),
    spec: rand() < 0.2 ? 'not-an-object' : { ports: rand() < 0.2 ? 'x' : Array.from({ length: Math.floor(rand() * 4) }, port), tags: [pick(['a', 'b']), pick(['a', 'c', { o: 1 }])], args: ['a'], selector: rand() < 0.5 ? { a: 'b' } : null, extra: value(1) },
    status: rand() < 0.5 ? value(0) : undefined,
  });
  const set = (...paths: string[][]) => {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  };
  // What the field manager strips (server-controlled metadata) and what a main resource resets (status).
  const stripped = set(['f:apiVersion'], ['f:kind'], ['f:metadata'], ['f:metadata', 'f:name'], ['f:metadata', 'f:uid'], ['f:metadata', 'f:generation']);
  const cases = [
    ['nothing ignored', new FieldSet()],
    ['status ignored', set(['f:status'])],
    ['a nested path ignored', set(['f:spec', 'f:ports'])],
  ] as const;
  for (const [name, type] of [['configmap', configMap], ['role', role], ['CRD with list types', cr], ['deduced', DEDUCED]] as const) {
    for (const [what, ignored] of cases) {
      it(`encodes like the general path for 200 generated ${name} objects, ${what}`, () => {
        for (let i = 0; i < 200; i++) {
          const obj = object();
          const general = compareObjects({}, obj, type).added.difference(stripped).recursiveDifference(ignored).toFieldsV1();
          assert.equal(JSON.stringify(createdFieldsV1(obj, type, stripped, ignored)), JSON.stringify(general), JSON.stringify(obj));
        }
      });
    }
  }
});

describe('fields named like Object.prototype members', () => {
  it('compare: removing data.constructor is a removal, not a modification', () => {
    const cmp = compareObjects({ data: { constructor: 'x', a: '1' } }, { data: { a: '1' } }, configMap);
    assert.deepEqual(cmp.removed.pathStrings(), ['.data.constructor']);
    assert.deepEqual(cmp.modified.pathStrings(), []);
    assert.deepEqual(compareObjects({ data: {} }, { data: { toString: 'y' } }, configMap).added.pathStrings(), ['.data.toString']);
  });
  it('compare and the create path agree on a __proto__ key (an own property after JSON.parse)', () => {
    const obj = JSON.parse('{"data":{"__proto__":"v","constructor":"c"}}');
    const added = compareObjects({}, obj, configMap).added;
    assert.deepEqual(added.pathStrings(), ['.data', '.data.__proto__', '.data.constructor']);
    assert.equal(JSON.stringify(createdFieldsV1(obj, configMap, new FieldSet(), new FieldSet())), JSON.stringify(added.toFieldsV1()));
  });
  it('merge keeps a __proto__ key as data and never reads inherited members', () => {
    const merged = mergeValues({ data: { a: '1' } }, JSON.parse('{"data":{"__proto__":"v","constructor":"c"}}'), configMap) as { data: Record<string, unknown> };
    assert.equal(Object.getPrototypeOf(merged.data), Object.prototype);
    assert.ok(Object.hasOwn(merged.data, '__proto__'));
    assert.equal(JSON.stringify(merged), '{"data":{"a":"1","__proto__":"v","constructor":"c"}}');
    const removed = removeMembers(JSON.parse('{"data":{"__proto__":"v","b":"2"}}'), FieldSet.fromFieldsV1({ 'f:data': { 'f:b': {} } }), configMap);
    assert.equal(JSON.stringify(removed), '{"data":{"__proto__":"v"}}');
  });
});
