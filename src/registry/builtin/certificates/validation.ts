/**
 * CertificateSigningRequest validation as pkg/apis/certificates/validation (v1.32) does it for certificates.k8s.io/v1,
 * with upstream's field paths and messages. Object metadata is the store's (the CSR name validator accepts any name
 * the path allows). What an old object already holds is tolerated on update (duplicate or unknown usages, the legacy
 * signer, duplicate or empty condition types, Approved with Denied, an unparsable certificate), as upstream does for
 * compatibility with stored data.
 */
import * as fe from '../../../apimachinery/field-errors.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { type JsonObject, type KubeObject, isPlainObject, jsonEqual } from '../../../apimachinery/object.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../apimachinery/validation/names.js';
import { certificateProblem, checkSignature, parseCSR } from './x509.js';

export const APPROVED = 'Approved';
export const DENIED = 'Denied';
export const FAILED = 'Failed';
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/** Every key usage v1 knows (allValidUsages), sorted as sets.String.List() prints them. */
export const KNOWN_USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
].sort();
const knownUsages = new Set(KNOWN_USAGES);
const TRUE_ONLY_TYPES = new Set([APPROVED, DENIED, FAILED]);

interface Options {
  /** The /approval subresource: Approved and Denied conditions may be added. */
  allowSettingApprovalConditions: boolean;
  /** The /status subresource: status.certificate may be set. */
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

export const specOf = (csr: KubeObject): JsonObject => (isPlainObject(csr.spec) ? csr.spec : {});
export const statusOf = (csr: KubeObject): JsonObject => (isPlainObject(csr.status) ? csr.status : {});
export const conditionsOf = (csr: KubeObject): JsonObject[] => {
  const c = statusOf(csr).conditions;
  return Array.isArray(c) ? c.filter(isPlainObject) : [];
};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const usagesOf = (csr: KubeObject): string[] => {
  const u = specOf(csr).usages;
  return Array.isArray(u) ? u.map(str) : [];
};

/** A []byte field as Go decodes it from JSON (base64); null stands for nil. */
export function bytesOf(v: unknown): Buffer | null {
  return typeof v === 'string' ? Buffer.from(v, 'base64') : null;
}

/** How Go's %#v prints a []byte (field.Invalid's value for spec.request). */
function goBytes(b: Buffer | null): string {
  if (b === null) return '[]byte(nil)';
  return `[]byte{${[...b].map((x) => '0x' + x.toString(16)).join(', ')}}`;
}

const sameBytes = (a: Buffer | null, b: Buffer | null): boolean => (a ?? Buffer.alloc(0)).equals(b ?? Buffer.alloc(0));

/** validateCSR: the request parses as a PEM PKCS#10 request and its signature verifies. */
function requestProblem(request: Buffer | null): string | undefined {
  const parsed = parseCSR(request ?? Buffer.alloc(0));
  if ('error' in parsed) return parsed.error;
  return checkSignature(parsed.request);
}

/** ValidateSignerName (pkg/apis/core/validation): `<domain with a dot>/<path of DNS subdomains>`, 571 bytes at most. */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (signerName.length === 0) return [fe.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fe.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, signerPath] = segments as [string, string];
  if (Buffer.byteLength(domain) > 253) errs.push(fe.tooLong(path, '', 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = isDNS1123Label(label);
    // Only the first bad label is reported: the others would repeat the same message.
    if (problems.length) {
      for (const p of problems) errs.push(fe.invalid(path, domain, `validating label ${JSON.stringify(label)}: ${p}`));
      break;
    }
  }
  if (domainLabels.length < 2) errs.push(fe.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of signerPath.split('.')) {
    const problems = isDNS1123Subdomain(label);
    if (problems.length) {
      for (const p of problems) errs.push(fe.invalid(path, signerPath, `validating label ${JSON.stringify(label)}: ${p}`));
      break;
    }
  }
  const maxSignerName = 253 + (253 + 63 + 1) + 1;
  if (Buffer.byteLength(signerName) > maxSignerName) errs.push(fe.tooLong(path, '', maxSignerName));
  return errs;
}

function validateConditions(csr: KubeObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let hasApproved = false;
  let hasDenied = false;
  conditionsOf(csr).forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    const type = str(c.type);
    const status = str(c.status);
    if (!opts.allowEmptyConditionType && type === '') errs.push(fe.required(`${at}.type`));
    const allowed = TRUE_ONLY_TYPES.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (status === '') errs.push(fe.required(`${at}.status`));
    else if (!allowed.includes(status)) errs.push(fe.notSupported(`${at}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === APPROVED) {
        hasApproved = true;
        if (hasDenied) errs.push(fe.invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === DENIED) {
        hasDenied = true;
        if (hasApproved) errs.push(fe.invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(fe.duplicate(`${at}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

/** validateCertificateSigningRequest, without the ObjectMeta part the store runs. */
function validateCSR(csr: KubeObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(csr);
  const request = bytesOf(spec.request);
  const problem = requestProblem(request);
  if (problem !== undefined) errs.push({ ...fe.invalid('spec.request', null, problem), renderedValue: goBytes(request) });
  const usages = usagesOf(csr);
  if (usages.length === 0) errs.push(fe.required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!knownUsages.has(u)) errs.push(fe.notSupported(`spec.usages[${i}]`, u, KNOWN_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(fe.duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const signerName = str(spec.signerName);
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER) {
    errs.push(fe.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', signerName));
  }
  const expiration = spec.expirationSeconds;
  if (typeof expiration === 'number' && expiration < 600) {
    errs.push(fe.invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certProblem = certificateProblem(bytesOf(statusOf(csr).certificate) ?? Buffer.alloc(0));
    if (certProblem !== undefined) errs.push(fe.invalid('status.certificate', '<certificate data>', certProblem));
  }
  return errs;
}

const hasDuplicates = (values: string[]): boolean => new Set(values).size !== values.length;

/** getValidationOptions: what the stored object (absent on create) lets an update keep; no subresource powers. */
function optionsFor(csr: KubeObject, old: KubeObject | undefined): Options {
  const oldTypes = old ? conditionsOf(old).map((c) => str(c.type)) : [];
  const oldCertificate = old ? bytesOf(statusOf(old).certificate) : null;
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes(APPROVED) && oldTypes.includes(DENIED),
    allowLegacySignerName: !!old && str(specOf(old).signerName) === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: hasDuplicates(oldTypes),
    allowEmptyConditionType: oldTypes.includes(''),
    // Updates that leave the certificate alone, or of a certificate stored unparsable, are not re-checked.
    allowArbitraryCertificate:
      !!old && (sameBytes(bytesOf(statusOf(csr).certificate), oldCertificate) || certificateProblem(oldCertificate ?? Buffer.alloc(0)) !== undefined),
    allowUnknownUsages: !!old && usagesOf(old).some((u) => !knownUsages.has(u)),
    allowDuplicateUsages: !!old && hasDuplicates(usagesOf(old)),
  };
}

/** ValidateCertificateSigningRequestCreate. */
export function validateCSRCreate(csr: KubeObject): FieldError[] {
  return validateCSR(csr, optionsFor(csr, undefined));
}

const conditionsOfType = (csr: KubeObject, type: string) => conditionsOf(csr).filter((c) => str(c.type) === type);

/** validateCertificateSigningRequestUpdate without ValidateObjectMetaUpdate (the caller's). */
function validateUpdate(csr: KubeObject, old: KubeObject, opts: Options): FieldError[] {
  const errs = validateCSR(csr, opts);
  for (const type of [APPROVED, DENIED, FAILED]) {
    if (conditionsOfType(csr, type).length < conditionsOfType(old, type).length) {
      errs.push(fe.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of [APPROVED, DENIED]) {
      const before = conditionsOfType(old, type);
      const after = conditionsOfType(csr, type);
      if (after.length > before.length) errs.push(fe.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
      // Upstream appends a go-cmp diff of the conditions; unreachable through the API (every endpoint without
      // approval powers restores the stored Approved/Denied conditions before validating), so it is left out.
      else if (after.length === before.length && !jsonEqual(before, after)) {
        errs.push(fe.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
      }
    }
  }
  const certificate = bytesOf(statusOf(csr).certificate);
  const oldCertificate = bytesOf(statusOf(old).certificate);
  if (!sameBytes(certificate, oldCertificate)) {
    if (!opts.allowSettingCertificate) errs.push(fe.forbidden('status.certificate', 'updates may not set certificate content'));
    else if ((oldCertificate?.length ?? 0) > 0) errs.push(fe.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** ValidateCertificateSigningRequestUpdate: the main endpoint. */
export function validateCSRUpdate(csr: KubeObject, old: KubeObject): FieldError[] {
  return validateUpdate(csr, old, optionsFor(csr, old));
}

/** ValidateCertificateSigningRequestStatusUpdate: /status may set the certificate. */
export function validateCSRStatusUpdate(csr: KubeObject, old: KubeObject): FieldError[] {
  return validateUpdate(csr, old, { ...optionsFor(csr, old), allowSettingCertificate: true });
}

/** ValidateCertificateSigningRequestApprovalUpdate: /approval may add Approved or Denied. */
export function validateCSRApprovalUpdate(csr: KubeObject, old: KubeObject): FieldError[] {
  return validateUpdate(csr, old, { ...optionsFor(csr, old), allowSettingApprovalConditions: true });
}
