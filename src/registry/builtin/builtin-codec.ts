/**
 * The codec of a kind whose Go type is in the built-in type catalog: request objects are checked as decoding into the
 * Go type checks them (a value of the wrong JSON type, fields the type does not declare, a patch result of another
 * kind). A kind missing from the catalog is decoded as it comes. Custom resources build on it (their Scale view, and a
 * CRD whose kind has a catalogued definition name).
 */
import { groupVersionString } from '../../apimachinery/api-resource.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { builtinCatalog, builtinProtobufHints } from '../../apimachinery/schema/builtin/index.js';
import { META_V1 } from '../../apimachinery/schema/builtin/field-types.js';
import { firstDecodeTypeError } from '../../apimachinery/schema/decode-type-errors.js';
import { decodeAsGo, roundTripAsGo } from '../../apimachinery/schema/omit-empty.js';
import { canonicalizeQuantities } from '../../apimachinery/schema/quantities.js';
import { dropUnknownFields } from '../../apimachinery/schema/unknown-fields.js';
import { unknownFieldsOf } from '../../apimachinery/schema/unknown-fields.js';
import type { ResourceCodec, SubresourceStrategy } from '../rest.js';

const OBJECT_META = `${META_V1}.ObjectMeta`;

/**
 * An unstructured object's metadata is still decoded through the Go ObjectMeta (for custom resources,
 * apiextensions' schemaobjectmeta Coerce on every decode): its empty omitempty lists and maps (labels, annotations,
 * finalizers, ownerReferences) are dropped, while the rest of the object keeps its empty values.
 */
function coerceObjectMeta(obj: KubeObject, check?: boolean): boolean {
  return roundTripAsGo(obj.metadata, builtinCatalog, OBJECT_META, builtinProtobufHints.emitZero, check);
}

/**
 * `definitionName` is the kind's OpenAPI definition name; a subresource with a view (Scale) is patched as the view's
 * kind. Subresource bodies are not checked for type errors or unknown fields.
 *
 * `typedRoundTrip`: the kind is a Go type upstream, so what it stores loses its empty omitempty lists and maps as the
 * Go round trip does (roundTrip, omit-empty.ts). Unset for custom resources, which are unstructured upstream even
 * when their definition name is catalogued, and for kinds upstream serves as custom resources (kcp's): only their
 * metadata is coerced (coerceObjectMeta).
 */
export function builtinCodec(
  definitionName: string,
  subresourceStrategies: Record<string, SubresourceStrategy>,
  defaults?: (obj: KubeObject) => void,
  typedRoundTrip = false,
): ResourceCodec {
  const catalogued = (typeName: string | undefined): typeName is string => typeName !== undefined && builtinCatalog.has(typeName);
  /** The type a patch applies to: a subresource with its own kind (Scale) is patched in that form. */
  const patchedTypeOf = (subresource: string): string => {
    const sub = subresource ? subresourceStrategies[subresource] : undefined;
    return sub?.view ? (sub.viewDefinitionName ?? definitionName) : definitionName;
  };
  const bodyTypeOf = (subresource: string): string | undefined => (!subresource || subresourceStrategies[subresource]?.decodedAsParent ? definitionName : undefined);
  return {
    strictErrorsInDocumentOrder: true,
    typedList: true,
    // Go's decoding of a built-in kind fails on a value of the wrong JSON type, before any field validation (metadata
    // that is not an object included: `json: cannot unmarshal string into Go struct field ConfigMap.metadata ...`).
    decodeError(obj, subresource) {
      const typeName = bodyTypeOf(subresource);
      return catalogued(typeName) ? firstDecodeTypeError(obj, builtinCatalog, typeName) : undefined;
    },
    // Unknown fields go, as decoding into the Go type drops them: they are never stored.
    decodeFields(obj, subresource, opts) {
      const typeName = bodyTypeOf(subresource);
      if (!catalogued(typeName)) return [];
      // decodedAs has obj's fields in another order: without unknown fields there, there are none to drop.
      const unknown = unknownFieldsOf(opts?.decodedAs ?? obj, builtinCatalog, typeName);
      if (unknown.length) dropUnknownFields(obj, builtinCatalog, typeName);
      // Quantities come out of decoding in their canonical text (`.5` → `500m`).
      canonicalizeQuantities(obj, builtinCatalog, typeName);
      if (opts?.withDefaults ?? true) defaults?.(obj);
      return unknown;
    },
    // The kind's SetDefaults functions run as the body is decoded, before managedFields are recorded: the writer owns
    // what defaulting added, as upstream's decoder defaults (and the canonical quantities decoding makes).
    applyDefaults(obj, subresource) {
      const typeName = bodyTypeOf(subresource);
      if (!catalogued(typeName)) return;
      canonicalizeQuantities(obj, builtinCatalog, typeName);
      defaults?.(obj);
    },
    decodeAsGo(obj) {
      if (typedRoundTrip && catalogued(definitionName)) decodeAsGo(obj, builtinCatalog, definitionName, builtinProtobufHints.emitZero);
    },
    roundTrip(obj, check) {
      if (typedRoundTrip && catalogued(definitionName)) return roundTripAsGo(obj, builtinCatalog, definitionName, builtinProtobufHints.emitZero, check);
      return coerceObjectMeta(obj, check);
    },
    // The result is decoded into the Go type before anything else looks at it: a value of the wrong type, or an
    // apiVersion or kind that does not name the type, fails (JSON and merge patches through the JSON serializer, a
    // strategic merge patch through the unstructured converter, hence their own wordings).
    decodePatched(patched, original, patchType, subresource) {
      const typeName = patchedTypeOf(subresource);
      if (!catalogued(typeName)) return undefined;
      const gvkError = patchType === 'strategic' ? stringTypeMetaError(patched) : patchedKindError(patched, original);
      if (gvkError) return gvkError;
      // JSON decoding defaults a missing apiVersion or kind from the type decoded into; a strategic merge patch's
      // result is converted into a new object of the resource's own type, whatever it says.
      if (patchType === 'strategic') {
        patched.apiVersion = original.apiVersion;
        patched.kind = original.kind;
      }
      patched.apiVersion ||= original.apiVersion;
      patched.kind ||= original.kind;
      return firstDecodeTypeError(patched, builtinCatalog, typeName, patchType === 'strategic' ? 'unstructured' : 'json');
    },
    strategicMergePatchSchema: (subresource) => ({ catalog: builtinCatalog, typeName: patchedTypeOf(subresource) }),
  };
}

/** The unstructured converter's error for a non-string apiVersion or kind (TypeMeta's string fields). */
function stringTypeMetaError(patched: KubeObject): string | undefined {
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = patched[field];
    if (v === undefined || v === null || typeof v === 'string') continue;
    return typeof v === 'number' && Number.isInteger(v) ? 'cannot convert int64 to string' : 'unrecognized type: string';
  }
  return undefined;
}

/**
 * Why the JSON serializer cannot decode a patch result into the resource's type because of its apiVersion or kind
 * (runtime/serializer/json Decode): a non-string one fails reading them, a missing one is defaulted from the type,
 * and a pair naming another type fails as not registered (or, for a registered type, as a conversion atrium does not
 * have). Every built-in kind is reported in kube-apiserver's legacy scheme, as most of them are upstream.
 */
function patchedKindError(patched: KubeObject, original: KubeObject): string | undefined {
  for (const field of ['apiVersion', 'kind'] as const) {
    const v = patched[field];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      const what = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : 'number';
      return `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go struct field .${field} of type string`;
    }
  }
  const apiVersion = (patched.apiVersion as string | undefined) || original.apiVersion || '';
  const kind = (patched.kind as string | undefined) || original.kind || '';
  if (apiVersion === original.apiVersion && kind === original.kind) return undefined;
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const registered = [...builtinCatalog.values()].find((t) => t.gvk?.some((g) => g.group === group && g.version === version && g.kind === kind));
  if (!registered) {
    return `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`;
  }
  const target = [...builtinCatalog.values()].find((t) => t.gvk?.some((g) => groupVersionString(g.group, g.version) === original.apiVersion && g.kind === original.kind));
  const pkg = (name: string, back: number) => name.split('.').at(-back) ?? '';
  return `converting (${pkg(registered.name, 2)}.${kind}) to (${target ? pkg(target.name, 3) : ''}.${original.kind}): unknown conversion`;
}
