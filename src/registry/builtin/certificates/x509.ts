/**
 * What upstream's CSR validation asks of crypto/x509, on @peculiar/x509's parsers: certificates.ParseCSR (the first
 * PEM block must be a CERTIFICATE REQUEST that parses as PKCS#10), CertificateRequest.CheckSignature (the request is
 * signed by the key it carries), and validateCertificate's x509.ParseCertificates of each CERTIFICATE block.
 *
 * The signature is checked synchronously with node:crypto (strategies validate synchronously), on the exact bytes
 * that were signed. Where Go's parser would fail, the messages are ours (Go's name the ASN.1 detail that failed,
 * which a different parser cannot reproduce); the messages of the checks after parsing are Go's.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { type KeyObject, constants, createPublicKey, verify } from 'node:crypto';
import { decodePem } from './pem.js';

/** A PKCS#10 request with access to the signed bytes and the signature algorithm's OID. */
export class CertificateRequest extends x509.Pkcs10CertificateRequest {
  /** The DER of certificationRequestInfo as it was received (RawTBSCertificateRequest). */
  get signedBytes(): ArrayBuffer | undefined {
    return this.asn.certificationRequestInfoRaw;
  }
  get signatureAlgorithmOID(): string {
    return this.asn.signatureAlgorithm.algorithm;
  }
}

/** The length of the DER element at the start of `der` (tag, length, contents), or undefined when it is cut short. */
function derElementLength(der: Uint8Array): number | undefined {
  if (der.length < 2) return undefined;
  const first = der[1]!;
  if (first < 0x80) return 2 + first <= der.length ? 2 + first : undefined;
  const count = first & 0x7f;
  if (count === 0 || count > 4 || der.length < 2 + count) return undefined;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + der[2 + i]!;
  const total = 2 + count + length;
  return total <= der.length ? total : undefined;
}

/** A parsed request, or why it is not one (certificates.ParseCSR's error). */
export function parseCSR(pem: Buffer): { request: CertificateRequest } | { error: string } {
  const decoded = decodePem(pem);
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') return { error: 'PEM block type must be CERTIFICATE REQUEST' };
  const der = decoded.block.bytes;
  const length = derElementLength(der);
  // Go's ParseCertificateRequest refuses bytes after the request ("trailing data").
  if (length !== undefined && length < der.length) return { error: 'asn1: syntax error: trailing data' };
  try {
    return { request: new CertificateRequest(der) };
  } catch {
    // Deliberately not Go's text: its asn1 errors name the structure that failed to decode.
    return { error: 'x509: malformed certificate request' };
  }
}

/** How each signature algorithm Go verifies is checked: the key algorithm it needs and the digest. */
const SIGNATURE_ALGORITHMS: Record<string, { key: 'RSA' | 'ECDSA' | 'Ed25519'; hash: string | null; pss?: boolean; insecure?: string }> = {
  '1.2.840.113549.1.1.4': { key: 'RSA', hash: 'md5', insecure: 'MD5-RSA' },
  '1.2.840.113549.1.1.5': { key: 'RSA', hash: 'sha1' },
  '1.2.840.113549.1.1.11': { key: 'RSA', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { key: 'RSA', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { key: 'RSA', hash: 'sha512' },
  // RSASSA-PSS: the digest comes from the parameters (SHA-256, -384 or -512 for Go).
  '1.2.840.113549.1.1.10': { key: 'RSA', hash: null, pss: true },
  '1.2.840.10045.4.1': { key: 'ECDSA', hash: 'sha1' },
  '1.2.840.10045.4.3.2': { key: 'ECDSA', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { key: 'ECDSA', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { key: 'ECDSA', hash: 'sha512' },
  '1.3.101.112': { key: 'Ed25519', hash: null },
};

const UNSUPPORTED = 'x509: cannot verify signature: algorithm unimplemented';
/** How Go's %T names each public key type. */
const GO_KEY_TYPES: Record<string, string> = { rsa: '*rsa.PublicKey', ec: '*ecdsa.PublicKey', ed25519: 'ed25519.PublicKey' };
const KEY_ALGORITHMS: Record<string, string> = { rsa: 'RSA', ec: 'ECDSA', ed25519: 'Ed25519' };
const PSS_HASHES: Record<string, string> = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/** CertificateRequest.CheckSignature (x509 checkSignature with SHA-1 allowed): undefined when it verifies, else Go's error. */
export function checkSignature(request: CertificateRequest): string | undefined {
  const algorithm = SIGNATURE_ALGORITHMS[request.signatureAlgorithmOID];
  const signed = request.signedBytes;
  if (!algorithm || !signed) return UNSUPPORTED;
  if (algorithm.insecure) return `x509: cannot verify signature: insecure algorithm ${algorithm.insecure}`;
  let hash = algorithm.hash;
  if (algorithm.pss) {
    const named = (request.signatureAlgorithm as { hash?: { name?: string } }).hash?.name;
    hash = named ? (PSS_HASHES[named] ?? null) : null;
    if (!hash) return UNSUPPORTED;
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(request.publicKey.rawData), format: 'der', type: 'spki' });
  } catch {
    return UNSUPPORTED;
  }
  const keyType = key.asymmetricKeyType ?? '';
  if (!(keyType in KEY_ALGORITHMS)) return UNSUPPORTED;
  if (KEY_ALGORITHMS[keyType] !== algorithm.key) {
    return `x509: signature algorithm specifies an ${algorithm.key} public key, but have public key of type ${GO_KEY_TYPES[keyType]}`;
  }
  const signature = Buffer.from(request.signature);
  let ok = false;
  try {
    const target = algorithm.pss ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } : key;
    ok = verify(hash, Buffer.from(signed), target, signature);
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  if (algorithm.key === 'RSA') return 'crypto/rsa: verification error';
  return `x509: ${algorithm.key} verification failure`;
}

/** The subject's organizations (the groups a client certificate would carry). */
export function subjectOrganizations(request: CertificateRequest): string[] {
  return request.subjectName.getField('O');
}

/**
 * validateCertificate: an empty certificate is fine; otherwise every PEM block must be a header-less CERTIFICATE
 * whose DER holds one or more certificates, and there must be at least one block. Text around the blocks is free.
 */
export function certificateProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  let data: string = pem.toString('latin1');
  let blocks = 0;
  for (let decoded = decodePem(data); decoded; decoded = decodePem(data)) {
    const { block } = decoded;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (Object.keys(block.headers).length !== 0) return 'no PEM block headers are permitted';
    blocks++;
    // x509.ParseCertificates: the DER may hold several certificates back to back.
    let der: Uint8Array = block.bytes;
    if (der.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
    while (der.length > 0) {
      const length = derElementLength(der);
      if (length === undefined) return 'x509: malformed certificate';
      try {
        new x509.X509Certificate(der.subarray(0, length));
      } catch {
        // Deliberately not Go's text when its parser names the field that failed.
        return 'x509: malformed certificate';
      }
      der = der.subarray(length);
    }
    data = decoded.rest;
  }
  if (blocks === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}
