import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, findDuplicateKeys } from '../../../src/apiserver/http/body.js';

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
