/**
 * OpenAPI v2 and v3 definitions for one served version of a CRD, shaped like apiextensions-apiserver's
 * controller/openapi/builder: the kind's schema (the CRD's openAPIV3Schema with apiVersion, kind and metadata filled
 * in) and its list kind, both carrying x-kubernetes-group-version-kind. Definition names use the REST-friendly form
 * of the group (reversed domain): stable.example.com/v1 CronTab → com.example.stable.v1.CronTab.
 */
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import { commonFieldDescription } from '../../apiserver/openapi/upstream-descriptions.js';

type Schema = { [key: string]: unknown };

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

/**
 * The descriptions upstream's builder gives apiVersion and kind (TypeMeta's), metadata (PartialObjectMetadata's
 * `metadata`: "Standard object's metadata" and a link) and a list's metadata: Kubernetes' own texts, read from the npm
 * package kubernetes-types 1.30.0 (the wording its published kinds give those properties; see
 * ../../apiserver/openapi/upstream-descriptions.ts). Our own short wording only if that package cannot be read.
 */
function typeMetaDescriptions(): { apiVersion: string; kind: string; metadata: string; listMetadata: string } {
  return {
    apiVersion: commonFieldDescription('apiVersion', '"[^"]*"') ?? 'The API group and version of this object.',
    kind: commonFieldDescription('kind', '"[^"]*"') ?? 'The kind of this object.',
    metadata: commonFieldDescription('metadata', 'ObjectMeta') ?? "The object's metadata.",
    listMetadata: commonFieldDescription('metadata', 'ListMeta') ?? "The list's metadata.",
  };
}

/** `stable.example.com` + v1 + CronTab → `com.example.stable.v1.CronTab`. */
export function crDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

export interface CRSchemaInput {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The resource's plural name (the list's `items` description names it); the lowercased kind + "s" if absent. */
  plural?: string;
  schema: JSONSchemaProps | undefined;
}

/** The v2 and v3 definitions of the kind and its list. */
export function crOpenAPISchemas(input: CRSchemaInput): { v2: Record<string, Schema>; v3: Record<string, Schema> } {
  return { v3: build(input, 'v3'), v2: build(input, 'v2') };
}

function ref(version: 'v2' | 'v3', name: string): string {
  return version === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}`;
}

function build(input: CRSchemaInput, version: 'v2' | 'v3'): Record<string, Schema> {
  const { apiVersion: apiVersionDescription, kind: kindDescription, metadata: metadataDescription, listMetadata: listMetadataDescription } =
    typeMetaDescriptions();
  const name = crDefinitionName(input.group, input.version, input.kind);
  const listName = crDefinitionName(input.group, input.version, input.listKind);
  const base: Schema = input.schema ? (structuredClone(input.schema) as Schema) : { type: 'object' };
  // No schema, or a v2 root that preserves unknown fields: a bare object with only the GVK extension (builder.go
  // buildKubeNative) — no properties, not even type meta, or kubectl's validator would reject every field it does not
  // list; and not the preserve-unknown-fields extension either.
  const bare = !input.schema || (version === 'v2' && !!base['x-kubernetes-preserve-unknown-fields']);
  let kindSchema: Schema;
  if (bare) {
    kindSchema = { type: 'object' };
  } else {
    kindSchema = version === 'v2' ? toV2(base) : base;
    const props = (kindSchema.properties as Record<string, Schema> | undefined) ?? {};
    const metaRef = version === 'v3' ? { description: metadataDescription, allOf: [{ $ref: ref(version, OBJECT_META) }] } : { description: metadataDescription, $ref: ref(version, OBJECT_META) };
    kindSchema.type ??= 'object';
    kindSchema.properties = {
      ...props,
      apiVersion: { description: apiVersionDescription, type: 'string', ...(props.apiVersion ?? {}) },
      kind: { description: kindDescription, type: 'string', ...(props.kind ?? {}) },
      metadata: metaRef,
    };
  }
  kindSchema['x-kubernetes-group-version-kind'] = [{ group: input.group, kind: input.kind, version: input.version }];
  const listMeta = version === 'v3' ? { description: listMetadataDescription, allOf: [{ $ref: ref(version, LIST_META) }] } : { description: listMetadataDescription, $ref: ref(version, LIST_META) };
  const listSchema: Schema = {
    description: `${input.listKind} is a list of ${input.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: apiVersionDescription, type: 'string' },
      items: { description: `List of ${input.plural ?? `${input.kind.toLowerCase()}s`}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: { $ref: ref(version, name) } },
      kind: { description: kindDescription, type: 'string' },
      metadata: listMeta,
    },
    'x-kubernetes-group-version-kind': [{ group: input.group, kind: input.listKind, version: input.version }],
  };
  return { [name]: kindSchema, [listName]: listSchema };
}

/**
 * Swagger 2.0 cannot say what OpenAPI 3 can, and kubectl's v2 validator rejects what it does not expect, so (as upstream's
 * ToStructuralOpenAPIV2 does): drop the logic junctors; a nullable value loses its type, items and properties; a value
 * that preserves unknown fields loses its items and properties (kubectl would otherwise call the unknown ones errors);
 * an array left without items loses its type, and so does an object that preserves unknown fields; nullable properties
 * are no longer required.
 */
function toV2(s: Schema): Schema {
  delete s.oneOf;
  delete s.anyOf;
  delete s.not;
  delete s.allOf;
  delete s['x-kubernetes-validations'];
  if (s['x-kubernetes-int-or-string']) delete s.type;
  if (s.nullable) {
    delete s.type;
    delete s.items;
    delete s.properties;
  }
  delete s.nullable;
  if (s['x-kubernetes-preserve-unknown-fields']) {
    delete s.items;
    delete s.properties;
  }
  if (s.type === 'array' && s.items === undefined) delete s.type;
  // kubectl does not handle an object that preserves unknown fields either: it becomes untyped.
  if (s['x-kubernetes-preserve-unknown-fields'] && s.type === 'object') delete s.type;
  const props = s.properties as Record<string, Schema> | undefined;
  if (props && Array.isArray(s.required)) {
    const required = (s.required as string[]).filter((f) => !props[f]?.nullable);
    if (required.length) s.required = required;
    else delete s.required;
  }
  const ap = s.additionalProperties as Schema | undefined;
  if (ap && typeof ap === 'object' && ap.nullable) delete s.required;
  for (const key of ['properties', 'patternProperties', 'definitions']) {
    const m = s[key] as Record<string, Schema> | undefined;
    if (m) for (const k of Object.keys(m)) toV2(m[k]!);
  }
  if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) toV2(s.items as Schema);
  if (ap && typeof ap === 'object') toV2(ap);
  return s;
}
