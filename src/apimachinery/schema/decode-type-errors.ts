/**
 * The type errors Go's JSON decoding of a built-in kind reports (`json: cannot unmarshal number into Go struct field
 * ConfigMap.data of type string`): a value of the wrong JSON type where the Go struct has a string, bool, number,
 * byte slice, struct, slice or map. kube-apiserver refuses such a body with 400 before anything else; storing it
 * would break every typed client that later lists the object. metav1.Time and MicroTime are parsed as Go parses them,
 * resource.Quantity as ParseQuantity parses it; other fields with custom JSON decoding (durations, int-or-string, raw
 * JSON) are left to their own checks.
 */
import { isExactQuantity, quantityFormatError } from '../exact-quantity.js';
import { isPlainObject } from '../object.js';
import { type FieldType, type ScalarType, type TypeCatalog, fieldsByName } from './types.js';
import { resolveJSONSchemaUnion } from './unknown-fields.js';
import { RFC3339, RFC3339_MICRO, goTimeParseError } from './go-time.js';
import { GO_NAMED_FIELD_TYPES } from './builtin/go-named-types.js';

/**
 * How the value reaches the Go type: `json` is encoding/json decoding a body (create, update, and a JSON or merge
 * patch's result); `unstructured` is runtime.DefaultUnstructuredConverter.FromUnstructured, which a strategic merge
 * patch's result goes through (handlers/patch.go applyPatchToObject) and which words its errors differently
 * (`cannot convert int64 to string`) and walks struct fields in declaration order rather than document order.
 */
export type DecodeMode = 'json' | 'unstructured';

/** The first such error in document order (declaration order for `unstructured`), as Go words it, or undefined. */
export function firstDecodeTypeError(obj: unknown, catalog: TypeCatalog, typeName: string, mode: DecodeMode = 'json'): string | undefined {
  const saved: Saved = {};
  // encoding/json keeps the first type mismatch and goes on, but a custom UnmarshalJSON's error (a time that does not
  // parse) ends decoding at once and is what it reports, wherever it is.
  return checkStruct(obj, catalog, typeName, '', true, mode, saved) ?? saved.first;
}

/** The first type mismatch encoding/json saved while decoding went on (the walks return errors that end it). */
interface Saved {
  first?: string;
}

/**
 * Fields whose Go type is a named type rather than the scalar, slice or struct the catalog records, by Go struct and
 * JSON name: Go's message names that type (`of type v1.SecretType`, `of type types.UID`). The built-in kinds' come from
 * their Go types (builtin/go-named-types.ts); these are the CRD API's and a few the catalog records otherwise.
 */
const GO_NAMED_TYPES = new Map<string, string>([
  ...GO_NAMED_FIELD_TYPES,
  ['LeaseSpec.preferredHolder', 'string'],
  ['CustomResourceDefinitionSpec.scope', 'v1.ResourceScope'],
  ['CustomResourceConversion.strategy', 'v1.ConversionStrategyType'],
  ['CustomResourceDefinitionCondition.type', 'v1.CustomResourceDefinitionConditionType'],
  ['CustomResourceDefinitionCondition.status', 'v1.ConditionStatus'],
  ['JSONSchemaProps.definitions', 'v1.JSONSchemaDefinitions'],
  ['JSONSchemaProps.x-kubernetes-validations', 'v1.ValidationRules'],
  ['JSONSchemaProps.dependencies', 'v1.JSONSchemaDependencies'],
  ['JSONSchemaProps.$schema', 'v1.JSONSchemaURL'],
  ['JSONSchemaProps.enum', '[]v1.JSON'],
  ['ValidationRule.reason', 'v1.FieldValueErrorReason'],
  ['SelectableField.jsonPath', 'string'],
]);

/** The element type Go names for an item of a list or map field of Go type `goType` (`[]v1.Capability` → v1.Capability). */
function elementGoType(goType: string | undefined): string | undefined {
  if (goType === undefined) return undefined;
  if (goType.startsWith('[]')) return goType.slice(2);
  if (goType.startsWith('map[')) {
    let depth = 0;
    for (let i = 3; i < goType.length; i++) {
      if (goType[i] === '[') depth++;
      else if (goType[i] === ']' && --depth === 0) return goType.slice(i + 1);
    }
  }
  return undefined; // a named slice or map (v1.ResourceList): its items are named by the catalog's element type
}

// The types with their own JSON decoding are named too: a list or map of them held by the wrong JSON type is reported
// with them (`of type map[string]v1.Time`).
const goScalar: Partial<Record<ScalarType, string>> = {
  string: 'string', boolean: 'bool', int32: 'int32', int64: 'int64', double: 'float64', bytes: '[]uint8',
  time: 'v1.Time', microTime: 'v1.MicroTime', duration: 'v1.Duration', intOrString: 'intstr.IntOrString', quantity: 'resource.Quantity',
};

/** Go's name of a catalog type: the package's last segment and the type (`v1.ObjectMeta`). */
function goTypeName(typeName: string): string {
  const parts = typeName.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : typeName;
}

function goTypeOf(type: FieldType): string | undefined {
  if ('scalar' in type) return goScalar[type.scalar];
  if ('ref' in type) return goTypeName(type.ref);
  const inner = goTypeOf('list' in type ? type.list : type.map);
  if (inner === undefined) return undefined;
  return 'list' in type ? `[]${inner}` : `map[string]${inner}`;
}

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function checkStruct(value: unknown, catalog: TypeCatalog, typeName: string, path: string, root: boolean, mode: DecodeMode, saved: Saved): string | undefined {
  const t = catalog.get(resolveJSONSchemaUnion(typeName));
  if (!t || !isPlainObject(value) || resolveJSONSchemaUnion(typeName) !== typeName) return undefined;
  const struct = typeName.slice(typeName.lastIndexOf('.') + 1);
  const byName = fieldsByName(t);
  const keys = mode === 'json' ? Object.keys(value) : t.fields.map((f) => f.name).filter((k) => Object.prototype.hasOwnProperty.call(value, k));
  for (const k of keys) {
    if (root && (k === 'apiVersion' || k === 'kind')) continue;
    const f = byName.get(k);
    if (!f) continue;
    const p = path ? `${path}.${k}` : k;
    const err = mode === 'json' ? checkField(value[k], catalog, f.type, p, struct, saved) : checkUnstructured(value[k], catalog, f.type);
    if (err) return err;
  }
  return undefined;
}

/** `struct` is the innermost Go struct holding the field; Go names it with the whole JSON path from the root. */
function checkField(value: unknown, catalog: TypeCatalog, type: FieldType, path: string, struct: string, saved: Saved, named?: string | null): string | undefined {
  if (value === null || value === undefined) return undefined;
  // A mismatch is saved (the first one wins) and decoding skips the value: undefined tells the caller to go on.
  const mismatch = (what = jsonTypeOf(value)): undefined => {
    // `named`: the Go type an item of a named-type list or map has (null: none, the catalog's type names it).
    const goType = (named === undefined ? GO_NAMED_TYPES.get(`${struct}.${path.slice(path.lastIndexOf('.') + 1)}`) : (named ?? undefined)) ?? goTypeOf(type);
    if (goType !== undefined) saved.first ??= `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`;
    return undefined;
  };
  if ('scalar' in type) {
    if (type.scalar === 'time' || type.scalar === 'microTime') {
      // metav1.Time and MicroTime decode themselves: json.Unmarshal into a string, then time.Parse.
      // encoding/json adds the field's context to the *UnmarshalTypeError the custom decoder returns.
      if (typeof value !== 'string') return `json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ${struct}.${path} of type string`;
      return goTimeParseError(type.scalar === 'time' ? RFC3339 : RFC3339_MICRO, value);
    }
    switch (type.scalar) {
      case 'string':
        return typeof value === 'string' ? undefined : mismatch();
      case 'bytes': {
        // encoding/json decodes a []byte with base64.StdEncoding and saves its CorruptInputError as it is.
        if (typeof value !== 'string') return mismatch();
        const err = goBase64Error(value);
        if (err) saved.first ??= err;
        return undefined;
      }
      case 'boolean':
        return typeof value === 'boolean' ? undefined : mismatch();
      case 'int32':
      case 'int64':
        if (typeof value !== 'number') return mismatch();
        if (!Number.isInteger(value)) return mismatch(`number ${value}`);
        // strconv.ParseInt(text, 10, 32) fails for an int32 out of range. (An int64 out of range cannot be told from
        // the edge once JSON.parse made it a double.)
        return type.scalar === 'int32' && (value > 2147483647 || value < -2147483648) ? mismatch(`number ${value}`) : undefined;
      case 'double':
        return typeof value === 'number' ? undefined : mismatch();
      case 'quantity':
        // resource.Quantity decodes itself (UnmarshalJSON: the text, unquoted, through ParseQuantity), and its error
        // ends decoding as it is, without the field's context.
        return isExactQuantity(value) ? undefined : quantityFormatError;
      case 'intOrString': {
        // intstr.IntOrString.UnmarshalJSON: a JSON string is the string, anything else is json.Unmarshal'ed into an
        // int32, whose type error ends decoding and gets the field's context (`... maxSurge of type int32`).
        if (typeof value === 'string') return undefined;
        const what = typeof value === 'number' ? (Number.isInteger(value) && value <= 2147483647 && value >= -2147483648 ? undefined : `number ${value}`) : jsonTypeOf(value);
        return what === undefined ? undefined : `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type int32`;
      }
      default:
        return undefined; // other custom unmarshalers (duration, quantity, int-or-string, raw JSON, ...)
    }
  }
  if ('ref' in type) {
    if (resolveJSONSchemaUnion(type.ref) !== type.ref) {
      // JSONSchemaPropsOrBool.UnmarshalJSON takes an object or a boolean and ends decoding on anything else.
      if (type.ref.endsWith('.JSONSchemaPropsOrBool') && typeof value !== 'boolean' && !isPlainObject(value)) return 'boolean or JSON schema expected';
      return undefined;
    }
    if (!isPlainObject(value)) return catalog.has(type.ref) && !isCustomJson(catalog, type.ref) ? mismatch() : undefined;
    return checkStruct(value, catalog, type.ref, path, false, 'json', saved);
  }
  if ('list' in type) {
    if (!Array.isArray(value)) return mismatch();
    const itemType = itemGoType(named, struct, path);
    for (const item of value) {
      const err = checkField(item, catalog, type.list, path, struct, saved, itemType);
      if (err) return err;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return mismatch();
  const itemType = itemGoType(named, struct, path);
  for (const item of Object.values(value)) {
    const err = checkField(item, catalog, type.map, path, struct, saved, itemType);
    if (err) return err;
  }
  return undefined;
}

/** The Go type of the items of the list or map at `path` (see checkField's `named`). */
function itemGoType(named: string | null | undefined, struct: string, path: string): string | null {
  const own = named === undefined ? GO_NAMED_TYPES.get(`${struct}.${path.slice(path.lastIndexOf('.') + 1)}`) : (named ?? undefined);
  return elementGoType(own) ?? null;
}

/** Catalog types without fields are decoded by custom code (e.g. a JSON wrapper): not checked as structs. */
function isCustomJson(catalog: TypeCatalog, typeName: string): boolean {
  // An empty struct of its own (the status subresource's marker) still only decodes from an object.
  if (typeName.endsWith('.CustomResourceSubresourceStatus')) return false;
  return (catalog.get(typeName)?.fields.length ?? 0) === 0;
}

/** reflect's Kind name of a decoded JSON value (int64 for integral numbers, as the patch decoding keeps them). */
function unstructuredKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isPlainObject(v)) return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

const unstructuredScalarKind: Partial<Record<ScalarType, string>> = { string: 'string', boolean: 'bool', int32: 'int32', int64: 'int64', double: 'float64' };

/**
 * runtime.fromUnstructured's errors (apimachinery pkg/runtime/converter.go). Only Kinds are known here, not Go's named
 * types, so a field of a named string type (v1.ResourceName) is reported as `string`.
 */
function checkUnstructured(value: unknown, catalog: TypeCatalog, type: FieldType): string | undefined {
  if (value === null || value === undefined) return undefined;
  const st = unstructuredKind(value);
  if ('scalar' in type) {
    const dt = unstructuredScalarKind[type.scalar];
    if (dt !== undefined) {
      if (st === dt || (st === 'int64' && (dt === 'int32' || dt === 'float64'))) return undefined;
      // Go converts between integers and floats, and an integer to a string (a rune): the latter is refused.
      if (st === 'int64' && dt === 'string') return 'cannot convert int64 to string';
      if (st === 'float64' && (dt === 'int32' || dt === 'int64')) return Number.isInteger(value) ? undefined : `cannot convert float64 to ${dt}`;
      return `unrecognized type: ${dt}`;
    }
    if (type.scalar === 'bytes') {
      if (typeof value === 'string') return goBase64Error(value);
      if (!Array.isArray(value)) return `cannot restore slice from ${st}`;
      for (const item of value) {
        const k = unstructuredKind(item);
        if (item !== null && k !== 'int64' && k !== 'float64') return 'unrecognized type: uint8';
      }
      return undefined;
    }
    // Types with their own UnmarshalJSON are converted through JSON, with its errors.
    if (type.scalar === 'time' || type.scalar === 'microTime') return checkField(value, catalog, type, '', '', {});
    return undefined;
  }
  if ('ref' in type) {
    if (resolveJSONSchemaUnion(type.ref) !== type.ref || !catalog.has(type.ref) || isCustomJson(catalog, type.ref)) return undefined;
    if (!isPlainObject(value)) return `cannot restore struct from: ${st}`;
    return checkStruct(value, catalog, type.ref, '', false, 'unstructured', {});
  }
  if ('list' in type) {
    if (!Array.isArray(value)) return `cannot restore slice from ${st}`;
    for (const item of value) {
      const err = checkUnstructured(item, catalog, type.list);
      if (err) return err;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return `cannot restore map from ${st}`;
  for (const item of Object.values(value)) {
    const err = checkUnstructured(item, catalog, type.map);
    if (err) return err;
  }
  return undefined;
}

/**
 * base64.StdEncoding.Decode's error for `text` (as UTF-8 bytes), or undefined when it decodes: padding is required,
 * CR and LF are skipped, and the offset is Go's (decodeQuantum's CorruptInputError).
 */
export function goBase64Error(text: string): string | undefined {
  const src = Buffer.from(text, 'utf8');
  const corrupt = (n: number) => `illegal base64 data at input byte ${n}`;
  const isB64 = (c: number) =>
    (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
  const isNewline = (c: number | undefined) => c === 0x0a || c === 0x0d;
  let si = 0;
  while (si < src.length) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return corrupt(si - j); // padding is required
      }
      const c = src[si]!;
      si++;
      if (isB64(c)) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) return corrupt(si - 1);
      // '=': the end, with the right amount of padding and nothing after it.
      if (j === 0 || j === 1) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== 0x3d) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? corrupt(si) : undefined;
    }
  }
  return undefined;
}
