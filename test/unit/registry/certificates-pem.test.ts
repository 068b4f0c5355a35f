/**
 * The PEM and X.509 checks behind CertificateSigningRequest validation, on the inputs where Go's encoding/pem and
 * upstream's validateCertificate are particular: text around blocks, malformed blocks skipped, headers, several
 * certificates in one block, and the printer's condition summary.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodePem } from '../../../src/registry/builtin/certificates/pem.js';
import { certificateProblem, checkSignature, parseCSR } from '../../../src/registry/builtin/certificates/x509.js';
import { csrCondition } from '../../../src/registry/builtin/certificates/printer.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

describe('decodePem (encoding/pem Decode)', () => {
  it('finds the first block after any text, with its headers', () => {
    const d = decodePem('intro text\n-----BEGIN THING-----\nProc-Type: 4,ENCRYPTED\n\naGVsbG8=\n-----END THING-----\ntrailer');
    assert.equal(d?.block.type, 'THING');
    assert.deepEqual(d?.block.headers, { 'Proc-Type': '4,ENCRYPTED' });
    assert.equal(d?.block.bytes.toString(), 'hello');
    assert.equal(d?.rest, 'trailer');
  });

  it('skips malformed blocks (bad END, bad base64) and keeps searching', () => {
    const text = '-----BEGIN A-----\naGVsbG8=\n-----END B-----\n-----BEGIN C-----\n!!!!\n-----END C-----\n-----BEGIN D-----\nd29ybGQ=\n-----END D-----\n';
    const d = decodePem(text);
    assert.equal(d?.block.type, 'D');
    assert.equal(d?.block.bytes.toString(), 'world');
  });

  it('accepts base64 split over lines with CRLF and spaces; refuses missing padding', () => {
    assert.equal(decodePem('-----BEGIN X-----\r\naGVs\r\n bG8=\r\n-----END X-----')?.block.bytes.toString(), 'hello');
    assert.equal(decodePem('-----BEGIN X-----\naGVsbG8\n-----END X-----\n'), undefined);
    assert.equal(decodePem('no pem here'), undefined);
  });
});

describe('certificateProblem (validateCertificate)', () => {
  let certPem: string;
  before(async () => {
    const keys = (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '02', name: 'CN=t', notBefore: new Date(), notAfter: new Date(Date.now() + 60_000), keys, signingAlgorithm: ECDSA });
    certPem = cert.toString('pem');
  });

  it('accepts certificates with explanatory text around them, and several in one block', () => {
    assert.equal(certificateProblem(Buffer.from(`issued by the test\n${certPem}\n${certPem}trailing words`)), undefined);
    const der = Buffer.from(new x509.X509Certificate(certPem).rawData);
    const twoInOne = `-----BEGIN CERTIFICATE-----\n${Buffer.concat([der, der]).toString('base64')}\n-----END CERTIFICATE-----\n`;
    assert.equal(certificateProblem(Buffer.from(twoInOne)), undefined);
    assert.equal(certificateProblem(Buffer.alloc(0)), undefined);
  });

  it("refuses other blocks, headers, garbage and no block at all, in upstream's words", () => {
    assert.equal(certificateProblem(Buffer.from('-----BEGIN PRIVATE KEY-----\naGVsbG8=\n-----END PRIVATE KEY-----\n')), 'only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"');
    const withHeader = certPem.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nNote: x\n\n');
    assert.equal(certificateProblem(Buffer.from(withHeader)), 'no PEM block headers are permitted');
    assert.equal(certificateProblem(Buffer.from('-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----\n')), 'found CERTIFICATE PEM block containing 0 certificates');
    assert.equal(certificateProblem(Buffer.from('-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n')), 'x509: malformed certificate');
    assert.equal(certificateProblem(Buffer.from('just text')), 'must contain at least one CERTIFICATE PEM block');
  });
});

describe('parseCSR and checkSignature', () => {
  it('parses a request and verifies its signature; a request after another block is not found', async () => {
    const keys = (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=a, O=g1, O=g2', keys, signingAlgorithm: ECDSA });
    const parsed = parseCSR(Buffer.from(csr.toString('pem')));
    assert.ok('request' in parsed);
    assert.equal(checkSignature(parsed.request), undefined);
    assert.deepEqual(parsed.request.subjectName.getField('O'), ['g1', 'g2']);
    const after = parseCSR(Buffer.from(`-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n${csr.toString('pem')}`));
    assert.deepEqual(after, { error: 'PEM block type must be CERTIFICATE REQUEST' });
  });
});

describe('csrCondition (extractCSRStatus)', () => {
  const csr = (types: string[], certificate?: string) => ({ status: { conditions: types.map((type) => ({ type, status: 'True' })), ...(certificate ? { certificate } : {}) } });
  it('puts Denied before Approved before Pending, then Failed and Issued', () => {
    assert.equal(csrCondition({}), 'Pending');
    assert.equal(csrCondition(csr(['Approved'], 'eA==')), 'Approved,Issued');
    assert.equal(csrCondition(csr(['Approved', 'Denied', 'Failed'])), 'Denied,Failed');
    assert.equal(csrCondition(csr(['Failed'])), 'Pending,Failed');
  });
});

describe('PEM lines with long runs of spaces', () => {
  // A request body may hold megabytes: trimming a line's trailing spaces must not backtrack quadratically (it once
  // blocked the event loop for minutes); a quadratic trim would not finish within the test's timeout.
  it('reads past a megabyte of trailing spaces', { timeout: 60_000 }, () => {
    assert.equal(decodePem(`-----BEGIN ${' '.repeat(1 << 20)}x\n`), undefined);
    const block = decodePem(`-----BEGIN CERTIFICATE-----${' '.repeat(1 << 20)}\nAAAA\n-----END CERTIFICATE-----\n`);
    assert.equal(block?.block.type, 'CERTIFICATE');
  });
});
