import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, findDuplicateKeys, inDocumentOrder } from '../../../src/apiserver/http/body.js';

describe('findDuplicateKeys', () => {
  const cases: [string, string[]][] = [
    ['{"a":1,"b":2}', []],
    ['{"a":1,"a":2}', ['a']],
    ['{"metadata":{"name":"x","name":"y"}}', ['metadata.name']],
    ['{"a":"va\\"lue","a":"x"}', ['a']],
    ['{"a":"ends with backslash\\\\","b":"\\\\\\"","b":1}', ['b']],
    ['{"\\u0061":1,"a":2}', ['a']],
    ['{"k\\"q":1,"k\\"q":2}', ['k"q']],
    ['{"data":{"x":"' + 'y'.repeat(5000) + '","x":"z"}}', ['data.x']],
    ['{"items":[{"a":1},{"a":2}]}', []],
    ['{"items":[{"a":1,"a":2}]}', ['items[0].a']],
    ['{"s":"{\\"a\\":1,\\"a\\":2}"}', []],
    [' { "a" : 1 , "a" : 2 } ', ['a']],
  ];
  for (const [text, want] of cases) {
    it(`${text.length > 60 ? text.slice(0, 60) + '…' : text} → ${JSON.stringify(want)}`, () => {
      assert.deepEqual(findDuplicateKeys(text), want);
      // decodeBody counts keys first and runs the scan only when the counts disagree: same answer.
      assert.deepEqual(decodeBody(Buffer.from(text), 'application/json', { kind: 'ConfigMap', version: 'v1' }).duplicateFields, want);
    });
  }
});

describe('decodeBody on deeply nested JSON', () => {
  // JSON.parse accepts nesting far deeper than the call stack; the key count that follows must not overflow it.
  const depth = 200_000;
  const cases: [string, string, number][] = [
    ['arrays', '{"a":' + '['.repeat(depth) + ']'.repeat(depth) + '}', 1],
    ['objects', '{"a":' + '{"b":'.repeat(depth) + '1' + '}'.repeat(depth) + '}', depth + 1],
    ['arrays of objects', '{"a":' + '[{"b":'.repeat(depth) + '1' + '}]'.repeat(depth) + '}', depth + 1],
  ];
  for (const [what, text, keys] of cases) {
    it(`answers for ${depth} levels of ${what}`, () => {
      const decoded = decodeBody(Buffer.from(text), 'application/json', { kind: 'ConfigMap', version: 'v1' });
      assert.deepEqual(decoded.duplicateFields, []);
      let n = 0;
      let level: unknown = decoded.object;
      // Walk down the first key or item of each level: the whole depth survived decoding.
      while (typeof level === 'object' && level !== null) {
        level = Array.isArray(level) ? level[0] : Object.values(level)[0];
        n++;
      }
      assert.ok(n >= keys, `${what}: ${n} levels`);
    });
  }
});

describe('inDocumentOrder', () => {
  it('orders unknown fields where they stand and duplicates where they repeat', () => {
    const text = '{"metadata":{"name":"a","zz":1,"name":"b"},"unk":1,"data":{"x":"1","x":"2","x":"3"}}';
    const problems = ['duplicate field "metadata.name"', 'duplicate field "data.x"', 'duplicate field "data.x"', 'unknown field "metadata.zz"', 'unknown field "unk"'];
    assert.deepEqual(inDocumentOrder(text, problems), [
      'unknown field "metadata.zz"',
      'duplicate field "metadata.name"',
      'unknown field "unk"',
      'duplicate field "data.x"',
      'duplicate field "data.x"',
    ]);
  });
  it('keeps problems whose key it cannot find after the others, in their order', () => {
    assert.deepEqual(inDocumentOrder('{"a":1,"a":2}', ['unknown field "spec.gone"', 'duplicate field "a"']), ['duplicate field "a"', 'unknown field "spec.gone"']);
  });
});
