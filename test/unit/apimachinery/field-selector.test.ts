import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  escapeValue,
  FieldLabelNotSupportedError,
  FieldSelectorParseError,
  parseFieldSelector,
  unescapeValue,
} from '../../../src/apimachinery/fields/selector.js';
import {
  builtinFieldLabels,
  convertFieldLabels,
  customResourceFieldLabels,
} from '../../../src/apimachinery/fields/field-labels.js';

describe('parseFieldSelector: accepted syntax and canonical string', () => {
  const cases: Array<[string, string, Array<[string, string, boolean]>]> = [
    ['', '', []],
    ['a=b', 'a=b', [['a', 'b', false]]],
    ['a==b', 'a=b', [['a', 'b', false]]],
    ['a!=b', 'a!=b', [['a', 'b', true]]],
    ['b=1,a=2', 'a=2,b=1', [['a', '2', false], ['b', '1', false]]],
    ['a=b\\,c', 'a=b\\,c', [['a', 'b,c', false]]],
    ['a=x\\=y', 'a=x\\=y', [['a', 'x=y', false]]],
    ['a=b\\\\', 'a=b\\\\', [['a', 'b\\', false]]],
    ['a=b,,c=d', 'a=b,c=d', [['a', 'b', false], ['c', 'd', false]]],
    ['=', '', []],
    ['a=', 'a=', [['a', '', false]]],
    ['a = b', 'a = b', [['a ', ' b', false]]],
  ];
  for (const [input, printed, terms] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(printed)}`, () => {
      const s = parseFieldSelector(input);
      assert.equal(s.toString(), printed);
      assert.deepEqual(
        s.terms.map((t) => [t.field, t.value, t.negated]),
        terms,
      );
    });
  }
});

describe('parseFieldSelector: exact upstream error texts', () => {
  const cases: Array<[string, string]> = [
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['metadata.name!=foo=bar', 'invalid field selector: unescaped character in value: 61'],
    ['x!==y', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(() => parseFieldSelector(input), (e: unknown) => e instanceof FieldSelectorParseError && e.message === message);
    });
  }
});

describe('escapeValue / unescapeValue', () => {
  const cases: Array<[string, string]> = [
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['ünï,cøde', 'ünï\\,cøde'],
  ];
  for (const [raw, escaped] of cases) {
    it(`${JSON.stringify(raw)} ⇄ ${JSON.stringify(escaped)}`, () => {
      assert.equal(escapeValue(raw), escaped);
      assert.equal(unescapeValue(escaped), raw);
    });
  }
});

describe('FieldSelector.matches and requiresExactMatch', () => {
  const fields = { 'metadata.name': 'x', 'metadata.namespace': 'ns', 'status.phase': 'Active' };
  const cases: Array<[string, boolean]> = [
    ['metadata.name=x', true],
    ['metadata.name==x', true],
    ['metadata.name=y', false],
    ['metadata.name!=x', false],
    ['metadata.name!=y', true],
    ['metadata.name=x,metadata.namespace=ns', true],
    ['metadata.name=x,metadata.namespace=other', false],
    ['spec.missing!=v', true],
    ['spec.missing=', true],
    ['spec.missing=v', false],
    ['', true],
  ];
  for (const [selector, expected] of cases) {
    it(`${selector} → ${expected}`, () => {
      const s = parseFieldSelector(selector);
      assert.equal(s.matches(fields), expected);
      assert.equal(s.matches((f) => (fields as Record<string, string>)[f]), expected);
    });
  }
  it('requiresExactMatch only for equality terms', () => {
    const s = parseFieldSelector('metadata.name=x,metadata.namespace!=y');
    assert.equal(s.requiresExactMatch('metadata.name'), 'x');
    assert.equal(s.requiresExactMatch('metadata.namespace'), undefined);
    assert.equal(s.requiresExactMatch('other'), undefined);
  });
});

describe('convertFieldLabels: supported labels per kind', () => {
  const cases: Array<[string, string, string, string, string | Error]> = [
    ['', 'ConfigMap', 'metadata.name=a', 'metadata.name=a', ''],
    ['', 'ConfigMap', 'foo=bar', '', new Error('"foo" is not a known field selector: only "metadata.name", "metadata.namespace"')],
    ['rbac.authorization.k8s.io', 'Role', 'metadata.namespace=x', 'metadata.namespace=x', ''],
    ['', 'Secret', 'type=Opaque', 'type=Opaque', ''],
    ['', 'Secret', 'foo=bar', '', new Error('field label not supported: foo')],
    ['', 'Secret', 'z=1,a=2', '', new Error('field label not supported: a')],
    ['', 'Namespace', 'status.phase=Active', 'status.phase=Active', ''],
    ['', 'Namespace', 'metadata.namespace=x', '', new Error('field label not supported: metadata.namespace')],
    ['', 'Event', 'involvedObject.name=p,reason=Started', 'involvedObject.name=p,reason=Started', ''],
    ['', 'Event', 'regarding.name=p', '', new Error('field label not supported: regarding.name')],
    ['events.k8s.io', 'Event', 'regarding.name=p,reportingController=c', 'involvedObject.name=p,reportingComponent=c', ''],
    ['events.k8s.io', 'Event', 'involvedObject.name=p', '', new Error('field label not supported: involvedObject.name')],
    ['certificates.k8s.io', 'CertificateSigningRequest', 'spec.signerName=example.com/x,metadata.name=a', 'metadata.name=a,spec.signerName=example.com/x', ''],
    ['certificates.k8s.io', 'CertificateSigningRequest', 'metadata.namespace=x', '', new Error('field label not supported: metadata.namespace')],
  ];
  for (const [group, kind, selector, converted, error] of cases) {
    it(`${group || 'core'}/${kind}: ${selector}`, () => {
      const support = builtinFieldLabels(group, kind);
      if (error instanceof Error) {
        assert.throws(
          () => convertFieldLabels(parseFieldSelector(selector), support),
          (e: unknown) => e instanceof FieldLabelNotSupportedError && e.message === error.message,
        );
      } else {
        assert.equal(convertFieldLabels(parseFieldSelector(selector), support).toString(), converted);
      }
    });
  }

  it('custom resources: selectableFields, and metadata.namespace only when namespaced', () => {
    const namespaced = customResourceFieldLabels(['.spec.color'], true);
    assert.equal(convertFieldLabels(parseFieldSelector('spec.color=red,metadata.namespace=a'), namespaced).toString(), 'metadata.namespace=a,spec.color=red');
    const cluster = customResourceFieldLabels(['.spec.color'], false);
    assert.throws(
      () => convertFieldLabels(parseFieldSelector('metadata.namespace=a'), cluster),
      (e: unknown) => e instanceof FieldLabelNotSupportedError && e.message === 'field label not supported: metadata.namespace',
    );
    assert.throws(
      () => convertFieldLabels(parseFieldSelector('spec.size=1'), namespaced),
      (e: unknown) => e instanceof FieldLabelNotSupportedError && e.message === 'field label not supported: spec.size',
    );
  });
});
