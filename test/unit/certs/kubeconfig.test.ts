import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import YAML from 'yaml';
import { ensureCertificates } from '../../../src/apiserver/certs/certificates.js';
import { readKubeconfig, writeAdminKubeconfig, parseKubeconfig } from '../../../src/client/kubeconfig/kubeconfig.js';

const kubectlAvailable = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const needsKubectl = kubectlAvailable ? {} : { skip: 'kubectl is not on PATH' };

function kubectl(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', args, { timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stdout, stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

async function setup(server = 'https://127.0.0.1:6443') {
  const dir = await mkdtemp(join(tmpdir(), 'atrium-kubeconfig-'));
  const certs = await ensureCertificates(join(dir, 'pki'), { hostnames: [], ips: [] });
  const path = join(dir, 'admin.kubeconfig');
  await writeAdminKubeconfig(path, {
    server,
    caPem: certs.ca.certPem,
    clientCertPem: certs.admin.certPem,
    clientKeyPem: certs.admin.keyPem,
    token: 'admin-token-123',
  });
  return { dir, certs, path };
}

test('writeAdminKubeconfig writes a 0600 YAML kubeconfig that readKubeconfig resolves', async () => {
  const { dir, certs, path } = await setup('https://127.0.0.1:6443/clusters/root');
  try {
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const doc = YAML.parse(await readFile(path, 'utf8'));
    assert.equal(doc.apiVersion, 'v1');
    assert.equal(doc.kind, 'Config');
    assert.equal(doc['current-context'], 'atrium');
    assert.deepEqual(doc.contexts, [{ name: 'atrium', context: { cluster: 'atrium', user: 'admin' } }]);

    const kc = await readKubeconfig(path);
    assert.equal(kc.currentContextName(), 'atrium');
    assert.equal(kc.currentServer(), 'https://127.0.0.1:6443/clusters/root');
    assert.equal(await kc.currentCaPem(), certs.ca.certPem);
    assert.deepEqual(await kc.currentCredentials(), {
      certPem: certs.admin.certPem,
      keyPem: certs.admin.keyPem,
      token: 'admin-token-123',
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('parseKubeconfig resolves file references relative to the kubeconfig and reports missing entries', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'atrium-kubeconfig-'));
  try {
    await writeFile(join(dir, 'ca.pem'), 'CA-PEM');
    await writeFile(join(dir, 'tok'), 'file-token\n');
    const text = YAML.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://x:1', 'certificate-authority': 'ca.pem' } }],
      users: [{ name: 'u', user: { tokenFile: 'tok' } }],
      contexts: [
        { name: 'ok', context: { cluster: 'c', user: 'u', namespace: 'ns1' } },
        { name: 'dangling', context: { cluster: 'nope', user: 'u' } },
      ],
      'current-context': 'ok',
    });
    const kc = parseKubeconfig(text, dir);
    assert.equal(await kc.currentCaPem(), 'CA-PEM');
    assert.deepEqual(await kc.currentCredentials(), { token: 'file-token' });
    assert.equal(kc.currentContext().namespace, 'ns1');

    const dangling = parseKubeconfig(text.replace('current-context: ok', 'current-context: dangling'), dir);
    assert.throws(() => dangling.currentServer(), /cluster "nope" not found/);
    const unset = parseKubeconfig('apiVersion: v1\nkind: Config\n', dir);
    assert.throws(() => unset.currentServer(), /current-context is not set/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('kubectl parses the admin kubeconfig', needsKubectl, async () => {
  const { dir, certs, path } = await setup();
  try {
    const { stdout } = await kubectl(['config', 'view', '--raw', '-o', 'json', '--kubeconfig', path]);
    const view = JSON.parse(stdout);
    assert.equal(view['current-context'], 'atrium');
    assert.equal(view.clusters[0].name, 'atrium');
    assert.equal(view.clusters[0].cluster.server, 'https://127.0.0.1:6443');
    assert.equal(Buffer.from(view.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), certs.ca.certPem);
    const user = view.users[0];
    assert.equal(user.name, 'admin');
    assert.equal(user.user.token, 'admin-token-123');
    assert.equal(Buffer.from(user.user['client-certificate-data'], 'base64').toString(), certs.admin.certPem);
    assert.equal(Buffer.from(user.user['client-key-data'], 'base64').toString(), certs.admin.keyPem);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('kubectl connects with both the client certificate and the token', needsKubectl, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'atrium-kubeconfig-'));
  const certs = await ensureCertificates(join(dir, 'pki'), { hostnames: [], ips: [] });
  const seen: { cn?: string | string[]; o?: string | string[]; authorization?: string }[] = [];
  const server = https.createServer(
    { key: certs.serving.keyPem, cert: certs.serving.certPem, ca: certs.ca.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ cn: peer.subject?.CN, o: peer.subject?.O, authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.4' }));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const path = join(dir, 'admin.kubeconfig');
    await writeAdminKubeconfig(path, {
      server: `https://localhost:${(server.address() as AddressInfo).port}`,
      caPem: certs.ca.certPem,
      clientCertPem: certs.admin.certPem,
      clientKeyPem: certs.admin.keyPem,
      token: 'admin-token-123',
    });
    const { stdout } = await kubectl(['get', '--raw', '/version', '--kubeconfig', path]);
    assert.equal(JSON.parse(stdout).gitVersion, 'v1.32.4');
    assert.ok(seen.length >= 1);
    assert.deepEqual(seen[0], { cn: 'admin', o: 'system:masters', authorization: 'Bearer admin-token-123' });
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  }
});
