import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from '../../../src/patch/json-patch.js';
import { isStatusError } from '../../../src/apimachinery/status.js';

type Doc = Record<string, unknown>;

const configMap = (): Doc => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', resourceVersion: '5', labels: { a: '1' }, finalizers: ['f1', 'f2'] },
  data: { k: 'v' },
});

describe('applyJsonPatch: operations', () => {
  const cases: { name: string; ops: unknown[]; expect: (d: Doc) => void }[] = [
    {
      name: 'add creates a member',
      ops: [{ op: 'add', path: '/data/n', value: 'x' }],
      expect: (d) => assert.deepStrictEqual(d['data'], { k: 'v', n: 'x' }),
    },
    {
      name: 'add overwrites an existing member',
      ops: [{ op: 'add', path: '/data/k', value: 'w' }],
      expect: (d) => assert.deepStrictEqual(d['data'], { k: 'w' }),
    },
    {
      name: 'add with - appends to an array',
      ops: [{ op: 'add', path: '/metadata/finalizers/-', value: 'f3' }],
      expect: (d) => assert.deepStrictEqual((d['metadata'] as Doc)['finalizers'], ['f1', 'f2', 'f3']),
    },
    {
      name: 'add at an index inserts',
      ops: [{ op: 'add', path: '/metadata/finalizers/0', value: 'f0' }],
      expect: (d) => assert.deepStrictEqual((d['metadata'] as Doc)['finalizers'], ['f0', 'f1', 'f2']),
    },
    {
      name: 'remove deletes a member',
      ops: [{ op: 'remove', path: '/metadata/labels/a' }],
      expect: (d) => assert.deepStrictEqual((d['metadata'] as Doc)['labels'], {}),
    },
    {
      name: 'replace changes a value',
      ops: [{ op: 'replace', path: '/data/k', value: 'z' }],
      expect: (d) => assert.deepStrictEqual(d['data'], { k: 'z' }),
    },
    {
      name: 'move relocates a value',
      ops: [{ op: 'move', from: '/data/k', path: '/data/m' }],
      expect: (d) => assert.deepStrictEqual(d['data'], { m: 'v' }),
    },
    {
      name: 'copy duplicates a value',
      ops: [{ op: 'copy', from: '/data/k', path: '/data/m' }],
      expect: (d) => assert.deepStrictEqual(d['data'], { k: 'v', m: 'v' }),
    },
    {
      name: 'a passing test lets the following operations apply (kubectl csaupgrade shape)',
      ops: [
        { op: 'test', path: '/metadata/resourceVersion', value: '5' },
        { op: 'replace', path: '/metadata/finalizers', value: [] },
      ],
      expect: (d) => assert.deepStrictEqual((d['metadata'] as Doc)['finalizers'], []),
    },
    {
      name: 'test compares objects structurally',
      ops: [{ op: 'test', path: '/metadata/labels', value: { a: '1' } }],
      expect: (d) => assert.deepStrictEqual(d, configMap()),
    },
    {
      name: 'test of a missing member against null passes, as in evanphx/json-patch',
      ops: [{ op: 'test', path: '/metadata/uid', value: null }],
      expect: (d) => assert.deepStrictEqual(d, configMap()),
    },
    {
      name: 'test without a value of a missing member passes',
      ops: [{ op: 'test', path: '/data/missing' }],
      expect: (d) => assert.deepStrictEqual(d, configMap()),
    },
    {
      name: 'add without a value writes null, as evanphx/json-patch does',
      ops: [{ op: 'add', path: '/data/x' }],
      expect: (d) => assert.deepStrictEqual(d['data'], { k: 'v', x: null }),
    },
    {
      name: 'later operations see earlier ones',
      ops: [
        { op: 'add', path: '/spec', value: {} },
        { op: 'add', path: '/spec/x', value: 1 },
      ],
      expect: (d) => assert.deepStrictEqual(d['spec'], { x: 1 }),
    },
    {
      name: 'an escaped pointer addresses keys with / and ~',
      ops: [{ op: 'add', path: '/metadata/labels/example.com~1a~0b', value: 'y' }],
      expect: (d) => assert.deepStrictEqual((d['metadata'] as Doc)['labels'], { a: '1', 'example.com/a~b': 'y' }),
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => tc.expect(applyJsonPatch(configMap(), tc.ops) as Doc));
  }

  it('an empty patch and a null body leave the document unchanged', () => {
    assert.deepStrictEqual(applyJsonPatch(configMap(), []), configMap());
    assert.deepStrictEqual(applyJsonPatch(configMap(), null), configMap());
  });

  it('mutates neither the document nor the patch, and shares no structure with them', () => {
    const doc = configMap();
    const ops = [
      { op: 'add', path: '/spec', value: { nested: { a: 1 } } },
      { op: 'add', path: '/spec/nested/b', value: 2 },
    ];
    const docSnapshot = structuredClone(doc);
    const opsSnapshot = structuredClone(ops);
    const result = applyJsonPatch(doc, ops) as Doc;
    assert.deepStrictEqual(doc, docSnapshot);
    assert.deepStrictEqual(ops, opsSnapshot);
    ((result['data'] as Doc)['k'] as unknown) = 'changed';
    assert.deepStrictEqual(doc, docSnapshot);
  });
});

describe('applyJsonPatch: operations that cannot apply → generic 422', () => {
  const cases: { name: string; ops: unknown[] }[] = [
    { name: 'a failed test', ops: [{ op: 'test', path: '/metadata/resourceVersion', value: '4' }] },
    { name: 'a test of a missing member against a non-null value', ops: [{ op: 'test', path: '/metadata/uid', value: 'u' }] },
    { name: 'remove of a missing member', ops: [{ op: 'remove', path: '/data/missing' }] },
    { name: 'replace of a missing member', ops: [{ op: 'replace', path: '/data/missing', value: 1 }] },
    { name: 'add under a missing parent', ops: [{ op: 'add', path: '/spec/x/y', value: 1 }] },
    { name: 'add beyond the end of an array', ops: [{ op: 'add', path: '/metadata/finalizers/5', value: 'x' }] },
    { name: 'move from a missing member', ops: [{ op: 'move', from: '/data/missing', path: '/data/x' }] },
    { name: 'an unknown op', ops: [{ op: 'frobnicate', path: '/data/k' }] },
    { name: 'a missing op', ops: [{ path: '/data/k' }] },
    { name: 'a null operation', ops: [null] },
    { name: 'a test without a value against an existing member', ops: [{ op: 'test', path: '/data/k' }] },
    { name: 'a null test whose parent is missing', ops: [{ op: 'test', path: '/spec/x', value: null }] },
    { name: 'a path not starting with /', ops: [{ op: 'add', path: 'data/x', value: 1 }] },
    { name: 'the whole-document path', ops: [{ op: 'replace', path: '', value: {} }] },
    { name: 'a failure after successful operations (atomicity)', ops: [{ op: 'add', path: '/data/n', value: 'x' }, { op: 'remove', path: '/nope' }] },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const doc = configMap();
      assert.throws(
        () => applyJsonPatch(doc, tc.ops),
        (err: unknown) => {
          assert.ok(isStatusError(err));
          assert.deepStrictEqual(err.status, {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'the server rejected our request due to an error in our request',
            reason: 'Invalid',
            details: {},
            code: 422,
          });
          return true;
        },
      );
      assert.deepStrictEqual(doc, configMap());
    });
  }
});

describe('applyJsonPatch: malformed bodies → 400', () => {
  const cases: { name: string; body: unknown; message: string }[] = [
    { name: 'an object', body: { op: 'add' }, message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp' },
    { name: 'a string', body: 'x', message: 'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp' },
    { name: 'a number element', body: [1], message: 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp' },
    { name: 'an array element', body: [[]], message: 'error decoding patch: json: cannot unmarshal array into Go value of type handlers.jsonPatchOp' },
    {
      name: 'a non-string op',
      body: [{ op: 1, path: '/a' }],
      message: 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
    },
    {
      name: 'a non-string path',
      body: [{ op: 'add', path: true, value: 1 }],
      message: 'error decoding patch: json: cannot unmarshal bool into Go struct field jsonPatchOp.path of type string',
    },
    {
      name: 'a non-string from',
      body: [{ op: 'move', path: '/a', from: {} }],
      message: 'error decoding patch: json: cannot unmarshal object into Go struct field jsonPatchOp.from of type string',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      assert.throws(
        () => applyJsonPatch(configMap(), tc.body),
        (err: unknown) => isStatusError(err, 'BadRequest') && err.code === 400 && err.status.message === tc.message,
      );
    });
  }

  it(`more than ${MAX_JSON_PATCH_OPERATIONS} operations → 413`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    assert.throws(
      () => applyJsonPatch(configMap(), ops),
      (err: unknown) =>
        isStatusError(err, 'RequestEntityTooLarge') &&
        err.code === 413 &&
        err.status.message === 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
  });

  it(`exactly ${MAX_JSON_PATCH_OPERATIONS} operations are allowed`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    assert.deepStrictEqual(applyJsonPatch(configMap(), ops), configMap());
  });
});

describe('applyJsonPatch: prototype pollution', () => {
  const cases: { name: string; ops: unknown[] }[] = [
    { name: 'add under /__proto__', ops: [{ op: 'add', path: '/__proto__/polluted', value: 'yes' }] },
    { name: 'add under /constructor/prototype', ops: [{ op: 'add', path: '/constructor/prototype/polluted', value: 'yes' }] },
    { name: 'replace /__proto__', ops: [{ op: 'replace', path: '/metadata/__proto__', value: { polluted: 'yes' } }] },
  ];
  for (const tc of cases) {
    it(`${tc.name} is refused without polluting`, () => {
      assert.throws(() => applyJsonPatch(configMap(), tc.ops), (err: unknown) => isStatusError(err) && err.code === 422);
      assert.equal(({} as Doc)['polluted'], undefined);
    });
  }

  it('a document with an own __proto__ key is patched as data', () => {
    const doc = JSON.parse('{"data":{"__proto__":{"a":1}}}') as Doc;
    const result = applyJsonPatch(doc, [{ op: 'add', path: '/data/x', value: 1 }]) as Doc;
    assert.equal(JSON.stringify(result), '{"data":{"__proto__":{"a":1},"x":1}}');
    assert.equal(({} as Doc)['a'], undefined);
  });
});
