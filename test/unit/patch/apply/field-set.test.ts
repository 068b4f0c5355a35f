import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from '../../../../src/patch/apply/field-set.js';
import { keyElement, pathToString, valueElement } from '../../../../src/patch/apply/path-element.js';

function set(...paths: string[][]): FieldSet {
  const s = new FieldSet();
  for (const p of paths) s.insert(p);
  return s;
}

describe('FieldSet FieldsV1 round trip', () => {
  const cases: { name: string; json: Record<string, unknown> }[] = [
    { name: 'apply of data and labels', json: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } } },
    { name: 'update owning the map itself', json: { 'f:data': { '.': {}, 'f:a': {} } } },
    { name: 'map-list item with sorted keys', json: { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {} } } } } },
    { name: 'set item', json: { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } } },
    { name: 'index element', json: { 'f:x': { 'i:0': {} } } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(FieldSet.fromFieldsV1(c.json).toFieldsV1(), c.json));
  }

  it('sorts keys on output', () => {
    assert.deepEqual(Object.keys(set(['f:b'], ['f:a']).toFieldsV1()), ['f:a', 'f:b']);
  });

  for (const bad of [[], { x: {} }, { 'f:a': [] }, { 'f:a': { '.': { 'f:b': {} } } }, { '.': {} }, { 'k:notjson': {} }]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => FieldSet.fromFieldsV1(bad)));
  }
});

describe('FieldSet algebra', () => {
  const a = set(['f:data', 'f:a'], ['f:data', 'f:b'], ['f:data']);
  const b = set(['f:data', 'f:b'], ['f:spec']);
  it('union', () => assert.deepEqual(a.union(b).pathStrings(), ['.data', '.data.a', '.data.b', '.spec']));
  it('difference removes members only', () => assert.deepEqual(a.difference(b).pathStrings(), ['.data', '.data.a']));
  it('intersection', () => assert.deepEqual(a.intersection(b).pathStrings(), ['.data.b']));
  it('recursiveDifference removes subtrees', () => assert.deepEqual(a.recursiveDifference(set(['f:data'])).pathStrings(), []));
  it('equals', () => {
    assert.ok(a.equals(a.clone()));
    assert.ok(!a.equals(b));
  });
  it('has', () => {
    assert.ok(a.has(['f:data', 'f:a']));
    assert.ok(!b.has(['f:data']));
  });
});

describe('path strings', () => {
  const cases: [string[], string][] = [
    [['f:data', 'f:key'], '.data.key'],
    [['f:spec', keyElement({ name: 'x', port: 80 }, ['port', 'name'])!, 'f:image'], '.spec[name="x",port=80].image'],
    [['f:metadata', 'f:finalizers', valueElement('a')], '.metadata.finalizers[="a"]'],
    [['f:x', 'i:3'], '.x[3]'],
  ];
  for (const [path, want] of cases) it(want, () => assert.equal(pathToString(path), want));
  it('key elements are canonical JSON with sorted keys', () => {
    assert.equal(keyElement({ b: 1, a: 'x', c: 'ignored' }, ['b', 'a']), 'k:{"a":"x","b":1}');
    assert.equal(keyElement({ a: 'x' }, ['a', 'b']), undefined);
  });
});
