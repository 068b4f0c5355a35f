import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldPath, errorString } from '../../../src/apimachinery/field-errors.js';
import { validateLabelSelector } from '../../../src/apimachinery/validation/label-selector.js';
import { isWildcardDNS1123Subdomain } from '../../../src/apimachinery/validation/names.js';
import {
  cidrStrictlyContains,
  isValidPortName,
  parseCIDR,
  parseIP,
  validateFullyQualifiedDomainName,
  validateIPv4Address,
  validateIPv6Address,
  validateNonSpecialIP,
} from '../../../src/apimachinery/validation/network.js';

const messages = (errs: Parameters<typeof errorString>[0][]) => errs.map(errorString);

describe('network value validation (k8s.io/apimachinery pkg/util/validation)', () => {
  it('parses IPs as ParseIPSloppy does', () => {
    assert.deepEqual(parseIP('10.0.0.1'), [10, 0, 0, 1]);
    assert.deepEqual(parseIP('010.001.0.1'), [10, 1, 0, 1], 'leading zeros are accepted');
    assert.equal(parseIP('256.0.0.1'), undefined);
    assert.equal(parseIP('10.0.0'), undefined);
    assert.deepEqual(parseIP('::1'), [...new Array(15).fill(0), 1]);
    assert.deepEqual(parseIP('2001:db8::ff')?.slice(0, 4), [0x20, 0x01, 0x0d, 0xb8]);
    assert.deepEqual(parseIP('::ffff:10.1.2.3')?.slice(10), [255, 255, 10, 1, 2, 3]);
    for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', 'fe80::1%eth0', 'example.com', '']) assert.equal(parseIP(bad), undefined, bad);
  });

  it('tells IPv4 from IPv6 as To4 does', () => {
    assert.deepEqual(validateIPv4Address('::ffff:10.1.2.3', 'a'), []);
    assert.deepEqual(messages(validateIPv6Address('::ffff:10.1.2.3', 'a')), ['a: Invalid value: "::ffff:10.1.2.3": must be a valid IPv6 address']);
    assert.deepEqual(messages(validateIPv4Address('fd00::1', 'a')), ['a: Invalid value: "fd00::1": must be a valid IPv4 address']);
  });

  it('refuses unspecified, loopback and link-local addresses', () => {
    assert.deepEqual(messages(validateNonSpecialIP('0.0.0.0', 'ip')), ['ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
    assert.deepEqual(messages(validateNonSpecialIP('::1', 'ip')), ['ip: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
    assert.deepEqual(messages(validateNonSpecialIP('169.254.169.254', 'ip')), ['ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
    assert.deepEqual(messages(validateNonSpecialIP('ff02::2', 'ip')), ['ip: Invalid value: "ff02::2": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
    assert.deepEqual(validateNonSpecialIP('10.244.1.5', 'ip'), []);
  });

  it('checks CIDRs and strict sub-ranges', () => {
    const outer = parseCIDR('10.0.0.0/8')!;
    assert.ok(cidrStrictlyContains(outer, parseCIDR('10.1.0.0/16')!));
    assert.ok(!cidrStrictlyContains(outer, parseCIDR('10.0.0.0/8')!));
    assert.ok(!cidrStrictlyContains(outer, parseCIDR('192.168.0.0/16')!));
    assert.ok(cidrStrictlyContains(parseCIDR('2001:db8::/32')!, parseCIDR('2001:db8:1::/48')!));
    assert.equal(parseCIDR('10.0.0.0/33'), undefined);
    assert.equal(parseCIDR('10.0.0.0'), undefined);
  });

  it('names ports and domains with the upstream messages', () => {
    assert.deepEqual(isValidPortName('http'), []);
    assert.deepEqual(isValidPortName('-a--b'), ['must not contain consecutive hyphens', 'must not begin or end with a hyphen']);
    assert.deepEqual(isValidPortName('8080'), ['must contain at least one letter (a-z)']);
    assert.deepEqual(validateFullyQualifiedDomainName('db.example.com.', 'a'), []);
    assert.deepEqual(messages(validateFullyQualifiedDomainName('localhost', 'a')), ['a: Invalid value: "localhost": should be a domain with at least two segments separated by dots']);
    assert.deepEqual(isWildcardDNS1123Subdomain('*.example.com'), []);
    assert.deepEqual(isWildcardDNS1123Subdomain('a.*.example.com'), [
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
  });
});

describe('validateLabelSelector (metav1 validation)', () => {
  const at = FieldPath.root('spec').child('selector');
  it('accepts selectors and absent ones', () => {
    assert.deepEqual(validateLabelSelector(undefined, at), []);
    assert.deepEqual(validateLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, at), []);
  });

  it('reports operators, values and keys', () => {
    const errs = validateLabelSelector(
      {
        matchExpressions: [
          { key: 'a', operator: 'In' },
          { key: 'b', operator: 'Exists', values: ['x'] },
          { key: 'c/d/e', operator: 'Gt', values: ['!'] },
        ],
      },
      at,
    );
    const expected = [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator',
      'spec.selector.matchExpressions[2].key: Invalid value: "c/d/e": a qualified name must consist of alphanumeric characters',
      'spec.selector.matchExpressions[2].values[0]: Invalid value: "!": a valid label must be an empty string or consist of',
    ];
    const got = messages(errs);
    assert.equal(got.length, expected.length, got.join('\n'));
    expected.forEach((prefix, i) => assert.ok(got[i]!.startsWith(prefix), `${got[i]} should start with ${prefix}`));
  });
});
