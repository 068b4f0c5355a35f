/**
 * Field-level validation errors, as k8s.io/apimachinery/pkg/util/validation/field reports them. Validators
 * collect every error into a list; the registry rejects once with a single 422 Status built from the list.
 */
import { formatGoDecodedNumber } from './go-fmt.js';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotFound'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value, printed in the message for Invalid/NotSupported/Duplicate/etc. */
  value?: unknown;
  detail?: string;
  /** When true, the value is not printed (e.g. "Too long" with a big blob). */
  omitValue?: boolean;
  /** The value as printed, when it is not the default rendering (Go prints a typed struct with %#v). */
  renderedValue?: string;
}

export const required = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const invalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, value, detail });
export const forbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail, omitValue: true });
export const duplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value });
export const notFound = (field: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field, value });
export const notSupported = (field: string, value: unknown, supported: string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  value,
  detail: supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '',
});
export const tooLong = (field: string, value: unknown, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  value,
  detail: `may not be more than ${max} bytes`,
  omitValue: true,
});
export const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field,
  value: actual,
  detail: `must have at most ${max} items`,
});
export const typeInvalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, value, detail });

const typeText: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotFound: 'Not found',
  InternalError: 'Internal error',
};

/** Renders a value the way Go's field.Error does: strings quoted, numbers and bools bare, objects as "object". */
function renderValue(v: unknown): string {
  // Go prints a nil bad value as the quoted string "null".
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return JSON.stringify(v);
  // JSON.parse reads int64's largest value, 9223372036854775807, as the double 2^63: in a field's error it is that
  // integer that was sent (2^63 itself overflows int64 and is refused before validation).
  if (v === 2 ** 63) return '9223372036854775807';
  if (typeof v === 'number' || typeof v === 'bigint') return formatGoDecodedNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '"array"';
  return '"object"';
}

/** The cause message without the field prefix: `Invalid value: "X": detail`. */
export function errorBody(e: FieldError): string {
  let s = typeText[e.type];
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      break;
    default:
      if (!e.omitValue) s += `: ${e.renderedValue ?? renderValue(e.value)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `field: body`, as in the aggregated 422 message. */
export function errorString(e: FieldError): string {
  return e.field ? `${e.field}: ${errorBody(e)}` : errorBody(e);
}

/** Joins a path the way field.Path.String() does: `spec.containers[0].name`, `metadata.labels[app]`. */
export class FieldPath {
  private constructor(private readonly parts: string[]) {}
  static root(name = ''): FieldPath {
    return new FieldPath(name ? [name] : []);
  }
  child(name: string): FieldPath {
    return new FieldPath([...this.parts, this.parts.length ? `.${name}` : name]);
  }
  index(i: number): FieldPath {
    return new FieldPath([...this.parts, `[${i}]`]);
  }
  key(k: string): FieldPath {
    return new FieldPath([...this.parts, `[${k}]`]);
  }
  toString(): string {
    return this.parts.join('');
  }
}
