import type { APISubresourceDescriptor } from '../../apimachinery/api-resource.js';
import type { ResourceDefinition, Strategy, SubresourceStrategy } from '../rest.js';
import { metaOf } from '../../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta.js';
import { printerFor } from '../../apimachinery/table/builtin-printers.js';
import { builtinCodec } from './builtin-codec.js';

export const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular?: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  /** OpenAPI definition name, e.g. io.k8s.api.core.v1.ConfigMap. */
  definitionName: string;
  strategy?: Partial<Strategy>;
  subresources?: (APISubresourceDescriptor & { strategy?: SubresourceStrategy })[];
}

/**
 * Builds a built-in ResourceDefinition with Kubernetes defaults: all verbs, SMP accepted, core-type update rules, the
 * Go type's codec and the kind's table printer.
 */
export function defineBuiltin(spec: BuiltinSpec): ResourceDefinition {
  const subresourceStrategies: Record<string, SubresourceStrategy> = {};
  for (const s of spec.subresources ?? []) if (s.strategy) subresourceStrategies[s.name] = s.strategy;
  return {
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    singular: spec.singular ?? spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    verbs: spec.verbs ?? standardVerbs,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    subresources: (spec.subresources ?? []).map(({ strategy: _s, ...d }) => d),
    definitionName: spec.definitionName,
    strategicMergePatch: true,
    strategy: {
      nameValidation: 'subdomain',
      allowUnconditionalUpdate: true,
      allowCreateOnUpdate: false,
      tracksGeneration: false,
      ...spec.strategy,
    },
    subresourceStrategies,
    codec: builtinCodec(spec.definitionName, subresourceStrategies),
    tableConvertor: printerFor(spec.group, spec.resource),
  };
}

/** A status subresource: only .status changes (plus metadata the caller may not touch anyway). */
export const statusOnly: SubresourceStrategy = {
  apply(incoming, current) {
    const next = current;
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
    return next;
  },
};

/**
 * A status subresource whose strategy resets only the spec (namespaceStatusStrategy.PrepareForUpdate): the status and
 * the user metadata (labels, annotations) of the write are kept, validated as an ObjectMeta update. Most other
 * built-in status strategies also reset labels or all metadata, and keep statusOnly.
 */
export const statusAndMetadata: SubresourceStrategy = {
  apply(incoming, current) {
    const next = statusOnly.apply(incoming, current);
    const meta = metaOf(next);
    const inMeta = incoming.metadata ?? {};
    for (const field of ['labels', 'annotations'] as const) {
      if (inMeta[field] === undefined || inMeta[field] === null) delete meta[field];
      else meta[field] = inMeta[field] as Record<string, string>;
    }
    return next;
  },
  validate: (obj, old) => validateObjectMetaUpdate(metaOf(obj), metaOf(old)),
};
