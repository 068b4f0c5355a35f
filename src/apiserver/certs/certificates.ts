/**
 * The certificates a local atrium needs to serve TLS and to authenticate its first administrator:
 * a self-signed EC P-256 CA (`atrium-ca`), a serving certificate signed by it and an admin client
 * certificate (CN=admin, O=system:masters, the group kube-apiserver's default RBAC makes all-powerful).
 *
 * Generation uses @peculiar/x509 on top of Node's WebCrypto; inspection of existing files uses Node's
 * own X509Certificate, which is what the TLS stack will judge them with anyway.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate, createPrivateKey, webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';

// @peculiar/x509 defaults to globalThis.crypto, which Node 20 only exposes with a flag on some builds.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Backdate notBefore a little so peers with a slightly slow clock still accept fresh certificates. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
/** Certificates closer than this to expiry are re-issued instead of reused. */
const RENEW_BEFORE_MS = 7 * DAY_MS;

const CA_DAYS = 3650;
const SERVING_DAYS = 365;
const ADMIN_DAYS = 365;

/** A certificate and its private key, both PEM (the key is PKCS#8, `-----BEGIN PRIVATE KEY-----`). */
export interface CertificateKeyPair {
  certPem: string;
  keyPem: string;
}

/** Everything ensureCertificates manages. */
export interface ClusterCertificates {
  ca: CertificateKeyPair;
  serving: CertificateKeyPair;
  admin: CertificateKeyPair;
}

export interface EnsureCertificatesOptions {
  /** Extra DNS names for the serving certificate (localhost and os.hostname() are always included). */
  hostnames: string[];
  /** Extra IP addresses for the serving certificate (127.0.0.1 and ::1 are always included). */
  ips: string[];
}

export interface ClientCertificateOptions {
  /** Becomes the user name (subject CN). */
  cn: string;
  /** Become the user's groups (one subject O each, in order). */
  groups: string[];
  /** Validity in days from now. */
  days: number;
}

/** The file names ensureCertificates reads and writes under its directory. */
export const CERTIFICATE_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
} as const;

/**
 * Makes sure `dir` holds a usable CA, serving certificate and admin client certificate, generating
 * whatever is missing, and returns all three as PEM.
 *
 * - The CA is reused when both ca.crt and ca.key exist, parse, belong together and are not about to
 *   expire; otherwise a new CA is created and, since everything else was signed by the old one, the
 *   serving and admin certificates are re-issued too.
 * - The serving certificate is re-issued (by the same CA) when it is missing, not signed by the CA,
 *   near expiry, or lacks any requested SAN: localhost, os.hostname(), 127.0.0.1, ::1, plus
 *   `opts.hostnames` and `opts.ips`. Extra SANs already on it are harmless and do not trigger re-issue.
 * - The admin certificate is re-issued when missing, not signed by the CA or near expiry.
 *
 * Keys are written with mode 0600; certificates with 0644. The directory is created if needed.
 */
export async function ensureCertificates(dir: string, opts: EnsureCertificatesOptions): Promise<ClusterCertificates> {
  await mkdir(dir, { recursive: true });
  const f = (name: string) => join(dir, name);

  let ca = await readPair(f(CERTIFICATE_FILES.caCert), f(CERTIFICATE_FILES.caKey));
  let caIsNew = false;
  if (!ca || !isReusable(ca, undefined)) {
    ca = await createCertificateAuthority('atrium-ca', CA_DAYS);
    await writePair(f(CERTIFICATE_FILES.caCert), f(CERTIFICATE_FILES.caKey), ca);
    caIsNew = true;
  }

  const sans = servingNames(opts);
  let serving = caIsNew ? undefined : await readPair(f(CERTIFICATE_FILES.servingCert), f(CERTIFICATE_FILES.servingKey));
  if (!serving || !isReusable(serving, ca) || !coversNames(serving.certPem, sans)) {
    serving = await issueServingCertificate(ca, { cn: 'atrium-apiserver', ...sans, days: SERVING_DAYS });
    await writePair(f(CERTIFICATE_FILES.servingCert), f(CERTIFICATE_FILES.servingKey), serving);
  }

  let admin = caIsNew ? undefined : await readPair(f(CERTIFICATE_FILES.adminCert), f(CERTIFICATE_FILES.adminKey));
  if (!admin || !isReusable(admin, ca)) {
    admin = await issueClientCertificate(ca, { cn: 'admin', groups: ['system:masters'], days: ADMIN_DAYS });
    await writePair(f(CERTIFICATE_FILES.adminCert), f(CERTIFICATE_FILES.adminKey), admin);
  }

  return { ca, serving, admin };
}

/**
 * Issues a client certificate signed by `ca` for user `cn` in `groups`, the way kube-apiserver's
 * x509 authenticator reads them (CN = user name, each O = a group). EKU is clientAuth only.
 * Nothing is written to disk. Group order is preserved; an empty group list yields a CN-only subject.
 */
export async function issueClientCertificate(ca: CertificateKeyPair, opts: ClientCertificateOptions): Promise<CertificateKeyPair> {
  const subject = [`CN=${escapeDnValue(opts.cn)}`, ...opts.groups.map((g) => `O=${escapeDnValue(g)}`)].join(', ');
  return issueLeaf(ca, {
    subject,
    days: opts.days,
    keyUsage: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    extendedKeyUsage: [x509.ExtendedKeyUsage.clientAuth],
  });
}

/**
 * Issues a serving certificate signed by `ca` with the given DNS names and IP addresses as SANs
 * (exactly those; callers add defaults) and EKU serverAuth. Nothing is written to disk.
 */
export async function issueServingCertificate(
  ca: CertificateKeyPair,
  opts: { cn: string; hostnames: string[]; ips: string[]; days: number },
): Promise<CertificateKeyPair> {
  const names: x509.JsonGeneralName[] = [
    ...opts.hostnames.map((value) => ({ type: 'dns' as const, value })),
    ...opts.ips.map((value) => ({ type: 'ip' as const, value })),
  ];
  return issueLeaf(ca, {
    subject: `CN=${escapeDnValue(opts.cn)}`,
    days: opts.days,
    keyUsage: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    extendedKeyUsage: [x509.ExtendedKeyUsage.serverAuth],
    subjectAltNames: names,
  });
}

/** Creates a self-signed CA certificate (basicConstraints CA:true, keyCertSign) with a fresh P-256 key. */
export async function createCertificateAuthority(commonName: string, days: number): Promise<CertificateKeyPair> {
  const keys = await generateKeyPair();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${escapeDnValue(commonName)}`,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + days * DAY_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

interface LeafSpec {
  subject: string;
  days: number;
  keyUsage: x509.KeyUsageFlags;
  extendedKeyUsage: string[];
  subjectAltNames?: x509.JsonGeneralName[];
}

async function issueLeaf(ca: CertificateKeyPair, spec: LeafSpec): Promise<CertificateKeyPair> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKeyPem(ca.keyPem);
  const keys = await generateKeyPair();
  const now = Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(spec.keyUsage, true),
    new x509.ExtendedKeyUsageExtension(spec.extendedKeyUsage, false),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
  ];
  if (spec.subjectAltNames?.length) extensions.push(new x509.SubjectAlternativeNameExtension(spec.subjectAltNames, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: spec.subject,
    issuer: caCert.subject,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + spec.days * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions,
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

/** The SANs the serving certificate must carry, defaults first, duplicates removed. */
function servingNames(opts: EnsureCertificatesOptions): { hostnames: string[]; ips: string[] } {
  const hostnames = new Set<string>(['localhost', hostname().toLowerCase()]);
  const ips = new Set<string>(['127.0.0.1', '::1']);
  // Tolerate an IP passed as a host name (a common CLI slip): it must become an IP SAN to be useful.
  for (const h of opts.hostnames) (isIP(h) ? ips : hostnames).add(isIP(h) ? h : h.toLowerCase());
  for (const ip of opts.ips) {
    if (!isIP(ip)) throw new Error(`invalid IP address for serving certificate: ${JSON.stringify(ip)}`);
    ips.add(ip);
  }
  return { hostnames: [...hostnames].filter((h) => h !== ''), ips: [...ips] };
}

function coversNames(certPem: string, names: { hostnames: string[]; ips: string[] }): boolean {
  const cert = new X509Certificate(certPem);
  // subject: 'never' so a CN cannot stand in for a missing DNS SAN (Go's TLS ignores CNs).
  return (
    names.hostnames.every((h) => cert.checkHost(h, { subject: 'never', wildcards: false }) !== undefined) &&
    names.ips.every((ip) => cert.checkIP(ip) !== undefined)
  );
}

/**
 * True when the pair parses, the key belongs to the certificate, it is not near expiry, and (when an
 * issuer is given) it was signed by that issuer.
 */
function isReusable(pair: CertificateKeyPair, issuer: CertificateKeyPair | undefined): boolean {
  try {
    const cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return false;
    if (new Date(cert.validTo).getTime() - Date.now() < RENEW_BEFORE_MS) return false;
    if (issuer) {
      const issuerCert = new X509Certificate(issuer.certPem);
      if (!cert.checkIssued(issuerCert) || !cert.verify(issuerCert.publicKey)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

async function readPair(certPath: string, keyPath: string): Promise<CertificateKeyPair | undefined> {
  try {
    const [certPem, keyPem] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { certPem, keyPem };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function writePair(certPath: string, keyPath: string, pair: CertificateKeyPair): Promise<void> {
  await writeFile(keyPath, pair.keyPem, { mode: 0o600 });
  // writeFile's mode only applies when creating; an existing key file keeps its old mode otherwise.
  await chmod(keyPath, 0o600);
  await writeFile(certPath, pair.certPem, { mode: 0o644 });
}

async function generateKeyPair(): Promise<{ publicKey: webcrypto.CryptoKey; privateKey: webcrypto.CryptoKey }> {
  return (await webcrypto.subtle.generateKey(EC_ALGORITHM, true, ['sign', 'verify'])) as unknown as {
    publicKey: webcrypto.CryptoKey;
    privateKey: webcrypto.CryptoKey;
  };
}

async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importKeyPem(pem: string): Promise<webcrypto.CryptoKey> {
  // Accept any key Node can read (SEC1 "EC PRIVATE KEY" included) by normalising to PKCS#8 first.
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return (await webcrypto.subtle.importKey('pkcs8', der, EC_ALGORITHM, false, ['sign'])) as unknown as webcrypto.CryptoKey;
}

/** A positive 128-bit serial (the top bit cleared so DER does not need a sign byte to stay positive). */
function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  if (bytes[0] === 0) bytes[0] = 1;
  return Buffer.from(bytes).toString('hex');
}

/** Escapes RFC 4514 special characters so user and group names cannot inject extra RDNs. */
function escapeDnValue(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, (c) => `\\${c}`).replace(/^[ #]|[ ]$/g, (c) => `\\${c}`);
}
