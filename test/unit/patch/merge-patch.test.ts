import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, createMergePatch } from '../../../src/patch/merge-patch.js';

type Doc = Record<string, unknown>;

describe('applyMergePatch (RFC 7386)', () => {
  const cases: { name: string; original: unknown; patch: unknown; expected: unknown }[] = [
    { name: 'replaces a member', original: { a: 'b' }, patch: { a: 'c' }, expected: { a: 'c' } },
    { name: 'adds a member', original: { a: 'b' }, patch: { b: 'c' }, expected: { a: 'b', b: 'c' } },
    { name: 'null removes a member', original: { a: 'b' }, patch: { a: null }, expected: {} },
    { name: 'null leaves the other members', original: { a: 'b', b: 'c' }, patch: { a: null }, expected: { b: 'c' } },
    { name: 'an array replaces an array', original: { a: ['b'] }, patch: { a: 'c' }, expected: { a: 'c' } },
    { name: 'a scalar replaces an array', original: { a: 'c' }, patch: { a: ['b'] }, expected: { a: ['b'] } },
    { name: 'objects merge recursively', original: { a: { b: 'c' } }, patch: { a: { b: 'd', c: null } }, expected: { a: { b: 'd' } } },
    { name: 'arrays are replaced, never merged', original: { a: [{ b: 'c' }] }, patch: { a: [1] }, expected: { a: [1] } },
    { name: 'an array member is taken as given, nulls inside kept', original: {}, patch: { a: [{ b: null }] }, expected: { a: [{ b: null }] } },
    { name: 'a non-object patch replaces the document', original: { a: 'foo' }, patch: ['c'], expected: ['c'] },
    { name: 'a null patch replaces the document with null', original: { a: 'foo' }, patch: null, expected: null },
    { name: 'an object patch on a non-object document starts from {}', original: ['a'], patch: { a: 'b', c: null }, expected: { a: 'b' } },
    { name: 'a new nested object loses its nulls', original: {}, patch: { a: { bb: { ccc: null } } }, expected: { a: { bb: {} } } },
    { name: 'an object replaces a scalar, dropping nulls', original: { e: 'x' }, patch: { e: { f: null, g: 1 } }, expected: { e: { g: 1 } } },
    { name: 'an empty patch changes nothing', original: { a: 1 }, patch: {}, expected: { a: 1 } },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.deepStrictEqual(applyMergePatch(tc.original, tc.patch), tc.expected));
  }

  it('a metadata.resourceVersion in the patch lands in the result (the precondition the update then checks)', () => {
    const result = applyMergePatch({ metadata: { resourceVersion: '7' }, data: { a: 'b' } }, { data: { a: 'e' }, metadata: { resourceVersion: '106' } });
    assert.deepStrictEqual(result, { metadata: { resourceVersion: '106' }, data: { a: 'e' } });
  });

  it('mutates neither input and shares no structure with them', () => {
    const original = { a: { b: [1, 2] }, keep: { x: 1 } };
    const patch = { a: { c: { d: 1 } } };
    const os = structuredClone(original);
    const ps = structuredClone(patch);
    const result = applyMergePatch(original, patch) as Doc;
    assert.deepStrictEqual(original, os);
    assert.deepStrictEqual(patch, ps);
    ((result['keep'] as Doc)['x'] as unknown) = 2;
    (((result['a'] as Doc)['c'] as Doc)['d'] as unknown) = 2;
    assert.deepStrictEqual(original, os);
    assert.deepStrictEqual(patch, ps);
  });

  const pollution = [
    { name: '__proto__ member', original: '{}', patch: '{"__proto__":{"polluted":"yes"}}' },
    { name: 'constructor.prototype', original: '{}', patch: '{"constructor":{"prototype":{"polluted":"yes"}}}' },
    { name: 'nested __proto__', original: '{"a":{}}', patch: '{"a":{"__proto__":{"polluted":"yes"}}}' },
    { name: 'into an existing __proto__ member', original: '{"__proto__":{"x":1}}', patch: '{"__proto__":{"polluted":"yes"}}' },
  ];
  for (const tc of pollution) {
    it(`does not pollute prototypes: ${tc.name}`, () => {
      const result = applyMergePatch(JSON.parse(tc.original), JSON.parse(tc.patch)) as Doc;
      assert.equal(({} as Doc)['polluted'], undefined);
      assert.equal(Object.getPrototypeOf(result), Object.prototype);
      assert.ok(JSON.stringify(result).includes('"polluted":"yes"'));
    });
  }
});

describe('createMergePatch', () => {
  const cases: { name: string; original: unknown; modified: unknown; expected: unknown }[] = [
    { name: 'equal documents give an empty patch', original: { a: 1, b: { c: [1] } }, modified: { a: 1, b: { c: [1] } }, expected: {} },
    { name: 'a removed member becomes null', original: { a: 1, b: 2 }, modified: { a: 1 }, expected: { b: null } },
    { name: 'an added member carries its value', original: { a: 1 }, modified: { a: 1, b: { c: 2 } }, expected: { b: { c: 2 } } },
    { name: 'a changed scalar carries the new value', original: { a: 1 }, modified: { a: 2 }, expected: { a: 2 } },
    { name: 'nested objects are diffed', original: { m: { a: 1, b: 2 } }, modified: { m: { a: 1, b: 3 } }, expected: { m: { b: 3 } } },
    { name: 'unchanged nested objects are omitted', original: { m: { a: 1 }, n: 1 }, modified: { m: { a: 1 }, n: 2 }, expected: { n: 2 } },
    { name: 'a changed array is sent whole', original: { l: [1, 2] }, modified: { l: [1, 3] }, expected: { l: [1, 3] } },
    { name: 'an object replacing a scalar is sent whole', original: { a: 'x' }, modified: { a: { b: 1 } }, expected: { a: { b: 1 } } },
    { name: 'a non-object side yields the modified document', original: [1], modified: { a: 1 }, expected: { a: 1 } },
  ];
  for (const tc of cases) {
    it(tc.name, () => assert.deepStrictEqual(createMergePatch(tc.original, tc.modified), tc.expected));
  }

  for (const tc of cases) {
    it(`round-trips: ${tc.name}`, () => {
      assert.deepStrictEqual(applyMergePatch(tc.original, createMergePatch(tc.original, tc.modified)), tc.modified);
    });
  }
});
