/**
 * Validation of VolumeAttachments with kube-apiserver 1.32's field paths and messages (pkg/apis/storage/validation
 * ValidateVolumeAttachment, ValidateVolumeAttachmentV1, ValidateVolumeAttachmentUpdate, and core's
 * ValidatePersistentVolumeSpec for an inline volume). The metadata is the store's.
 *
 * The strategy's ValidateUpdate runs ValidateVolumeAttachment and then ValidateVolumeAttachmentUpdate, which runs it
 * again: every spec and status error of an update is listed twice among the causes (once in the message), as here.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import { type FieldError, FieldPath } from '../../../apimachinery/field-errors.js';
import { type JsonObject, type KubeObject, deepCopy, isPlainObject } from '../../../apimachinery/object.js';
import { builtinCatalog, builtinProtobufHints } from '../../../apimachinery/schema/builtin/index.js';
import { roundTripAsGo } from '../../../apimachinery/schema/omit-empty.js';
import { isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../apimachinery/validation/object-meta.js';
import { validateCSIDriverName } from './csi-validation.js';
import { isSet, list, obj, str } from './pod-validation-helpers.js';
import { validateAccessModes, validatePersistentVolumeSources } from './storage-validation.js';

/** maxAttachedVolumeMetadataSize, which upstream also names as the limit of an error message (sic). */
const MAX_ATTACHMENT_METADATA_BYTES = 256 * 1024;
const MAX_VOLUME_ERROR_MESSAGE_BYTES = 1024;
const EXACTLY_ONE_SOURCE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
const INLINE = 'in the context of inline volumes';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** ValidatePersistentVolumeSpec with validateInlinePersistentVolumeSpec: a CSI volume without claim, capacity or class. */
function validateInlineVolumeSpec(spec: JsonObject, path: FieldPath): FieldError[] {
  const at = (name: string) => path.child(name).toString();
  const errs: FieldError[] = [];
  if (isSet(spec.claimRef)) errs.push(fe.forbidden(at('claimRef'), `may not be specified ${INLINE}`));
  if (Object.keys(obj(spec.capacity)).length > 0) errs.push(fe.forbidden(at('capacity'), `may not be specified ${INLINE}`));
  if (!isSet(spec.csi)) errs.push(fe.required(at('csi'), `has to be specified ${INLINE}`));
  const modes = list(spec.accessModes).map((m) => String(m));
  if (modes.length === 0) errs.push(fe.required(at('accessModes')));
  errs.push(...validateAccessModes(modes, at('accessModes')));
  const reclaim = str(spec.persistentVolumeReclaimPolicy);
  if (reclaim && reclaim !== 'Retain') errs.push(fe.forbidden(at('persistentVolumeReclaimPolicy'), `may only be Retain ${INLINE}`));
  if (isSet(spec.nodeAffinity)) errs.push(fe.forbidden(at('nodeAffinity'), `may not be specified ${INLINE}`));
  // nodeAffinity is never taken as specified here, so a local volume is also told it needs one.
  errs.push(...validatePersistentVolumeSources(spec, path, false));
  if (str(spec.storageClassName)) errs.push(fe.forbidden(at('storageClassName'), `may not be specified ${INLINE}`));
  if (isSet(spec.volumeMode) && spec.volumeMode !== 'Filesystem') errs.push(fe.forbidden(at('volumeMode'), `may not specify volumeMode other than Filesystem ${INLINE}`));
  return errs;
}

function validateSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(spec.attacher)) errs.push(fe.required('spec.attacher'));
  const source = obj(spec.source);
  const pvName = source.persistentVolumeName;
  const inline = source.inlineVolumeSpec;
  if (!isSet(inline) && !isSet(pvName)) errs.push(fe.required('spec.source', EXACTLY_ONE_SOURCE));
  else if (isSet(inline) && isSet(pvName)) errs.push(fe.forbidden('spec.source', EXACTLY_ONE_SOURCE));
  else if (isSet(pvName)) {
    if (!str(pvName)) errs.push(fe.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  } else errs.push(...validateInlineVolumeSpec(obj(inline), FieldPath.root('spec.source.inlineVolumeSpec')));
  const nodeName = str(spec.nodeName);
  for (const msg of isDNS1123Subdomain(nodeName)) errs.push(fe.invalid('spec.nodeName', nodeName, msg));
  return errs;
}

function validateVolumeError(e: unknown, path: string): FieldError[] {
  if (!isPlainObject(e)) return [];
  return bytes(str(e.message)) > MAX_VOLUME_ERROR_MESSAGE_BYTES ? [fe.tooLong(`${path}.message`, '', MAX_ATTACHMENT_METADATA_BYTES)] : [];
}

function validateStatus(status: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(obj(status.attachmentMetadata))) size += bytes(k) + bytes(String(v));
  if (size > MAX_ATTACHMENT_METADATA_BYTES) errs.push(fe.tooLong('status.attachmentMetadata', '', MAX_ATTACHMENT_METADATA_BYTES));
  errs.push(...validateVolumeError(status.attachError, 'status.attachError'));
  errs.push(...validateVolumeError(status.detachError, 'status.detachError'));
  return errs;
}

/** ValidateVolumeAttachment without the metadata: the spec and the status. */
function validateVolumeAttachmentFields(va: KubeObject): FieldError[] {
  return [...validateSpec(obj(va.spec)), ...validateStatus(obj(va.status))];
}

/** The strategy's Validate (create): ValidateVolumeAttachment, then the v1 checks of the attacher and volume names. */
export function validateVolumeAttachment(va: KubeObject): FieldError[] {
  const spec = obj(va.spec);
  const errs = [...validateVolumeAttachmentFields(va), ...validateCSIDriverName(str(spec.attacher), 'spec.attacher')];
  const pvName = obj(spec.source).persistentVolumeName;
  if (typeof pvName === 'string') for (const msg of isDNS1123Subdomain(pvName)) errs.push(fe.invalid('spec.source.persistentVolumeName', pvName, msg));
  return errs;
}

/** The spec as Semantic.DeepEqual compares it: Go's round trip of both sides, then nil and empty lists and maps alike. */
function sameSpec(a: unknown, b: unknown): boolean {
  const normal = (spec: unknown): unknown => {
    const copy = deepCopy(isPlainObject(spec) ? spec : {});
    roundTripAsGo(copy, builtinCatalog, 'io.k8s.api.storage.v1.VolumeAttachmentSpec', builtinProtobufHints.emitZero);
    return JSON.parse(JSON.stringify(copy, (_k, v: unknown) => (Array.isArray(v) && v.length === 0 ? null : v)));
  };
  return JSON.stringify(normal(a)) === JSON.stringify(normal(b));
}

/**
 * %#v of a storage.VolumeAttachmentSpec, which the immutability error prints; the pointers' addresses are ours
 * (upstream's differ on every request anyway).
 */
function goVolumeAttachmentSpec(spec: JsonObject): string {
  const source = obj(spec.source);
  const pv = isSet(source.persistentVolumeName) ? '(*string)(0xc000a1b2d0)' : '(*string)(nil)';
  const inline = isSet(source.inlineVolumeSpec) ? '(*core.PersistentVolumeSpec)(0xc000a1b2e0)' : '(*core.PersistentVolumeSpec)(nil)';
  return `storage.VolumeAttachmentSpec{Attacher:${JSON.stringify(str(spec.attacher))}, Source:storage.VolumeAttachmentSource{PersistentVolumeName:${pv}, InlineVolumeSpec:${inline}}, NodeName:${JSON.stringify(str(spec.nodeName))}}`;
}

/**
 * The strategy's ValidateUpdate, which the /status endpoint inherits: the attachment validated twice (see the module
 * comment; the v1 name checks only on create), and a spec that cannot change.
 */
export function validateVolumeAttachmentUpdate(va: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...validateVolumeAttachmentFields(va), ...validateVolumeAttachmentFields(va)];
  if (!sameSpec(va.spec, old.spec)) {
    errs.push({ ...fe.invalid('spec', va.spec ?? null, FIELD_IMMUTABLE_ERROR_MSG), renderedValue: goVolumeAttachmentSpec(obj(va.spec)) });
  }
  return errs;
}
