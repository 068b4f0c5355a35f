import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyStrategicMergePatch,
  applyStrategicMergePatchRequest,
  StrategicMergePatchError,
  strategicMergePatchStatusError,
  type StrategicMergePatchErrorDisposition,
} from '../../../src/patch/strategic-merge-patch.js';
import { isStatusError } from '../../../src/apimachinery/status.js';
import { podSchema } from './pod-like-catalog.js';

type Doc = Record<string, unknown>;

interface MergeCase {
  name: string;
  original: Doc;
  patch: Doc;
  expected: Doc;
}

const meta = (m: Doc): Doc => ({ metadata: m });
const spec = (s: Doc): Doc => ({ spec: s });

const mapCases: MergeCase[] = [
  {
    name: 'merges nested objects recursively',
    original: meta({ name: 'p', labels: { a: '1' } }),
    patch: meta({ labels: { b: '2' } }),
    expected: meta({ name: 'p', labels: { a: '1', b: '2' } }),
  },
  {
    name: 'null deletes a field',
    original: meta({ name: 'p', labels: { a: '1', b: '2' } }),
    patch: meta({ labels: { a: null } }),
    expected: meta({ name: 'p', labels: { b: '2' } }),
  },
  {
    name: 'null for an absent field changes nothing',
    original: meta({ name: 'p' }),
    patch: meta({ labels: null }),
    expected: meta({ name: 'p' }),
  },
  {
    name: 'a scalar replaces a scalar',
    original: meta({ name: 'p', resourceVersion: '1' }),
    patch: meta({ resourceVersion: '2' }),
    expected: meta({ name: 'p', resourceVersion: '2' }),
  },
  {
    name: 'a value of another JSON type replaces the current one',
    original: spec({ extra: 'text' }),
    patch: spec({ extra: { a: 1, b: null } }),
    expected: spec({ extra: { a: 1 } }),
  },
  {
    name: 'a new subtree is added without its null fields',
    original: meta({ name: 'p' }),
    patch: spec({ nodeSelector: { zone: 'a', gone: null } }),
    expected: { metadata: { name: 'p' }, spec: { nodeSelector: { zone: 'a' } } },
  },
  {
    name: 'a new subtree holding a $patch marker is dropped',
    original: spec({}),
    patch: spec({ nodeSelector: { $patch: 'replace', zone: 'a' } }),
    expected: spec({}),
  },
  {
    name: '$patch: replace replaces the object',
    original: spec({ nodeSelector: { zone: 'a', disk: 'ssd' } }),
    patch: spec({ nodeSelector: { $patch: 'replace', zone: 'b' } }),
    expected: spec({ nodeSelector: { zone: 'b' } }),
  },
  {
    name: '$patch: delete empties the object',
    original: spec({ nodeSelector: { zone: 'a' } }),
    patch: spec({ nodeSelector: { $patch: 'delete' } }),
    expected: spec({ nodeSelector: {} }),
  },
  {
    name: '$patch: delete at the top level empties the document',
    original: meta({ name: 'p' }),
    patch: { $patch: 'delete' },
    expected: {},
  },
  {
    name: 'a field with patchStrategy replace is replaced, not merged',
    original: spec({ securityContext: { runAsUser: 1, runAsGroup: 2 } }),
    patch: spec({ securityContext: { runAsUser: 3, runAsGroup: null } }),
    expected: spec({ securityContext: { runAsUser: 3 } }),
  },
  {
    name: 'an untyped JSON field merges objects like a merge patch',
    original: spec({ extra: { a: { x: 1, y: 2 }, list: [1, 2] } }),
    patch: spec({ extra: { a: { y: null, z: 3 }, list: [3] } }),
    expected: spec({ extra: { a: { x: 1, z: 3 }, list: [3] } }),
  },
  {
    name: 'a field unknown to the catalog merges like a merge patch',
    original: { status: { phase: 'A', conditions: [{ type: 'X' }] } },
    patch: { status: { conditions: [{ type: 'Y' }], reason: 'r' } },
    expected: { status: { phase: 'A', conditions: [{ type: 'Y' }], reason: 'r' } },
  },
  {
    name: 'an empty patch changes nothing',
    original: meta({ name: 'p', finalizers: ['a'] }),
    patch: {},
    expected: meta({ name: 'p', finalizers: ['a'] }),
  },
];

const c = (name: string, extra: Doc = {}): Doc => ({ name, ...extra });

const listCases: MergeCase[] = [
  {
    name: 'a list of objects without strategy is replaced',
    original: spec({ imagePullSecrets: [{ name: 'a' }, { name: 'b' }] }),
    patch: spec({ imagePullSecrets: [{ name: 'c' }] }),
    expected: spec({ imagePullSecrets: [{ name: 'c' }] }),
  },
  {
    name: 'a list of scalars without strategy is replaced',
    original: spec({ containers: [c('a', { args: ['x', 'y'] })] }),
    patch: spec({ containers: [c('a', { args: ['z'] })] }),
    expected: spec({ containers: [c('a', { args: ['z'] })] }),
  },
  {
    name: 'a replaced list loses null fields and directive keys of its items',
    original: spec({ imagePullSecrets: [{ name: 'a' }] }),
    patch: spec({ imagePullSecrets: [{ name: 'c', other: null, $patch: 'delete' }] }),
    expected: spec({ imagePullSecrets: [{ name: 'c' }] }),
  },
  {
    name: 'a primitive merge list becomes the union, current items first when already present',
    original: meta({ finalizers: ['a', 'b'] }),
    patch: meta({ finalizers: ['b', 'c'] }),
    expected: meta({ finalizers: ['a', 'b', 'c'] }),
  },
  {
    name: 'a new scalar in a merge list goes before the current items, as apimachinery orders it',
    original: meta({ finalizers: ['a', 'b'] }),
    patch: meta({ finalizers: ['c'] }),
    expected: meta({ finalizers: ['c', 'a', 'b'] }),
  },
  {
    name: 'a primitive merge list is de-duplicated',
    original: meta({ finalizers: ['a'] }),
    patch: meta({ finalizers: ['a', 'a'] }),
    expected: meta({ finalizers: ['a'] }),
  },
  {
    name: 'a merge list absent from the original is taken from the patch',
    original: meta({ name: 'p' }),
    patch: meta({ finalizers: ['x', 'y'] }),
    expected: meta({ name: 'p', finalizers: ['x', 'y'] }),
  },
  {
    name: 'two empty merge lists stay empty',
    original: meta({ finalizers: [] }),
    patch: meta({ finalizers: [] }),
    expected: meta({ finalizers: [] }),
  },
  {
    name: 'list items with the same merge key are merged',
    original: spec({ containers: [c('a', { image: 'i1', args: ['x'] }), c('b', { image: 'j1' })] }),
    patch: spec({ containers: [c('a', { image: 'i2' })] }),
    expected: spec({ containers: [c('a', { image: 'i2', args: ['x'] }), c('b', { image: 'j1' })] }),
  },
  {
    name: 'a new list item goes before the current items',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [c('c', { image: 'k' })] }),
    expected: spec({ containers: [c('c', { image: 'k' }), c('a'), c('b')] }),
  },
  {
    name: 'an updated item keeps its place and a new item follows it',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [c('b', { image: 'x' }), c('c')] }),
    expected: spec({ containers: [c('a'), c('b', { image: 'x' }), c('c')] }),
  },
  {
    name: 'an appended item loses its null fields',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [c('b', { image: null, args: ['x'] })] }),
    expected: spec({ containers: [c('b', { args: ['x'] }), c('a')] }),
  },
  {
    name: 'null inside a merged item deletes that field',
    original: spec({ containers: [c('a', { image: 'i', args: ['x'] })] }),
    patch: spec({ containers: [c('a', { image: null })] }),
    expected: spec({ containers: [c('a', { args: ['x'] })] }),
  },
  {
    name: '$patch: delete removes every item with that merge key',
    original: spec({ containers: [c('a'), c('b'), c('a', { image: 'dup' })] }),
    patch: spec({ containers: [{ name: 'a', $patch: 'delete' }] }),
    expected: spec({ containers: [c('b')] }),
  },
  {
    name: '$patch: delete of an absent key changes nothing',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [{ name: 'z', $patch: 'delete' }] }),
    expected: spec({ containers: [c('a')] }),
  },
  {
    name: '$patch: replace makes the other patch items the list',
    original: spec({ containers: [c('a', { image: 'i' }), c('b')] }),
    patch: spec({ containers: [{ $patch: 'replace' }, c('a'), c('c')] }),
    expected: spec({ containers: [c('a'), c('c')] }),
  },
  {
    name: 'ownerReferences merge on uid',
    original: meta({ ownerReferences: [{ uid: 'u1', name: 'one', kind: 'K' }] }),
    patch: meta({ ownerReferences: [{ uid: 'u1', name: 'renamed' }, { uid: 'u2', name: 'two' }] }),
    expected: meta({ ownerReferences: [{ uid: 'u1', name: 'renamed', kind: 'K' }, { uid: 'u2', name: 'two' }] }),
  },
  {
    name: 'a merge list nested in a merge list item merges too',
    original: spec({ containers: [c('a', { env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] })] }),
    patch: spec({ containers: [c('a', { env: [{ name: 'Y', value: '3' }] })] }),
    expected: spec({ containers: [c('a', { env: [{ name: 'X', value: '1' }, { name: 'Y', value: '3' }] })] }),
  },
  {
    name: 'a numeric merge key matches numerically',
    original: spec({ containers: [c('a', { ports: [{ containerPort: 80, protocol: 'TCP' }] })] }),
    patch: spec({ containers: [c('a', { ports: [{ containerPort: 80, protocol: 'UDP' }] })] }),
    expected: spec({ containers: [c('a', { ports: [{ containerPort: 80, protocol: 'UDP' }] })] }),
  },
  {
    name: 'a null list deletes the list',
    original: meta({ finalizers: ['a'] }),
    patch: meta({ finalizers: null }),
    expected: meta({}),
  },
];

const directiveCases: MergeCase[] = [
  {
    name: '$deleteFromPrimitiveList removes the listed scalars',
    original: meta({ finalizers: ['a', 'b', 'c'] }),
    patch: meta({ '$deleteFromPrimitiveList/finalizers': ['b'] }),
    expected: meta({ finalizers: ['a', 'c'] }),
  },
  {
    name: '$deleteFromPrimitiveList of an absent scalar changes nothing',
    original: meta({ finalizers: ['a', 'b'] }),
    patch: meta({ '$deleteFromPrimitiveList/finalizers': ['z'] }),
    expected: meta({ finalizers: ['a', 'b'] }),
  },
  {
    name: '$deleteFromPrimitiveList never creates the list',
    original: meta({ name: 'p' }),
    patch: meta({ '$deleteFromPrimitiveList/finalizers': ['a'] }),
    expected: meta({ name: 'p' }),
  },
  {
    name: '$deleteFromPrimitiveList also works on a list without merge strategy',
    original: spec({ containers: [c('a', { args: ['x', 'y', 'z'] })] }),
    patch: spec({ containers: [c('a', { '$deleteFromPrimitiveList/args': ['y'] })] }),
    expected: spec({ containers: [c('a', { args: ['x', 'z'] })] }),
  },
  {
    name: '$deleteFromPrimitiveList combines with additions in the same patch',
    original: meta({ finalizers: ['a', 'b'] }),
    patch: meta({ finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] }),
    expected: meta({ finalizers: ['c', 'b'] }),
  },
  {
    name: '$setElementOrder reorders a primitive list without changing it',
    original: meta({ finalizers: ['a', 'b', 'c'] }),
    patch: meta({ '$setElementOrder/finalizers': ['c', 'a', 'b'] }),
    expected: meta({ finalizers: ['c', 'a', 'b'] }),
  },
  {
    name: '$setElementOrder places new scalars where it says',
    original: meta({ finalizers: ['a', 'b'] }),
    patch: meta({ '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c'] }),
    expected: meta({ finalizers: ['a', 'b', 'c'] }),
  },
  {
    name: '$setElementOrder orders a merge list of objects',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }, { name: 'c' }], containers: [c('c', { image: 'k' })] }),
    expected: spec({ containers: [c('b'), c('a'), c('c', { image: 'k' })] }),
  },
  {
    name: '$setElementOrder keeps server-only items at their current relative position',
    original: spec({ containers: [c('1', { image: 'o' }), c('2'), c('9'), c('3'), c('4')] }),
    patch: spec({ '$setElementOrder/containers': [{ name: '2' }, { name: '1' }, { name: '4' }, { name: '3' }] }),
    expected: spec({ containers: [c('2'), c('1', { image: 'o' }), c('9'), c('4'), c('3')] }),
  },
  {
    name: '$setElementOrder with a list absent from the original takes the patch list without directive items',
    original: spec({}),
    patch: spec({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [c('b'), { name: 'z', $patch: 'delete' }, c('a')] }),
    expected: spec({ containers: [c('b'), c('a')] }),
  },
  {
    name: '$retainKeys clears fields it does not list',
    original: spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } }),
    patch: spec({ strategy: { $retainKeys: ['type'], type: 'Recreate' } }),
    expected: spec({ strategy: { type: 'Recreate' } }),
  },
  {
    name: '$retainKeys inside a merge list item (merge,retainKeys) switches the volume source',
    original: spec({ volumes: [{ name: 'v', emptyDir: { medium: 'Memory' } }, { name: 'w', emptyDir: {} }] }),
    patch: spec({ volumes: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/x' } }] }),
    expected: spec({ volumes: [{ name: 'v', hostPath: { path: '/x' } }, { name: 'w', emptyDir: {} }] }),
  },
  {
    name: '$retainKeys allows null fields that it does not list',
    original: spec({ strategy: { type: 'A', rollingUpdate: { maxSurge: 1 } } }),
    patch: spec({ strategy: { $retainKeys: ['type'], rollingUpdate: null } }),
    expected: spec({ strategy: { type: 'A' } }),
  },
  {
    name: 'directive keys inside a newly added subtree are not stored',
    original: {},
    patch: meta({ finalizers: ['a'], '$setElementOrder/finalizers': ['a'], labels: { $retainKeys: ['x'], x: '1' } }),
    expected: meta({ finalizers: ['a'], labels: { x: '1' } }),
  },
];

function runCases(cases: MergeCase[]): void {
  for (const tc of cases) {
    it(tc.name, () => {
      assert.deepStrictEqual(applyStrategicMergePatch(tc.original, tc.patch, podSchema), tc.expected);
    });
  }
}

describe('applyStrategicMergePatch: objects and fields', () => runCases(mapCases));
describe('applyStrategicMergePatch: lists', () => runCases(listCases));
describe('applyStrategicMergePatch: directives', () => runCases(directiveCases));

interface ErrorCase {
  name: string;
  original: Doc;
  patch: Doc;
  message: string | RegExp;
  disposition: StrategicMergePatchErrorDisposition;
}

const errorCases: ErrorCase[] = [
  {
    name: '$retainKeys that is not a list',
    original: spec({ strategy: { type: 'A' } }),
    patch: spec({ strategy: { $retainKeys: 'type', type: 'B' } }),
    message: 'invalid patch format of retainKeys',
    disposition: 'BadRequest',
  },
  {
    name: 'a patch field missing from $retainKeys',
    original: spec({ strategy: { type: 'A' } }),
    patch: spec({ strategy: { $retainKeys: ['type'], type: 'B', rollingUpdate: { maxSurge: 1 } } }),
    message: 'invalid patch format of retainKeys',
    disposition: 'BadRequest',
  },
  {
    name: '$deleteFromPrimitiveList without a field name',
    original: meta({ finalizers: ['a'] }),
    patch: meta({ $deleteFromPrimitiveListfinalizers: ['a'] }),
    message: 'invalid patch format of primitive list',
    disposition: 'BadRequest',
  },
  {
    name: '$setElementOrder without a field name',
    original: meta({ finalizers: ['a'] }),
    patch: meta({ $setElementOrderfinalizers: ['a'] }),
    message: 'invalid patch format of setElementOrder list',
    disposition: 'BadRequest',
  },
  {
    name: '$setElementOrder that is not a list',
    original: meta({ finalizers: ['a'] }),
    patch: meta({ '$setElementOrder/finalizers': 'a' }),
    message: 'expected a []interface {}, but received a string',
    disposition: 'Internal',
  },
  {
    name: '$setElementOrder disagreeing with the patch list',
    original: spec({ containers: [c('1'), c('3'), c('2')] }),
    patch: spec({ '$setElementOrder/containers': [{ name: '1' }, { name: '2' }, { name: '3' }], containers: [c('3'), c('1')] }),
    message: "The order in patch list:\n[map[name:3] map[name:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
    disposition: 'Internal',
  },
  {
    name: 'a merge list item without its merge key',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [{ image: 'x' }] }),
    message: 'map: map[image:x] does not contain declared merge key: name',
    disposition: 'Internal',
  },
  {
    name: 'a $patch: delete list item without its merge key',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [{ $patch: 'delete' }] }),
    message: 'map: map[$patch:delete] does not contain declared merge key: name',
    disposition: 'Internal',
  },
  {
    name: 'an unknown $patch value in an object',
    original: spec({ nodeSelector: { a: 'b' } }),
    patch: spec({ nodeSelector: { $patch: 'foo', a: 'c' } }),
    message: 'unknown patch type: foo in map: map[$patch:foo a:c]',
    disposition: 'Internal',
  },
  {
    name: '$patch: merge in an object',
    original: spec({ nodeSelector: { a: 'b' } }),
    patch: spec({ nodeSelector: { $patch: 'merge' } }),
    message: 'unknown patch type: merge in map: map[$patch:merge]',
    disposition: 'Internal',
  },
  {
    name: '$patch: merge in a list item',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [{ name: 'a', $patch: 'merge' }] }),
    message: 'merging lists cannot yet be specified in the patch',
    disposition: 'Internal',
  },
  {
    name: 'an unknown $patch value in a list item',
    original: spec({ containers: [c('a')] }),
    patch: spec({ containers: [{ name: 'a', $patch: 7 }] }),
    message: 'unknown patch type: %!s(int64=7) in map: map[$patch:7 name:a]',
    disposition: 'Internal',
  },
  {
    name: 'a merge list of lists',
    original: spec({ matrix: [['a']] }),
    patch: spec({ matrix: [['b']] }),
    message: 'lists of lists are not supported',
    disposition: 'Unprocessable',
  },
  {
    name: 'a merge list with mixed element types',
    original: meta({ finalizers: ['a'] }),
    patch: meta({ finalizers: [1] }),
    message: 'list element types are not identical: [[a] [1]]',
    disposition: 'Internal',
  },
  {
    name: 'a merge list of objects without a merge key in the schema',
    original: spec({ keylessMergeList: [{ name: 'a' }] }),
    patch: spec({ keylessMergeList: [{ name: 'b' }] }),
    message: 'cannot merge lists without merge key for struct',
    disposition: 'Internal',
  },
  {
    name: 'a current item lacking the merge key',
    original: spec({ containers: [{ image: 'no-name' }] }),
    patch: spec({ containers: [c('a')] }),
    message: 'map: map[image:no-name] does not contain declared merge key: name',
    disposition: 'Internal',
  },
  {
    name: 'a patch strategy apimachinery cannot interpret',
    original: spec({ badStrategyList: ['a'] }),
    patch: spec({ badStrategyList: ['b'] }),
    message: 'unexpected patch strategy: [merge replace]',
    disposition: 'Internal',
  },
  {
    name: '$setElementOrder over an empty list and no patch list',
    original: meta({ finalizers: [] }),
    patch: meta({ '$setElementOrder/finalizers': [] }),
    message: 'no elements in any of the given slices',
    disposition: 'Internal',
  },
];

describe('applyStrategicMergePatch: errors carry apimachinery texts', () => {
  for (const tc of errorCases) {
    it(tc.name, () => {
      assert.throws(
        () => applyStrategicMergePatch(tc.original, tc.patch, podSchema),
        (err: unknown) => {
          assert.ok(err instanceof StrategicMergePatchError, `not a StrategicMergePatchError: ${String(err)}`);
          if (typeof tc.message === 'string') assert.equal(err.message, tc.message);
          else assert.match(err.message, tc.message);
          assert.equal(err.disposition, tc.disposition);
          return true;
        },
      );
    });
  }
});

describe('applyStrategicMergePatchRequest: status codes kube-apiserver answers with', () => {
  const statusCases: { name: string; patchBody: unknown; code: number; reason: string | undefined; message: string }[] = [
    {
      name: 'a body that is a JSON array → 400',
      patchBody: [{ op: 'add' }],
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      name: 'a body that is a string → 400',
      patchBody: 'x',
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal string into Go value of type map[string]interface {}',
    },
    {
      name: 'malformed $retainKeys → 400',
      patchBody: spec({ strategy: { $retainKeys: 1 } }),
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'list of lists → generic 422',
      patchBody: spec({ matrix: [['b']] }),
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    },
    {
      name: 'missing merge key → 500 without reason',
      patchBody: spec({ containers: [{ image: 'x' }] }),
      code: 500,
      reason: undefined,
      message: 'map: map[image:x] does not contain declared merge key: name',
    },
  ];
  const original = spec({ containers: [c('a')], matrix: [['a']], strategy: { type: 'A' } });
  for (const tc of statusCases) {
    it(tc.name, () => {
      assert.throws(
        () => applyStrategicMergePatchRequest(original, tc.patchBody, podSchema),
        (err: unknown) => {
          assert.ok(isStatusError(err));
          assert.equal(err.code, tc.code);
          assert.equal(err.status.reason, tc.reason);
          assert.equal(err.status.message, tc.message);
          return true;
        },
      );
    });
  }

  it('a null body is an empty patch', () => {
    assert.deepStrictEqual(applyStrategicMergePatchRequest(original, null, podSchema), original);
  });

  it('the generic 422 carries an empty details object, as NewGenericServerResponse builds it', () => {
    const status = strategicMergePatchStatusError(new StrategicMergePatchError('lists of lists are not supported', 'Unprocessable')).status;
    assert.deepStrictEqual(status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });

  it('an unexpected non-patch error becomes a 500 with its message', () => {
    const err = strategicMergePatchStatusError(new Error('boom'));
    assert.equal(err.code, 500);
    assert.equal(err.status.message, 'boom');
  });
});

describe('applyStrategicMergePatch: purity and safety', () => {
  it('does not mutate the original or the patch', () => {
    const original = spec({ containers: [c('a', { env: [{ name: 'X', value: '1' }] })], nodeSelector: { a: '1' } });
    const patch = spec({ containers: [c('a', { env: [{ name: 'Y', value: '2' }] }), c('b')], nodeSelector: { a: null } });
    const originalSnapshot = structuredClone(original);
    const patchSnapshot = structuredClone(patch);
    const result = applyStrategicMergePatch(original, patch, podSchema);
    assert.deepStrictEqual(original, originalSnapshot);
    assert.deepStrictEqual(patch, patchSnapshot);
    // The result shares nothing with the inputs: changing it leaves them alone.
    ((result['spec'] as Doc)['nodeSelector'] as Doc)['b'] = 'x';
    assert.deepStrictEqual(original, originalSnapshot);
  });

  it('refuses a type the catalog does not know', () => {
    assert.throws(() => applyStrategicMergePatch({}, {}, { catalog: podSchema.catalog, typeName: 'nope' }), /not in the type catalog/);
  });

  const pollutionCases: { name: string; original: string; patch: string }[] = [
    { name: '__proto__ at the top level', original: '{}', patch: '{"__proto__":{"polluted":"yes"}}' },
    { name: '__proto__ under a map of strings', original: '{"metadata":{"labels":{}}}', patch: '{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}' },
    { name: 'constructor.prototype', original: '{}', patch: '{"constructor":{"prototype":{"polluted":"yes"}}}' },
    { name: '__proto__ merged into an existing __proto__ key', original: '{"__proto__":{"a":1}}', patch: '{"__proto__":{"polluted":"yes"}}' },
    { name: '__proto__ in a merge list item', original: '{"spec":{"containers":[{"name":"a"}]}}', patch: '{"spec":{"containers":[{"name":"a","__proto__":{"polluted":"yes"}}]}}' },
    { name: '__proto__ in $retainKeys', original: '{"spec":{"strategy":{"type":"A"}}}', patch: '{"spec":{"strategy":{"$retainKeys":["__proto__"],"__proto__":{"polluted":"yes"}}}}' },
  ];
  for (const tc of pollutionCases) {
    it(`does not pollute prototypes: ${tc.name}`, () => {
      const result = applyStrategicMergePatch(JSON.parse(tc.original) as Doc, JSON.parse(tc.patch) as Doc, podSchema);
      assert.equal(({} as Doc)['polluted'], undefined);
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
      assert.ok(JSON.stringify(result).includes('"polluted":"yes"'), 'the key is kept as ordinary data');
    });
  }
});
