/**
 * Which field selector labels a kind accepts, and the error for the others, as the API server's
 * scheme.ConvertFieldLabel does before listing or watching.
 *
 * Kinds that register a conversion function (core Namespace, Secret, Event; events.k8s.io Event; certificates.k8s.io
 * CertificateSigningRequest; every custom resource) reject unknown labels with `field label not supported: <label>`.
 * Every other kind falls back to runtime.DefaultMetaV1FieldSelectorConversion, which accepts metadata.name and
 * metadata.namespace and says `"<label>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
import { FieldLabelNotSupportedError, type FieldSelector } from './selector.js';

export interface FieldLabelSupport {
  /** Accepted label → the field name the object's field set uses (usually the same). */
  readonly labels: Readonly<Record<string, string>>;
  /** Which upstream error text an unknown label produces. */
  readonly style: 'registered' | 'default';
}

const identity = (...labels: string[]): Record<string, string> => Object.fromEntries(labels.map((l) => [l, l]));

/** DefaultMetaV1FieldSelectorConversion: what any built-in kind without its own list supports (ConfigMaps, RBAC, Leases, CRDs, ...). */
export const DEFAULT_FIELD_LABELS: FieldLabelSupport = { labels: identity('metadata.name', 'metadata.namespace'), style: 'default' };

const coreEventLabels = identity(
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
  'metadata.namespace',
  'metadata.name',
);

/**
 * events.k8s.io/v1 accepts its own spellings and maps them onto the core Event field set, so
 * one set of selectable fields serves both API groups.
 */
const eventsV1Labels: Record<string, string> = {
  reason: 'reason',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
  source: 'source',
  type: 'type',
  'metadata.namespace': 'metadata.namespace',
  'metadata.name': 'metadata.name',
};

const builtin: Record<string, FieldLabelSupport> = {
  // Namespaces deliberately do not list metadata.namespace: upstream rejects it for them.
  '/Namespace': { labels: identity('status.phase', 'metadata.name'), style: 'registered' },
  '/Secret': { labels: identity('type', 'metadata.namespace', 'metadata.name'), style: 'registered' },
  '/Event': { labels: coreEventLabels, style: 'registered' },
  'events.k8s.io/Event': { labels: eventsV1Labels, style: 'registered' },
  // A cluster-scoped kind with its own conversion function: metadata.namespace is refused.
  'certificates.k8s.io/CertificateSigningRequest': { labels: identity('metadata.name', 'spec.signerName'), style: 'registered' },
};

/** The field labels a built-in kind accepts; DEFAULT_FIELD_LABELS for kinds without a list. */
export function builtinFieldLabels(group: string, kind: string): FieldLabelSupport {
  return builtin[`${group}/${kind}`] ?? DEFAULT_FIELD_LABELS;
}

/**
 * Support for a custom resource version (apiextensions crConverter.ConvertFieldLabel):
 * metadata.name, metadata.namespace only when the CRD is namespaced, and the version's
 * selectableFields (JSON paths like `.spec.color`; the leading dot is dropped). Unknown labels get
 * `field label not supported: <label>`.
 */
export function customResourceFieldLabels(selectableFieldPaths: readonly string[], namespaced: boolean): FieldLabelSupport {
  const extra = selectableFieldPaths.map((p) => (p.startsWith('.') ? p.slice(1) : p));
  const meta = namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'];
  return { labels: identity(...meta, ...extra), style: 'registered' };
}

/** The exact upstream message for a label the kind does not support. */
export function unsupportedFieldLabelMessage(label: string, support: FieldLabelSupport): string {
  if (support.style === 'registered') return `field label not supported: ${label}`;
  return `${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/**
 * Checks every term of `selector` against `support` (in selector order, so the first bad label is
 * the one reported) and returns the selector with labels renamed to the field-set names. Throws
 * FieldLabelNotSupportedError with the upstream text; the caller answers 400 BadRequest with it.
 */
export function convertFieldLabels(selector: FieldSelector, support: FieldLabelSupport): FieldSelector {
  return selector.transform((field, value) => {
    const mapped = Object.prototype.hasOwnProperty.call(support.labels, field) ? support.labels[field] : undefined;
    if (mapped === undefined) throw new FieldLabelNotSupportedError(unsupportedFieldLabelMessage(field, support));
    return { field: mapped, value };
  });
}
