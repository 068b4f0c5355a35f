/**
 * The type check an apply configuration passes before it is merged (structured-merge-diff typed/validate.go, run by
 * the type converter's ObjectToTyped): scalars of the declared kind, objects and lists where they are declared, no
 * undeclared fields in closed structs, and the items of set and map lists identifiable and unique. The messages are
 * smd's, with Go's renderings of the offending values (numbers are float64, as sigs.k8s.io/yaml decodes them).
 *
 * Deliberate difference: Go iterates an object's fields in random order, so with several errors upstream's order (and,
 * after an undeclared field, which later siblings are still checked) varies; atrium walks the configuration in order.
 * Key fields with schema defaults (a port's protocol) are not defaulted when naming list items.
 */
import { formatGoFloat, goFormatValue, goSharpV } from '../../apimachinery/go-fmt.js';
import { isObjectValue, type SsaType } from './schema.js';

interface ValidationError {
  path: string;
  message: string;
}

/** The error text of the problems found in `value` typed `t` ('' when it is valid), as ValidationErrors.Error(). */
export function configurationTypeErrors(value: unknown, t: SsaType): string {
  const errs = validate(value, t);
  const text = errs.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message));
  if (text.length === 0) return '';
  if (text.length === 1) return text[0]!;
  return ['errors:', ...text.map((e) => `  ${e}`)].join('\n');
}

function prefixed(errs: ValidationError[], prefix: string): ValidationError[] {
  for (const e of errs) e.path = prefix + e.path;
  return errs;
}

function err(message: string): ValidationError[] {
  return [{ path: '', message }];
}

function validate(v: unknown, t: SsaType): ValidationError[] {
  if (t.kind === 'deduced' || v === null || v === undefined) return [];
  switch (t.kind) {
    case 'scalar':
      return validateScalar(v, t.scalar);
    case 'struct':
    case 'map': {
      if (!isObjectValue(v)) return err(`expected map, got ${goV(v)}`);
      const errs: ValidationError[] = [];
      for (const key of Object.keys(v)) {
        let child: SsaType | undefined;
        if (t.kind === 'map') child = t.values;
        else {
          child = t.field(key);
          if (child === undefined) {
            // smd stops walking the object at an undeclared field.
            if (t.closed) {
              errs.push(...prefixed(err('field not declared in schema'), `.${key}`));
              break;
            }
            continue;
          }
        }
        errs.push(...prefixed(validate(v[key], child), `.${key}`));
      }
      return errs;
    }
    case 'list': {
      if (!Array.isArray(v)) return err(`expected list, got ${goV(v)}`);
      const errs: ValidationError[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        let pe: string;
        if (t.listType === 'atomic') pe = `[${i}]`;
        else {
          const named = t.listType === 'map' ? keyElement(item, t.keys) : valueElement(item);
          if ('error' in named) {
            errs.push(...err(`element ${i}: ${named.error}`));
            return errs;
          }
          pe = named.pe;
          if (seen.has(pe)) errs.push(...err(`duplicate entries for key ${pe}`));
          seen.add(pe);
        }
        errs.push(...prefixed(validate(item, t.items), pe));
      }
      return errs;
    }
  }
}

function validateScalar(v: unknown, kind: string | undefined): ValidationError[] {
  const isScalar = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  switch (kind) {
    case 'numeric':
      return typeof v === 'number' ? [] : err(`expected numeric (int or float), got ${goType(v)}`);
    case 'string':
      return typeof v === 'string' ? [] : err(`expected string, got &value.valueUnstructured{Value:${goSharpV(v, 'float64')}}`);
    case 'boolean':
      return typeof v === 'boolean' ? [] : err(`expected boolean, got ${goV(v)}`);
    case 'untyped':
      return isScalar ? [] : err(`expected any scalar, got ${goV(v)}`);
    default:
      return [];
  }
}

/** The `[k=v,...]` path element of a map-list item, keys sorted by name. */
function keyElement(item: unknown, keys: readonly string[]): { pe: string } | { error: string } {
  if (item === null || item === undefined) return { error: 'associative list with keys may not have a null element' };
  if (!isObjectValue(item)) return { error: 'associative list with keys may not have non-map elements' };
  const present = keys.filter((k) => Object.hasOwn(item, k));
  if (keys.length > 0 && present.length === 0) {
    return {
      error: `associative list with keys has an element that omits all key fields [${keys.map((k) => JSON.stringify(k)).join(' ')}] (and doesn't have default values for any key fields)`,
    };
  }
  present.sort();
  return { pe: `[${present.map((k) => `${k}=${toString(item[k])}`).join(',')}]` };
}

function valueElement(item: unknown): { pe: string } | { error: string } {
  if (isObjectValue(item)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
  if (item === null || item === undefined) return { error: "associative list without keys has an element that's an explicit null" };
  return { pe: `[=${toString(item)}]` };
}

/** smd value.ToString. */
function toString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return formatGoFloat(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(toString).join(',')}]`;
  if (isObjectValue(v)) return Object.keys(v).map((k) => `${k}=${toString(v[k])}`).join('');
  return '{{undefined}}';
}

/** Go's `%v` of a *valueUnstructured: `&{...}` around the `%v` of what it holds. */
function goV(v: unknown): string {
  return `&{${goFormatValue(v, 'float64')}}`;
}

/** Go's `%T` of a decoded JSON value. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObjectValue(v)) return 'map[string]interface {}';
  return 'float64';
}
