/**
 * Value validation of custom resources against the OpenAPI v3 schema, reproducing kube-openapi's validator and the
 * way apiextensions-apiserver turns its results into field errors (validation.go kubeOpenAPIResultToFieldErrors):
 * `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.
 *
 * Each keyword applies by the kind of the data, as in kube-openapi: a type mismatch is reported once and the
 * keywords of the other kinds stay silent. Every error is collected.
 */
import {
  type FieldError,
  type FieldPath,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from '../../apimachinery/field-errors.js';
import { formatGoFloat } from '../../apimachinery/go-fmt.js';
import { type JSONSchemaProps, additionalPropertiesSchema, itemsSchema } from './json-schema-props.js';
import { checkFormat, supportedFormat } from './formats.js';
import { compilePattern } from './pattern.js';
import { jsonEqual } from './json-equal.js';

/** An error as kube-openapi produces it: `name` is the dotted data path, `message` its full text. */
interface RawError {
  code: 'required' | 'enum' | 'tooLong' | 'maxItems' | 'tooManyProperties' | 'invalidType' | 'other' | 'composite';
  name: string;
  message: string;
  value?: unknown;
  values?: unknown[];
  actual?: number;
  max?: number;
}

const IN = 'body';

/** The JSON type name kube-openapi detects for a decoded value (integers are integral numbers). */
export function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'bigint':
      return 'integer';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

const quote = (s: string): string => JSON.stringify(s);

/**
 * The kube-openapi data path of the value being validated, kept as a stack of segments so the walk allocates no
 * strings: the dotted text (`spec.items[0].name`) is only rendered when an error needs it. Property keys join with
 * `.` except at the root; additionalProperties keys always get a `.` (so a root map key reads `.key`, which
 * toFieldErrors strips), list indexes render as `[i]`.
 */
class DataPath {
  private readonly segments: (string | number)[] = [];
  private readonly alwaysDot: boolean[] = [];
  private cached: string | undefined = '';

  push(segment: string | number, alwaysDot = false): void {
    this.segments.push(segment);
    this.alwaysDot.push(alwaysDot);
    this.cached = undefined;
  }

  pop(): void {
    this.segments.pop();
    this.alwaysDot.pop();
    this.cached = undefined;
  }

  text(): string {
    if (this.cached !== undefined) return this.cached;
    let out = '';
    for (let i = 0; i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      if (typeof seg === 'number') out += `[${seg}]`;
      else if (out === '' && !this.alwaysDot[i]) out = seg;
      else out += `.${seg}`;
    }
    this.cached = out;
    return out;
  }
}

/** A schema node prepared once: regex compiled, sub-schemas compiled, format normalised. */
export class CompiledValueSchema {
  private readonly types: string[];
  private readonly format?: string;
  private readonly normalizedFormat?: string;
  private readonly pattern?: RegExp;
  private readonly patternError?: string;
  private readonly items?: CompiledValueSchema;
  private readonly properties?: [string, CompiledValueSchema][];
  private readonly propertyNames?: Set<string>;
  private readonly additional?: CompiledValueSchema;
  private readonly allOf?: CompiledValueSchema[];
  private readonly anyOf?: CompiledValueSchema[];
  private readonly oneOf?: CompiledValueSchema[];
  private readonly not?: CompiledValueSchema;
  private readonly hasComposition: boolean;
  /** Which keyword groups this node has at all, so the walk skips the checks that cannot fire. */
  private readonly hasStringChecks: boolean;
  private readonly hasNumberChecks: boolean;
  private readonly hasObjectCounts: boolean;
  private readonly hasNumberType: boolean;
  private readonly quick?: (data: unknown) => boolean;
  /** Set when the schema says nothing but `type`: valid exactly when the data has that type (see matchesTypeOnly). */
  private readonly typeOnly?: string;

  constructor(readonly schema: JSONSchemaProps) {
    const s = schema;
    this.types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
    this.normalizedFormat = supportedFormat(s.format);
    if (this.normalizedFormat) this.format = s.format;
    if (s.pattern !== undefined) {
      const c = compilePattern(s.pattern);
      if (c.regex) this.pattern = c.regex;
      else this.patternError = c.error;
    }
    const items = itemsSchema(s);
    if (items) this.items = compileValueSchema(items);
    if (s.properties) {
      this.properties = Object.entries(s.properties).map(([k, v]) => [k, compileValueSchema(v)]);
      this.propertyNames = new Set(Object.keys(s.properties));
    }
    const ap = additionalPropertiesSchema(s);
    if (ap) this.additional = compileValueSchema(ap);
    if (s.allOf?.length) this.allOf = s.allOf.map(compileValueSchema);
    if (s.anyOf?.length) this.anyOf = s.anyOf.map(compileValueSchema);
    if (s.oneOf?.length) this.oneOf = s.oneOf.map(compileValueSchema);
    if (s.not) this.not = compileValueSchema(s.not);
    this.hasComposition = !!(this.allOf || this.anyOf || this.oneOf || this.not);
    this.hasStringChecks = s.maxLength !== undefined || s.minLength !== undefined || s.pattern !== undefined || !!this.normalizedFormat;
    this.hasNumberChecks = s.multipleOf !== undefined || s.maximum !== undefined || s.minimum !== undefined;
    this.hasObjectCounts = s.minProperties !== undefined || s.maxProperties !== undefined;
    this.hasNumberType = this.types.includes('number');
    const keys = Object.keys(s).filter((k) => k !== 'description' && k !== 'title');
    if (keys.length === 1 && keys[0] === 'type' && s.type) this.typeOnly = s.type;
    this.quick = quickAcceptor(s);
  }

  /**
   * True when `data` certainly passes this (leaf) schema, decided without a path push or the general walk: most of
   * an object's fields are strings under a maxLength or integers within bounds. False means "run the full check".
   */
  quickAccepts(data: unknown): boolean {
    return this.quick !== undefined && this.quick(data);
  }

  /** Validates `data` found at kube-openapi path `path`, appending raw errors. */
  run(data: unknown, path: DataPath, out: RawError[]): void {
    if (data === null || data === undefined) {
      this.checkType(null, 'null', path, out);
      this.checkEnum(null, path, out);
      return;
    }
    const kind = jsonTypeOf(data);
    this.checkType(data, kind, path, out);
    if (this.hasComposition) this.checkComposition(data, path, out);
    if (kind === 'string') {
      if (this.hasStringChecks) this.checkString(data as string, path, out);
    } else if (kind === 'integer' || kind === 'number') {
      if (this.hasNumberChecks) this.checkNumber(data as number, kind === 'integer', path, out);
    } else if (kind === 'array') this.checkArray(data as unknown[], path, out);
    if (this.schema.enum) this.checkEnum(data, path, out);
    if (kind === 'object') this.checkObject(data as Record<string, unknown>, path, out);
  }

  /** True when this schema is a bare `type` and `data` has it, i.e. run(data) would report nothing. */
  matchesTypeOnly(data: unknown): boolean {
    if (this.typeOnly === undefined || data === null || data === undefined) return false;
    const t = jsonTypeOf(data);
    return t === this.typeOnly || (t === 'integer' && this.typeOnly === 'number');
  }

  /** `schType` is jsonTypeOf(data). */
  private checkType(data: unknown, schType: string, path: DataPath, out: RawError[]): void {
    const s = this.schema;
    if (this.types.length === 0 && !this.format) return;
    if (data === null) {
      if (this.types.length > 0 && !s.nullable) out.push(typeError(path.text(), this.types.join(','), 'null'));
      return;
    }
    // The common case: one declared type, matched, no format.
    if (!this.format && this.types.length === 1 && this.types[0] === schType) return;
    const isString = schType === 'string';
    const isSlice = schType === 'array';
    // The Go decoder yields int64 or float64; kube-openapi compares the schema format against those names.
    const goFormat = schType === 'integer' ? 'int64' : schType === 'number' ? 'float64' : '';
    const isIntFloat = schType === 'integer' && this.hasNumberType;
    if (!isString && !isSlice && this.format && !(this.types.includes(schType) || goFormat === this.format || isIntFloat)) {
      out.push(typeError(path.text(), this.format, goFormat));
      return;
    }
    if (!(this.types.includes('number') || this.types.includes('integer')) && this.format && (isString || isSlice)) return;
    if (!(this.types.includes(schType) || isIntFloat)) out.push(typeError(path.text(), this.types.join(','), schType));
  }

  private checkComposition(data: unknown, path: DataPath, out: RawError[]): void {
    // int-or-string and similar anyOf lists of bare types: when one branch matches by type alone, no error texts
    // need building for the others.
    if (this.anyOf && this.anyOf.some((sub) => sub.matchesTypeOnly(data))) {
      // satisfied
    } else if (this.anyOf) {
      let best: RawError[] | undefined;
      let ok = false;
      for (const sub of this.anyOf) {
        const r: RawError[] = [];
        sub.run(data, path, r);
        if (r.length === 0) {
          ok = true;
          break;
        }
        if (!best || r.length < best.length) best = r;
      }
      if (!ok) {
        out.push(composite(`${quote(path.text())} must validate at least one schema (anyOf)`));
        out.push(...best!);
      }
    }
    if (this.oneOf) {
      let best: RawError[] | undefined;
      let validated = 0;
      for (const sub of this.oneOf) {
        const r: RawError[] = [];
        sub.run(data, path, r);
        if (r.length === 0) validated++;
        else if (validated === 0 && (!best || r.length < best.length)) best = r;
      }
      if (validated !== 1) {
        const extra = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
        out.push(composite(`${quote(path.text())} must validate one and only one schema (oneOf). ${extra}`));
        if (validated === 0 && best) out.push(...best);
      }
    }
    if (this.allOf) {
      let validated = 0;
      for (const sub of this.allOf) {
        const r: RawError[] = [];
        sub.run(data, path, r);
        if (r.length === 0) validated++;
        out.push(...r);
      }
      if (validated !== this.allOf.length) {
        out.push(composite(`${quote(path.text())} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
      }
    }
    if (this.not) {
      const r: RawError[] = [];
      this.not.run(data, path, r);
      if (r.length === 0) out.push(composite(`${quote(path.text())} must not validate the schema (not)`));
    }
  }

  private checkString(data: string, path: DataPath, out: RawError[]): void {
    const s = this.schema;
    // Lengths count Unicode code points, like utf8.RuneCountInString.
    // Lengths count code points; a string has at most data.length of them and at least half as many, so most
    // strings are settled without counting.
    let counted: number | undefined;
    const length = () => (counted ??= countCodePoints(data));
    if (s.maxLength !== undefined && data.length > s.maxLength && length() > s.maxLength) {
      out.push({ code: 'tooLong', name: path.text(), max: s.maxLength, value: data, message: `${path.text()} in ${IN} should be at most ${s.maxLength} chars long` });
    }
    if (s.minLength !== undefined && data.length < 2 * s.minLength && length() < s.minLength) {
      out.push({ code: 'other', name: path.text(), value: data, message: `${path.text()} in ${IN} should be at least ${s.minLength} chars long` });
    }
    if (s.pattern !== undefined) {
      if (this.patternError !== undefined) {
        out.push({ code: 'other', name: path.text(), value: data, message: `${path.text()} in ${IN} should match '${s.pattern}, but pattern is invalid: ${this.patternError}'` });
      } else if (!this.pattern!.test(data)) {
        out.push({ code: 'other', name: path.text(), value: data, message: `${path.text()} in ${IN} should match '${s.pattern}'` });
      }
    }
    if (this.normalizedFormat && !checkFormat(this.normalizedFormat, data)) {
      out.push({ code: 'invalidType', name: path.text(), value: data, message: `${path.text()} in ${IN} must be of type ${this.format}: ${quote(data)}` });
    }
  }

  private checkNumber(data: number, isInt: boolean, path: DataPath, out: RawError[]): void {
    const s = this.schema;
    const integerSchema = this.types.length === 1 && this.types[0] === 'integer';
    // kube-openapi compares integers against integer bounds (truncated) unless the bound is not an integer
    // while the schema type is integer; then both sides are compared as floats.
    const intPath = (bound: number) => isInt && !(integerSchema && !Number.isInteger(bound));
    const show = (bound: number) => (intPath(bound) ? String(Math.trunc(bound)) : formatGoFloat(bound));
    if (s.multipleOf !== undefined) {
      const factor = intPath(s.multipleOf) ? Math.trunc(s.multipleOf) : s.multipleOf;
      if (factor <= 0) {
        out.push({ code: 'other', name: path.text(), value: factor, message: `factor MultipleOf declared for ${path.text()} must be positive: ${show(s.multipleOf)}` });
      } else if (!isMultiple(data, factor)) {
        out.push({ code: 'other', name: path.text(), value: data, message: `${path.text()} in ${IN} should be a multiple of ${show(s.multipleOf)}` });
      }
    }
    if (s.maximum !== undefined) {
      const max = intPath(s.maximum) ? Math.trunc(s.maximum) : s.maximum;
      if (s.exclusiveMaximum ? data >= max : data > max) {
        const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
        out.push({ code: 'other', name: path.text(), value: data, message: `${path.text()} in ${IN} should be ${rel} ${show(s.maximum)}` });
      }
    }
    if (s.minimum !== undefined) {
      const min = intPath(s.minimum) ? Math.trunc(s.minimum) : s.minimum;
      if (s.exclusiveMinimum ? data <= min : data < min) {
        const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
        out.push({ code: 'other', name: path.text(), value: data, message: `${path.text()} in ${IN} should be ${rel} ${show(s.minimum)}` });
      }
    }
  }

  private checkArray(data: unknown[], path: DataPath, out: RawError[]): void {
    const s = this.schema;
    if (this.items) {
      for (let i = 0; i < data.length; i++) {
        if (this.items.quickAccepts(data[i])) continue;
        path.push(i);
        this.items.run(data[i], path, out);
        path.pop();
      }
    }
    if (s.minItems !== undefined && data.length < s.minItems) {
      out.push({ code: 'other', name: path.text(), value: data.length, message: `${path.text()} in ${IN} should have at least ${s.minItems} items` });
    }
    if (s.maxItems !== undefined && data.length > s.maxItems) {
      out.push({ code: 'maxItems', name: path.text(), actual: data.length, max: s.maxItems, message: `${path.text()} in ${IN} should have at most ${s.maxItems} items` });
    }
    if (s.uniqueItems && hasDuplicates(data)) out.push({ code: 'other', name: path.text(), message: `${path.text()} in ${IN} shouldn't contain duplicates` });
  }

  private checkEnum(data: unknown, path: DataPath, out: RawError[]): void {
    const values = this.schema.enum;
    if (!values || values.length === 0) return;
    if (data !== null && values.some((v) => jsonEqual(v, data))) return;
    out.push({ code: 'enum', name: path.text(), value: data, values, message: `${path.text()} in ${IN} should be one of ${values.map(String).join(' ')}` });
  }

  private checkObject(data: Record<string, unknown>, path: DataPath, out: RawError[]): void {
    const s = this.schema;
    const keys = this.hasObjectCounts || s.additionalProperties === false || this.additional ? Object.keys(data) : [];
    if (s.minProperties !== undefined && keys.length < s.minProperties) {
      out.push({ code: 'other', name: path.text(), value: keys.length, message: `${path.text()} in ${IN} should have at least ${s.minProperties} properties` });
    }
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
      out.push({
        code: 'tooManyProperties',
        name: path.text(),
        actual: keys.length,
        max: s.maxProperties,
        message: `${path.text()} in ${IN} should have at most ${s.maxProperties} properties`,
      });
    }
    if (s.additionalProperties === false) {
      for (const k of keys) {
        if (!this.propertyNames?.has(k)) out.push({ code: 'other', name: path.text(), value: k, message: `${path.text()}.${k} in ${IN} is a forbidden property` });
      }
    } else if (this.additional) {
      for (const k of keys) {
        if (this.propertyNames?.has(k)) continue;
        if (this.additional.quickAccepts(data[k])) continue;
        path.push(k, true);
        this.additional.run(data[k], path, out);
        path.pop();
      }
    }
    if (this.properties) {
      for (const [k, sub] of this.properties) {
        if (!(k in data)) continue;
        if (sub.quickAccepts(data[k])) continue;
        path.push(k);
        sub.run(data[k], path, out);
        path.pop();
      }
    }
    for (const k of s.required ?? []) {
      if (!(k in data)) out.push({ code: 'required', name: `${path.text()}.${k}`, message: `${path.text()}.${k} in ${IN} is required` });
    }
  }
}

function typeError(name: string, expected: string, actual: string): RawError {
  return { code: 'invalidType', name, value: actual, message: `${name} in ${IN} must be of type ${expected}: ${quote(actual)}` };
}

function composite(message: string): RawError {
  return { code: 'composite', name: '', message };
}

function countCodePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

function isMultiple(data: number, factor: number): boolean {
  if (Number.isInteger(data) && Number.isInteger(factor)) return data % factor === 0;
  const mult = factor < 1 ? (1 / factor) * data : data / factor;
  return Math.abs(mult - Math.round(mult)) < 1e-9 * Math.max(1, Math.abs(mult));
}

function hasDuplicates(data: unknown[]): boolean {
  for (let i = 1; i < data.length; i++) for (let j = 0; j < i; j++) if (jsonEqual(data[i], data[j])) return true;
  return false;
}

/** Keywords that change nothing run() checks on a non-null string or integer (annotations, and what CEL, list-type and
 * defaulting handle elsewhere). */
const INERT_KEYWORDS = new Set(['description', 'title', 'default', 'example', 'externalDocs', 'nullable', 'x-kubernetes-validations']);

/** The quick acceptance test for a leaf schema (see CompiledValueSchema.quickAccepts), when it has one. */
function quickAcceptor(s: JSONSchemaProps): ((data: unknown) => boolean) | undefined {
  const rest = Object.keys(s).filter((k) => !INERT_KEYWORDS.has(k));
  const only = (allowed: string[]) => rest.every((k) => allowed.includes(k));
  // A closed set of strings: the value must be one of them.
  if (s.type === 'string' && only(['type', 'enum']) && s.enum?.length && s.enum.every((v) => typeof v === 'string')) {
    const values = new Set(s.enum as string[]);
    return (d) => typeof d === 'string' && values.has(d);
  }
  // IntOrString as Kubernetes writes it: any integer or any string passes both the type and the anyOf.
  if (
    s['x-kubernetes-int-or-string'] === true &&
    only(['x-kubernetes-int-or-string', 'anyOf']) &&
    s.anyOf?.length === 2 &&
    s.anyOf.every((b) => Object.keys(b).length === 1 && (b.type === 'integer' || b.type === 'string')) &&
    s.anyOf[0]!.type !== s.anyOf[1]!.type
  ) {
    return (d) => typeof d === 'string' || (typeof d === 'number' && Number.isInteger(d));
  }
  if (s.type === 'string' && only(['type', 'maxLength', 'minLength'])) {
    const max = s.maxLength;
    const min = s.minLength;
    // A string has at most .length code points and at least half as many: settled without counting, or not at all.
    return (d) => typeof d === 'string' && (max === undefined || d.length <= max) && (min === undefined || d.length >= 2 * min);
  }
  if (s.type === 'integer' && only(['type', 'minimum', 'maximum'])) {
    const max = s.maximum;
    const min = s.minimum;
    return (d) => typeof d === 'number' && Number.isInteger(d) && (max === undefined || d <= max) && (min === undefined || d >= min);
  }
  if (s.type === 'boolean' && only(['type'])) return (d) => typeof d === 'boolean';
  return undefined;
}

const compiled = new WeakMap<JSONSchemaProps, CompiledValueSchema>();

/** Compiles (once per schema object) the value validator for `schema`. */
export function compileValueSchema(schema: JSONSchemaProps): CompiledValueSchema {
  let c = compiled.get(schema);
  if (!c) {
    c = new CompiledValueSchema(schema);
    compiled.set(schema, c);
  }
  return c;
}

/** Renders an enum entry as upstream lists supported values: strings as they are, anything else as JSON. */
function enumText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Turns kube-openapi errors into field errors under `base`, as kubeOpenAPIResultToFieldErrors does. */
function toFieldErrors(raw: RawError[], base: FieldPath): FieldError[] {
  const baseText = base.toString();
  return raw.map((e) => {
    const name = e.name.startsWith('.') ? e.name.slice(1) : e.name;
    const path = e.code === 'composite' || e.name === '' || e.name === '.' ? baseText : base.child(name).toString();
    switch (e.code) {
      case 'required':
        return required(path);
      case 'enum':
        return notSupported(path, e.value, (e.values ?? []).map(enumText));
      case 'tooLong':
        return tooLong(path, '', e.max!);
      case 'maxItems':
      case 'tooManyProperties':
        return tooMany(path, e.actual!, e.max!);
      case 'invalidType':
        return typeInvalid(path, e.value ?? '', e.message);
      case 'composite':
        return invalid(path, '', e.message);
      default:
        return invalid(path, e.value ?? '', e.message);
    }
  });
}

/**
 * Validates a decoded value against an OpenAPI v3 schema and returns every error, with field paths rooted at
 * `base` (use `FieldPath.root()` for a whole custom resource). Messages name the data path relative to the schema
 * root, exactly like upstream: `spec.replicas in body must be of type integer: "string"`.
 */
export function validateValue(obj: unknown, schema: JSONSchemaProps | CompiledValueSchema, base: FieldPath): FieldError[] {
  const c = schema instanceof CompiledValueSchema ? schema : compileValueSchema(schema);
  const raw: RawError[] = [];
  c.run(obj, new DataPath(), raw);
  return toFieldErrors(raw, base);
}
