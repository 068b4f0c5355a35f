/**
 * Go's renderings of numbers and decoded JSON values, for error texts that must read as kube-apiserver's do.
 *
 * Numbers: Go has two behaviours that matter here, one function each.
 * - formatGoFloat: strconv.FormatFloat(f, 'g', -1, 64), which is also fmt's `%v` and `%#v` of a float64: exponent form
 *   when the decimal exponent is < -4 or >= 6 (shortest precision fixes the threshold at 6, ftoa.go), with at least
 *   two exponent digits: `1e+06`, `1.2345675e+06`, `1e-05`, `0.0001`.
 * - formatGoDecodedNumber: `%v` of a JSON number as apimachinery's decoding (util/json, sigs.k8s.io/json) holds it: an
 *   int64 when integral and in range (plain digits), else a float64 (formatGoFloat).
 * encoding/json's own float output (exponent only below 1e-6 or from 1e21, `1e-7`) is what JavaScript's
 * Number-to-string gives already, so JSON.stringify needs no counterpart here.
 */
import { isPlainObject } from './object.js';

/** How a decoder typed the numbers of a value: apimachinery's JSON (int64 or float64) or YAML-via-JSON (float64 only). */
export type GoNumbers = 'int64-or-float64' | 'float64';

const INT64_LIMIT = 2 ** 63;

/** strconv.FormatFloat(f, 'g', -1, 64), i.e. fmt's `%v` of a float64. */
export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // toExponential() without digits is the shortest round-trip form, as Go's shortest formatting.
  const [mant, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp >= -4 && exp < 6) return String(f);
  const abs = Math.abs(exp);
  return `${mant}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
}

/** fmt's `%v` of a decoded JSON number: int64 when integral and in int64's range, float64 otherwise. */
export function formatGoDecodedNumber(n: number | bigint): string {
  if (typeof n === 'bigint') return n.toString();
  if (Number.isInteger(n) && n >= -INT64_LIMIT && n < INT64_LIMIT) return Object.is(n, -0) ? '0' : n.toFixed(0);
  return formatGoFloat(n);
}

function formatNumber(n: number | bigint, numbers: GoNumbers): string {
  return numbers === 'float64' && typeof n === 'number' ? formatGoFloat(n) : formatGoDecodedNumber(n);
}

/**
 * fmt's `%v` of a decoded JSON value (`map[string]interface{}` / `[]interface{}` trees): `map[a:1 b:[x y]]`, `[1 2]`,
 * `<nil>`, strings unquoted; map keys sorted, as fmt prints maps.
 */
export function goFormatValue(value: unknown, numbers: GoNumbers = 'int64-or-float64'): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number' || typeof value === 'bigint') return formatNumber(value, numbers);
  if (Array.isArray(value)) return `[${value.map((v) => goFormatValue(v, numbers)).join(' ')}]`;
  if (isPlainObject(value)) {
    return `map[${Object.keys(value).sort().map((k) => `${k}:${goFormatValue(value[k], numbers)}`).join(' ')}]`;
  }
  return String(value);
}

/**
 * fmt's `%#v` of a decoded JSON value held in an interface{}: `map[string]interface {}{"a":1}`,
 * `[]interface {}{"x", 2}`, `interface {}(nil)`, strings quoted.
 */
export function goSharpV(value: unknown, numbers: GoNumbers = 'int64-or-float64'): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'number' || typeof value === 'bigint') return formatNumber(value, numbers);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goSharpV(v, numbers)).join(', ')}}`;
  if (isPlainObject(value)) {
    return `map[string]interface {}{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${goSharpV(value[k], numbers)}`).join(', ')}}`;
  }
  return String(value);
}
