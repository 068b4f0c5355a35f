/**
 * Validation of CSIDrivers, CSINodes and CSIStorageCapacities with kube-apiserver 1.32's field paths and messages
 * (pkg/apis/storage/validation, the strategies of pkg/registry/storage/{csidriver,csinode,csistoragecapacity}), under
 * 1.32's default feature gates: SELinuxMountReadWriteOncePod is on, so a CSIDriver's spec.seLinuxMount is required
 * (defaulting sets it). The metadata is the store's. VolumeAttachments are in volume-attachment-validation.ts.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import type { JsonObject, KubeObject } from '../../../apimachinery/object.js';
import { canonicalQuantity, parseExactQuantity } from '../../../apimachinery/exact-quantity.js';
import { validateLabelSelector } from '../../../apimachinery/validation/label-selector.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../../apimachinery/validation/names.js';
import { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG, validateImmutableField, validateNonnegativeField } from '../../../apimachinery/validation/object-meta.js';
import { goLabelSelector } from './kinds-common.js';
import { isSet, list, obj, str } from './pod-validation-helpers.js';

/** sets.List order: sorted. */
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
/** The order validateVolumeLifecycleModes lists them in. */
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;
/** AllowLongNodeID: both CSINode strategy paths pass it, so 256 rather than 192. */
const CSI_NODE_ID_MAX_LENGTH = 256;

/** core validation's ValidateCSIDriverName: required, at most 63 bytes, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(fe.required(path));
  if (name.length > 63) errs.push(fe.tooLong(path, '', 63));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(fe.invalid(path, name, msg));
  return errs;
}

/** Semantic.DeepEqual of two string lists: a nil list equals an empty one. */
function sameStrings(a: unknown, b: unknown): boolean {
  const x = list(a);
  const y = list(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** How %#v prints a []T: `[]T(nil)` when nil, else its quoted strings. */
function goStringSlice(type: string, v: unknown): string {
  return Array.isArray(v) ? `[]${type}{${v.map((s) => JSON.stringify(String(s))).join(', ')}}` : `[]${type}(nil)`;
}

// ---- CSIDriver ----

/** validateCSIDriverSpec. Upstream names attachRequired's path `spec.attachedRequired` (sic), here too. */
function validateCSIDriverSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!isSet(spec.attachRequired)) errs.push(fe.required('spec.attachedRequired'));
  if (!isSet(spec.podInfoOnMount)) errs.push(fe.required('spec.podInfoOnMount'));
  if (!isSet(spec.storageCapacity)) errs.push(fe.required('spec.storageCapacity'));
  if (isSet(spec.fsGroupPolicy) && !FS_GROUP_POLICIES.includes(str(spec.fsGroupPolicy))) errs.push(fe.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  const audiences = new Set<string>();
  list(spec.tokenRequests).forEach((raw, i) => {
    const request = obj(raw);
    const path = `spec.tokenRequests[${i}]`;
    const audience = str(request.audience);
    if (audiences.has(audience)) {
      errs.push(fe.duplicate(`${path}.audience`, audience));
      return;
    }
    audiences.add(audience);
    if (typeof request.expirationSeconds !== 'number') return;
    const seconds = request.expirationSeconds;
    if (seconds < MIN_TOKEN_SECONDS) errs.push(fe.invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_TOKEN_SECONDS) errs.push(fe.invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const mode of list(spec.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(str(mode))) errs.push(fe.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  if (!isSet(spec.seLinuxMount)) errs.push(fe.required('spec.seLinuxMount'));
  return errs;
}

/** ValidateCSIDriver (the metadata is the store's). */
export function validateCSIDriver(driver: KubeObject): FieldError[] {
  return validateCSIDriverSpec(obj(driver.spec));
}

/** ValidateCSIDriverUpdate: the spec validated again; attachRequired and volumeLifecycleModes cannot change. */
export function validateCSIDriverUpdate(driver: KubeObject, old: KubeObject): FieldError[] {
  const spec = obj(driver.spec);
  const oldSpec = obj(old.spec);
  const errs = validateCSIDriverSpec(spec);
  const attach = (v: unknown) => (typeof v === 'boolean' ? v : null);
  errs.push(...validateImmutableField(attach(spec.attachRequired), attach(oldSpec.attachRequired), FieldPath.root('spec').child('attachedRequired')));
  if (!sameStrings(spec.volumeLifecycleModes, oldSpec.volumeLifecycleModes)) {
    errs.push({
      ...fe.invalid('spec.volumeLifecycleModes', spec.volumeLifecycleModes ?? null, FIELD_IMMUTABLE_ERROR_MSG),
      renderedValue: goStringSlice('storage.VolumeLifecycleMode', spec.volumeLifecycleModes),
    });
  }
  return errs;
}

/** The spec of a CSIDriver as Semantic.DeepEqual sees it (nil and empty lists alike), for its generation. */
export function csiDriverSpecChanged(driver: KubeObject, old: KubeObject): boolean {
  const key = (spec: JsonObject) =>
    JSON.stringify([
      spec.attachRequired ?? null,
      spec.podInfoOnMount ?? null,
      list(spec.volumeLifecycleModes),
      spec.storageCapacity ?? null,
      spec.fsGroupPolicy ?? null,
      list(spec.tokenRequests).map((t) => [str(obj(t).audience), obj(t).expirationSeconds ?? null]),
      spec.requiresRepublish ?? null,
      spec.seLinuxMount ?? null,
    ]);
  return key(obj(driver.spec)) !== key(obj(old.spec));
}

// ---- CSINode ----

function validateCSINodeDriver(driver: JsonObject, path: string, seen: Set<string>): FieldError[] {
  const name = str(driver.name);
  const nodeID = str(driver.nodeID);
  const errs = validateCSIDriverName(name, `${path}.name`);
  if (nodeID.length === 0) errs.push(fe.required(`${path}.nodeID`));
  if (nodeID.length > CSI_NODE_ID_MAX_LENGTH) errs.push(fe.invalid(`${path}.nodeID`, nodeID, `must be ${CSI_NODE_ID_MAX_LENGTH} characters or less`));
  const count = obj(driver.allocatable).count;
  if (typeof count === 'number') errs.push(...validateNonnegativeField(count, FieldPath.root(`${path}.allocatable.count`)));
  if (seen.has(name)) errs.push(fe.duplicate(`${path}.name`, name));
  seen.add(name);
  // Topology keys are reported on the driver's path, not the key's.
  const keys = new Set<string>();
  for (const raw of list(driver.topologyKeys)) {
    const key = str(raw);
    if (key.length === 0) errs.push(fe.required(path));
    if (keys.has(key)) errs.push(fe.duplicate(path, key));
    keys.add(key);
    for (const msg of isQualifiedName(key)) errs.push(fe.invalid(path, key, msg));
  }
  return errs;
}

/** ValidateCSINode (the metadata is the store's). */
export function validateCSINode(node: KubeObject): FieldError[] {
  const seen = new Set<string>();
  return list(obj(node.spec).drivers).flatMap((d, i) => validateCSINodeDriver(obj(d), `spec.drivers[${i}]`, seen));
}

/** Semantic.DeepEqual of two CSINodeDrivers: nil and empty topology keys alike, a nil allocatable not an empty one. */
function sameDriver(a: JsonObject, b: JsonObject): boolean {
  const allocatable = (d: JsonObject) => (isSet(d.allocatable) ? JSON.stringify(obj(d.allocatable).count ?? null) : undefined);
  return str(a.name) === str(b.name) && str(a.nodeID) === str(b.nodeID) && sameStrings(a.topologyKeys, b.topologyKeys) && allocatable(a) === allocatable(b);
}

/** %#v of a storage.CSINodeDriver; the pointer's address is ours (upstream's differs on every request anyway). */
function goCSINodeDriver(d: JsonObject): string {
  const allocatable = isSet(d.allocatable) ? '(*storage.VolumeNodeResources)(0xc000a1b2c0)' : '(*storage.VolumeNodeResources)(nil)';
  return `storage.CSINodeDriver{Name:${JSON.stringify(str(d.name))}, NodeID:${JSON.stringify(str(d.nodeID))}, TopologyKeys:${goStringSlice('string', d.topologyKeys)}, Allocatable:${allocatable}}`;
}

/**
 * The strategy's ValidateUpdate: ValidateCSINode, then ValidateCSINodeUpdate, which validates the node again (each
 * error is listed twice among the causes, as upstream's) and refuses any change to a driver kept under its name.
 */
export function validateCSINodeUpdate(node: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...validateCSINode(node), ...validateCSINode(node)];
  const drivers = list(obj(node.spec).drivers).map(obj);
  for (const oldDriver of list(obj(old.spec).drivers).map(obj)) {
    for (const driver of drivers) {
      if (str(driver.name) === str(oldDriver.name) && !sameDriver(driver, oldDriver)) {
        errs.push({ ...fe.invalid('CSINodeDriver', driver, FIELD_IMMUTABLE_ERROR_MSG), renderedValue: goCSINodeDriver(driver) });
      }
    }
  }
  return errs;
}

// ---- CSIStorageCapacity ----

function validateCapacityFields(capacity: KubeObject, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const errs = validateLabelSelector(capacity.nodeTopology, FieldPath.root('nodeTopology'), { allowInvalidLabelValueInSelector });
  const className = str(capacity.storageClassName);
  for (const msg of isDNS1123Subdomain(className)) errs.push(fe.invalid('storageClassName', className, msg));
  if (isSet(capacity.capacity)) {
    try {
      if (parseExactQuantity(capacity.capacity).nanos < 0n) errs.push(fe.invalid('capacity', canonicalQuantity(capacity.capacity), IS_NEGATIVE_ERROR_MSG));
    } catch {
      // Not a quantity: the decoder refuses it before validation.
    }
  }
  return errs;
}

/** ValidateCSIStorageCapacity on create: label values in nodeTopology must be valid. */
export function validateCSIStorageCapacity(capacity: KubeObject): FieldError[] {
  return validateCapacityFields(capacity, false);
}

/** A label selector as Semantic.DeepEqual sees it: nil and empty maps and lists alike. */
function selectorKey(sel: unknown): string | undefined {
  if (!isSet(sel)) return undefined;
  const s = obj(sel);
  const labels = Object.entries(obj(s.matchLabels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const exprs = list(s.matchExpressions).map((e) => [str(obj(e).key), str(obj(e).operator), list(obj(e).values)]);
  return JSON.stringify([labels, exprs]);
}

/**
 * The strategy's ValidateUpdate: ValidateCSIStorageCapacity, lenient about label values when the stored object's
 * nodeTopology already failed validation, then ValidateCSIStorageCapacityUpdate: nodeTopology and storageClassName
 * cannot change (the inputs of the driver's GetCapacity call).
 */
export function validateCSIStorageCapacityUpdate(capacity: KubeObject, old: KubeObject): FieldError[] {
  const oldInvalid = validateLabelSelector(old.nodeTopology, FieldPath.root('nodeTopology')).length > 0;
  const errs = validateCapacityFields(capacity, oldInvalid);
  if (selectorKey(capacity.nodeTopology) !== selectorKey(old.nodeTopology)) {
    // The bad value is a *LabelSelector, which field.Error prints dereferenced (%#v of the struct), or "null".
    const rendered = isSet(capacity.nodeTopology) ? { renderedValue: goLabelSelector(capacity.nodeTopology).replace(/^&/, '') } : {};
    errs.push({ ...fe.invalid('nodeTopology', capacity.nodeTopology ?? null, FIELD_IMMUTABLE_ERROR_MSG), ...rendered });
  }
  if (str(capacity.storageClassName) !== str(old.storageClassName)) errs.push(fe.invalid('storageClassName', str(capacity.storageClassName), FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

/** pkg/api/node's deprecated node labels, which a nodeTopology selecting on them is warned about. */
export const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
  'app.kubernetes.io/created-by': 'deprecated since v1.9',
  'scheduler.alpha.kubernetes.io/preferAvoidPods': 'deprecated since v1.22; use Taints and Tolerations instead',
  'node-role.kubernetes.io/master': 'use "node-role.kubernetes.io/control-plane" instead',
};

/**
 * GetWarningsForCSIStorageCapacity (on create and update): deprecated node labels in nodeTopology. Go walks
 * matchLabels in map order, which varies; we take the keys sorted.
 */
export function csiStorageCapacityWarnings(capacity: KubeObject): string[] {
  if (!isSet(capacity.nodeTopology)) return [];
  const sel = obj(capacity.nodeTopology);
  const warnings: string[] = [];
  list(sel.matchExpressions).forEach((e, i) => {
    const key = str(obj(e).key);
    const msg = DEPRECATED_NODE_LABELS[key];
    if (msg) warnings.push(`nodeTopology.matchExpressions[${i}].key: ${key} is ${msg}`);
  });
  for (const label of Object.keys(obj(sel.matchLabels)).sort()) {
    const msg = DEPRECATED_NODE_LABELS[label];
    if (msg) warnings.push(`nodeTopology.matchLabels.${label}: ${msg}`);
  }
  return warnings;
}
