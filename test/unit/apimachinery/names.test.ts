import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
} from '../../../src/apimachinery/validation/names.js';
import {
  generateName,
  MAX_GENERATED_NAME_LENGTH,
  RANDOM_ALPHABET,
  randomSuffix,
} from '../../../src/apimachinery/names/generate-name.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const qualifiedNameMsg =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const configKeyMsg =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

type Case = [string, string[]];

function table(name: string, fn: (v: string) => string[], cases: Case[]): void {
  describe(name, () => {
    for (const [value, expected] of cases) {
      const shown = value.length > 40 ? `${value.slice(0, 20)}…(${value.length})` : value;
      it(`${JSON.stringify(shown)} → ${expected.length ? expected.length + ' error(s)' : 'ok'}`, () => {
        assert.deepEqual(fn(value), expected);
      });
    }
  });
}

table('isDNS1123Subdomain', isDNS1123Subdomain, [
  ['example.com', []],
  ['a', []],
  ['0-a.b-9', []],
  ['a'.repeat(253), []],
  ['', [subdomainMsg]],
  ['Example', [subdomainMsg]],
  ['x_y', [subdomainMsg]],
  ['a.', [subdomainMsg]],
  ['-a', [subdomainMsg]],
  ['a..b', [subdomainMsg]],
  ['a'.repeat(254), ['must be no more than 253 characters']],
  ['A'.repeat(254), ['must be no more than 253 characters', subdomainMsg]],
  ['ü', [subdomainMsg]],
]);

table('isDNS1123Label', isDNS1123Label, [
  ['my-name', []],
  ['123-abc', []],
  ['a'.repeat(63), []],
  ['a.b', ['must not contain dots']],
  ['-a', [labelMsg]],
  ['A', [labelMsg]],
  ['', [labelMsg]],
  ['a'.repeat(64), ['must be no more than 63 characters']],
  [`${'a'.repeat(60)}.bcd`, ['must be no more than 63 characters', 'must not contain dots']],
]);

table('isDNS1035Label', isDNS1035Label, [
  ['abc-123', []],
  ['1abc', [dns1035Msg]],
]);

table('isQualifiedName', isQualifiedName, [
  ['MyName', []],
  ['my.name', []],
  ['123-abc', []],
  ['example.com/My_Name.1', []],
  ['a/b/c', [qualifiedNameMsg]],
  ['/a', ['prefix part must be non-empty']],
  ['Ex.com/a', [`prefix part ${subdomainMsg}`]],
  ['a/', ['name part must be non-empty', namePartMsg]],
  ['', ['name part must be non-empty', namePartMsg]],
  ['a'.repeat(64), ['name part must be no more than 63 characters']],
  ['-a', [namePartMsg]],
  ['/', ['prefix part must be non-empty', 'name part must be non-empty', namePartMsg]],
]);

table('isValidLabelValue', isValidLabelValue, [
  ['', []],
  ['MyValue', []],
  ['my_value', []],
  ['a b', [labelValueMsg]],
  ['a'.repeat(64), ['must be no more than 63 characters']],
  ['-'.repeat(64), ['must be no more than 63 characters', labelValueMsg]],
]);

table('isConfigMapKey', isConfigMapKey, [
  ['key.name', []],
  ['KEY_NAME', []],
  ['a b', [configKeyMsg]],
  ['.', ["must not be '.'"]],
  ['..', ["must not be '..'"]],
  ['..a', ["must not start with '..'"]],
]);

table('isValidPathSegmentName', isValidPathSegmentName, [
  ['system:admin', []],
  ['Any Thing', []],
  ['.', ["may not be '.'"]],
  ['..', ["may not be '..'"]],
  ['a/b%', ["may not contain '/'", "may not contain '%'"]],
]);

describe('name validators with generateName prefixes', () => {
  const cases: Array<[string, (n: string, p: boolean) => string[], string, boolean, string[]]> = [
    ['subdomain', nameIsDNSSubdomain, 'foo-', true, []],
    ['subdomain', nameIsDNSSubdomain, 'foo-', false, [subdomainMsg]],
    ['subdomain', nameIsDNSSubdomain, 'Foo-', true, [subdomainMsg]],
    ['label', nameIsDNSLabel, 'a-', true, []],
    ['label', nameIsDNSLabel, '-', true, [labelMsg]],
    // Upstream masks a trailing dash by dropping the last two characters and appending 'a': "a.-" is checked as "aa".
    ['label', nameIsDNSLabel, 'a.-', true, []],
    ['path', nameIsPathSegment, '..', true, []],
    ['path', nameIsPathSegment, '..', false, ["may not be '..'"]],
    ['path', nameIsPathSegment, 'a/', true, ["may not contain '/'"]],
  ];
  for (const [kind, fn, value, prefix, expected] of cases) {
    it(`${kind} ${JSON.stringify(value)} prefix=${prefix}`, () => assert.deepEqual(fn(value, prefix), expected));
  }
});

describe('generateName', () => {
  it('appends five characters from the vowel-free alphabet', () => {
    const name = generateName('web-');
    assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
  it('truncates long bases to 58 characters so the result is 63', () => {
    const name = generateName('a'.repeat(70), () => 'bbbbb');
    assert.equal(name, `${'a'.repeat(MAX_GENERATED_NAME_LENGTH)}bbbbb`);
    assert.equal(name.length, 63);
  });
  it('keeps a 58-character base whole', () => {
    assert.equal(generateName('c'.repeat(58), () => 'zzzzz').length, 63);
  });
  it('randomSuffix only uses the alphabet and varies', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const s = randomSuffix();
      assert.equal(s.length, 5);
      for (const ch of s) assert.ok(RANDOM_ALPHABET.includes(ch), ch);
      seen.add(s);
    }
    assert.ok(seen.size > 40);
  });
});
