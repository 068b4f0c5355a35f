/**
 * The admission plugins that gate CertificateSigningRequests (plugin/pkg/admission/certificates, v1.32), asked of the
 * request's logical cluster's authorization as upstream asks the apiserver's authorizer:
 *   - CertificateApproval: an update through /approval needs the verb `approve` on the synthetic resource
 *     certificates.k8s.io `signers` named by the stored request's signerName, or by its `<domain>/*`;
 *   - CertificateSigning: an update through /status that changes the certificate or the conditions needs `sign` on
 *     the same;
 *   - CertificateSubjectRestriction: creating a kubernetes.io/kube-apiserver-client request whose subject names the
 *     organization system:masters is refused.
 * All three validate (they run once the strategy has prepared and validated the object).
 */
import { type JsonObject, type KubeObject, isPlainObject, jsonEqual } from '../../apimachinery/object.js';
import { errors } from '../../apimachinery/status.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { parseCSR, subjectOrganizations } from '../../registry/builtin/certificates/x509.js';
import { type Authorizer, resourceAttributes } from '../authorization.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from './admission.js';

const GROUP = 'certificates.k8s.io';
const csrGR = { group: GROUP, resource: 'certificatesigningrequests' };
const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

const isCSR = (a: AdmissionAttributes): boolean => a.def.group === GROUP && a.def.resource === csrGR.resource;
const objectOf = (o: unknown): JsonObject => (isPlainObject(o) ? o : {});
const signerNameOf = (csr: KubeObject | undefined): string => {
  const name = objectOf(csr?.spec).signerName;
  return typeof name === 'string' ? name : '';
};

/**
 * IsAuthorizedForSignerName: `verb` on signers/<signerName>, else on signers/<domain>/* (a grant for every signer of
 * a domain).
 */
export function isAuthorizedForSignerName(authorizer: Authorizer, cluster: string, user: UserInfo, verb: string, signerName: string): boolean {
  const allowed = (name: string) =>
    authorizer.authorize(cluster, resourceAttributes(user, { verb, apiGroup: GROUP, apiVersion: '*', resource: 'signers', name })).decision === 'Allow';
  return allowed(signerName) || allowed(`${signerName.split('/')[0]}/*`);
}

/** CertificateApproval. */
export class CertificateApprovalAdmission implements AdmissionPlugin {
  readonly name = 'CertificateApproval';
  constructor(private readonly authorizer: Authorizer) {}

  validate(a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE' || a.subresource !== 'approval' || !isCSR(a)) return;
    // The stored request's signer, as upstream: a write that also tries to change the signer is judged by the old one.
    const signerName = signerNameOf(a.oldObject);
    if (!isAuthorizedForSignerName(this.authorizer, a.ctx.cluster, a.ctx.user, 'approve', signerName)) {
      throw errors.forbidden(csrGR, admissionObjectName(a), `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
    }
  }
}

/** A []byte as reflect.DeepEqual sees it: absent (nil) differs from empty. */
const sameBytes = (a: unknown, b: unknown): boolean => {
  const bytes = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64') : null);
  const x = bytes(a);
  const y = bytes(b);
  return x === null || y === null ? x === y : x.equals(y);
};

/** Conditions as Semantic.DeepEqual compares them: no list and an empty one are equal. */
const conditionsOf = (csr: KubeObject | undefined): unknown[] => {
  const c = objectOf(csr?.status).conditions;
  return Array.isArray(c) ? c : [];
};

/** CertificateSigning. */
export class CertificateSigningAdmission implements AdmissionPlugin {
  readonly name = 'CertificateSigning';
  constructor(private readonly authorizer: Authorizer) {}

  validate(a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE' || a.subresource !== 'status' || !isCSR(a)) return;
    const oldStatus = objectOf(a.oldObject?.status);
    const newStatus = objectOf(a.object?.status);
    if (sameBytes(oldStatus.certificate, newStatus.certificate) && jsonEqual(conditionsOf(a.oldObject), conditionsOf(a.object))) return;
    const signerName = signerNameOf(a.oldObject);
    if (!isAuthorizedForSignerName(this.authorizer, a.ctx.cluster, a.ctx.user, 'sign', signerName)) {
      throw errors.forbidden(csrGR, admissionObjectName(a), `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
    }
  }
}

/** CertificateSubjectRestriction. */
export class CertificateSubjectRestrictionAdmission implements AdmissionPlugin {
  readonly name = 'CertificateSubjectRestriction';

  validate(a: AdmissionAttributes): void {
    if (a.operation !== 'CREATE' || a.subresource || !isCSR(a)) return;
    if (signerNameOf(a.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
    const request = objectOf(a.object?.spec).request;
    const parsed = parseCSR(typeof request === 'string' ? Buffer.from(request, 'base64') : Buffer.alloc(0));
    if ('error' in parsed) throw errors.forbidden(csrGR, admissionObjectName(a), `failed to parse CSR: ${parsed.error}`);
    if (subjectOrganizations(parsed.request).includes('system:masters')) {
      throw errors.forbidden(csrGR, admissionObjectName(a), `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    }
  }
}

/** The three plugins, in upstream's order. */
export function certificateAdmissionPlugins(authorizer: Authorizer): AdmissionPlugin[] {
  return [new CertificateApprovalAdmission(authorizer), new CertificateSigningAdmission(authorizer), new CertificateSubjectRestrictionAdmission()];
}
