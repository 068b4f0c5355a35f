/**
 * Defaulting of the storage, service-plumbing and networking kinds a physical cluster serves, as kube-apiserver 1.32's
 * SetDefaults_* / SetObjectDefaults_* functions fill in omitted fields (pkg/apis/core/v1, networking/v1,
 * discovery/v1, storage/v1 defaults.go and zz_generated.defaults.go). A few structs Go always serialises (a
 * non-pointer struct field is never omitted) are filled in too, so reads look like kube-apiserver's.
 */
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { defaultPodTemplate } from './defaults.js';

function objectAt(parent: JsonObject, key: string): JsonObject {
  if (!isPlainObject(parent[key])) parent[key] = {};
  return parent[key] as JsonObject;
}

function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

function unset(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** SetDefaults_PersistentVolumeClaim + SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem, phase Pending. */
export function defaultPersistentVolumeClaim(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  objectAt(spec, 'resources');
  const status = objectAt(obj, 'status');
  if (unset(status.phase)) status.phase = 'Pending';
}

/**
 * SetObjectDefaults_PersistentVolume: reclaim policy Retain, volumeMode Filesystem, phase Pending, and the defaults of
 * the volume sources that have them (hostPath type, rbd pool/user/keyring, iscsi interface, azureDisk, scaleIO).
 */
export function defaultPersistentVolume(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (unset(spec.persistentVolumeReclaimPolicy)) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  const status = objectAt(obj, 'status');
  if (unset(status.phase)) status.phase = 'Pending';
  if (isPlainObject(spec.hostPath) && (spec.hostPath.type === undefined || spec.hostPath.type === null)) spec.hostPath.type = '';
  if (isPlainObject(spec.rbd)) {
    if (unset(spec.rbd.pool)) spec.rbd.pool = 'rbd';
    if (unset(spec.rbd.user)) spec.rbd.user = 'admin';
    if (unset(spec.rbd.keyring)) spec.rbd.keyring = '/etc/ceph/keyring';
  }
  if (isPlainObject(spec.iscsi) && unset(spec.iscsi.iscsiInterface)) spec.iscsi.iscsiInterface = 'default';
  if (isPlainObject(spec.azureDisk)) {
    const disk = spec.azureDisk;
    disk.cachingMode ??= 'ReadWrite';
    disk.fsType ??= 'ext4';
    disk.readOnly ??= false;
    disk.kind ??= 'Shared';
  }
  if (isPlainObject(spec.scaleIO)) {
    if (unset(spec.scaleIO.storageMode)) spec.scaleIO.storageMode = 'ThinProvisioned';
    if (unset(spec.scaleIO.fsType)) spec.scaleIO.fsType = 'xfs';
  }
}

/** SetDefaults_StorageClass: reclaim policy Delete, volume binding Immediate. */
export function defaultStorageClass(obj: JsonObject): void {
  if (unset(obj.reclaimPolicy)) obj.reclaimPolicy = 'Delete';
  if (unset(obj.volumeBindingMode)) obj.volumeBindingMode = 'Immediate';
}

/**
 * SetDefaults_ReplicationController: the selector and the object's labels come from the template's labels when
 * empty, replicas 1; then the pod template defaults.
 */
export function defaultReplicationController(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  const template = isPlainObject(spec.template) ? spec.template : undefined;
  const labels = template && isPlainObject(template.metadata) && isPlainObject(template.metadata.labels) ? template.metadata.labels : undefined;
  if (labels) {
    if (!isPlainObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = objectAt(obj, 'metadata');
    if (!isPlainObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (template) defaultPodTemplate(template);
}

/** The pod template defaults of a PodTemplate. */
export function defaultPodTemplateObject(obj: JsonObject): void {
  defaultPodTemplate(objectAt(obj, 'template'));
}

/** SetDefaults_Endpoints: every port's protocol TCP. */
export function defaultEndpoints(obj: JsonObject): void {
  for (const subset of objects(obj.subsets)) for (const port of objects(subset.ports)) if (unset(port.protocol)) port.protocol = 'TCP';
}

/** SetDefaults_EndpointPort (discovery/v1): name "" and protocol TCP; every endpoint's conditions struct. */
export function defaultEndpointSlice(obj: JsonObject): void {
  for (const port of objects(obj.ports)) {
    if (port.name === undefined || port.name === null) port.name = '';
    if (port.protocol === undefined || port.protocol === null) port.protocol = 'TCP';
  }
  for (const endpoint of objects(obj.endpoints)) objectAt(endpoint, 'conditions');
}

/** SetDefaults_IngressClass: a parameters reference without a scope is cluster-scoped. */
export function defaultIngressClass(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  if (isPlainObject(spec.parameters) && (spec.parameters.scope === undefined || spec.parameters.scope === null)) spec.parameters.scope = 'Cluster';
}

/**
 * SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort: every port's protocol TCP; without policyTypes the
 * policy restricts Ingress, and Egress too when it has egress rules. podSelector is always present.
 */
export function defaultNetworkPolicy(obj: JsonObject): void {
  const spec = objectAt(obj, 'spec');
  objectAt(spec, 'podSelector');
  for (const rule of [...objects(spec.ingress), ...objects(spec.egress)]) {
    for (const port of objects(rule.ports)) if (port.protocol === undefined || port.protocol === null) port.protocol = 'TCP';
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}
