/**
 * Defaulting of a CustomResourceDefinition as apiextensions v1 defaults.go does it, applied to the request body
 * before validation: singular and listKind from the kind, conversion strategy None, a conversion webhook
 * service's port 443.
 */
import type { CustomResourceDefinition } from './types.js';

/** Fills defaulted fields in place; leaves malformed input (no spec) for validation to report. */
export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const names = (spec.names ??= {});
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  // SetDefaults_ServiceReference
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && typeof service === 'object') service.port ??= 443;
  if (!Array.isArray(spec.versions)) spec.versions = [];
}

/** Adds the storage version to status.storedVersions when missing (strategy PrepareForCreate/PrepareForUpdate). */
export function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = crd.spec?.versions?.find((v) => v.storage)?.name;
  if (!storage) return;
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage)) stored.push(storage);
}
