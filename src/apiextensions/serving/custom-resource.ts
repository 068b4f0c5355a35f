/**
 * The ResourceDefinition of one served version of an established CRD: discovery names from status.acceptedNames,
 * a Strategy that runs the version's compiled structural schema (validation, CEL; pruning and defaulting happen in
 * its codec at request decoding and defaultOnRead at read time), the status and scale subresources, the
 * additionalPrinterColumns table, and OpenAPI definitions. Compiled schemas are the expensive part and are cached
 * per CRD uid + generation + version by SchemaCache.
 */
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, metaOf } from '../../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta.js';
import type { APISubresourceDescriptor } from '../../apimachinery/api-resource.js';
import type { ResourceDefinition, Strategy, SubresourceStrategy } from '../../registry/rest.js';
import { builtinCodec } from '../../registry/builtin/builtin-codec.js';
import { customResourceCodec } from './custom-resource-codec.js';
import { type CompiledSchema, compileSchema } from '../schema/compile.js';
import { type CRDVersion, type CustomResourceDefinition, isConditionTrue, storageVersionOf } from '../crd/types.js';
import { compileJSONPath } from './jsonpath.js';
import { crDefinitionName, crOpenAPISchemas } from './openapi.js';
import { negotiatedPrinterFor } from './negotiated-printers.js';
import { printerForColumns } from './printer-columns.js';
import { scaleSubresource, validateScaleStatus } from './scale.js';
import { ssaSchemaFromStructural } from '../../patch/apply/structural-schema.js';
import type { ObjectConverter } from '../../registry/rest.js';

/** The converter of a CRD whose conversion strategy is Webhook (undefined for None). */
export type ConverterFor = (crd: CustomResourceDefinition) => ObjectConverter | undefined;

/**
 * Verbs discovery lists for a CRD being deleted (upstream's discovery controller). Only create is refused then
 * (`terminating` on the definition); updates and patches still go through so finalizers can be removed.
 */
const terminatingVerbs = ['delete', 'deletecollection', 'get', 'list', 'watch'];

/** Verbs discovery lists for a custom resource, in the fixed order of upstream's CRD discovery controller (not sorted). */
const customResourceVerbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const subresourceVerbs = ['get', 'patch', 'update'];

/** A custom resource's definition: a ResourceDefinition plus what the OpenAPI service reads. */
export interface CustomResourceServing extends ResourceDefinition {
  openAPISchemas: { v2: Record<string, Record<string, unknown>>; v3: Record<string, Record<string, unknown>> };
  schemaVersion: string;
  /** The CRD this was built from (uid and resourceVersion identify the build). */
  crdUID: string;
  crdResourceVersion: string;
}

/** Compiled schemas by `<uid>/<generation>/<version>`; a CRD's older generations are dropped when it changes. */
export class SchemaCache {
  private readonly entries = new Map<string, CompiledSchema>();

  get(crd: CustomResourceDefinition, version: CRDVersion): CompiledSchema {
    const uid = crd.metadata?.uid ?? '';
    const key = `${uid}/${crd.metadata?.generation ?? 0}/${version.name}`;
    let compiled = this.entries.get(key);
    if (!compiled) {
      for (const k of this.entries.keys()) if (k.startsWith(`${uid}/`) && !k.startsWith(`${uid}/${crd.metadata?.generation ?? 0}/`)) this.entries.delete(k);
      compiled = compileSchema(version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      this.entries.set(key, compiled);
    }
    return compiled;
  }

  /** Forgets every compiled schema of a CRD (it was deleted). */
  forget(uid: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(`${uid}/`)) this.entries.delete(k);
  }
}

/** The Warning text for requests to a deprecated version: its own deprecationWarning or upstream's default. */
export function deprecationWarningOf(crd: CustomResourceDefinition, v: CRDVersion): string | undefined {
  if (!v.deprecated) return undefined;
  return v.deprecationWarning ?? `${crd.spec.group}/${v.name} ${crd.spec.names.kind} is deprecated`;
}

/**
 * One ResourceDefinition per served version of `crd`, or none when the CRD is not Established. Objects of every
 * version share one storage key space (`/registry/<group>/<plural>/...`). With conversion strategy None the version
 * only decides apiVersion and which schema applies; with Webhook, objects are converted by the CRD's conversion
 * webhook (called through `webhooks`) between the version served and the one stored.
 */
export function customResourceDefinitions(crd: CustomResourceDefinition, schemas: SchemaCache, converterFor?: ConverterFor): CustomResourceServing[] {
  if (!isConditionTrue(crd, 'Established')) return [];
  const terminating = isConditionTrue(crd, 'Terminating');
  const names = crd.status?.acceptedNames ?? crd.spec.names;
  const converter = converterFor?.(crd);
  const out: CustomResourceServing[] = [];
  for (const v of crd.spec.versions) {
    if (!v.served) continue;
    out.push(buildVersion(crd, v, names, terminating, schemas, converter));
  }
  return out;
}


function buildVersion(
  crd: CustomResourceDefinition,
  v: CRDVersion,
  names: NonNullable<CustomResourceDefinition['status']>['acceptedNames'] & object,
  terminating: boolean,
  schemas: SchemaCache,
  converter?: ObjectConverter,
): CustomResourceServing {
  const group = crd.spec.group;
  const kind = names.kind ?? crd.spec.names.kind ?? '';
  const listKind = names.listKind ?? `${kind}List`;
  const compiled = schemas.get(crd, v);
  const hasStatus = v.subresources?.status !== undefined;
  const scale = v.subresources?.scale ?? undefined;
  const subresources: APISubresourceDescriptor[] = [];
  const subresourceStrategies: Record<string, SubresourceStrategy> = {};
  /** Subresource writes are validated as updates of the whole object against the schema. */
  const validateSubresourceWrite = (obj: KubeObject, old: KubeObject): FieldError[] => {
    const errs = validateObjectMetaUpdate(metaOf(obj), metaOf(old));
    errs.push(...compiled.validate(obj, old));
    return errs;
  };
  if (hasStatus) {
    subresources.push({ name: 'status', kind, verbs: subresourceVerbs });
    subresourceStrategies.status = {
      apply(incoming, current) {
        if (incoming.status === undefined) delete current.status;
        else current.status = incoming.status;
        return current;
      },
      validate: (obj, old) => {
        const errs = validateSubresourceWrite(obj, old);
        if (scale) errs.push(...validateScaleStatus(obj, scale));
        return errs;
      },
    };
  }
  if (v.subresources?.scale) {
    subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: subresourceVerbs });
    subresourceStrategies.scale = scaleSubresource(v.subresources.scale, validateSubresourceWrite);
  }
  // Conversion strategy None: objects are stored as the storage version, which only changes their apiVersion
  // (Webhook: the converter does it, and the store no longer calls toStorage/fromStorage).
  const storageVersion = storageVersionOf(crd) ?? v.name;
  const storageAPIVersion = `${group}/${storageVersion}`;
  const definitionName = crDefinitionName(group, v.name, kind);
  const selectable = (v.selectableFields ?? []).map((f) => ({ field: (f.jsonPath ?? '').replace(/^\./, ''), path: safeCompile(f.jsonPath ?? '') }));
  const strategy: Strategy = {
    nameValidation: 'subdomain',
    allowUnconditionalUpdate: false,
    allowCreateOnUpdate: false,
    tracksGeneration: true,
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
    },
    prepareForUpdate(obj, old) {
      if (!hasStatus) return;
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
    },
    validate: (obj) => compiled.validate(obj),
    validateUpdate: (obj, old) => compiled.validate(obj, old),
    defaultOnRead: (obj) => compiled.applyDefaults(obj),
    ...(selectable.length
      ? {
          selectableFields(obj: KubeObject): Record<string, string> {
            const out: Record<string, string> = {};
            for (const s of selectable) {
              const found = s.path?.find(obj) ?? [];
              out[s.field] = found.length && found[0] !== null && found[0] !== undefined ? String(found[0]) : '';
            }
            return out;
          },
        }
      : {}),
  };
  return {
    group,
    version: v.name,
    resource: names.plural ?? crd.spec.names.plural ?? '',
    kind,
    listKind,
    singular: names.singular ?? kind.toLowerCase(),
    namespaced: crd.spec.scope === 'Namespaced',
    verbs: terminating ? terminatingVerbs : customResourceVerbs,
    ...(terminating ? { terminating: true } : {}),
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    subresources,
    definitionName,
    strategicMergePatch: false,
    strategy,
    subresourceStrategies,
    codec: customResourceCodec(compiled, builtinCodec(definitionName, subresourceStrategies), subresourceStrategies),
    deprecationWarning: deprecationWarningOf(crd, v),
    storage: {
      group,
      resource: names.plural ?? crd.spec.names.plural ?? '',
      toStorage(obj: KubeObject): KubeObject {
        obj.apiVersion = storageAPIVersion;
        return obj;
      },
      // The store stamps the endpoint's apiVersion on the way out.
      fromStorage: (obj: KubeObject): KubeObject => obj,
      ...(converter ? { converter } : {}),
    },
    tableConvertor: negotiatedPrinterFor(crd, kind) ?? printerForColumns(v.additionalPrinterColumns),
    ssaSchema: ssaSchemaFromStructural(v.schema?.openAPIV3Schema),
    openAPISchemas: crOpenAPISchemas({ group, version: v.name, kind, listKind, plural: names.plural ?? crd.spec.names.plural, schema: v.schema?.openAPIV3Schema }),
    schemaVersion: `${crd.metadata?.uid ?? ''}@${crd.metadata?.resourceVersion ?? ''}`,
    crdUID: crd.metadata?.uid ?? '',
    crdResourceVersion: crd.metadata?.resourceVersion ?? '',
  };
}

function safeCompile(path: string) {
  try {
    return compileJSONPath(path);
  } catch {
    return undefined;
  }
}

/**
 * A definition addressing the storage of a CRD's objects whatever its conditions (the finalizer controller deletes
 * instances of a CRD that is no longer served). Any version addresses the same keys; the storage version is used.
 */
export function storageAddressingDefinition(crd: CustomResourceDefinition, schemas: SchemaCache, converterFor?: ConverterFor): CustomResourceServing | undefined {
  const v = crd.spec.versions.find((x) => x.storage) ?? crd.spec.versions[0];
  if (!v) return undefined;
  return buildVersion(crd, v, crd.status?.acceptedNames ?? crd.spec.names, false, schemas, converterFor?.(crd));
}
