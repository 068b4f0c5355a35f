/**
 * core/v1 PersistentVolumeClaims and PersistentVolumes (with /status) and storage.k8s.io/v1 StorageClasses, as
 * kube-apiserver 1.32 serves them (pkg/registry/core/persistentvolumeclaim, persistentvolume, storage/storageclass):
 * the main endpoint resets status on create and keeps it on update, /status writes only status. 1.32's default
 * feature gates apply: VolumeAttributesClass is off, so volumeAttributesClassName is dropped unless the stored
 * object already had it. Binding claims to volumes is a controller's job, not the registry's.
 */
import { type KubeObject, isPlainObject, nowRFC3339 } from '../../../apimachinery/object.js';
import type { SubresourceStrategy } from '../../rest.js';
import { defineBuiltin, statusAndMetadata } from '../define.js';
import { defaultPersistentVolume, defaultPersistentVolumeClaim, defaultStorageClass } from './core-networking-defaults.js';
import { DEPRECATED_NODE_LABELS } from './csi-validation.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter, storageClassPrinter } from './core-networking-printers.js';
import {
  persistentVolumeClaimWarnings,
  persistentVolumeWarnings,
  validatePersistentVolume,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimStatus,
  validatePersistentVolumeClaimUpdate,
  validatePersistentVolumeUpdate,
  validateStorageClass,
  validateStorageClassUpdate,
} from './storage-validation.js';

type Json = Record<string, unknown>;

function specOf(obj: KubeObject): Json {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  return obj.spec as Json;
}

function keepStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = structuredClone(old.status);
}

/** DropDisabledSpecFields with VolumeAttributesClass off: the field goes unless the stored object has it. */
function dropVolumeAttributesClass(obj: KubeObject, old?: KubeObject): void {
  const oldSpec = old && isPlainObject(old.spec) ? old.spec : {};
  if (oldSpec.volumeAttributesClassName === undefined || oldSpec.volumeAttributesClassName === null) delete specOf(obj).volumeAttributesClassName;
}

/**
 * EnforceDataSourceBackwardsCompatibility and NormalizeDataSources (AnyVolumeDataSource on): a dataSource other than
 * a claim or a VolumeSnapshot is dropped when no dataSourceRef is given, and each of dataSource / dataSourceRef is
 * filled from the other (unless the ref points into another namespace).
 */
function normalizeDataSources(obj: KubeObject, old?: KubeObject): void {
  const spec = specOf(obj);
  const oldSpec = old && isPlainObject(old.spec) ? old.spec : {};
  const oldInUse = isPlainObject(oldSpec.dataSource) || isPlainObject(oldSpec.dataSourceRef);
  if (!oldInUse && !isPlainObject(spec.dataSourceRef) && isPlainObject(spec.dataSource)) {
    const ds = spec.dataSource;
    const group = typeof ds.apiGroup === 'string' ? ds.apiGroup : '';
    const pvc = group === '' && ds.kind === 'PersistentVolumeClaim';
    const snapshot = group === 'snapshot.storage.k8s.io' && ds.kind === 'VolumeSnapshot';
    if (!pvc && !snapshot) delete spec.dataSource;
  }
  const copyRef = (from: Json): Json => ({ ...(typeof from.apiGroup === 'string' ? { apiGroup: from.apiGroup } : {}), kind: from.kind ?? '', name: from.name ?? '' });
  if (isPlainObject(spec.dataSource) && !isPlainObject(spec.dataSourceRef)) spec.dataSourceRef = copyRef(spec.dataSource);
  else if (isPlainObject(spec.dataSourceRef) && !isPlainObject(spec.dataSource) && !spec.dataSourceRef.namespace) spec.dataSource = copyRef(spec.dataSourceRef);
}

/**
 * persistentvolumeclaimStatusStrategy: the spec is kept (the write's status and metadata are taken: statusAndMetadata);
 * with VolumeAttributesClass off its status fields go.
 */
const persistentVolumeClaimStatus: SubresourceStrategy = {
  apply(incoming, current) {
    const oldStatus = isPlainObject(current.status) ? current.status : {};
    const next = statusAndMetadata.apply(incoming, current);
    if (isPlainObject(next.status)) {
      if (oldStatus.currentVolumeAttributesClassName === undefined) delete next.status.currentVolumeAttributesClassName;
      if (oldStatus.modifyVolumeStatus === undefined) delete next.status.modifyVolumeStatus;
    }
    return next;
  },
  validate: (obj, old) => [...(statusAndMetadata.validate?.(obj, old) ?? []), ...validatePersistentVolumeClaimStatus(obj)],
};

export const persistentVolumeClaims = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
  shortNames: ['pvc'],
  definitionName: 'io.k8s.api.core.v1.PersistentVolumeClaim',
  // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds.
  defaults: defaultPersistentVolumeClaim,
  strategy: {
    metadataRevalidation: 'claim',
    // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
    returnDeletedObject: true,
    prepareForCreate(obj) {
      obj.status = {};
      dropVolumeAttributesClass(obj);
      normalizeDataSources(obj);
      defaultPersistentVolumeClaim(obj);
    },
    prepareForUpdate(obj, old) {
      keepStatus(obj, old);
      dropVolumeAttributesClass(obj, old);
      normalizeDataSources(obj, old);
      defaultPersistentVolumeClaim(obj);
    },
    validate: validatePersistentVolumeClaim,
    validateUpdate: validatePersistentVolumeClaimUpdate,
    warnings: (obj) => persistentVolumeClaimWarnings(obj),
  },
  subresources: [{ name: 'status', kind: 'PersistentVolumeClaim', verbs: ['get', 'patch', 'update'], strategy: persistentVolumeClaimStatus }],
  printer: persistentVolumeClaimPrinter,
});

/**
 * persistentvolumeStatusStrategy: the spec is kept (the write's status and metadata are taken: statusAndMetadata), and
 * status.lastPhaseTransitionTime follows the phase: kept
 * while the phase stays, set to now when the phase changes and the writer did not set a new time.
 */
const persistentVolumeStatus: SubresourceStrategy = {
  apply(incoming, current) {
    const oldStatus = isPlainObject(current.status) ? { ...current.status } : {};
    const next = statusAndMetadata.apply(incoming, current);
    if (!isPlainObject(next.status)) next.status = {};
    const status = next.status as Json;
    // Decoding defaults the written phase (SetDefaults_PersistentVolume) before the strategy compares it.
    if (status.phase === undefined || status.phase === null || status.phase === '') status.phase = 'Pending';
    const given = status.lastPhaseTransitionTime;
    if (oldStatus.phase === status.phase && (given === undefined || given === null)) {
      if (oldStatus.lastPhaseTransitionTime === undefined) delete status.lastPhaseTransitionTime;
      else status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime;
    } else if (oldStatus.phase !== status.phase && (given === undefined || given === null || given === oldStatus.lastPhaseTransitionTime)) {
      status.lastPhaseTransitionTime = nowRFC3339();
    }
    return next;
  },
};

export const persistentVolumes = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'persistentvolumes',
  kind: 'PersistentVolume',
  namespaced: false,
  shortNames: ['pv'],
  definitionName: 'io.k8s.api.core.v1.PersistentVolume',
  // Upstream's decoder defaults the body, so the writer's managedFields entry owns what defaulting adds (a hostPath's type).
  defaults: defaultPersistentVolume,
  strategy: {
    // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
    returnDeletedObject: true,
    prepareForCreate(obj) {
      obj.status = { phase: 'Pending', lastPhaseTransitionTime: nowRFC3339() };
      dropVolumeAttributesClass(obj);
      defaultPersistentVolume(obj);
    },
    prepareForUpdate(obj, old) {
      keepStatus(obj, old);
      dropVolumeAttributesClass(obj, old);
      defaultPersistentVolume(obj);
    },
    validate: validatePersistentVolume,
    validateUpdate: validatePersistentVolumeUpdate,
    warnings: (obj) => persistentVolumeWarnings(obj),
  },
  subresources: [{ name: 'status', kind: 'PersistentVolume', verbs: ['get', 'patch', 'update'], strategy: persistentVolumeStatus }],
  printer: persistentVolumePrinter,
});

export const storageClasses = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'storageclasses',
  kind: 'StorageClass',
  namespaced: false,
  shortNames: ['sc'],
  definitionName: 'io.k8s.api.storage.v1.StorageClass',
  strategy: {
    // Its REST answers a DELETE with the object (ReturnDeletedObject), not a Status.
    returnDeletedObject: true,
    prepareForCreate: defaultStorageClass,
    prepareForUpdate: (obj) => defaultStorageClass(obj),
    validate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
    warnings: storageClassWarnings,
  },
  printer: storageClassPrinter,
});

/** GetWarningsForStorageClass (on create and update): deprecated node labels in allowedTopologies. */
function storageClassWarnings(obj: KubeObject): string[] {
  const out: string[] = [];
  const topologies = Array.isArray(obj.allowedTopologies) ? obj.allowedTopologies : [];
  topologies.forEach((topology, i) => {
    const expressions = isPlainObject(topology) && Array.isArray(topology.matchLabelExpressions) ? topology.matchLabelExpressions : [];
    expressions.forEach((e, j) => {
      const msg = isPlainObject(e) ? DEPRECATED_NODE_LABELS[String(e.key)] : undefined;
      if (msg) out.push(`allowedTopologies[${i}].matchLabelExpressions[${j}].key: ${msg}`);
    });
  });
  return out;
}
