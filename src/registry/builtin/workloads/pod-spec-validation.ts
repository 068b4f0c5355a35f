/**
 * A pod spec's volumes, its containers' ports, volumeMounts and volumeDevices, validated as kube-apiserver 1.32's
 * ValidateVolumes, ValidateVolumeMounts and ValidateVolumeDevices do, with their messages and order: a volume has a
 * DNS-1123 label name, unique, and exactly one source; the sources users write most (secret, configMap, emptyDir, hostPath, persistentVolumeClaim, projected and
 * downwardAPI items) have their fields checked; only a volume without errors can be mounted, so a mount of an invalid
 * volume is also "Not found" — as upstream. Sources of other types are counted but their fields are not checked here.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, isPlainObject } from '../../../apimachinery/object.js';
import { isDNS1123Label } from '../../../apimachinery/validation/names.js';
import { isValidPortName, isValidPortNum } from '../../../apimachinery/validation/network.js';

const FILE_MODE_MESSAGE = 'must be a number between 0 and 0777 (octal), both inclusive';

/**
 * VolumeSource's members in the order upstream's validateVolumeSource looks at them, each with the path segment its
 * "may not specify more than 1 volume type" error names (upstream's own spellings, `downwarAPI` and `cephFS` included).
 */
const SOURCES: readonly [field: string, forbiddenAs: string][] = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
];

const present = (v: unknown): v is JsonObject => isPlainObject(v);

/** Whether a volume names no source at all (`image` included, which 1.32 serves behind a gate): SetDefaults_Volume then makes it an emptyDir. */
export function hasNoVolumeSource(volume: JsonObject): boolean {
  return !present(volume.image) && SOURCES.every(([field]) => !present(volume[field]));
}
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function fileMode(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && (value > 0o777 || value < 0) ? [fe.invalid(path, value, FILE_MODE_MESSAGE)] : [];
}

/** validateLocalDescendingPath: relative, and no `..` element. */
export function localDescendingPath(p: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith('/')) errs.push(fe.invalid(path, p, 'must be a relative path'));
  if (p.split('/').includes('..')) errs.push(fe.invalid(path, p, "must not contain '..'"));
  return errs;
}

/** validateLocalNonReservedPath: a descending path that does not start with `..` either. */
function localNonReservedPath(p: string, path: string): FieldError[] {
  const errs = localDescendingPath(p, path);
  if (p.startsWith('..') && !p.startsWith('../')) errs.push(fe.invalid(path, p, "must not start with '..'"));
  return errs;
}

/** validateKeyToPath: a secret's or configMap's item. */
function keyToPath(item: unknown, path: string): FieldError[] {
  const kp = present(item) ? item : {};
  const errs: FieldError[] = [];
  if (!text(kp.key)) errs.push(fe.required(`${path}.key`));
  if (!text(kp.path)) errs.push(fe.required(`${path}.path`));
  errs.push(...localNonReservedPath(text(kp.path), `${path}.path`));
  errs.push(...fileMode(kp.mode, `${path}.mode`));
  return errs;
}

function items(list: unknown, path: string): FieldError[] {
  return Array.isArray(list) ? list.flatMap((kp, i) => keyToPath(kp, `${path}[${i}]`)) : [];
}

function sourceFields(field: string, source: JsonObject, path: string): FieldError[] {
  switch (field) {
    case 'secret':
      return [...(text(source.secretName) ? [] : [fe.required(`${path}.secretName`)]), ...fileMode(source.defaultMode, `${path}.defaultMode`), ...items(source.items, `${path}.items`)];
    case 'configMap':
      return [...(text(source.name) ? [] : [fe.required(`${path}.name`)]), ...fileMode(source.defaultMode, `${path}.defaultMode`), ...items(source.items, `${path}.items`)];
    case 'hostPath':
      return text(source.path) ? [] : [fe.required(`${path}.path`)];
    case 'persistentVolumeClaim':
      return text(source.claimName) ? [] : [fe.required(`${path}.claimName`)];
    case 'projected':
    case 'downwardAPI':
      return fileMode(source.defaultMode, `${path}.defaultMode`);
    case 'gcePersistentDisk':
      // Upstream reports it as `persistentDisk`.
      return diskSource(source, 'pdName', path.replace(/gcePersistentDisk$/, 'persistentDisk'));
    case 'awsElasticBlockStore':
      return diskSource(source, 'volumeID', path);
    case 'iscsi':
      return iscsiSource(source, path);
    case 'fc':
      return fcSource(source, path);
    default:
      return [];
  }
}

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** validateGCEPersistentDiskVolumeSource / validateAWSElasticBlockStoreVolumeSource: the disk's id, a partition 1-255. */
function diskSource(source: JsonObject, idField: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!text(source[idField])) errs.push(fe.required(`${path}.${idField}`));
  const partition = int(source.partition);
  if (partition < 0 || partition > 255) errs.push(fe.invalid(`${path}.partition`, partition, 'must be between 1 and 255, inclusive'));
  return errs;
}

const ISCSI_IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\s]+)$/;
const ISCSI_EUI = /^eui.[A-Za-z0-9]{16}$/;
const ISCSI_NAA = /^naa.[A-Za-z0-9]{32}$/;

/** The iSCSI name checks upstream applies to an iqn and to an initiator name. */
function iscsiNameErrors(name: string, path: string): FieldError[] {
  if (!name.startsWith('iqn') && !name.startsWith('eui') && !name.startsWith('naa')) return [fe.invalid(path, name, 'must be valid format starting with iqn, eui, or naa')];
  if ((name.startsWith('iqn') && !ISCSI_IQN.test(name)) || (name.startsWith('eui') && !ISCSI_EUI.test(name)) || (name.startsWith('naa') && !ISCSI_NAA.test(name))) {
    return [fe.invalid(path, name, 'must be valid format')];
  }
  return [];
}

/** validateISCSIVolumeSource. */
function iscsiSource(source: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!text(source.targetPortal)) errs.push(fe.required(`${path}.targetPortal`));
  if (!text(source.iqn)) errs.push(fe.required(`${path}.iqn`));
  else errs.push(...iscsiNameErrors(text(source.iqn), `${path}.iqn`));
  const lun = int(source.lun);
  if (lun < 0 || lun > 255) errs.push(fe.invalid(`${path}.lun`, lun, 'must be between 0 and 255, inclusive'));
  if ((source.chapAuthDiscovery === true || source.chapAuthSession === true) && !present(source.secretRef)) errs.push(fe.required(`${path}.secretRef`));
  if (typeof source.initiatorName === 'string') errs.push(...iscsiNameErrors(source.initiatorName, `${path}.initiatorname`));
  return errs;
}

/** validateFCVolumeSource: target WWNs (with a lun 0-255) or WWIDs, not both. */
function fcSource(source: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const wwns = Array.isArray(source.targetWWNs) ? source.targetWWNs : [];
  const wwids = Array.isArray(source.wwids) ? source.wwids : [];
  if (wwns.length < 1 && wwids.length < 1) errs.push(fe.required(`${path}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length && wwids.length) errs.push(fe.invalid(`${path}.targetWWNs`, wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length) {
    if (typeof source.lun !== 'number') errs.push(fe.required(`${path}.lun`, 'lun is required if targetWWNs is specified'));
    else if (source.lun < 0 || source.lun > 255) errs.push(fe.invalid(`${path}.lun`, source.lun, 'must be between 0 and 255, inclusive'));
  }
  return errs;
}

/** validateVolumeSource: exactly one source, and that source's fields. */
function volumeSource(volume: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const [field, forbiddenAs] of SOURCES) {
    const source = volume[field];
    if (!present(source)) continue;
    if (count > 0) {
      errs.push(fe.forbidden(`${path}.${forbiddenAs}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...sourceFields(field, source, `${path}.${field}`));
  }
  if (count === 0) errs.push(fe.required(path, 'must specify a volume type'));
  return errs;
}

/**
 * ValidateVolumes: the errors, the names of the volumes without errors (the ones a mount may name), and those of them
 * a volumeDevice may name (a claim, or a generic ephemeral volume: block devices come from PVs).
 */
export function validateVolumes(list: unknown, path: string): { errors: FieldError[]; names: Set<string>; blockNames: Set<string> } {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const blockNames = new Set<string>();
  if (!Array.isArray(list)) return { errors, names, blockNames };
  list.forEach((raw, i) => {
    const volume = present(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = text(volume.name);
    const el = volumeSource(volume, p);
    if (!name) el.push(fe.required(`${p}.name`));
    else for (const msg of isDNS1123Label(name)) el.push(fe.invalid(`${p}.name`, name, msg));
    if (names.has(name)) el.push(fe.duplicate(`${p}.name`, name));
    if (el.length === 0) {
      names.add(name);
      if (present(volume.persistentVolumeClaim) || present(volume.ephemeral)) blockNames.add(name);
    } else errors.push(...el);
  });
  return { errors, names, blockNames };
}

/** What a container's mounts are checked against beside the pod's volumes: its block devices, its privilege. */
export interface MountContext {
  /** volumeDevices by name → devicePath (the last one of a name wins, as upstream's map). */
  devices: ReadonlyMap<string, string>;
  privileged: boolean;
}

const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY = ['Disabled', 'Enabled', 'IfPossible'];

/**
 * A mount's subPath, subPathExpr, mountPropagation and recursiveReadOnly. Their errors name the list
 * (`volumeMounts.subPath`), not the mount — upstream's paths, kept (but for the mutual-exclusion one, which does).
 */
function mountOptions(mount: JsonObject, p: string, path: string, ctx: MountContext): FieldError[] {
  const errs: FieldError[] = [];
  const subPath = text(mount.subPath);
  const subPathExpr = text(mount.subPathExpr);
  if (subPath) errs.push(...localDescendingPath(subPath, `${path}.subPath`));
  if (subPathExpr) {
    if (subPath) errs.push(fe.invalid(`${p}.subPathExpr`, subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
    errs.push(...localDescendingPath(subPathExpr, `${path}.subPathExpr`));
  }
  const propagation = mount.mountPropagation;
  if (typeof propagation === 'string') {
    if (!PROPAGATIONS.includes(propagation)) errs.push(fe.notSupported(`${path}.mountPropagation`, propagation, PROPAGATIONS));
    if (propagation === 'Bidirectional' && !ctx.privileged) errs.push(fe.forbidden(`${path}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers'));
  }
  const rro = mount.recursiveReadOnly;
  if (typeof rro === 'string' && rro !== 'Disabled') {
    if (rro === 'Enabled' || rro === 'IfPossible') {
      if (mount.readOnly !== true) errs.push(fe.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when readOnly is true'));
      if (typeof propagation === 'string' && propagation !== 'None') errs.push(fe.forbidden(`${path}.recursiveReadOnly`, 'may only be specified when mountPropagation is None or not specified'));
    } else errs.push(fe.notSupported(`${path}.recursiveReadOnly`, rro, RECURSIVE_READ_ONLY));
  }
  return errs;
}

/**
 * ValidateVolumeMounts: each mount names a valid volume of the pod and a unique, non-empty mountPath, neither used by
 * one of the container's volumeDevices; then its options.
 */
export function validateVolumeMounts(list: unknown, volumes: ReadonlySet<string>, path: string, ctx: MountContext = { devices: new Map(), privileged: false }): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(list)) return errs;
  const mountPoints = new Set<string>();
  const devicePaths = new Set(ctx.devices.values());
  list.forEach((raw, i) => {
    const mount = present(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = text(mount.name);
    const mountPath = text(mount.mountPath);
    if (!name) errs.push(fe.required(`${p}.name`));
    if (!volumes.has(name)) errs.push(fe.notFound(`${p}.name`, name));
    if (!mountPath) errs.push(fe.required(`${p}.mountPath`));
    if (mountPoints.has(mountPath)) errs.push(fe.invalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    if (ctx.devices.has(name)) errs.push(fe.invalid(`${p}.name`, name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(fe.invalid(`${p}.mountPath`, mountPath, 'must not already exist as a path in volumeDevices'));
    errs.push(...mountOptions(mount, p, path, ctx));
  });
  return errs;
}

/** name → path of a container's mounts or devices, the last of a name winning (upstream's GetVolumeMountMap). */
export function pathsByName(list: unknown, pathField: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const raw of Array.isArray(list) ? list : []) if (present(raw)) m.set(text(raw.name), text(raw[pathField]));
  return m;
}

/**
 * ValidateVolumeDevices: each device names a claim (or ephemeral) volume of the pod, once, at a unique devicePath
 * without `..`, and neither name nor path is one of the container's mounts.
 */
export function validateVolumeDevices(list: unknown, volumes: ReadonlySet<string>, blockVolumes: ReadonlySet<string>, mounts: ReadonlyMap<string, string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(list)) return errs;
  const names = new Set<string>();
  const devicePaths = new Set<string>();
  const mountPaths = new Set(mounts.values());
  list.forEach((raw, i) => {
    const device = present(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = text(device.name);
    const devicePath = text(device.devicePath);
    if (!name) errs.push(fe.required(`${p}.name`));
    if (names.has(name)) errs.push(fe.invalid(`${p}.name`, name, 'must be unique'));
    if (volumes.has(name) && !blockVolumes.has(name)) errs.push(fe.invalid(`${p}.name`, name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (!volumes.has(name)) errs.push(fe.notFound(`${p}.name`, name));
    if (!devicePath) errs.push(fe.required(`${p}.devicePath`));
    if (devicePaths.has(devicePath)) errs.push(fe.invalid(`${p}.devicePath`, devicePath, 'must be unique'));
    if (devicePath && devicePath.split('/').includes('..')) errs.push(fe.invalid(`${p}.devicePath`, devicePath, "can not contain backsteps ('..')"));
    else devicePaths.add(devicePath);
    if (mounts.has(name)) errs.push(fe.invalid(`${p}.name`, name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errs.push(fe.invalid(`${p}.devicePath`, devicePath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errs;
}

const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/**
 * validateContainerPorts: names IANA service names and unique in the container, containerPort set and in range,
 * hostPort in range when set, protocol one of upstream's (defaulting makes it TCP when left out).
 */
export function validateContainerPorts(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(list)) return errs;
  const names = new Set<string>();
  list.forEach((raw, i) => {
    const port = present(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const name = text(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) for (const msg of msgs) errs.push(fe.invalid(`${p}.name`, name, msg));
      else if (names.has(name)) errs.push(fe.duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) errs.push(fe.required(`${p}.containerPort`));
    else for (const msg of isValidPortNum(containerPort)) errs.push(fe.invalid(`${p}.containerPort`, containerPort, msg));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0) for (const msg of isValidPortNum(hostPort)) errs.push(fe.invalid(`${p}.hostPort`, hostPort, msg));
    const protocol = text(port.protocol);
    if (!protocol) errs.push(fe.required(`${p}.protocol`));
    else if (!PORT_PROTOCOLS.includes(protocol)) errs.push(fe.notSupported(`${p}.protocol`, protocol, PORT_PROTOCOLS));
  });
  return errs;
}
