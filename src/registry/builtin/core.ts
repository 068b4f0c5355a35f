import * as fe from '../../apimachinery/field-errors.js';
import type { FieldError } from '../../apimachinery/field-errors.js';
import { type KubeObject, isPlainObject, jsonEqual, metaOf } from '../../apimachinery/object.js';
import { goJSONSyntaxError } from '../../apimachinery/go-json-syntax.js';
import type { ResourceDefinition } from '../rest.js';
import { defineBuiltin, statusAndMetadata } from './define.js';
import { resourceQuotas } from './resource-quotas.js';

/** Namespaces may not be created or deleted under these names' rules; they always exist. */
export const immortalNamespaces = ['default', 'kube-system', 'kube-public'];

const configMapKey = /^[-._a-zA-Z0-9]+$/;

function validateDataKeys(obj: KubeObject, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, string>();
  for (const field of fields) {
    const data = obj[field];
    if (data === undefined || data === null) continue;
    if (!isPlainObject(data)) {
      errs.push(fe.invalid(field, data, 'must be an object'));
      continue;
    }
    for (const k of Object.keys(data)) {
      // IsConfigMapKey: each problem is its own error.
      if (k.length > 253) errs.push(fe.invalid(`${field}[${k}]`, k, 'must be no more than 253 characters'));
      if (!configMapKey.test(k)) {
        errs.push(fe.invalid(`${field}[${k}]`, k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
      }
      const chdir = k === '.' ? "must not be '.'" : k === '..' ? "must not be '..'" : k.startsWith('..') ? "must not start with '..'" : undefined;
      if (chdir) errs.push(fe.invalid(`${field}[${k}]`, k, chdir));
      const other = seen.get(k);
      if (other) errs.push(fe.invalid(`${field}[${k}]`, k, `duplicate of key present in ${other}`));
      seen.set(k, field);
    }
  }
  return errs;
}

/** core.MaxSecretSize: the most bytes of values a ConfigMap (data + binaryData) or a Secret (data) may hold. */
export const MAX_DATA_BYTES = 1024 * 1024;

/** The bytes a data bag's values hold: strings as UTF-8, base64 fields (binaryData, a Secret's data) decoded. */
function dataBytes(data: unknown, base64: boolean): number {
  if (!isPlainObject(data)) return 0;
  let total = 0;
  for (const v of Object.values(data)) {
    if (typeof v !== 'string') continue;
    total += base64 ? Buffer.byteLength(v, 'base64') : Buffer.byteLength(v, 'utf8');
  }
  return total;
}

/**
 * ValidateConfigMap's size rule: the values of data and binaryData together. Upstream reports it on the empty path,
 * which Go's field.Path prints as `[]` ("the error refers to the whole object").
 */
function configMapSizeErrors(obj: KubeObject): FieldError[] {
  const total = dataBytes(obj.data, false) + dataBytes(obj.binaryData, true);
  return total > MAX_DATA_BYTES ? [fe.tooLong('[]', '', MAX_DATA_BYTES)] : [];
}

function immutableDataErrors(obj: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fe.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) {
    if (!jsonEqual(obj[f] ?? {}, old[f] ?? {})) errs.push(fe.forbidden(f, 'field is immutable when `immutable` is set'));
  }
  return errs;
}

const namespaces = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  // No deletecollection: upstream's namespace REST (pkg/registry/core/namespace/storage) implements no
  // CollectionDeleter, so discovery omits the verb and DELETE on the collection has no route (405).
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  definitionName: 'io.k8s.api.core.v1.Namespace',
  // SetDefaults_Namespace: the name label, for a namespace that has a name (not yet for a generateName). (An empty
  // spec.finalizers, omitempty, is left to the typed round trip of every write, codec.roundTrip: an update or a
  // /finalize that sends `finalizers: []` stores no such field, and no manager owns it.)
  defaults(obj) {
    const meta = metaOf(obj);
    if (meta.name) meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name };
  },
  strategy: {
    nameValidation: 'label',
    returnDeletedObject: true,
    prepareForCreate(obj) {
      const meta = metaOf(obj);
      meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name ?? '' };
      const spec = isPlainObject(obj.spec) ? obj.spec : {};
      const fins = Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
      if (!fins.includes('kubernetes')) fins.push('kubernetes');
      obj.spec = { ...spec, finalizers: fins };
      obj.status = { phase: 'Active' };
    },
    prepareForUpdate(obj, old) {
      // The main endpoint changes neither spec.finalizers (only /finalize does) nor status.
      obj.spec = old.spec;
      obj.status = old.status;
      const meta = metaOf(obj);
      meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name ?? '' };
    },
    // Even a namespace whose spec.finalizers were emptied is only marked Terminating by its first DELETE.
    markDeletingFirst: true,
    deletePreconditionFailure: (field, inPrecondition, inObject) =>
      `Precondition failed: ${field} in precondition: ${inPrecondition}, ${field} in object meta: ${inObject}`,
    pendingFinalizers(obj) {
      const spec = obj.spec as { finalizers?: string[] } | undefined;
      return (spec?.finalizers?.length ?? 0) > 0;
    },
    onDeletionStarted(obj) {
      obj.status = { ...(isPlainObject(obj.status) ? obj.status : {}), phase: 'Terminating' };
    },
    selectableFields(obj) {
      return { 'status.phase': String((obj.status as { phase?: string } | undefined)?.phase ?? '') };
    },
  },
  subresources: [
    { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'], strategy: statusAndMetadata },
    {
      name: 'finalize',
      kind: 'Namespace',
      verbs: ['update'],
      strategy: {
        apply(incoming, current) {
          const spec = isPlainObject(incoming.spec) ? incoming.spec : {};
          current.spec = { ...(isPlainObject(current.spec) ? current.spec : {}), finalizers: spec.finalizers ?? [] };
          return current;
        },
      },
    },
  ],
});

const configmaps = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  definitionName: 'io.k8s.api.core.v1.ConfigMap',
  strategy: {
    validate: (obj) => [...validateDataKeys(obj, ['data', 'binaryData']), ...configMapSizeErrors(obj)],
    validateUpdate: (obj, old) => [...validateDataKeys(obj, ['data', 'binaryData']), ...configMapSizeErrors(obj), ...immutableDataErrors(obj, old, ['data', 'binaryData'])],
  },
});

/** stringData is write-only: merged into data (base64) and never stored. */
function foldStringData(obj: KubeObject): void {
  if (isPlainObject(obj.stringData)) {
    const data = isPlainObject(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

/** The per-type requirements of ValidateSecret (pkg/apis/core/validation). */
function secretTypeErrors(obj: KubeObject, type: string, data: Record<string, unknown>): FieldError[] {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(data, k);
  const errs: FieldError[] = [];
  switch (type) {
    case 'kubernetes.io/service-account-token':
      // Only the account name is required: a controller fills in the uid annotation and the token later.
      if (!obj.metadata?.annotations?.['kubernetes.io/service-account.name']) {
        errs.push(fe.required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(key)) {
        errs.push(fe.required(`data[${key}]`));
        break;
      }
      const problem = typeof data[key] === 'string' ? goJSONObjectError(Buffer.from(data[key], 'base64').toString('utf8')) : undefined;
      if (problem) errs.push(fe.invalid(`data[${key}]`, '<secret contents redacted>', problem));
      break;
    }
    case 'kubernetes.io/basic-auth':
      // Either key may be empty; one of them must be present.
      if (!has('username') && !has('password')) errs.push(fe.required('data[username]'), fe.required('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!has('ssh-privatekey') || !data['ssh-privatekey']) errs.push(fe.required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      for (const k of ['tls.crt', 'tls.key']) if (!has(k)) errs.push(fe.required(`data[${k}]`));
      break;
  }
  return errs;
}

/** Why encoding/json would refuse to unmarshal text into a map[string]interface{}, in its words, or undefined. */
function goJSONObjectError(text: string): string | undefined {
  const syntax = goJSONSyntaxError(text);
  if (syntax) return syntax;
  const value: unknown = JSON.parse(text);
  if (value === null || isPlainObject(value)) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

function validateSecret(obj: KubeObject): FieldError[] {
  const errs = validateDataKeys(obj, ['data']);
  // ValidateSecret sums the decoded values of data (stringData is folded in by then) and reports it on `data`.
  if (dataBytes(obj.data, true) > MAX_DATA_BYTES) errs.push(fe.tooLong('data', '', MAX_DATA_BYTES));
  const type = typeof obj.type === 'string' ? obj.type : 'Opaque';
  const data = isPlainObject(obj.data) ? obj.data : {};
  errs.push(...secretTypeErrors(obj, type, data));
  // Bad base64 in data is not a validation error: decoding the body into []byte fails first (400 on create/update,
  // the 422 patch error on a patch; see decode-type-errors.ts).
  return errs;
}

const secrets = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
  definitionName: 'io.k8s.api.core.v1.Secret',
  // The v1 → internal conversion folds stringData into data, and SetDefaults_Secret sets the type.
  defaults(obj) {
    foldStringData(obj);
    if (!obj.type) obj.type = 'Opaque';
  },
  strategy: {
    prepareForCreate(obj) {
      foldStringData(obj);
      if (!obj.type) obj.type = 'Opaque';
    },
    prepareForUpdate(obj) {
      foldStringData(obj);
      if (!obj.type) obj.type = 'Opaque';
    },
    validate: validateSecret,
    // ValidateSecretUpdate: the type, then immutability, then the new secret.
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if ((obj.type ?? 'Opaque') !== (old.type ?? 'Opaque')) errs.push(fe.invalid('type', obj.type, 'field is immutable'));
      return [...errs, ...immutableDataErrors(obj, old, ['data']), ...validateSecret(obj)];
    },
    selectableFields: (obj) => ({ type: String(obj.type ?? '') }),
  },
});

const serviceaccounts = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  definitionName: 'io.k8s.api.core.v1.ServiceAccount',
  strategy: { returnDeletedObject: true },
  subresources: [{ name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] }],
});

function eventFields(obj: KubeObject): Record<string, string> {
  const io = (obj.involvedObject ?? {}) as Record<string, unknown>;
  const src = (obj.source ?? {}) as Record<string, unknown>;
  return {
    'involvedObject.kind': String(io.kind ?? ''),
    'involvedObject.namespace': String(io.namespace ?? ''),
    'involvedObject.name': String(io.name ?? ''),
    'involvedObject.uid': String(io.uid ?? ''),
    'involvedObject.apiVersion': String(io.apiVersion ?? ''),
    'involvedObject.resourceVersion': String(io.resourceVersion ?? ''),
    'involvedObject.fieldPath': String(io.fieldPath ?? ''),
    reason: String(obj.reason ?? ''),
    reportingComponent: String(obj.reportingComponent ?? ''),
    // EventToSelectableFields: an event without source.component (one written through events.k8s.io) is selected by
    // its reporting controller.
    source: String(src.component ?? '') || String(obj.reportingComponent ?? ''),
    type: String(obj.type ?? ''),
  };
}

const events = defineBuiltin({
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  definitionName: 'io.k8s.api.core.v1.Event',
  strategy: {
    // A PUT of a missing Event creates it (eventStrategy AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    selectableFields: eventFields,
    validate(obj) {
      const errs: FieldError[] = [];
      const io = obj.involvedObject as Record<string, unknown> | undefined;
      const ns = obj.metadata?.namespace;
      if (io?.namespace && ns && io.namespace !== ns) errs.push(fe.invalid('involvedObject.namespace', io.namespace, 'does not match event.namespace'));
      return errs;
    },
  },
});

export const coreResources: ResourceDefinition[] = [namespaces, configmaps, secrets, serviceaccounts, events, resourceQuotas];
