/**
 * ObjectMeta validation for create and update, matching k8s.io/apimachinery pkg/api/validation
 * (objectmeta.go, generic.go) and pkg/apis/meta/v1/validation (labels, managedFields).
 *
 * Every function collects all errors; the registry turns the list into one 422 Invalid Status.
 * Error order follows upstream (map iteration aside: labels and annotations are visited in
 * insertion order, where Go's map order is random).
 */
import { type FieldError, FieldPath, forbidden, invalid, required, tooLong } from '../field-errors.js';
import type { ObjectMeta } from '../object.js';
import {
  byteLength,
  isQualifiedName,
  isValidLabelValue,
  type NameValidator,
  nameValidatorFor,
  validateNamespaceName,
} from './names.js';

/** `field is immutable`, the detail of every immutable-field error. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
/** `must be greater than or equal to 0`. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
/** Sum of key and value bytes over all annotations: 256 KiB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
/** ValidateFieldManager's limit. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** ManagedFieldsEntry.subresource limit. */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

const metadataPath = (): FieldPath => FieldPath.root('metadata');

export interface ObjectMetaValidationOptions {
  /** Namespaced kinds require metadata.namespace; cluster-scoped kinds forbid it. */
  namespaced: boolean;
  /** How metadata.name and generateName are checked: DNS-1123 subdomain, label, path segment, or a custom function. */
  nameValidator: 'subdomain' | 'label' | 'path' | 'dns1035' | NameValidator;
}

/**
 * ValidateObjectMetaAccessor: generateName and name against the kind's name rule (an empty name is
 * `Required value: name or generateName is required`), namespace required/forbidden by scope and a
 * DNS-1123 label when present, generation ≥ 0, labels, annotations, ownerReferences, finalizers and
 * managedFields. Expects generateName to have been expanded into name already when the registry
 * does that before validation (as upstream's BeforeCreate does).
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaValidationOptions, path: FieldPath = metadataPath()): FieldError[] {
  const errs: FieldError[] = [];
  const nameFn = typeof opts.nameValidator === 'function' ? opts.nameValidator : nameValidatorFor(opts.nameValidator);
  const generateName = meta.generateName ?? '';
  if (generateName.length !== 0) {
    for (const msg of nameFn(generateName, true)) errs.push(invalid(path.child('generateName').toString(), generateName, msg));
  }
  const name = meta.name ?? '';
  if (name.length === 0) {
    errs.push(required(path.child('name').toString(), 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(invalid(path.child('name').toString(), name, msg));
  }
  const namespace = meta.namespace ?? '';
  if (opts.namespaced) {
    if (namespace.length === 0) errs.push(required(path.child('namespace').toString()));
    else for (const msg of validateNamespaceName(namespace, false)) errs.push(invalid(path.child('namespace').toString(), namespace, msg));
  } else if (namespace.length !== 0) {
    errs.push(forbidden(path.child('namespace').toString(), 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(meta.generation ?? 0, path.child('generation')));
  errs.push(...validateLabels(meta.labels, path.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, path.child('finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, path.child('managedFields')));
  return errs;
}

/**
 * ValidateObjectMetaAccessorUpdate: no new finalizers once the old object is being deleted;
 * resourceVersion present (`must be specified for an update`; the registry fills it in first for
 * kinds that allow unconditional updates); generation not decremented; name, namespace, uid,
 * creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds immutable; then labels,
 * annotations, ownerReferences and managedFields of the new object.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, path: FieldPath = metadataPath()): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, path.child('finalizers')));
  }
  const rv = newMeta.resourceVersion ?? '';
  if (rv.length === 0) errs.push(invalid(path.child('resourceVersion').toString(), rv, 'must be specified for an update'));
  const newGeneration = newMeta.generation ?? 0;
  if (newGeneration < (oldMeta.generation ?? 0)) {
    errs.push(invalid(path.child('generation').toString(), newGeneration, 'must not be decremented'));
  }
  errs.push(...validateImmutableField(newMeta.name ?? '', oldMeta.name ?? '', path.child('name')));
  errs.push(...validateImmutableField(newMeta.namespace ?? '', oldMeta.namespace ?? '', path.child('namespace')));
  errs.push(...validateImmutableField(newMeta.uid ?? '', oldMeta.uid ?? '', path.child('uid')));
  errs.push(...validateImmutableTime(newMeta.creationTimestamp ?? null, oldMeta.creationTimestamp ?? null, path.child('creationTimestamp')));
  errs.push(...validateImmutableTime(newMeta.deletionTimestamp ?? null, oldMeta.deletionTimestamp ?? null, path.child('deletionTimestamp')));
  errs.push(
    ...validateImmutableField(newMeta.deletionGracePeriodSeconds ?? null, oldMeta.deletionGracePeriodSeconds ?? null, path.child('deletionGracePeriodSeconds')),
  );
  errs.push(...validateLabels(newMeta.labels, path.child('labels')));
  errs.push(...validateAnnotations(newMeta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateManagedFields(newMeta.managedFields, path.child('managedFields')));
  return errs;
}

/** `Invalid value: N: must be greater than or equal to 0` for negative numbers. */
export function validateNonnegativeField(value: number, path: FieldPath): FieldError[] {
  return value < 0 ? [invalid(path.toString(), value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/**
 * Label keys must be qualified names and values valid label values. Errors are reported at the
 * labels path itself (not per key), exactly as upstream does.
 */
export function validateLabels(labels: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(String(v))) errs.push(invalid(path.toString(), v, msg));
  }
  return errs;
}

/** One error per problem of a label key (a qualified name). */
export function validateLabelName(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(path.toString(), name, msg));
}

/**
 * Annotation keys are qualified names after lower-casing (so upper-case letters are allowed), and
 * the total size of keys plus values must not exceed 256 KiB (`Too long: may not be more than 262144 bytes`).
 */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path.toString(), k, msg));
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path.toString(), '', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** Total bytes of annotation keys and values. */
export function annotationsSize(annotations: Record<string, string> | undefined): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += byteLength(k) + byteLength(String(v));
  return total;
}

/** Splits apiVersion like schema.ParseGroupVersion; more than one '/' gives an empty group/version. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
  }
  return { group: '', version: '' };
}

/**
 * Each reference needs apiVersion (with a version), kind, name and uid; core v1 Events may not be
 * owners; at most one reference may have controller=true. Like upstream, errors for individual
 * references use the list path without an index (`metadata.ownerReferences.uid`).
 */
export function validateOwnerReferences(refs: unknown[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const raw of refs ?? []) {
    const ref = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const name = typeof ref.name === 'string' ? ref.name : '';
    const uid = typeof ref.uid === 'string' ? ref.uid : '';
    const gv = parseGroupVersion(apiVersion);
    if (gv.version.length === 0) errs.push(invalid(path.child('apiVersion').toString(), apiVersion, 'version must not be empty'));
    if (kind.length === 0) errs.push(invalid(path.child('kind').toString(), kind, 'kind must not be empty'));
    if (name.length === 0) errs.push(invalid(path.child('name').toString(), name, 'name must not be empty'));
    if (uid.length === 0) errs.push(invalid(path.child('uid').toString(), uid, 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(invalid(path.toString(), ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${kind}/${name}`;
      if (firstController !== '') {
        errs.push(
          invalid(
            path.toString(),
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/**
 * Finalizer names must be qualified names (errors at the list path, no index), and `orphan` and
 * `foregroundDeletion` may not both be present. Upstream 1.32 does not reject duplicates, so neither do we.
 */
export function validateFinalizers(finalizers: string[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let orphan = false;
  let foreground = false;
  for (const f of finalizers ?? []) {
    for (const msg of isQualifiedName(f)) errs.push(invalid(path.toString(), f, msg));
    if (f === FINALIZER_ORPHAN_DEPENDENTS) orphan = true;
    if (f === FINALIZER_DELETE_DEPENDENTS) foreground = true;
  }
  if (orphan && foreground) {
    errs.push(
      invalid(path.toString(), finalizers, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`),
    );
  }
  return errs;
}

/** Renders a sorted string list as Go's %#v does: `[]string{"a", "b"}`. */
function goStringSlice(values: string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/**
 * validateKubeFinalizerName (pkg/apis/core/validation): a finalizer name without a '/' must be a standard one
 * (kubernetes, orphan, foregroundDeletion).
 */
export function validateKubeFinalizerNames(finalizers: string[] | undefined, path: FieldPath = metadataPath().child('finalizers')): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    if (typeof f === 'string' && !f.includes('/') && !['kubernetes', FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS].includes(f)) {
      errs.push(invalid(path.index(i).toString(), f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

/**
 * Once an object is being deleted, finalizers may be removed but not added:
 * `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"x"}`.
 */
export function validateNoNewFinalizers(newFinalizers: string[] | undefined, oldFinalizers: string[] | undefined, path: FieldPath): FieldError[] {
  const old = new Set(oldFinalizers ?? []);
  const extra = [...new Set((newFinalizers ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  return [forbidden(path.toString(), `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`)];
}

/** `Invalid value: <new>: field is immutable` when the values differ (JSON scalars compared with ===). */
export function validateImmutableField(newVal: string | number | boolean | null, oldVal: string | number | boolean | null, path: FieldPath): FieldError[] {
  return newVal === oldVal ? [] : [invalid(path.toString(), newVal, FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * Immutability for timestamps compares instants, as apimachinery's semantic equality does for
 * metav1.Time, so `…Z` and `…+00:00` spellings of one instant are equal.
 */
function validateImmutableTime(newVal: string | null, oldVal: string | null, path: FieldPath): FieldError[] {
  if (newVal === oldVal) return [];
  if (newVal !== null && oldVal !== null) {
    const a = Date.parse(newVal);
    const b = Date.parse(oldVal);
    if (!Number.isNaN(a) && a === b) return [];
  }
  return [invalid(path.toString(), newVal, FIELD_IMMUTABLE_ERROR_MSG)];
}

// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space only.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** `U+0007` style code point, as Go's %#U prints a non-printable rune. */
function goRuneName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * A field manager is at most 128 bytes of printable characters. An empty manager is fine here
 * (it is defaulted, or required separately for apply).
 */
export function validateFieldManager(fieldManager: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(fieldManager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(path.toString(), '', FIELD_MANAGER_MAX_LENGTH));
  let bytePos = 0;
  for (const ch of fieldManager) {
    if (!printable.test(ch)) {
      errs.push(invalid(path.toString(), fieldManager, `invalid character ${goRuneName(ch.codePointAt(0)!)} (at position ${bytePos})`));
    }
    bytePos += byteLength(ch);
  }
  return errs;
}

/** Each managedFields entry: operation Apply|Update, fieldsType FieldsV1 when set, a valid manager, subresource ≤ 256 bytes. */
export function validateManagedFields(entries: unknown[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((raw, i) => {
    const entry = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const p = path.index(i);
    const operation = typeof entry.operation === 'string' ? entry.operation : '';
    if (operation !== 'Apply' && operation !== 'Update') errs.push(invalid(p.child('operation').toString(), operation, 'must be `Apply` or `Update`'));
    const fieldsType = typeof entry.fieldsType === 'string' ? entry.fieldsType : '';
    if (fieldsType.length > 0 && fieldsType !== 'FieldsV1') errs.push(invalid(p.child('fieldsType').toString(), fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(typeof entry.manager === 'string' ? entry.manager : '', p.child('manager')));
    const subresource = typeof entry.subresource === 'string' ? entry.subresource : '';
    if (byteLength(subresource) > MAX_SUBRESOURCE_NAME_LENGTH) errs.push(tooLong(p.child('subresource').toString(), '', MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}
