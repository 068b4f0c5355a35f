import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGoDecodedNumber, formatGoFloat, goFormatValue, goSharpV } from '../../../src/apimachinery/go-fmt.js';

// Expected texts are the Go toolchain's (fmt.Sprintf("%v"/"%#v"), strconv.FormatFloat(f, 'g', -1, 64)).

test("formatGoFloat is strconv.FormatFloat(f, 'g', -1, 64): exponent below 1e-4 and from 1e6", () => {
  const cases: [number, string][] = [
    [1, '1'],
    [1.5, '1.5'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [1234567.5, '1.2345675e+06'],
    [1e20, '1e+20'],
    [1e21, '1e+21'],
    [1e100, '1e+100'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5e-5, '-2.5e-05'],
    [1.5e-7, '1.5e-07'],
    [0, '0'],
    [-0, '-0'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
  ];
  assert.deepEqual(cases.map(([f]) => formatGoFloat(f)), cases.map(([, want]) => want));
});

test('formatGoDecodedNumber: int64 when integral and in range, float64 otherwise', () => {
  assert.equal(formatGoDecodedNumber(1000000), '1000000');
  assert.equal(formatGoDecodedNumber(1e18), '1000000000000000000');
  assert.equal(formatGoDecodedNumber(2 ** 63), '9.223372036854776e+18');
  assert.equal(formatGoDecodedNumber(1000000.5), '1.0000005e+06');
  assert.equal(formatGoDecodedNumber(0.00001), '1e-05');
  assert.equal(formatGoDecodedNumber(12345678901234567890n), '12345678901234567890');
});

test('goFormatValue and goSharpV render decoded JSON like %v and %#v', () => {
  const v = { b: [1, 'x', null], a: 1e6, c: { d: true } };
  assert.equal(goFormatValue(v), 'map[a:1000000 b:[1 x <nil>] c:map[d:true]]');
  assert.equal(goFormatValue(v, 'float64'), 'map[a:1e+06 b:[1 x <nil>] c:map[d:true]]');
  assert.equal(goSharpV({ a: 1.5, b: 'x' }), 'map[string]interface {}{"a":1.5, "b":"x"}');
  assert.equal(goSharpV([1e6, null], 'float64'), '[]interface {}{1e+06, interface {}(nil)}');
});
