/**
 * HorizontalPodAutoscalers (with /status) served as autoscaling/v2 and autoscaling/v1 over one storage, as
 * kube-apiserver 1.32 does: v2 is the stored shape; the v1 endpoint converts on the way in and out
 * (hpa-conversion.ts), and runs v2's defaults, status handling and validation on the converted object, as upstream
 * runs them on the internal type whatever version a client speaks.
 */
import { type JsonObject, type KubeObject, isPlainObject, metaOf } from '../../../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../../../apimachinery/validation/object-meta.js';
import type { ResourceDefinition, SubresourceStrategy } from '../../rest.js';
import { defineBuiltin } from '../define.js';
import { defaultHPAv1, defaultHPAv2, hpaV1ToV2, hpaV2ToV1, normalizeHPAv2Status } from './hpa-conversion.js';
import { validateHPA, validateHPAStatus, validateHPAUpdate } from './hpa-validation.js';
import { horizontalPodAutoscalerPrinter } from './kind-printers.js';
import { keepStatus, statusSubresource, withPrinter } from './kinds-common.js';

/** The HorizontalPodAutoscalerStatus (v2) fields Go writes even when zero or empty. */
const v2StatusZeros = { desiredReplicas: 0, currentMetrics: null };

export const horizontalPodAutoscalersV2: ResourceDefinition = withPrinter(
  defineBuiltin({
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    definitionName: 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
    // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
    defaults: defaultHPAv2,
    strategy: {
      metadataRevalidation: 'update',
      prepareForCreate(obj) {
        obj.status = {};
        normalizeHPAv2Status(obj);
        defaultHPAv2(obj);
      },
      prepareForUpdate(obj, old) {
        keepStatus(obj, old);
        defaultHPAv2(obj);
      },
      validate: validateHPA,
      validateUpdate: validateHPAUpdate,
    },
    subresources: [statusSubresource('HorizontalPodAutoscaler', v2StatusZeros, (obj) => validateHPAStatus(obj))],
  }),
  horizontalPodAutoscalerPrinter(),
);

/**
 * Replaces the contents of `target` with those of `source`: strategies change objects in place, and the store keeps
 * references to the object's metadata across a strategy call, so that object stays (its contents replaced too).
 */
function replaceContents(target: KubeObject, source: JsonObject): void {
  const meta = target.metadata;
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
  if (isPlainObject(meta) && isPlainObject(source.metadata)) {
    for (const k of Object.keys(meta)) delete meta[k];
    Object.assign(meta, source.metadata);
    target.metadata = meta;
  }
}

/** The stored v2 form of a v1 object, defaulted as upstream defaults on decode. */
function v1ToStored(obj: JsonObject): JsonObject {
  const v2 = hpaV1ToV2(obj);
  defaultHPAv2(v2);
  normalizeHPAv2Status(v2);
  return v2;
}

/** The v1 /status: the converted request's status over the stored object (autoscalerStatusStrategy keeps the spec). */
const v1StatusStrategy: SubresourceStrategy = {
  apply(incoming, current) {
    const next = v1ToStored(current);
    next.status = hpaV1ToV2(incoming).status;
    normalizeHPAv2Status(next);
    return hpaV2ToV1(next);
  },
  validate: (obj, old) => [...validateObjectMetaUpdate(metaOf(obj), metaOf(old)), ...validateHPAStatus(hpaV1ToV2(obj))],
};

const v1 = defineBuiltin({
  group: 'autoscaling',
  version: 'v1',
  resource: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  definitionName: 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler',
  strategy: {
    metadataRevalidation: 'update',
    prepareForCreate(obj) {
      defaultHPAv1(obj);
      const v2 = hpaV1ToV2(obj);
      v2.status = {};
      normalizeHPAv2Status(v2);
      defaultHPAv2(v2);
      replaceContents(obj, hpaV2ToV1(v2));
    },
    prepareForUpdate(obj, old) {
      defaultHPAv1(obj);
      const v2 = hpaV1ToV2(obj);
      v2.status = v1ToStored(old).status;
      defaultHPAv2(v2);
      replaceContents(obj, hpaV2ToV1(v2));
    },
    validate: (obj) => validateHPA(hpaV1ToV2(obj)),
    validateUpdate: (obj, old) => validateHPAUpdate(hpaV1ToV2(obj), hpaV1ToV2(old)),
  },
  subresources: [{ name: 'status', kind: 'HorizontalPodAutoscaler', verbs: ['get', 'patch', 'update'], strategy: v1StatusStrategy }],
});
// One storage for both HPA APIs: v1 objects live in v2's keys, in v2's shape (see hpa-conversion.ts).
v1.storage = { group: 'autoscaling', resource: 'horizontalpodautoscalers', toStorage: v1ToStored, fromStorage: hpaV2ToV1 };

export const horizontalPodAutoscalersV1: ResourceDefinition = withPrinter(v1, horizontalPodAutoscalerPrinter(hpaV1ToV2));
