/**
 * Validation of PersistentVolumeClaims, PersistentVolumes and StorageClasses with kube-apiserver 1.32's field paths
 * and messages (pkg/apis/core/validation ValidatePersistentVolume*, pkg/apis/storage/validation), under 1.32's
 * default feature gates: VolumeAttributesClass off (so that field is dropped and may not change),
 * RecoverVolumeExpansionFailure on (a bound claim may shrink back to just above status.capacity).
 *
 * Deliberate difference: upstream appends a Go cmp.Diff of the old and new spec to the "spec is immutable" and
 * "spec.persistentvolumesource is immutable" messages; atrium gives the message without the diff.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { canonicalQuantity } from '../../../apimachinery/exact-quantity.js';
import { isQuantity, milliValue, parseQuantity } from '../../../apimachinery/quantity.js';
import { validateLabelSelector } from '../../../apimachinery/validation/label-selector.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../apimachinery/validation/names.js';
import { FIELD_IMMUTABLE_ERROR_MSG, validateLabelName } from '../../../apimachinery/validation/object-meta.js';

function asObject(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const supportedVolumeModes = ['Block', 'Filesystem'];

/** The quantity as a number (0 when it is not a quantity; the decoder refuses those before validation). */
function quantityValue(q: unknown): number {
  return isQuantity(q) ? parseQuantity(q as string | number) : 0;
}

function validatePositiveQuantity(q: unknown, path: string): FieldError[] {
  return quantityValue(q) <= 0 ? [fe.invalid(path, String(q), 'must be greater than zero')] : [];
}

/** Access modes: each supported, and ReadWriteOncePod alone. */
export function validateAccessModes(modes: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    if (!supportedAccessModes.includes(mode)) errs.push(fe.notSupported(path, mode, supportedAccessModes));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (supportedAccessModes.includes(mode)) other = true;
  }
  if (rwop && other) errs.push(fe.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

function validateClassName(name: string, path: string): FieldError[] {
  return isDNS1123Subdomain(name).map((msg) => fe.invalid(path, name, msg));
}

function validateDataSource(ref: JsonObject, path: FieldPath, withNamespace: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(ref.name)) errs.push(fe.required(path.child('name').toString()));
  if (!str(ref.kind)) errs.push(fe.required(path.child('kind').toString()));
  const apiGroup = str(ref.apiGroup);
  if (!apiGroup && ref.kind !== 'PersistentVolumeClaim') {
    errs.push(fe.invalid(path.toString(), ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup) for (const msg of isDNS1123Subdomain(apiGroup)) errs.push(fe.invalid(path.child('apiGroup').toString(), apiGroup, msg));
  if (withNamespace && str(ref.namespace)) {
    for (const msg of isDNS1123Label(str(ref.namespace))) errs.push(fe.invalid(path.child('namespace').toString(), ref.namespace, msg));
  }
  return errs;
}

/** ValidatePersistentVolumeClaimSpec. */
export function validatePersistentVolumeClaimSpec(specValue: unknown, path: FieldPath): FieldError[] {
  const spec = asObject(specValue);
  const errs: FieldError[] = [];
  const modes = strings(spec.accessModes);
  if (modes.length === 0) errs.push(fe.required(path.child('accessModes').toString(), 'at least 1 access mode is required'));
  errs.push(...validateLabelSelector(spec.selector, path.child('selector')));
  errs.push(...validateAccessModes(modes, path.child('accessModes').toString()));
  const requests = asObject(asObject(spec.resources).requests);
  const storagePath = path.child('resources').key('storage').toString();
  if (requests.storage === undefined) errs.push(fe.required(storagePath));
  else errs.push(...validatePositiveQuantity(requests.storage, storagePath));
  if (str(spec.storageClassName)) errs.push(...validateClassName(str(spec.storageClassName), path.child('storageClassName').toString()));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !supportedVolumeModes.includes(String(spec.volumeMode))) {
    errs.push(fe.notSupported(path.child('volumeMode').toString(), spec.volumeMode, supportedVolumeModes));
  }
  const dataSource = isPlainObject(spec.dataSource) ? spec.dataSource : undefined;
  const dataSourceRef = isPlainObject(spec.dataSourceRef) ? spec.dataSourceRef : undefined;
  if (dataSource) errs.push(...validateDataSource(dataSource, path.child('dataSource'), false));
  if (dataSourceRef) errs.push(...validateDataSource(dataSourceRef, path.child('dataSourceRef'), true));
  if (dataSourceRef && str(dataSourceRef.namespace)) {
    if (dataSource) errs.push(fe.invalid(path.toString(), path.child('dataSource').toString(), 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (dataSource && dataSourceRef) {
    const same = (dataSource.apiGroup ?? null) === (dataSourceRef.apiGroup ?? null) && dataSource.kind === dataSourceRef.kind && dataSource.name === dataSourceRef.name;
    if (!same) errs.push(fe.invalid(path.toString(), path.child('dataSource').toString(), 'must match dataSourceRef'));
  }
  return errs;
}

/** ValidatePersistentVolumeClaim (object metadata is validated by the store). */
export function validatePersistentVolumeClaim(obj: JsonObject): FieldError[] {
  return validatePersistentVolumeClaimSpec(obj.spec, FieldPath.root('spec'));
}

/** Whether the class moves from the beta annotation to storageClassName (validateStorageClassUpgradeFromAnnotation). */
function classUpgradeFromAnnotation(oldAnn: JsonObject, newAnn: JsonObject, oldClass: unknown, newClass: unknown): boolean {
  if (!(BETA_STORAGE_CLASS_ANNOTATION in oldAnn)) return false;
  const oldSc = oldAnn[BETA_STORAGE_CLASS_ANNOTATION];
  return (oldClass === undefined || oldClass === null) && typeof newClass === 'string' && newClass === oldSc && (!(BETA_STORAGE_CLASS_ANNOTATION in newAnn) || newAnn[BETA_STORAGE_CLASS_ANNOTATION] === oldSc);
}

/** ValidatePersistentVolumeClaimUpdate: the spec is frozen but for a bound claim's storage request and a first volumeName. */
export function validatePersistentVolumeClaimUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = validatePersistentVolumeClaim(obj);
  const newSpec = structuredClone(asObject(obj.spec));
  const oldSpec = structuredClone(asObject(old.spec));
  const newAnn = asObject(asObject(obj.metadata).annotations);
  const oldAnn = asObject(asObject(old.metadata).annotations);
  // The PV controller sets volumeName once.
  if (!str(oldSpec.volumeName)) {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  if (classUpgradeFromAnnotation(oldAnn, newAnn, oldSpec.storageClassName, newSpec.storageClassName)) {
    delete newSpec.storageClassName;
  } else {
    if (newAnn[BETA_STORAGE_CLASS_ANNOTATION] !== oldAnn[BETA_STORAGE_CLASS_ANNOTATION]) {
      errs.push(fe.invalid(`metadata.annotations.${BETA_STORAGE_CLASS_ANNOTATION}`, newAnn[BETA_STORAGE_CLASS_ANNOTATION] ?? '', FIELD_IMMUTABLE_ERROR_MSG));
    }
    // A class may be set once on a claim that had none (validateStorageClassUpgradeFromNil).
    const oldAnnotation = oldAnn[BETA_STORAGE_CLASS_ANNOTATION];
    if (typeof newSpec.storageClassName === 'string' && (oldSpec.storageClassName === undefined || oldSpec.storageClassName === null) && (oldAnnotation === undefined || newSpec.storageClassName === oldAnnotation)) {
      delete newSpec.storageClassName;
    }
  }
  const bound = asObject(obj.status).phase === 'Bound';
  const newRequests = asObject(asObject(newSpec.resources).requests);
  if (bound && isPlainObject(asObject(newSpec.resources).requests)) {
    const oldStorage = asObject(asObject(oldSpec.resources).requests).storage;
    if (oldStorage === undefined) delete newRequests.storage;
    else newRequests.storage = oldStorage;
  }
  if (bound && newSpec.volumeAttributesClassName !== undefined && newSpec.volumeAttributesClassName !== null) {
    if (oldSpec.volumeAttributesClassName === undefined) delete newSpec.volumeAttributesClassName;
    else newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  if (!jsonEqual(normalizeQuantities(newSpec), normalizeQuantities(oldSpec))) {
    errs.push(fe.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  }
  const oldSize = quantityValue(asObject(asObject(asObject(old.spec).resources).requests).storage);
  const newSize = quantityValue(asObject(asObject(asObject(obj.spec).resources).requests).storage);
  const statusSize = quantityValue(asObject(asObject(old.status).capacity).storage);
  // RecoverVolumeExpansionFailure (on by default in 1.32): shrinking is allowed down to just above status.capacity.
  if (newSize < oldSize && newSize <= statusSize) errs.push(fe.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  const newMode = asObject(obj.spec).volumeMode ?? null;
  const oldMode = asObject(old.spec).volumeMode ?? null;
  if (newMode !== oldMode) errs.push(fe.invalid('volumeMode', newMode, FIELD_IMMUTABLE_ERROR_MSG));
  if (!jsonEqual(asObject(old.spec).volumeAttributesClassName ?? null, asObject(obj.spec).volumeAttributesClassName ?? null)) {
    errs.push(fe.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}

/** Quantities compared by value, as apiequality.Semantic does ("1Gi" equals "1024Mi"). */
function normalizeQuantities(spec: JsonObject): JsonObject {
  const out = structuredClone(spec);
  const resources = asObject(out.resources);
  for (const part of ['limits', 'requests']) {
    if (!isPlainObject(resources[part])) continue;
    resources[part] = Object.fromEntries(Object.entries(resources[part]).map(([k, v]) => [k, isQuantity(v) ? milliValue(v as string | number) : v]));
  }
  return out;
}

/** ValidatePersistentVolumeClaimStatusUpdate's checks of the written status. */
export function validatePersistentVolumeClaimStatus(obj: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (strings(asObject(obj.spec).accessModes).length === 0) errs.push(fe.required('Spec.accessModes'));
  for (const [name, q] of Object.entries(asObject(asObject(obj.status).capacity))) {
    if (quantityValue(q) < 0) errs.push(fe.invalid(`status.capacity[${name}]`, Math.trunc(quantityValue(q)), 'must be a valid resource quantity'));
  }
  return errs;
}

/** GetWarningsForPersistentVolumeClaimSpec at `path`: fractional byte storage requests and limits (as Quantity.String()). */
export function persistentVolumeClaimSpecWarnings(path: string, spec: unknown): string[] {
  const resources = asObject(asObject(spec).resources);
  const out: string[] = [];
  for (const part of ['requests', 'limits']) {
    const q = asObject(resources[part]).storage;
    if (isQuantity(q) && milliValue(q as string | number) % 1000 !== 0) {
      out.push(`${path}.resources.${part}[storage]: fractional byte value ${JSON.stringify(canonicalQuantity(q))} is invalid, must be an integer`);
    }
  }
  return out;
}

/** Warnings for a claim (GetWarningsForPersistentVolumeClaim). */
export function persistentVolumeClaimWarnings(obj: JsonObject): string[] {
  const warnings: string[] = [];
  if (BETA_STORAGE_CLASS_ANNOTATION in asObject(asObject(obj.metadata).annotations)) {
    warnings.push(`metadata.annotations[${BETA_STORAGE_CLASS_ANNOTATION}]: deprecated since v1.8; use "storageClassName" attribute instead`);
  }
  warnings.push(...persistentVolumeClaimSpecWarnings('spec', obj.spec));
  return warnings;
}

const volumeTypes = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cephfs', 'iscsi', 'cinder', 'fc',
  'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO', 'local', 'storageos', 'csi',
];
/** Where upstream reports a source's own errors when the JSON name differs (ValidatePersistentVolumeSpec's paths). */
const sourcePathName: Record<string, string> = { gcePersistentDisk: 'persistentDisk' };
/** Where upstream reports "may not specify more than 1 volume type" when the JSON name differs. */
const duplicatePathName: Record<string, string> = { cephfs: 'cephFS' };

function validatePathNoBacksteps(path: string, at: string): FieldError[] {
  return path.split('/').includes('..') ? [fe.invalid(at, path, "must not contain '..'")] : [];
}

function validateSecretReference(ref: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(ref.name)) errs.push(fe.required(path.child('name').toString()));
  else for (const msg of isDNS1123Subdomain(str(ref.name))) errs.push(fe.invalid(path.child('name').toString(), ref.name, msg));
  if (!str(ref.namespace)) errs.push(fe.required(path.child('namespace').toString()));
  else for (const msg of isDNS1123Label(str(ref.namespace))) errs.push(fe.invalid(path.child('namespace').toString(), ref.namespace, msg));
  return errs;
}

/** The checks of the common volume sources; the rarely used ones are accepted as they are. */
function validateVolumeSource(type: string, source: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  switch (type) {
    case 'hostPath':
    case 'local':
      if (!str(source.path)) errs.push(fe.required(path.child('path').toString()));
      else errs.push(...validatePathNoBacksteps(str(source.path), path.child('path').toString()));
      break;
    case 'nfs':
      if (!str(source.server)) errs.push(fe.required(path.child('server').toString()));
      if (!str(source.path)) errs.push(fe.required(path.child('path').toString()));
      if (!str(source.path).startsWith('/')) errs.push(fe.invalid(path.child('path').toString(), str(source.path), 'must be an absolute path'));
      break;
    case 'csi': {
      const driver = str(source.driver);
      const driverPath = path.child('driver').toString();
      if (!driver) errs.push(fe.required(driverPath));
      if (driver.length > 63) errs.push(fe.tooLong(driverPath, driver, 63));
      for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(fe.invalid(driverPath, driver, msg));
      if (!str(source.volumeHandle)) errs.push(fe.required(path.child('volumeHandle').toString()));
      for (const ref of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef']) {
        if (isPlainObject(source[ref])) errs.push(...validateSecretReference(source[ref], path.child(ref)));
      }
      break;
    }
  }
  return errs;
}

function validateNodeSelectorRequirement(req: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = strings(req.values);
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(fe.required(path.child('values').toString(), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(fe.forbidden(path.child('values').toString(), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(fe.required(path.child('values').toString(), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fe.invalid(path.child('operator').toString(), req.operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(str(req.key), path.child('key')));
  return errs;
}

/** validateVolumeNodeAffinity: required node selector terms. */
function validateVolumeNodeAffinity(affinity: JsonObject, path: FieldPath): FieldError[] {
  if (!isPlainObject(affinity.required)) return [fe.required(path.child('required').toString(), 'must specify required node constraints')];
  const termsPath = path.child('required').child('nodeSelectorTerms');
  const terms = Array.isArray(affinity.required.nodeSelectorTerms) ? affinity.required.nodeSelectorTerms : [];
  if (terms.length === 0) return [fe.required(termsPath.toString(), 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  terms.forEach((term, i) => {
    const expressions = Array.isArray(asObject(term).matchExpressions) ? (asObject(term).matchExpressions as unknown[]) : [];
    expressions.forEach((req, j) => errs.push(...validateNodeSelectorRequirement(asObject(req), termsPath.index(i).child('matchExpressions').index(j))));
  });
  return errs;
}

/**
 * The volume source of a PersistentVolumeSpec at `path`, as ValidatePersistentVolumeSpec checks it for a volume and
 * for an inline one (a VolumeAttachment's): exactly one source, each validated; a local volume needs node affinity.
 */
export function validatePersistentVolumeSources(spec: JsonObject, path: FieldPath, hasNodeAffinity: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let volumes = 0;
  for (const type of volumeTypes) {
    const source = spec[type];
    if (source === undefined || source === null) continue;
    if (volumes > 0 && type !== 'flexVolume') {
      errs.push(fe.forbidden(path.child(duplicatePathName[type] ?? type).toString(), 'may not specify more than 1 volume type'));
      continue;
    }
    volumes++;
    errs.push(...validateVolumeSource(type, asObject(source), path.child(sourcePathName[type] ?? type)));
    if (type === 'local' && !hasNodeAffinity) errs.push(fe.required(path.child('nodeAffinity').toString(), 'Local volume requires node affinity'));
  }
  if (volumes === 0) errs.push(fe.required(path.toString(), 'must specify a volume type'));
  return errs;
}

/** ValidatePersistentVolumeSpec (not inline) plus the mount-option annotation check. */
export function validatePersistentVolume(obj: JsonObject): FieldError[] {
  const spec = asObject(obj.spec);
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const modes = strings(spec.accessModes);
  if (modes.length === 0) errs.push(fe.required('spec.accessModes'));
  errs.push(...validateAccessModes(modes, 'spec.accessModes'));
  const capacity = asObject(spec.capacity);
  const capacityKeys = Object.keys(capacity);
  if (capacityKeys.length === 0) errs.push(fe.required('spec.capacity'));
  if (!('storage' in capacity) || capacityKeys.length > 1) {
    // Go prints the offending ResourceList with %#v; a missing one is a nil map.
    const missing = !isPlainObject(spec.capacity);
    errs.push({ ...fe.notSupported('spec.capacity', capacity, ['storage']), ...(missing ? { renderedValue: 'core.ResourceList(nil)' } : {}) });
  }
  for (const [name, q] of Object.entries(capacity)) {
    const at = `spec.capacity[${name}]`;
    if (quantityValue(q) < 0) errs.push(fe.invalid(at, Math.trunc(quantityValue(q)), 'must be a valid resource quantity'));
    errs.push(...validatePositiveQuantity(q, at));
  }
  const reclaim = str(spec.persistentVolumeReclaimPolicy);
  if (reclaim && !['Delete', 'Recycle', 'Retain'].includes(reclaim)) errs.push(fe.notSupported('spec.persistentVolumeReclaimPolicy', reclaim, ['Delete', 'Recycle', 'Retain']));
  const hasNodeAffinity = isPlainObject(spec.nodeAffinity);
  if (hasNodeAffinity) errs.push(...validateVolumeNodeAffinity(spec.nodeAffinity as JsonObject, path.child('nodeAffinity')));
  errs.push(...validatePersistentVolumeSources(spec, path, hasNodeAffinity));
  if (isPlainObject(spec.hostPath) && str(spec.hostPath.path).replace(/\/+$/, '') === '' && str(spec.hostPath.path).startsWith('/') && reclaim === 'Recycle') {
    errs.push(fe.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (str(spec.storageClassName)) errs.push(...validateClassName(str(spec.storageClassName), 'spec.storageClassName'));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !supportedVolumeModes.includes(String(spec.volumeMode))) {
    errs.push(fe.notSupported('spec.volumeMode', spec.volumeMode, supportedVolumeModes));
  }
  const mountOptionTypes = ['gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk'];
  if (!mountOptionTypes.some((t) => isPlainObject(spec[t])) && 'volume.beta.kubernetes.io/mount-options' in asObject(asObject(obj.metadata).annotations)) {
    errs.push(fe.forbidden('metadata.annotations.volume.beta.kubernetes.io/mount-options', 'may not specify mount options for this volume type'));
  }
  return errs;
}

/** ValidatePersistentVolumeUpdate: the volume source, volumeMode and a set nodeAffinity cannot change. */
export function validatePersistentVolumeUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs = validatePersistentVolume(obj);
  const sourceOf = (o: JsonObject): JsonObject => Object.fromEntries(volumeTypes.filter((t) => asObject(o.spec)[t] !== undefined && asObject(o.spec)[t] !== null).map((t) => [t, asObject(o.spec)[t]]));
  const newSource = structuredClone(sourceOf(obj));
  const oldSource = sourceOf(old);
  // A CSI volume may gain a controllerExpandSecretRef.
  if (isPlainObject(oldSource.csi) && oldSource.csi.controllerExpandSecretRef === undefined && isPlainObject(newSource.csi)) delete newSource.csi.controllerExpandSecretRef;
  if (!jsonEqual(newSource, oldSource)) errs.push(fe.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  const newMode = asObject(obj.spec).volumeMode ?? null;
  const oldMode = asObject(old.spec).volumeMode ?? null;
  if (newMode !== oldMode) errs.push(fe.invalid('volumeMode', newMode, FIELD_IMMUTABLE_ERROR_MSG));
  const oldAffinity = asObject(old.spec).nodeAffinity;
  if (oldAffinity !== undefined && oldAffinity !== null && !jsonEqual(asObject(obj.spec).nodeAffinity ?? null, oldAffinity)) {
    errs.push(fe.invalid('nodeAffinity', asObject(obj.spec).nodeAffinity ?? null, `${FIELD_IMMUTABLE_ERROR_MSG}, except for updating from beta label to GA`));
  }
  if (!jsonEqual(asObject(old.spec).volumeAttributesClassName ?? null, asObject(obj.spec).volumeAttributesClassName ?? null)) {
    errs.push(fe.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}

const deprecatedPlugins: [string, string, string][] = [
  ['cephfs', 'cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['photonPersistentDisk', 'photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['scaleIO', 'scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['storageos', 'storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['rbd', 'rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

/** Warnings for a volume (GetWarningsForPersistentVolume, without the deprecated node-label checks). */
export function persistentVolumeWarnings(obj: JsonObject): string[] {
  const warnings: string[] = [];
  const spec = asObject(obj.spec);
  const annotations = asObject(asObject(obj.metadata).annotations);
  if (BETA_STORAGE_CLASS_ANNOTATION in annotations) {
    warnings.push(`metadata.annotations[${BETA_STORAGE_CLASS_ANNOTATION}]: deprecated since v1.8; use "storageClassName" attribute instead`);
  }
  if ('volume.beta.kubernetes.io/mount-options' in annotations) {
    warnings.push('metadata.annotations[volume.beta.kubernetes.io/mount-options]: deprecated since v1.31; use "mountOptions" attribute instead');
  }
  if (spec.persistentVolumeReclaimPolicy === 'Recycle') {
    warnings.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  for (const [field, pathName, message] of deprecatedPlugins) if (isPlainObject(spec[field])) warnings.push(`spec.${pathName}: ${message}`);
  return warnings;
}

/** ValidateStorageClass. */
export function validateStorageClass(obj: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(obj.provisioner);
  if (!provisioner) errs.push(fe.required('provisioner'));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(fe.invalid('provisioner', provisioner.toLowerCase(), msg));
  const params = asObject(obj.parameters);
  const entries = Object.entries(params);
  if (entries.length > 512) errs.push(fe.tooLong('parameters', '', 512));
  else {
    let size = 0;
    for (const [k, v] of entries) {
      if (k.length < 1) errs.push(fe.invalid('parameters', k, 'field can not be empty.'));
      size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
    }
    if (size > 256 * 1024) errs.push(fe.tooLong('parameters', '', 256 * 1024));
  }
  const reclaim = str(obj.reclaimPolicy);
  if (reclaim && !['Delete', 'Retain'].includes(reclaim)) errs.push(fe.notSupported('reclaimPolicy', reclaim, ['Delete', 'Retain']));
  if (obj.volumeBindingMode === undefined || obj.volumeBindingMode === null) errs.push(fe.required('volumeBindingMode'));
  else if (!['Immediate', 'WaitForFirstConsumer'].includes(String(obj.volumeBindingMode))) {
    errs.push(fe.notSupported('volumeBindingMode', obj.volumeBindingMode, ['Immediate', 'WaitForFirstConsumer']));
  }
  const seen: string[] = [];
  (Array.isArray(obj.allowedTopologies) ? obj.allowedTopologies : []).forEach((rawTerm, i) => {
    const termPath = FieldPath.root('allowedTopologies').index(i);
    const exprPath = termPath.child('matchLabelExpressions');
    const keys = new Map<string, string[]>();
    (Array.isArray(asObject(rawTerm).matchLabelExpressions) ? (asObject(rawTerm).matchLabelExpressions as unknown[]) : []).forEach((rawReq, j) => {
      const req = asObject(rawReq);
      const at = exprPath.index(j);
      const values = strings(req.values);
      if (values.length === 0) errs.push(fe.required(at.child('values').toString()));
      values.forEach((v, k) => {
        if (values.indexOf(v) !== k) errs.push(fe.duplicate(at.child('values').index(k).toString(), v));
      });
      errs.push(...validateLabelName(str(req.key), at.child('key')));
      if (keys.has(str(req.key))) errs.push(fe.duplicate(at.child('key').toString(), str(req.key)));
      keys.set(str(req.key), [...new Set(values)].sort());
    });
    const canonical = JSON.stringify([...keys.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (seen.includes(canonical)) errs.push(fe.duplicate(exprPath.toString(), ''));
    seen.push(canonical);
  });
  return errs;
}

/** ValidateStorageClassUpdate: provisioner, parameters, reclaim policy and volume binding mode are frozen. */
export function validateStorageClassUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!jsonEqual(obj.parameters ?? null, old.parameters ?? null)) errs.push(fe.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (str(obj.provisioner) !== str(old.provisioner)) errs.push(fe.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (str(obj.reclaimPolicy) !== str(old.reclaimPolicy)) errs.push(fe.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if ((obj.volumeBindingMode ?? null) !== (old.volumeBindingMode ?? null)) errs.push(fe.invalid('volumeBindingMode', obj.volumeBindingMode ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  return [...validateStorageClass(obj), ...errs];
}
