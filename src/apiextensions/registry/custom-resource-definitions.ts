/**
 * apiextensions.k8s.io/v1 customresourcedefinitions: the CRD resource itself (apiextensions-apiserver
 * pkg/registry/customresourcedefinition). Cluster-scoped, generation tracked, status subresource; deletion adds the
 * cleanup finalizer and the Terminating condition, and the finalizer controller finishes it.
 */
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, metaOf, nowRFC3339 } from '../../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../../apimachinery/validation/object-meta.js';
import { defaultCRD, recordStorageVersion } from '../crd/defaults.js';
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, type CustomResourceDefinition, setCondition } from '../crd/types.js';
import { validateCRD, validateCRDUpdate, validateNames } from '../crd/validation.js';
import { FieldPath } from '../../apimachinery/field-errors.js';
import type { ResourceDefinition, SubresourceStrategy } from '../../registry/rest.js';
import { defineBuiltin, statusKeepingMetadata } from '../../registry/builtin/define.js';

const asCRD = (o: KubeObject) => o as CustomResourceDefinition;

/**
 * /status writes: statusStrategy.PrepareForUpdate keeps the spec, labels, annotations and owner references as stored,
 * so of the metadata only the write's finalizers are taken (apiextensions' finalizer controller removes its own
 * through /status); its names and storedVersions are still checked.
 */
const crdStatus: SubresourceStrategy = {
  apply: statusKeepingMetadata(['labels', 'annotations', 'ownerReferences']).apply,
  validate(obj, old): FieldError[] {
    const errs = validateObjectMetaUpdate(metaOf(obj), metaOf(old));
    errs.push(...validateNames(asCRD(obj).status?.acceptedNames ?? {}, FieldPath.root('status').child('acceptedNames')));
    return errs;
  },
};

export const customResourceDefinitions: ResourceDefinition = defineBuiltin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  definitionName: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  // apiextensions v1 SetDefaults, as the body is decoded (the writer owns spec.conversion it adds).
  defaults: (obj) => defaultCRD(asCRD(obj)),
  strategy: {
    tracksGeneration: true,
    prepareForCreate(obj) {
      const crd = asCRD(obj);
      crd.status = {};
      defaultCRD(crd);
      recordStorageVersion(crd);
    },
    prepareForUpdate(obj, old) {
      const crd = asCRD(obj);
      crd.status = structuredClone(asCRD(old).status ?? {});
      defaultCRD(crd);
      recordStorageVersion(crd);
    },
    validate: (obj) => validateCRD(asCRD(obj)),
    validateUpdate: (obj, old) => validateCRDUpdate(asCRD(obj), asCRD(old)),
    // The first DELETE never removes a CRD: it must go through the cleanup finalizer, which it adds (REST.Delete).
    pendingFinalizers: (obj) => !obj.metadata?.deletionTimestamp,
    markDeletingFirst: true,
    markDeletingWithoutGC: true,
    onDeletionStarted(obj) {
      const meta = metaOf(obj);
      const fins = meta.finalizers ?? [];
      if (!fins.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) meta.finalizers = [...fins, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
      setCondition(asCRD(obj), { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, nowRFC3339());
    },
  },
  subresources: [{ name: 'status', kind: 'CustomResourceDefinition', verbs: ['get', 'patch', 'update'], strategy: crdStatus }],
});
