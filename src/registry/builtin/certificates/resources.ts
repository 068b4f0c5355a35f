/**
 * certificates.k8s.io/v1 CertificateSigningRequests as kube-apiserver 1.32 serves them, in every logical cluster as
 * kcp serves them (the generic control plane's certificates storage): cluster-scoped, short name `csr`, /status and
 * /approval, the field selector spec.signerName. The admission plugins that gate approving and signing are in
 * apiserver/admission/certificates.ts. Nothing here signs: as on a control plane without kube-controller-manager,
 * a signer (a controller or a person with `sign` on the signer) writes the certificate through /status.
 */
import type { KubeObject } from '../../../apimachinery/object.js';
import { defineBuiltin } from '../define.js';
import { csrPrinter } from './printer.js';
import { csrApprovalStrategy, csrStatusStrategy, prepareCSRForCreate, prepareCSRForUpdate } from './strategy.js';
import { specOf, validateCSRCreate, validateCSRUpdate } from './validation.js';

/** SelectableFields: spec.signerName besides the name (field-labels.ts lists what a selector may use). */
function csrFields(csr: KubeObject): Record<string, string> {
  const signerName = specOf(csr).signerName;
  return { 'spec.signerName': typeof signerName === 'string' ? signerName : '' };
}

export const certificateSigningRequests = defineBuiltin({
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
  kind: 'CertificateSigningRequest',
  namespaced: false,
  shortNames: ['csr'],
  definitionName: 'io.k8s.api.certificates.v1.CertificateSigningRequest',
  strategy: {
    // ValidateCertificateRequestName accepts any name: only the path-segment rules apply.
    nameValidation: 'path',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate: prepareCSRForCreate,
    prepareForUpdate: prepareCSRForUpdate,
    validate: validateCSRCreate,
    validateUpdate: validateCSRUpdate,
    selectableFields: csrFields,
    resetFields: ['spec', 'status'],
  },
  subresources: [
    { name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'], strategy: csrApprovalStrategy },
    { name: 'status', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'], strategy: csrStatusStrategy },
  ],
  printer: csrPrinter,
});
