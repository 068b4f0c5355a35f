import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatLabelSelector,
  fromLabelSelector,
  LabelSelector,
  LabelSelectorParseError,
  parseLabelSelector,
  parseToLabelSelectorSpec,
} from '../../../src/apimachinery/labels/selector.js';

const qualifiedNameMsg =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('parseLabelSelector: accepted syntax and canonical string', () => {
  const cases: Array<[string, string]> = [
    ['', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['z=c,a=b', 'a=b,z=c'],
    ['  x = a ,\ty != b ', 'x=a,y!=b'],
    ['x==a', 'x==a'],
    ['x in (a, b)', 'x in (a,b)'],
    ['x notin (b,a,b)', 'x notin (a,b)'],
    ['x', 'x'],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x<10', 'x<10'],
    ['x in ()', 'x in ()'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x=', 'x='],
    ['x= ,z= ', 'x=,z='],
    ['x>1,z<5', 'x>1,z<5'],
    ['in=a', 'in=a'],
    ['x in (in,notin)', 'x in (in,notin)'],
    // Sorted by key, not by printed text: "example.com/app" < "tier".
    ['!tier,example.com/app=web', 'example.com/app=web,!tier'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(parseLabelSelector(input).toString(), expected);
    });
  }

  it('an empty selector matches everything', () => {
    const s = parseLabelSelector('');
    assert.equal(s.isEmpty(), true);
    assert.equal(s.matches({}), true);
    assert.equal(s.matches(undefined), true);
  });
});

describe('parseLabelSelector: exact upstream error texts', () => {
  const cases: Array<[string, string]> = [
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x=a,', "found '', expected: identifier after ','"],
    [',x=a', "found ',', expected: !, identifier, or 'end of string'"],
    ['x!', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a/b/c=d', `unable to parse requirement: <nil>: Invalid value: "a/b/c": ${qualifiedNameMsg}`],
    ['-x', `unable to parse requirement: <nil>: Invalid value: "-x": ${namePartMsg}`],
    ['x=a@b', `unable to parse requirement: values[0][x]: Invalid value: "a@b": ${labelValueMsg}`],
    ['x>a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    // A negative bound is an integer but not a valid label value, so upstream rejects it too.
    ['x<-1', `unable to parse requirement: values[0][x]: Invalid value: "-1": ${labelValueMsg}`],
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      'x in (b@,a@)',
      `unable to parse requirement: [values[0][x]: Invalid value: "a@": ${labelValueMsg}, values[1][x]: Invalid value: "b@": ${labelValueMsg}]`,
    ],
    [
      `x=${'a'.repeat(64)}`,
      `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
    ],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(
        () => parseLabelSelector(input),
        (e: unknown) => e instanceof LabelSelectorParseError && e.message === message,
        `expected ${message}`,
      );
    });
  }
});

describe('LabelSelector.matches', () => {
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ['x=a', { x: 'a' }, true],
    ['x=a', { x: 'b' }, false],
    ['x=a', {}, false],
    ['x==a', { x: 'a' }, true],
    ['x!=a', {}, true],
    ['x!=a', { x: 'a' }, false],
    ['x!=a', { x: 'b' }, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x notin (a)', {}, true],
    ['x notin (a)', { x: 'a' }, false],
    ['x', { x: '' }, true],
    ['x', { y: 'x' }, false],
    ['!x', { x: '' }, false],
    ['!x', {}, true],
    ['x>5', { x: '6' }, true],
    ['x>5', { x: '5' }, false],
    ['x>5', { x: 'abc' }, false],
    ['x>5', {}, false],
    ['x<5', { x: '-3' }, true],
    ['x<5', { x: '+4' }, true],
    ['x>9223372036854775806', { x: '9223372036854775807' }, true],
    ['x<5', { x: '99999999999999999999' }, false],
    ['x=a,y', { x: 'a', y: 'z' }, true],
    ['x=a,y', { x: 'a' }, false],
    ['x=', { x: '' }, true],
    ['x in ()', { x: '' }, true],
    ['toString', { toString: 'x' }, true],
    ['toString', {}, false],
  ];
  for (const [selector, labels, expected] of cases) {
    it(`${selector} on ${JSON.stringify(labels)} → ${expected}`, () => {
      assert.equal(parseLabelSelector(selector).matches(labels), expected);
    });
  }
});

describe('LabelSelector.requiresExactMatch', () => {
  const s = parseLabelSelector('a=b,c in (d),e in (f,g),h!=i,j==k');
  const cases: Array<[string, string | undefined]> = [
    ['a', 'b'],
    ['c', 'd'],
    ['e', undefined],
    ['h', undefined],
    ['j', 'k'],
    ['z', undefined],
  ];
  for (const [key, expected] of cases) {
    it(`${key} → ${expected}`, () => assert.equal(s.requiresExactMatch(key), expected));
  }
});

describe('fromLabelSelector (metav1.LabelSelector)', () => {
  it('null is Nothing: matches no object', () => {
    const s = fromLabelSelector(null);
    assert.equal(s.isNothing(), true);
    assert.equal(s.matches({}), false);
    assert.equal(s.toString(), '');
  });
  it('an empty selector is Everything', () => {
    const s = fromLabelSelector({});
    assert.equal(s.isEmpty(), true);
    assert.equal(s.matches({ a: 'b' }), true);
  });
  it('combines matchLabels and every operator, sorted by key', () => {
    const s = fromLabelSelector({
      matchLabels: { z: 'y', a: 'b' },
      matchExpressions: [
        { key: 'c', operator: 'In', values: ['e', 'd'] },
        { key: 'f', operator: 'DoesNotExist' },
        { key: 'g', operator: 'Exists' },
        { key: 'h', operator: 'NotIn', values: ['i'] },
      ],
    });
    assert.equal(s.toString(), 'a=b,c in (d,e),!f,g,h notin (i),z=y');
    assert.equal(s.matches({ a: 'b', c: 'e', g: '1', z: 'y' }), true);
    assert.equal(s.matches({ a: 'b', c: 'e', g: '1', z: 'y', f: '' }), false);
    assert.equal(s.matches({ a: 'b', c: 'e', g: '1', z: 'y', h: 'i' }), false);
    assert.equal(s.matches({ a: 'b', c: 'x', g: '1', z: 'y' }), false);
  });
  const errorCases: Array<[string, Parameters<typeof fromLabelSelector>[0], string]> = [
    ['unknown operator', { matchExpressions: [{ key: 'a', operator: 'Foo' }] }, '"Foo" is not a valid label selector operator'],
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    ],
    ['bad matchLabels key', { matchLabels: { 'a/b/c': 'x' } }, `key: Invalid value: "a/b/c": ${qualifiedNameMsg}`],
    [
      'bad key and value together',
      { matchLabels: { '-a': 'b c' } },
      `[key: Invalid value: "-a": ${namePartMsg}, values[0][-a]: Invalid value: "b c": ${labelValueMsg}]`,
    ],
  ];
  for (const [name, spec, message] of errorCases) {
    it(`rejects ${name}`, () => {
      assert.throws(() => fromLabelSelector(spec), (e: unknown) => e instanceof LabelSelectorParseError && e.message === message);
    });
  }
  it('formatLabelSelector prints <none> and <error>', () => {
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({ matchLabels: { app: 'web' } }), 'app=web');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bad' }] }), '<error>');
  });
  it('LabelSelector.everything and nothing differ', () => {
    assert.equal(LabelSelector.everything().matches({}), true);
    assert.equal(LabelSelector.nothing().matches({}), false);
  });
});

describe('parseToLabelSelectorSpec (metav1.ParseToLabelSelector)', () => {
  it('puts equalities in matchLabels and set-based requirements in matchExpressions, in the order written', () => {
    assert.deepEqual(parseToLabelSelectorSpec('name=root'), { matchLabels: { name: 'root' } });
    assert.deepEqual(parseToLabelSelectorSpec('tier in (b,a),region==eu,!legacy,gpu'), {
      matchLabels: { region: 'eu' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'gpu', operator: 'Exists' },
      ],
    });
    assert.deepEqual(parseToLabelSelectorSpec('zone notin (z1)'), { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['z1'] }] });
    assert.deepEqual(parseToLabelSelectorSpec(''), {});
  });

  it('refuses what a LabelSelector cannot say, with upstream\'s messages', () => {
    assert.throws(() => parseToLabelSelectorSpec('name!=root'), { message: '"!=" isn\'t supported in label selectors' });
    assert.throws(() => parseToLabelSelectorSpec('cores>4'), { message: '"gt" isn\'t supported in label selectors' });
    assert.throws(() => parseToLabelSelectorSpec('bad==selector=='), { message: 'couldn\'t parse the selector string "bad==selector==": found \'==\', expected: \',\' or \'end of string\'' });
  });
});
