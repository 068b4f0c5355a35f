/**
 * Renders decoded JSON values the way Go's fmt package prints the `map[string]interface{}` /
 * `[]interface{}` trees that apimachinery's patch code works on. kube-apiserver puts these renderings
 * into error messages (e.g. `map: map[name:x] does not contain declared merge key: uid`), so matching
 * them keeps atrium's error texts identical.
 *
 * Numbers follow kube-apiserver's decoding: integral values are int64, everything else float64.
 */

import { isJsonObject } from './json-value.js';

/** Go's `%v` of a decoded JSON value: `map[a:1 b:[x y]]`, `[1 2]`, `<nil>`, strings unquoted. Map keys are sorted, as fmt does. */
export function goFormatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormatValue).join(' ')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormatValue(value[k])}`).join(' ')}]`;
  }
  if (typeof value === 'number') return goFormatNumber(value);
  return String(value);
}

/** Go's `%s` of a decoded JSON value: strings verbatim, anything else as fmt's `%!s(type=value)` complaint. */
export function goFormatString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'number' || typeof value === 'boolean') return `%!s(${goTypeName(value)}=${goFormatValue(value)})`;
  return goFormatValue(value);
}

/** `reflect.TypeOf(v).String()` for a decoded JSON value; `%!s(<nil>)` for null, which is what `%s` prints for a nil Type. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isJsonObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

function goFormatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  // Go's %v switches to exponent form below 1e-4 (JS waits until 1e-7) and pads the exponent to two digits.
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}
