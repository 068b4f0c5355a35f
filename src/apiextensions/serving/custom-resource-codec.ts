/**
 * The codec of a custom resource version: objects decode as unstructured, then the version's structural schema prunes
 * what it does not declare and fills in defaults (the CR codec's schema pipeline). The main resource's bodies and its
 * /status bodies are the custom resource itself; a subresource of another kind (Scale) is not. On top of that, the
 * built-in codec of the kind's definition name decodes as a Go type would where the catalog has that type (always for
 * the Scale view).
 */
import type { KubeObject } from '../../apimachinery/object.js';
import type { ResourceCodec, SubresourceStrategy } from '../../registry/rest.js';
import type { CompiledSchema } from '../schema/compile.js';

export function customResourceCodec(schema: CompiledSchema, typed: ResourceCodec, subresourceStrategies: Record<string, SubresourceStrategy>): ResourceCodec {
  const bySchema = (subresource: string): boolean => !subresourceStrategies[subresource]?.view;
  return {
    decodeError: (obj, subresource) => typed.decodeError(obj, subresource),
    decodeFields(obj: KubeObject, subresource, opts) {
      let pruned: string[] = [];
      if (bySchema(subresource)) {
        pruned = schema.prune(obj);
        if (opts?.withDefaults ?? true) schema.applyDefaults(obj);
      }
      return [...typed.decodeFields(obj, subresource, opts), ...pruned];
    },
    applyDefaults(obj, subresource) {
      if (bySchema(subresource)) schema.applyDefaults(obj);
    },
    decodePatched: (patched, original, patchType, subresource) => typed.decodePatched(patched, original, patchType, subresource),
    strategicMergePatchSchema: (subresource) => typed.strategicMergePatchSchema(subresource),
    // Unstructured: only the metadata is coerced through ObjectMeta.
    roundTrip: (obj, check) => typed.roundTrip?.(obj, check) ?? false,
  };
}
