/**
 * Go's `%s` and type names of the decoded JSON values that apimachinery's patch code works on, for its error messages
 * (`unknown patch type: %!s(int64=1) in map: ...`). Their `%v` is goFormatValue (apimachinery/go-fmt.ts); numbers
 * follow kube-apiserver's decoding: integral values are int64, everything else float64.
 */

import { goFormatValue } from '../apimachinery/go-fmt.js';
import { isJsonObject } from './json-value.js';

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
