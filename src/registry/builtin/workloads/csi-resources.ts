/**
 * storage.k8s.io/v1 CSIDrivers, CSINodes, CSIStorageCapacities and VolumeAttachments (with /status), as
 * kube-apiserver 1.32 serves them (pkg/registry/storage/{csidriver,csinode,csistoragecapacity,volumeattachment}).
 * None has a short name or category, none is created by a PUT, and every update needs a resourceVersion. A CSIDriver
 * gets no generation on create but one more on each spec change (0 + 1 the first time); a VolumeAttachment's main
 * endpoint never writes its status and its /status never its spec or metadata. Under 1.32's default gates
 * (SELinuxMountReadWriteOncePod on) a CSIDriver's seLinuxMount is kept and defaulted.
 *
 * Physical-cluster configuration: a workspace does not serve them (src/multicluster/api/workload-resources.ts).
 *
 * Deliberately left out: SetObjectDefaults_VolumeAttachment's defaults for the non-CSI sources of an inline volume
 * (RBD pool, iSCSI interface, ...): an inline volume must be a CSI one, so validation refuses every object they would
 * change.
 */
import { type JsonObject, type KubeObject, isPlainObject, metaOf } from '../../../apimachinery/object.js';
import { validateObjectMetaUpdate } from '../../../apimachinery/validation/object-meta.js';
import type { SubresourceStrategy } from '../../rest.js';
import { defineBuiltin, statusOnly } from '../define.js';
import { csiDriverPrinter, csiNodePrinter, volumeAttachmentPrinter } from './csi-printers.js';
import {
  csiDriverSpecChanged,
  csiStorageCapacityWarnings,
  validateCSIDriver,
  validateCSIDriverUpdate,
  validateCSINode,
  validateCSINodeUpdate,
  validateCSIStorageCapacity,
  validateCSIStorageCapacityUpdate,
} from './csi-validation.js';
import { validateVolumeAttachment, validateVolumeAttachmentUpdate } from './volume-attachment-validation.js';

const unset = (v: unknown): boolean => v === undefined || v === null;

/**
 * SetDefaults_CSIDriver, as the decoder applies it to every body: attach required, no pod info, no capacity
 * tracking, fsGroup for ReadWriteOnce volumes with an fsType, Persistent volumes only, no republish, no SELinux mount.
 */
export function defaultCSIDriver(obj: KubeObject): void {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as JsonObject;
  if (unset(spec.attachRequired)) spec.attachRequired = true;
  if (unset(spec.podInfoOnMount)) spec.podInfoOnMount = false;
  if (unset(spec.storageCapacity)) spec.storageCapacity = false;
  if (unset(spec.fsGroupPolicy)) spec.fsGroupPolicy = 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  if (unset(spec.requiresRepublish)) spec.requiresRepublish = false;
  if (unset(spec.seLinuxMount)) spec.seLinuxMount = false;
}

export const csiDrivers = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csidrivers',
  kind: 'CSIDriver',
  namespaced: false,
  definitionName: 'io.k8s.api.storage.v1.CSIDriver',
  defaults: defaultCSIDriver,
  strategy: {
    allowUnconditionalUpdate: false,
    returnDeletedObject: true,
    bumpsGeneration: csiDriverSpecChanged,
    validate: validateCSIDriver,
    validateUpdate: validateCSIDriverUpdate,
  },
  printer: csiDriverPrinter,
});

/**
 * kube-apiserver stores these objects as protobuf, where an empty list is not written: a CSINode's drivers, or a
 * driver's topologyKeys, written as [] read back (and are answered) as null, Go writing those fields even when nil.
 * The generic typed round trip keeps such lists as sent (omit-empty.ts), so the strategy nulls them here.
 */
function nullEmptyLists(obj: KubeObject): void {
  if (!isPlainObject(obj.spec)) return;
  const spec = obj.spec as JsonObject;
  if (Array.isArray(spec.drivers) && spec.drivers.length === 0) spec.drivers = null;
  for (const driver of Array.isArray(spec.drivers) ? spec.drivers : []) {
    if (isPlainObject(driver) && Array.isArray(driver.topologyKeys) && driver.topologyKeys.length === 0) driver.topologyKeys = null;
  }
}

export const csiNodes = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csinodes',
  kind: 'CSINode',
  namespaced: false,
  definitionName: 'io.k8s.api.storage.v1.CSINode',
  strategy: {
    allowUnconditionalUpdate: false,
    returnDeletedObject: true,
    prepareForCreate: nullEmptyLists,
    prepareForUpdate: nullEmptyLists,
    validate: validateCSINode,
    validateUpdate: validateCSINodeUpdate,
  },
  printer: csiNodePrinter,
});

export const csiStorageCapacities = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csistoragecapacities',
  kind: 'CSIStorageCapacity',
  namespaced: true,
  definitionName: 'io.k8s.api.storage.v1.CSIStorageCapacity',
  strategy: {
    allowUnconditionalUpdate: false,
    validate: validateCSIStorageCapacity,
    validateUpdate: validateCSIStorageCapacityUpdate,
    warnings: (obj) => csiStorageCapacityWarnings(obj),
  },
  // No printer: upstream's store uses the default table convertor (Name, Created At).
});

/**
 * volumeAttachmentStatusStrategy: the write's status only (its spec and, by ResetObjectMetaForStatus, all of its
 * metadata are the stored object's), validated by the inherited ValidateUpdate.
 */
const volumeAttachmentStatus: SubresourceStrategy = {
  apply: statusOnly.apply,
  validate: (obj, old) => [...validateObjectMetaUpdate(metaOf(obj), metaOf(old)), ...validateVolumeAttachmentUpdate(obj, old)],
};

export const volumeAttachments = defineBuiltin({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'volumeattachments',
  kind: 'VolumeAttachment',
  namespaced: false,
  definitionName: 'io.k8s.api.storage.v1.VolumeAttachment',
  strategy: {
    allowUnconditionalUpdate: false,
    returnDeletedObject: true,
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    validate: validateVolumeAttachment,
    validateUpdate: validateVolumeAttachmentUpdate,
  },
  subresources: [{ name: 'status', kind: 'VolumeAttachment', verbs: ['get', 'patch', 'update'], strategy: volumeAttachmentStatus }],
  printer: volumeAttachmentPrinter,
});
