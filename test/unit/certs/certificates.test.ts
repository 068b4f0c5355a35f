import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  CERTIFICATE_FILES,
  ensureCertificates,
  issueClientCertificate,
  type CertificateKeyPair,
  type ClusterCertificates,
} from '../../../src/apiserver/certs/certificates.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'atrium-certs-'));
}

function parse(pem: string): X509Certificate {
  return new X509Certificate(pem);
}

function assertSignedBy(leaf: CertificateKeyPair, ca: CertificateKeyPair): void {
  const c = parse(leaf.certPem);
  const issuer = parse(ca.certPem);
  assert.ok(c.checkIssued(issuer), 'issuer name matches CA subject');
  assert.ok(c.verify(issuer.publicKey), 'signature verifies with CA key');
}

test('ensureCertificates creates CA, serving and admin certificates with the expected shape', async () => {
  const dir = await tempDir();
  try {
    const certs = await ensureCertificates(dir, { hostnames: ['api.example.test'], ips: ['10.1.2.3'] });

    const ca = parse(certs.ca.certPem);
    assert.equal(ca.subject, 'CN=atrium-ca');
    assert.equal(ca.ca, true);
    assert.equal(ca.publicKey.asymmetricKeyType, 'ec');
    assert.equal(ca.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');

    const serving = parse(certs.serving.certPem);
    assert.equal(serving.ca, false);
    assert.deepEqual(serving.keyUsage, [SERVER_AUTH]);
    for (const h of ['localhost', hostname().toLowerCase(), 'api.example.test']) {
      assert.equal(serving.checkHost(h, { subject: 'never' }), h, `DNS SAN ${h}`);
    }
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3']) assert.ok(serving.checkIP(ip), `IP SAN ${ip}`);
    assert.equal(serving.checkHost('other.example.test', { subject: 'never' }), undefined);
    assertSignedBy(certs.serving, certs.ca);

    const admin = parse(certs.admin.certPem);
    assert.equal(admin.subject, 'CN=admin\nO=system:masters');
    assert.deepEqual(admin.keyUsage, [CLIENT_AUTH]);
    assertSignedBy(certs.admin, certs.ca);

    // Files: PEM as returned, PKCS#8 keys readable only by the owner.
    const files: [keyof typeof CERTIFICATE_FILES, string][] = [
      ['caCert', certs.ca.certPem],
      ['caKey', certs.ca.keyPem],
      ['servingCert', certs.serving.certPem],
      ['servingKey', certs.serving.keyPem],
      ['adminCert', certs.admin.certPem],
      ['adminKey', certs.admin.keyPem],
    ];
    for (const [key, pem] of files) {
      const path = join(dir, CERTIFICATE_FILES[key]);
      assert.equal(await readFile(path, 'utf8'), pem, path);
      if (key.endsWith('Key')) {
        assert.match(pem, /^-----BEGIN PRIVATE KEY-----\n/);
        assert.equal((await stat(path)).mode & 0o777, 0o600, `${path} mode`);
      } else {
        assert.match(pem, /^-----BEGIN CERTIFICATE-----\n/);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('ensureCertificates reuses what exists and re-issues only what must change', async () => {
  const dir = await tempDir();
  try {
    const first = await ensureCertificates(dir, { hostnames: [], ips: [] });
    const second = await ensureCertificates(dir, { hostnames: [], ips: [] });
    assert.deepEqual(second, first, 'second call with the same options reuses everything');

    // A SAN that is already present (127.0.0.1 is a default) changes nothing.
    const same = await ensureCertificates(dir, { hostnames: ['LOCALHOST'], ips: ['127.0.0.1'] });
    assert.deepEqual(same, first);

    // A new SAN re-issues the serving certificate from the same CA; the admin cert is untouched.
    const widened = await ensureCertificates(dir, { hostnames: ['new.example.test'], ips: ['192.0.2.7'] });
    assert.deepEqual(widened.ca, first.ca);
    assert.deepEqual(widened.admin, first.admin);
    assert.notEqual(widened.serving.certPem, first.serving.certPem);
    assert.ok(parse(widened.serving.certPem).checkHost('new.example.test', { subject: 'never' }));
    assert.ok(parse(widened.serving.certPem).checkIP('192.0.2.7'));
    assertSignedBy(widened.serving, first.ca);

    // A lost admin key re-issues only the admin certificate.
    await rm(join(dir, CERTIFICATE_FILES.adminKey));
    const rekeyed = await ensureCertificates(dir, { hostnames: ['new.example.test'], ips: ['192.0.2.7'] });
    assert.deepEqual(rekeyed.ca, first.ca);
    assert.deepEqual(rekeyed.serving, widened.serving);
    assert.notEqual(rekeyed.admin.certPem, first.admin.certPem);
    assertSignedBy(rekeyed.admin, first.ca);

    // A broken CA means a new CA, and then everything signed by the old one is re-issued.
    await writeFile(join(dir, CERTIFICATE_FILES.caCert), 'garbage');
    const fresh = await ensureCertificates(dir, { hostnames: [], ips: [] });
    assert.notEqual(fresh.ca.certPem, first.ca.certPem);
    assertSignedBy(fresh.serving, fresh.ca);
    assertSignedBy(fresh.admin, fresh.ca);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('ensureCertificates rejects a malformed IP address', async () => {
  const dir = await tempDir();
  try {
    await assert.rejects(ensureCertificates(dir, { hostnames: [], ips: ['not-an-ip'] }), /invalid IP address/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('issueClientCertificate encodes user as CN and each group as O, in order', async () => {
  const dir = await tempDir();
  try {
    const { ca } = await ensureCertificates(dir, { hostnames: [], ips: [] });
    const cases: { cn: string; groups: string[]; subject: string }[] = [
      { cn: 'alice', groups: [], subject: 'CN=alice' },
      { cn: 'bob', groups: ['dev', 'system:authenticated'], subject: 'CN=bob\nO=dev\nO=system:authenticated' },
      // A comma must stay inside the CN rather than start a new RDN.
      { cn: 'eve, O=system:masters', groups: [], subject: 'CN=eve\\, O=system:masters' /* one RDN: no newline */ },
    ];
    for (const c of cases) {
      const pair = await issueClientCertificate(ca, { cn: c.cn, groups: c.groups, days: 2 });
      const cert = parse(pair.certPem);
      assert.equal(cert.subject, c.subject, c.cn);
      assert.deepEqual(cert.keyUsage, [CLIENT_AUTH]);
      assertSignedBy(pair, ca);
      const lifetime = Date.parse(cert.validTo) - Date.now();
      assert.ok(lifetime > 1.9 * 86400_000 && lifetime <= 2 * 86400_000, `validity of ${c.cn}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Starts an https server requiring client certs from `certs.ca` that reports the peer's subject. */
async function startMtlsServer(certs: ClusterCertificates): Promise<{ port: number; close: () => Promise<void> }> {
  const server = https.createServer(
    { key: certs.serving.keyPem, cert: certs.serving.certPem, ca: certs.ca.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ subject: { CN: peer.subject.CN, O: peer.subject.O } }));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function get(
  port: number,
  ca: string,
  client: CertificateKeyPair | undefined,
  servername: string,
): Promise<{ subject: { CN: string; O: string | string[] } }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/', servername, ca, cert: client?.certPem, key: client?.keyPem, agent: false },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(JSON.parse(body)));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('node https accepts the certificates for mutual TLS', async () => {
  const dir = await tempDir();
  const certs = await ensureCertificates(dir, { hostnames: [], ips: [] });
  const server = await startMtlsServer(certs);
  try {
    const seen = await get(server.port, certs.ca.certPem, certs.admin, 'localhost');
    assert.deepEqual(seen.subject, { CN: 'admin', O: 'system:masters' });

    const user = await issueClientCertificate(certs.ca, { cn: 'carol', groups: ['g1', 'g2'], days: 1 });
    const seenUser = await get(server.port, certs.ca.certPem, user, 'localhost');
    assert.deepEqual(seenUser.subject, { CN: 'carol', O: ['g1', 'g2'] });

    // The serving certificate must not validate for a name it does not carry.
    await assert.rejects(get(server.port, certs.ca.certPem, certs.admin, 'elsewhere.example.test'), /altnames|Hostname/);
    // A client certificate from a foreign CA is refused by the server.
    const foreignDir = await tempDir();
    try {
      const foreign = await ensureCertificates(foreignDir, { hostnames: [], ips: [] });
      await assert.rejects(get(server.port, certs.ca.certPem, foreign.admin, 'localhost'));
    } finally {
      await rm(foreignDir, { recursive: true, force: true });
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
