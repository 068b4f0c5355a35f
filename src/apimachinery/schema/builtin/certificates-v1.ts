/**
 * Built-in type descriptors for certificates.k8s.io/v1 CertificateSigningRequests: JSON names, protobuf field numbers
 * (k8s.io/api v0.32.4 certificates/v1 generated.proto), zero-value rules from the Go struct tags and the list markers.
 * `request` and `certificate` are Go []byte (base64 in JSON, bytes in protobuf), marked `+listType=atomic` upstream.
 */
import type { BuiltinTypeSpec } from './builtin-type.js';
import { BYTES, INT32, OBJECT_META_FIELD, STRING, TIME, TYPE_META_FIELDS, list, map, ref } from './field-types.js';

/** OpenAPI name prefix of the certificates.k8s.io/v1 package. */
export const CERTIFICATES_V1 = 'io.k8s.api.certificates.v1';

export const certificatesV1Types: readonly BuiltinTypeSpec[] = [
  {
    name: CERTIFICATES_V1 + '.CertificateSigningRequest',
    description: 'A request for a signed X.509 certificate: the PKCS#10 request and the signer asked for it, its approval or denial, and the certificate the signer issued.',
    gvk: [{ group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' }],
    fields: [
      ...TYPE_META_FIELDS,
      OBJECT_META_FIELD,
      { name: 'spec', proto: 2, type: ref(CERTIFICATES_V1, 'CertificateSigningRequestSpec'), required: true, description: 'The request, its signer, usages and requestor. Immutable after creation.' },
      { name: 'status', proto: 3, type: ref(CERTIFICATES_V1, 'CertificateSigningRequestStatus'), description: 'Approval conditions and the issued certificate, written through /approval and /status.' },
    ],
  },
  {
    name: CERTIFICATES_V1 + '.CertificateSigningRequestSpec',
    description: 'The certificate request and who made it.',
    fields: [
      { name: 'request', proto: 1, type: BYTES, required: true, emitZero: true, listType: 'atomic', description: 'A PEM "CERTIFICATE REQUEST" block (PKCS#10), base64-encoded in JSON.' },
      { name: 'signerName', proto: 7, type: STRING, required: true, emitZero: true, description: 'The signer asked to issue the certificate, a qualified name such as example.com/signer-name.' },
      { name: 'expirationSeconds', proto: 8, type: INT32, emitZero: true, description: 'The requested validity of the certificate in seconds (at least 600); the signer may issue a different one.' },
      { name: 'usages', proto: 5, type: list(STRING), listType: 'atomic', description: 'Key usages requested in the certificate, such as "digital signature" or "client auth".' },
      { name: 'username', proto: 2, type: STRING, description: 'The user that created the request; set by the server.' },
      { name: 'uid', proto: 3, type: STRING, description: 'The uid of the user that created the request; set by the server.' },
      { name: 'groups', proto: 4, type: list(STRING), listType: 'atomic', description: 'The groups of the user that created the request; set by the server.' },
      { name: 'extra', proto: 6, type: map(list(STRING)), description: 'Extra attributes of the user that created the request; set by the server.' },
    ],
  },
  {
    name: CERTIFICATES_V1 + '.CertificateSigningRequestStatus',
    description: 'Whether the request was approved, denied or failed, and the issued certificate.',
    fields: [
      { name: 'conditions', proto: 1, type: list(ref(CERTIFICATES_V1, 'CertificateSigningRequestCondition')), listType: 'map', listMapKeys: ['type'], description: 'Conditions of the request: Approved, Denied, Failed, or others.' },
      { name: 'certificate', proto: 2, type: BYTES, listType: 'atomic', description: 'The issued certificate as PEM CERTIFICATE blocks, base64-encoded in JSON; immutable once set.' },
    ],
  },
  {
    name: CERTIFICATES_V1 + '.CertificateSigningRequestCondition',
    description: 'One condition of a certificate signing request.',
    fields: [
      { name: 'type', proto: 1, type: STRING, required: true, emitZero: true, description: 'The condition type: Approved, Denied, Failed, or another one.' },
      { name: 'status', proto: 6, type: STRING, required: true, emitZero: true, description: 'True, False or Unknown; Approved, Denied and Failed may only be True.' },
      { name: 'reason', proto: 2, type: STRING, description: 'A brief machine-readable reason for the condition.' },
      { name: 'message', proto: 3, type: STRING, description: 'Human-readable details of the condition.' },
      { name: 'lastUpdateTime', proto: 4, type: TIME, description: 'When the condition was last updated.' },
      { name: 'lastTransitionTime', proto: 5, type: TIME, description: 'When the condition last changed status.' },
    ],
  },
];
