/**
 * The apis.kcp.io resources, served as built-ins in every logical cluster as kcp serves them (as system CRDs there):
 * APIResourceSchemas (v1alpha1, immutable), APIExports and APIBindings (v1alpha1 and v1alpha2, stored as v1alpha2 and
 * converted on the way in and out: conversion.ts), APIExportEndpointSlices (v1alpha1). Validation follows kcp's
 * admission (pkg/admission/apiresourceschema, apibinding) and its API validation (sdk apis/apis/v1alpha2/validation.go);
 * a schema's versions are checked as a CRD's (apiextensions' own validation), its field paths named as kcp's.
 */
import { type FieldError, FieldPath, invalid, notSupported, required } from '../apimachinery/field-errors.js';
import { jsonEqual, type KubeObject } from '../apimachinery/object.js';
import { validateLabelSelector } from '../apimachinery/validation/label-selector.js';
import { isDNS1123Subdomain } from '../apimachinery/validation/names.js';
import type { ResourceDefinition, StorageMapping } from '../registry/rest.js';
import { defineBuiltin, statusOnly } from '../registry/builtin/define.js';
import { printerForColumns } from '../apiextensions/serving/printer-columns.js';
import { validateCRD } from '../apiextensions/crd/validation.js';
import { defaultCRD } from '../apiextensions/crd/defaults.js';
import type { CustomResourceDefinition } from '../apiextensions/crd/types.js';
import { apiBindingToV1alpha1, apiBindingToV1alpha2, apiExportToV1alpha1, apiExportToV1alpha2 } from './conversion.js';
import { APIBINDING_FINALIZER, APIS_GROUP, type APIBinding, type APIExport, type APIResourceSchema } from './types.js';

const anyObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const readyOf = (type: string) => ({ name: 'Ready', type: 'string', jsonPath: `.status.conditions[?(@.type=="${type}")].status` });

/** Keeps what the main endpoint may not change: status belongs to the status subresource and the controllers. */
function keepStatus(next: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete next.status;
  else next.status = old.status;
}

/** The CRD an APIResourceSchema describes (versions' schema wrapped as openAPIV3Schema), for validation and serving. */
export function crdOfSchema(schema: APIResourceSchema, name = `${schema.spec?.names?.plural ?? ''}.${schema.spec?.group ?? ''}`): CustomResourceDefinition {
  const spec = schema.spec ?? ({} as NonNullable<APIResourceSchema['spec']>);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, uid: schema.metadata?.uid, generation: 1, resourceVersion: schema.metadata?.resourceVersion, annotations: schema.metadata?.annotations },
    spec: {
      group: spec.group,
      names: structuredClone(spec.names ?? {}),
      scope: spec.scope,
      versions: (Array.isArray(spec.versions) ? spec.versions : []).map((v) => {
        const { schema: s, ...rest } = v;
        return { ...structuredClone(rest), schema: { openAPIV3Schema: structuredClone(s ?? {}) } };
      }),
      conversion: spec.conversion ?? { strategy: 'None' },
    },
  } as unknown as CustomResourceDefinition;
  defaultCRD(crd);
  return crd;
}

/** kcp's APIResourceSchema validation: the name, then the spec as a CRD's (paths as kcp names them). */
export function validateAPIResourceSchema(o: APIResourceSchema): FieldError[] {
  const spec = o.spec;
  if (!spec || typeof spec !== 'object') return [required('spec', '')];
  const errs: FieldError[] = [];
  const name = o.metadata?.name ?? '';
  const postfix = `.${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (name && !name.endsWith(postfix)) errs.push(invalid('metadata.name', name, `must end in ${postfix}`));
  else if (name && !/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name.slice(0, -postfix.length))) {
    errs.push(invalid('metadata.name', name, `must match ^[a-z]([-a-z0-9]*[a-z0-9])?$ in front of .${spec.names?.plural ?? ''}.${spec.group ?? ''}`));
  }
  const crd = crdOfSchema(o);
  crd.status = { acceptedNames: crd.spec.names, storedVersions: crd.spec.versions.filter((v) => v.storage).map((v) => v.name) };
  for (const e of validateCRD(crd)) {
    if (e.field === 'metadata.name' || e.field.startsWith('status.')) continue;
    errs.push({ ...e, field: e.field.replace(/\.schema\.openAPIV3Schema/, '.schema') });
  }
  return errs;
}

export const apiResourceSchemas: ResourceDefinition = {
  ...defineBuiltin({
    group: APIS_GROUP,
    version: 'v1alpha1',
    resource: 'apiresourceschemas',
    kind: 'APIResourceSchema',
    namespaced: false,
    categories: ['kcp'],
    definitionName: 'io.kcp.apis.v1alpha1.APIResourceSchema',
    schema: { description: 'The immutable schema of one resource an APIExport offers: names, scope and versions as a CRD has them.', spec: anyObject },
    strategy: {
      validate: (o) => validateAPIResourceSchema(o as APIResourceSchema),
      validateUpdate: (o, old) => (jsonEqual(o.spec ?? null, old.spec ?? null) ? [] : [invalid('spec', o.spec, 'is immutable')]),
    },
  }),
  tableConvertor: printerForColumns([age]),
};

function validateClaims(claims: unknown, path: FieldPath, withSelector: boolean): FieldError[] {
  if (claims === undefined) return [];
  if (!Array.isArray(claims)) return [invalid(path.toString(), claims, 'must be a list')];
  const errs: FieldError[] = [];
  claims.forEach((c: Record<string, unknown>, i) => {
    const p = path.index(i);
    if (!c || typeof c.resource !== 'string' || !c.resource) errs.push(required(p.child('resource').toString(), ''));
    if (withSelector) {
      const sel = (c?.selector ?? {}) as Record<string, unknown>;
      const hasLabels = sel.matchLabels && Object.keys(sel.matchLabels).length > 0;
      const hasExprs = Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0;
      if (sel.matchAll) {
        if (hasLabels) errs.push(invalid(p.child('selector').child('matchLabels').toString(), sel, 'matchLabels cannot be used with matchAll'));
        if (hasExprs) errs.push(invalid(p.child('selector').child('matchExpressions').toString(), sel, 'matchExpressions cannot be used with matchAll'));
      } else if (!hasLabels && !hasExprs) {
        errs.push(required(p.child('selector').toString(), 'either one of matchAll, matchLabels, or matchExpressions must be set'));
      } else {
        errs.push(...validateLabelSelector({ matchLabels: sel.matchLabels, matchExpressions: sel.matchExpressions }, p.child('selector')));
      }
      if (c?.state !== undefined && c.state !== 'Accepted' && c.state !== 'Rejected') errs.push(notSupported(p.child('state').toString(), c.state, ['Accepted', 'Rejected']));
    } else if (c && (!Array.isArray(c.verbs) || c.verbs.length === 0)) {
      errs.push(required(p.child('verbs').toString(), ''));
    }
  });
  return errs;
}

/** v1alpha2 APIExport validation (the stored shape, so both versions are checked alike). */
function validateAPIExport(o: APIExport): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (o.spec ?? {}) as NonNullable<APIExport['spec']>;
  (spec.resources ?? []).forEach((r, i) => {
    const p = FieldPath.root('spec').child('resources').index(i);
    if (!r.name) errs.push(required(p.child('name').toString(), ''));
    if (!r.schema) errs.push(required(p.child('schema').toString(), ''));
    else if (!r.schema.endsWith(`.${r.name}.${r.group}`)) errs.push(invalid(p.child('schema').toString(), r.schema, `must end in .${r.name}.${r.group}`));
    if (r.group && isDNS1123Subdomain(r.group).length) errs.push(invalid(p.child('group').toString(), r.group, isDNS1123Subdomain(r.group).join(',')));
    // Virtual storage (kcp's alpha CachedAPIs) is not served here.
    if (!r.storage?.crd) errs.push(notSupported(p.child('storage').toString(), r.storage ?? null, ['crd']));
  });
  errs.push(...validateClaims(spec.permissionClaims, FieldPath.root('spec').child('permissionClaims'), false));
  return errs;
}

function validateAPIBinding(o: APIBinding): FieldError[] {
  const errs: FieldError[] = [];
  const ref = o.spec?.reference;
  if (!ref?.export) errs.push(required('spec.reference.export', ''));
  else if (!ref.export.name) errs.push(required('spec.reference.export.name', ''));
  errs.push(...validateClaims(o.spec?.permissionClaims, FieldPath.root('spec').child('permissionClaims'), true));
  return errs;
}

function validateAPIBindingUpdate(o: APIBinding, old: APIBinding): FieldError[] {
  const errs = validateAPIBinding(o);
  if (old.status?.phase && !o.status?.phase) errs.push({ type: 'FieldValueForbidden', field: 'status.phase', detail: `cannot transition from "${old.status.phase}" to ""`, omitValue: true });
  return errs;
}

/** A v1alpha1 endpoint over the v1alpha2 storage of the same resource. */
function convertedStorage(resource: string, toStorage: (o: KubeObject) => KubeObject, fromStorage: (o: KubeObject) => KubeObject): StorageMapping {
  return { group: APIS_GROUP, resource, toStorage, fromStorage };
}

function apiExportsAt(version: 'v1alpha1' | 'v1alpha2'): ResourceDefinition {
  const v1 = version === 'v1alpha1';
  return {
    ...defineBuiltin({
      group: APIS_GROUP,
      version,
      resource: 'apiexports',
      kind: 'APIExport',
      namespaced: false,
      categories: ['kcp'],
      definitionName: `io.kcp.apis.${version}.APIExport`,
      schema: { description: 'Resources a workspace offers other workspaces to bind, with the identity their objects are stored under.', spec: anyObject, status: anyObject },
      strategy: {
        prepareForCreate: (o) => void delete o.status,
        prepareForUpdate: keepStatus,
        validate: (o) => validateAPIExport((v1 ? apiExportToV1alpha2(o) : o) as APIExport),
        validateUpdate: (o) => validateAPIExport((v1 ? apiExportToV1alpha2(o) : o) as APIExport),
      },
      subresources: [
        { name: 'status', kind: 'APIExport', verbs: ['get', 'patch', 'update'], strategy: statusOnly },
      ],
    }),
    tableConvertor: printerForColumns(v1 ? [age, readyOf('VirtualWorkspaceURLsReady')] : [age]),
    ...(v1 ? { storage: convertedStorage('apiexports', apiExportToV1alpha2, apiExportToV1alpha1) } : {}),
  };
}

function apiBindingsAt(version: 'v1alpha1' | 'v1alpha2'): ResourceDefinition {
  const v1 = version === 'v1alpha1';
  const toV2 = (o: KubeObject) => (v1 ? apiBindingToV1alpha2(o) : o) as APIBinding;
  return {
    ...defineBuiltin({
      group: APIS_GROUP,
      version,
      resource: 'apibindings',
      kind: 'APIBinding',
      namespaced: false,
      categories: ['kcp'],
      definitionName: `io.kcp.apis.${version}.APIBinding`,
      schema: { description: 'Binds the resources of an APIExport into this workspace.', spec: anyObject, status: anyObject },
      strategy: {
        prepareForCreate(o) {
          delete o.status;
          // kcp's apibindingfinalizer admission: the binding stays until its bound objects are gone.
          const meta = o.metadata!;
          const fins = meta.finalizers ?? [];
          if (!fins.includes(APIBINDING_FINALIZER)) meta.finalizers = [...fins, APIBINDING_FINALIZER];
        },
        prepareForUpdate: keepStatus,
        validate: (o) => validateAPIBinding(toV2(o)),
        validateUpdate: (o, old) => validateAPIBindingUpdate(toV2(o), toV2(old)),
      },
      subresources: [{ name: 'status', kind: 'APIBinding', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
    }),
    tableConvertor: printerForColumns([age, readyOf('Ready')]),
    ...(v1 ? { storage: convertedStorage('apibindings', apiBindingToV1alpha2, apiBindingToV1alpha1) } : {}),
  };
}

export const apiExportEndpointSlices: ResourceDefinition = {
  ...defineBuiltin({
    group: APIS_GROUP,
    version: 'v1alpha1',
    resource: 'apiexportendpointslices',
    kind: 'APIExportEndpointSlice',
    namespaced: false,
    categories: ['kcp'],
    definitionName: 'io.kcp.apis.v1alpha1.APIExportEndpointSlice',
    schema: { description: 'The URLs of the virtual workspace endpoints of an APIExport.', spec: anyObject, status: anyObject },
    strategy: {
      prepareForCreate: (o) => void delete o.status,
      prepareForUpdate: keepStatus,
      validate: (o) => ((o.spec as { export?: { name?: string } } | undefined)?.export?.name ? [] : [required('spec.export.name', '')]),
      validateUpdate: (o, old) => {
        const errs: FieldError[] = (o.spec as { export?: { name?: string } } | undefined)?.export?.name ? [] : [required('spec.export.name', '')];
        const ex = (x: KubeObject) => (x.spec as { export?: unknown } | undefined)?.export ?? null;
        if (!jsonEqual(ex(o), ex(old))) errs.push(invalid('spec.export', ex(o), 'APIExport reference must not be changed'));
        return errs;
      },
    },
    subresources: [{ name: 'status', kind: 'APIExportEndpointSlice', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  }),
  tableConvertor: printerForColumns([
    { name: 'Export', type: 'string', jsonPath: '.spec.export.name' },
    { name: 'Partition', type: 'string', jsonPath: '.spec.partition' },
    age,
  ]),
};

export const apiExportsV1alpha1 = apiExportsAt('v1alpha1');
export const apiExportsV1alpha2 = apiExportsAt('v1alpha2');
export const apiBindingsV1alpha1 = apiBindingsAt('v1alpha1');
export const apiBindingsV1alpha2 = apiBindingsAt('v1alpha2');

/** Every apis.kcp.io resource, v1alpha2 (the preferred version, as kcp's discovery lists it) before v1alpha1. */
export const apisResources: ResourceDefinition[] = [
  apiResourceSchemas,
  apiExportsV1alpha2,
  apiExportsV1alpha1,
  apiBindingsV1alpha2,
  apiBindingsV1alpha1,
  apiExportEndpointSlices,
];
