/**
 * Validation of a CustomResourceDefinition on create and update (apiextensions validation.go,
 * ValidateCustomResourceDefinition / ...Update). Error paths follow upstream's internal representation: when every
 * version carries an identical schema (always so with one version), the v1→internal conversion hoists it to
 * `spec.validation`, and errors are reported there; likewise `spec.subresources` and `spec.additionalPrinterColumns`.
 */
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required } from '../../apimachinery/field-errors.js';
import { jsonEqual } from '../../apimachinery/object.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { validateCABundle, validateWebhookService, validateWebhookURL } from '../../apiserver/webhook/validation.js';
import { validateCRDSchema } from '../schema/validate-crd-schema.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import { type CRDColumn, type CRDConversion, type CRDNames, type CRDSubresources, type CRDVersion, type CustomResourceDefinition, isConditionTrue } from './types.js';

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
/** Keywords allowed at the schema root when the status subresource is on (upstream allowedFieldsAtRootSchema). */
const allowedAtRootWithStatus = new Set([
  'description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'required', 'items', 'properties',
  'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations',
]);
const allowedAtRootList = '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';

/** Errors for metadata.name beyond the generic DNS-subdomain check: it must be `<plural>.<group>`. */
export function validateCRDName(crd: CustomResourceDefinition): FieldError[] {
  const name = crd.metadata?.name ?? '';
  if (!name) return [];
  const wanted = `${crd.spec?.names?.plural ?? ''}.${crd.spec?.group ?? ''}`;
  return name === wanted ? [] : [invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group')];
}

/** Whether `pick` gives the same (deep-equal) value for every version: upstream then hoists it to spec. */
function identicalAcross<T>(versions: CRDVersion[], pick: (v: CRDVersion) => T): boolean {
  if (versions.length === 0) return false;
  const first = pick(versions[0]!);
  return versions.every((v) => jsonEqual(pick(v) ?? null, first ?? null));
}

/** Validates spec and status of a CRD on create. */
export function validateCRD(crd: CustomResourceDefinition): FieldError[] {
  const errs = validateCRDName(crd);
  errs.push(...validateSpec(crd, createOptions));
  errs.push(...validateNames(crd.status?.acceptedNames ?? {}, FieldPath.root('status').child('acceptedNames')));
  errs.push(...validateStoredVersions(crd));
  errs.push(...validateAPIApproval(crd));
  errs.push(...validatePreserveUnknownFields(crd));
  return errs;
}

/**
 * Validates a CRD update: everything validateCRD checks plus the immutable group and plural, and, once the old CRD is
 * Established (upstream's requireImmutableNames), scope and names.kind, which the storage was built from.
 */
export function validateCRDUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = validateSpec(crd, updateOptions(old));
  if (isConditionTrue(old, 'Established')) {
    if ((crd.spec?.scope ?? '') !== (old.spec?.scope ?? '')) errs.push(invalid('spec.scope', crd.spec?.scope ?? '', 'field is immutable'));
    if ((crd.spec?.names?.kind ?? '') !== (old.spec?.names?.kind ?? '')) errs.push(invalid('spec.names.kind', crd.spec?.names?.kind ?? '', 'field is immutable'));
  }
  if ((crd.spec?.group ?? '') !== (old.spec?.group ?? '')) errs.push(invalid('spec.group', crd.spec?.group ?? '', 'field is immutable'));
  if ((crd.spec?.names?.plural ?? '') !== (old.spec?.names?.plural ?? '')) {
    errs.push(invalid('spec.names.plural', crd.spec?.names?.plural ?? '', 'field is immutable'));
  }
  errs.push(...validateNames(crd.status?.acceptedNames ?? {}, FieldPath.root('status').child('acceptedNames')));
  errs.push(...validateStoredVersions(crd));
  errs.push(...validateAPIApproval(crd, old));
  errs.push(...validatePreserveUnknownFields(crd, old));
  return errs;
}

const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
type APIApprovalState = 'Invalid' | 'Approved' | 'Bypassed' | 'Missing';

/** Groups of the Kubernetes community, whose CRDs need API approval (upstream IsProtectedCommunityGroup). */
function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

/** The approval state of a CRD's annotations and the reason upstream's GetAPIApprovalState gives for it. */
function apiApprovalState(annotations: Record<string, string> | undefined): { state: APIApprovalState; reason: string } {
  const value = annotations?.[API_APPROVAL_ANNOTATION] ?? '';
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (value === '') return { state: 'Missing', reason: `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", ${see}` };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  // url.ParseRequestURI with a scheme and a host.
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && url.protocol.length > 1 && url.host !== '') return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${see}`,
  };
}

/**
 * CRDs in protected groups (*.k8s.io, *.kubernetes.io) need the api-approved.kubernetes.io annotation (upstream
 * validateAPIApproval); an update that leaves the approval state as it was is never refused. Deliberate difference:
 * negotiated CRDs (apiresource.kcp.io/negotiated, writable only by the negotiation controller) stand in for built-in
 * types of physical clusters (e.g. networking.k8s.io), which need no approval of their own, and are exempt.
 */
function validateAPIApproval(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec?.group ?? '')) return [];
  if (crd.metadata?.annotations?.['apiresource.kcp.io/negotiated'] === 'true') return [];
  const { state, reason } = apiApprovalState(crd.metadata?.annotations);
  if (old && apiApprovalState(old.metadata?.annotations).state === state) return [];
  const path = FieldPath.root('metadata').child('annotations').key(API_APPROVAL_ANNOTATION).toString();
  if (state === 'Missing') return [required(path, reason)];
  if (state === 'Invalid') return [invalid(path, crd.metadata?.annotations?.[API_APPROVAL_ANNOTATION] ?? '', reason)];
  return [];
}

/**
 * spec.preserveUnknownFields may not be turned on in apiextensions.k8s.io/v1 (upstream validatePreserveUnknownFields);
 * a CRD that already had it (stored through v1beta1 elsewhere) keeps it.
 */
function validatePreserveUnknownFields(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true || crd.spec?.preserveUnknownFields !== true) return [];
  return [invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

/** Whether a schema sets `default` anywhere (upstream specHasDefaults / SchemaHas). */
function schemaHasDefault(s: unknown): boolean {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return false;
  const o = s as Record<string, unknown>;
  if (o.default !== undefined) return true;
  const sub = (x: unknown): boolean => (Array.isArray(x) ? x.some(schemaHasDefault) : schemaHasDefault(x));
  const map = (x: unknown): boolean => x !== null && typeof x === 'object' && Object.values(x as object).some(schemaHasDefault);
  return (
    map(o.properties) || map(o.patternProperties) || map(o.definitions) || sub(o.items) || sub(o.allOf) || sub(o.anyOf) || sub(o.oneOf) ||
    schemaHasDefault(o.not) || schemaHasDefault(o.additionalProperties) || schemaHasDefault(o.additionalItems) ||
    (o.dependencies !== null && typeof o.dependencies === 'object' && Object.values(o.dependencies as object).some((d) => !Array.isArray(d) && schemaHasDefault(d)))
  );
}

/** status.storedVersions must be non-empty, name only versions in spec, and include the storage version. */
function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const path = 'status.storedVersions';
  if (stored.length === 0) return [invalid(path, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const specVersions = new Set((crd.spec?.versions ?? []).map((v) => v.name));
  for (const v of crd.spec?.versions ?? []) {
    if (v.storage && !stored.includes(v.name)) errs.push(invalid(path, stored, `must have the storage version ${v.name}`));
  }
  stored.forEach((v, i) => {
    if (!specVersions.has(v)) {
      errs.push(invalid(`${path}[${i}]`, v, 'must appear in spec.versions'));
    }
  });
  return errs;
}

function validateSpec(crd: CustomResourceDefinition, opts: SpecOptions): FieldError[] {
  const spec = crd.spec ?? ({} as CustomResourceDefinition['spec']);
  const p = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  if (!group) errs.push(required('spec.group'));
  else {
    const g = isDNS1123Subdomain(group);
    if (g.length) errs.push(invalid('spec.group', group, g.join(',')));
    // kcp-style negotiated types (apiresource.kcp.io/negotiated) publish built-in groups such as `apps` as CRDs. Only
    // the negotiation controller (system:masters) may write that annotation: admission ReservedCRDAnnotations
    // refuses it to everyone else, so this waiver is not a way around the rule.
    else if (group.split('.').length < 2 && crd.metadata?.annotations?.['apiresource.kcp.io/negotiated'] !== 'true') errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) errs.push(required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  const hoistSchema = identicalAcross(versions, (v) => v.schema);
  const hoistSubresources = identicalAcross(versions, (v) => v.subresources);
  const hoistColumns = identicalAcross(versions, (v) => v.additionalPrinterColumns);
  const anyStatus = versions.some((v) => v.subresources?.status !== undefined);

  for (const [i, v] of versions.entries()) {
    if (!v.schema?.openAPIV3Schema) errs.push(required(p.child('versions').index(i).child('schema').child('openAPIV3Schema').toString()));
  }
  if (spec.preserveUnknownFields === true && versions.some((v) => schemaHasDefault(v.schema?.openAPIV3Schema))) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  for (const [i, v] of versions.entries()) {
    const vp = p.child('versions').index(i);
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = isDNS1035Label(v.name ?? '');
    if (nameErrs.length) errs.push(invalid(vp.child('name').toString(), v.name ?? '', nameErrs.join(',')));
    errs.push(...validateDeprecationWarning(v, vp));
    if (!hoistSchema) errs.push(...validateSchema(v.schema?.openAPIV3Schema, v.subresources?.status !== undefined, vp.child('schema')));
    if (!hoistSubresources) errs.push(...validateSubresources(v.subresources, vp.child('subresources')));
    if (!hoistColumns) (v.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, vp.child('additionalPrinterColumns').index(j))));
  }
  if (!unique) errs.push(invalid('spec.versions', versions, 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  // The internal spec.version is the first version's name, checked only when set.
  if (versions.length > 0 && versions[0]!.name) {
    const firstErrs = isDNS1035Label(versions[0]!.name ?? '');
    if (firstErrs.length) errs.push(invalid('spec.version', versions[0]!.name ?? '', firstErrs.join(',')));
  }
  const names = spec.names ?? {};
  if (!names.plural) errs.push(required('spec.names.plural'));
  if (!names.singular) errs.push(required('spec.names.singular'));
  if (!names.kind) errs.push(required('spec.names.kind'));
  if (!names.listKind) errs.push(required('spec.names.listKind'));
  errs.push(...validateNames(names, p.child('names')));
  if (hoistSchema && versions.length) errs.push(...validateSchema(versions[0]!.schema?.openAPIV3Schema, anyStatus, p.child('validation')));
  if (hoistSubresources && versions.length) errs.push(...validateSubresources(versions[0]!.subresources, p.child('subresources')));
  if (hoistColumns && versions.length) {
    (versions[0]!.additionalPrinterColumns ?? []).forEach((c, j) => errs.push(...validateColumn(c, p.child('additionalPrinterColumns').index(j))));
  }
  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields === true) {
    errs.push(invalid('spec.conversion.strategy', spec.conversion.strategy ?? '', 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(spec.conversion, opts));
  return errs;
}

/** What a CRD update relaxes for values stored before (upstream's validationOptions). */
interface SpecOptions {
  /** conversionReviewVersions must include v1 or v1beta1 (unless the old CRD already lacked them). */
  requireRecognizedConversionReviewVersion: boolean;
  /** An invalid caBundle passes on create, before the CRD is Established, and when the old one was invalid too. */
  allowInvalidCABundle: boolean;
}

const createOptions: SpecOptions = { requireRecognizedConversionReviewVersion: true, allowInvalidCABundle: true };
const acceptedConversionReviewVersions = ['v1', 'v1beta1'];

/**
 * validateCustomResourceConversion, on the v1 shape: `spec.conversion.webhook.clientConfig` is reported as
 * `spec.conversion.webhookClientConfig` and `webhook.conversionReviewVersions` as `spec.conversion.conversionReviewVersions`,
 * the internal fields upstream validates.
 */
function validateConversion(conversion: CRDConversion | undefined, opts: SpecOptions): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = conversion.strategy ?? '';
  if (!strategy) errs.push(required('spec.conversion.strategy'));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  const cc = conversion.webhook?.clientConfig;
  const reviewVersions = conversion.webhook?.conversionReviewVersions;
  if (strategy === 'Webhook') {
    const at = FieldPath.root('spec').child('conversion').child('webhookClientConfig');
    if (!cc) errs.push(required(at.toString(), 'required when strategy is set to Webhook'));
    else {
      if ((cc.url === undefined) === (cc.service === undefined)) errs.push(required(at.toString(), 'exactly one of url or service is required'));
      else if (cc.url !== undefined) errs.push(...validateWebhookURL(at.child('url'), cc.url));
      else {
        // Upstream passes the service's name and namespace to ValidateWebhookService(namespace, name) in that order,
        // so a missing name is reported as the namespace and the other way round; kept for identical messages.
        const svc = cc.service ?? {};
        errs.push(...validateWebhookService(at.child('service'), { ...svc, name: svc.namespace, namespace: svc.name }));
      }
      if (cc.caBundle && !opts.allowInvalidCABundle) errs.push(...validateCABundle(at.child('caBundle'), Buffer.from(cc.caBundle, 'base64')));
    }
    errs.push(...validateConversionReviewVersions(reviewVersions ?? [], opts.requireRecognizedConversionReviewVersion, FieldPath.root('spec').child('conversion').child('conversionReviewVersions')));
  } else {
    if (cc !== undefined) errs.push(forbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    if ((reviewVersions ?? []).length > 0) errs.push(forbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateConversionReviewVersions(versions: string[], requireRecognized: boolean, at: FieldPath): FieldError[] {
  if (versions.length < 1) return [required(at.toString())];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(at.index(i).toString(), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(at.index(i).toString(), v, msg));
    if (acceptedConversionReviewVersions.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    // Go's %#v of the []string.
    const rendered = `[]string{${versions.map((v) => JSON.stringify(v)).join(', ')}}`;
    errs.push({ ...invalid(at.toString(), versions, `must include at least one of ${acceptedConversionReviewVersions.join(', ')}`), renderedValue: rendered });
  }
  return errs;
}

/** Upstream's options for an update, from the old CRD. */
function updateOptions(old: CustomResourceDefinition): SpecOptions {
  const oldVersions = old.spec?.conversion?.webhook?.conversionReviewVersions ?? [];
  const oldBundle = old.spec?.conversion?.webhook?.clientConfig?.caBundle;
  return {
    requireRecognizedConversionReviewVersion: oldVersions.length === 0 || oldVersions.some((v) => acceptedConversionReviewVersions.includes(v)),
    allowInvalidCABundle:
      !isConditionTrue(old, 'Established') || (!!oldBundle && validateCABundle(FieldPath.root('caBundle'), Buffer.from(oldBundle, 'base64')).length > 0),
  };
}

function validateDeprecationWarning(v: CRDVersion, vp: FieldPath): FieldError[] {
  const w = v.deprecationWarning;
  const path = vp.child('deprecationWarning').toString();
  if (!v.deprecated && w !== undefined) return [invalid(path, w, 'can only be set for deprecated versions')];
  if (w === undefined) return [];
  const errs: FieldError[] = [];
  if (w.length > 256) errs.push(invalid(path, w, 'must be <= 256 characters long'));
  if (w.length === 0) errs.push(invalid(path, w, 'must not be an empty string'));
  const bad = [...w].findIndex((ch) => /[\p{Cc}]/u.test(ch));
  if (bad >= 0) errs.push(invalid(path, w, `must only contain printable UTF-8 characters; control character found at index ${bad}`));
  return errs;
}

function validateSchema(schema: JSONSchemaProps | undefined, statusEnabled: boolean, fp: FieldPath): FieldError[] {
  if (!schema) return [];
  const errs: FieldError[] = [];
  if (statusEnabled) {
    for (const [k, val] of Object.entries(schema)) {
      if (val === undefined || val === null || val === false || val === '' || (Array.isArray(val) && val.length === 0)) continue;
      if (k === 'type') {
        if (schema.type !== 'object') {
          errs.push(invalid(fp.child('openAPIV3Schema.type').toString(), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!allowedAtRootWithStatus.has(k)) {
        errs.push(invalid(fp.child('openAPIV3Schema').toString(), schema, `only ${allowedAtRootList} fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  errs.push(...validateCRDSchema(schema, fp.child('openAPIV3Schema')));
  return errs;
}

/** `.a.b` style paths as validateSimpleJSONPath accepts them. */
function simpleJSONPathErrors(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: CRDSubresources | undefined, fp: FieldPath): FieldError[] {
  const scale = sub?.scale;
  if (!scale) return [];
  const errs: FieldError[] = [];
  const specPath = fp.child('scale.specReplicasPath').toString();
  if (!scale.specReplicasPath) errs.push(required(specPath));
  else {
    const e = simpleJSONPathErrors(scale.specReplicasPath, specPath);
    if (e.length) errs.push(...e);
    else if (!scale.specReplicasPath.startsWith('.spec.')) errs.push(invalid(specPath, scale.specReplicasPath, 'should be a json path under .spec'));
  }
  const statusPath = fp.child('scale.statusReplicasPath').toString();
  if (!scale.statusReplicasPath) errs.push(required(statusPath));
  else {
    const e = simpleJSONPathErrors(scale.statusReplicasPath, statusPath);
    if (e.length) errs.push(...e);
    else if (!scale.statusReplicasPath.startsWith('.status.')) errs.push(invalid(statusPath, scale.statusReplicasPath, 'should be a json path under .status'));
  }
  if (scale.labelSelectorPath) {
    const selPath = fp.child('scale.labelSelectorPath').toString();
    const e = simpleJSONPathErrors(scale.labelSelectorPath, selPath);
    if (e.length) errs.push(...e);
    else if (!scale.labelSelectorPath.startsWith('.spec.') && !scale.labelSelectorPath.startsWith('.status.')) {
      errs.push(invalid(selPath, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

function validateColumn(col: CRDColumn, fp: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(required(fp.child('name').toString()));
  const typeMsg = `must be one of ${printerColumnTypes.join(',')}`;
  if (!col.type) errs.push(required(fp.child('type').toString(), typeMsg));
  else if (!printerColumnTypes.includes(col.type)) errs.push(invalid(fp.child('type').toString(), col.type, typeMsg));
  if (col.format && !printerColumnFormats.includes(col.format)) {
    errs.push(invalid(fp.child('format').toString(), col.format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  const jp = fp.child('JSONPath').toString();
  if (!col.jsonPath) errs.push(required(jp));
  else errs.push(...simpleJSONPathErrors(col.jsonPath, jp));
  return errs;
}

/** ValidateCustomResourceDefinitionNames: DNS-1035 names, kind ≠ listKind. */
export function validateNames(names: CRDNames, fp: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string | undefined, lower: boolean, prefix = '') => {
    if (!value) return;
    const e = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (e.length) errs.push(invalid(fp.child(field).toString(), value, prefix + e.join(',')));
  };
  label('plural', names.plural, false);
  label('singular', names.singular, false);
  label('kind', names.kind, true, 'may have mixed case, but should otherwise match: ');
  label('listKind', names.listKind, true, 'may have mixed case, but should otherwise match: ');
  (names.shortNames ?? []).forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length) errs.push(invalid(fp.child('shortNames').index(i).toString(), s, e.join(',')));
  });
  if (names.kind && names.kind === names.listKind) errs.push(invalid(fp.child('listKind').toString(), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length) errs.push(invalid(fp.child('categories').index(i).toString(), s, e.join(',')));
  });
  return errs;
}
