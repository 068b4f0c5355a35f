/**
 * certificates.k8s.io/v1 CertificateSigningRequests against a real server, as kube-apiserver 1.32 serves them: real
 * PKCS#10 requests (ECDSA and RSA keys) and a real certificate, the requestor recorded from the authenticated user,
 * what each endpoint (main, /approval, /status) may change, upstream's validation messages, the printer columns and
 * `kubectl certificate approve|deny`, the spec.signerName field selector, the approve/sign checks on `signers`, the
 * system:masters subject restriction, and CSRs in a workspace of their own.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type HttpResponse, type TestServer } from '../helpers/harness.js';
import { waitForWorkspace } from '../helpers/workspaces.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 } as const;

/** A PEM PKCS#10 request for `subject` signed by a fresh key. */
async function makeRequest(subject: string, alg: typeof ECDSA | typeof RSA = ECDSA): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys: keys as webcrypto.CryptoKeyPair, signingAlgorithm: alg });
  return csr.toString('pem');
}

/** A PEM self-signed certificate, standing for what a signer issues. */
async function makeCertificate(): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=e2e.example.com',
    notBefore: new Date(),
    notAfter: new Date(Date.now() + 3600_000),
    keys: keys as webcrypto.CryptoKeyPair,
    signingAlgorithm: ECDSA,
  });
  return cert.toString('pem');
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

function csrObject(name: string, request: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(request), signerName: 'example.com/e2e', usages: ['digital signature', 'key encipherment', 'client auth'], expirationSeconds: 3600, ...spec },
    ...extra,
  };
}

function ok(r: HttpResponse, what = ''): any {
  assert.ok(r.status === 200 || r.status === 201, `${what} answered ${r.status}: ${r.text}`);
  return r.json;
}

const approved = (reason = 'Test') => ({ type: 'Approved', status: 'True', reason, message: 'approved by the test' });

describe('certificates.k8s.io/v1 CertificateSigningRequests', () => {
  let ts: TestServer;
  let request: string;
  let certificate: string;
  const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { headers });
  const bob = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => ts.request(method, path, body, { token: 'bob-token', headers });
  const merge = { 'Content-Type': 'application/merge-patch+json' };

  before(async () => {
    ts = await startTestServer({ tokens: ['bob-token,bob,uid-bob,"devs"'] });
    request = await makeRequest('CN=e2e.example.com, O=e2e');
    certificate = await makeCertificate();
    // bob may use every CSR endpoint, but holds no verb on `signers` yet.
    ok(await admin('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'csr-user' },
      rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['*'] }],
    }));
    ok(await admin('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'bob-csr-user' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'csr-user' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    }));
  });
  after(async () => {
    await ts?.stop();
  });

  it('is served in discovery: cluster-scoped, short name csr, /approval and /status', async () => {
    const list = ok(await admin('GET', '/apis/certificates.k8s.io/v1'));
    const byName = new Map(list.resources.map((r: any) => [r.name, r]));
    const csr: any = byName.get('certificatesigningrequests');
    assert.equal(csr.kind, 'CertificateSigningRequest');
    assert.equal(csr.namespaced, false);
    assert.deepEqual(csr.shortNames, ['csr']);
    assert.deepEqual(csr.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    for (const sub of ['approval', 'status']) assert.deepEqual((byName.get(`certificatesigningrequests/${sub}`) as any)?.verbs, ['get', 'patch', 'update'], sub);
    const group = ok(await admin('GET', '/apis/certificates.k8s.io'));
    assert.deepEqual(group.preferredVersion, { groupVersion: 'certificates.k8s.io/v1', version: 'v1' });
  });

  it('records the requestor from the authenticated user and starts with an empty status', async () => {
    const sent = csrObject('requestor', request, { username: 'someone-else', uid: 'x', groups: ['system:masters'], extra: { a: ['b'] } }, { status: { conditions: [approved()] } });
    const created = ok(await bob('POST', CSRS, sent), 'create');
    assert.equal(created.spec.username, 'bob');
    assert.equal(created.spec.uid, 'uid-bob');
    assert.deepEqual(created.spec.groups, ['devs', 'system:authenticated']);
    assert.equal(created.spec.extra, undefined);
    assert.deepEqual(created.status, {});
    assert.equal(created.spec.request, b64(request));
    assert.equal(created.spec.expirationSeconds, 3600);
    const got = ok(await admin('GET', `${CSRS}/requestor`));
    assert.deepEqual(got.spec, created.spec);
  });

  it('an RSA-signed request is accepted too', async () => {
    ok(await admin('POST', CSRS, csrObject('rsa', await makeRequest('CN=rsa.example.com', RSA))), 'create');
  });

  it('the main endpoint changes metadata only: spec and status stay as stored', async () => {
    const created = ok(await admin('POST', CSRS, csrObject('main-endpoint', request)));
    const changed = { ...created, metadata: { ...created.metadata, labels: { team: 'a' } }, spec: { ...created.spec, signerName: 'example.com/other', usages: ['server auth'] }, status: { conditions: [approved()] } };
    const updated = ok(await admin('PUT', `${CSRS}/main-endpoint`, changed), 'update');
    assert.deepEqual(updated.metadata.labels, { team: 'a' });
    assert.deepEqual(updated.spec, created.spec);
    assert.deepEqual(updated.status, {});
    const patched = ok(await admin('PATCH', `${CSRS}/main-endpoint`, { metadata: { annotations: { patched: 'true' } }, status: { certificate: b64(certificate) } }, merge), 'patch');
    assert.equal(patched.metadata.annotations.patched, 'true');
    assert.deepEqual(patched.status, {});
  });

  it('/approval adds the Approved condition with timestamps, and changes nothing else', async () => {
    const created = ok(await admin('POST', CSRS, csrObject('approve-me', request)));
    const body = { ...created, metadata: { ...created.metadata, annotations: { approved: 'yes' } }, spec: { ...created.spec, signerName: 'example.com/other' }, status: { conditions: [approved()], certificate: b64(certificate) } };
    const r = ok(await admin('PUT', `${CSRS}/approve-me/approval`, body), 'approval');
    assert.equal(r.spec.signerName, 'example.com/e2e');
    assert.equal(r.status.certificate, undefined, 'approval never writes the certificate');
    assert.equal(r.metadata.annotations.approved, 'yes');
    assert.equal(r.status.conditions.length, 1);
    const c = r.status.conditions[0];
    assert.equal(c.type, 'Approved');
    assert.match(c.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(c.lastTransitionTime, c.lastUpdateTime);
    const approval = ok(await admin('GET', `${CSRS}/approve-me/approval`));
    assert.equal(approval.kind, 'CertificateSigningRequest');
    assert.deepEqual(approval.status, r.status);
    // Once Approved, it cannot be taken back nor joined by Denied.
    const removed = await admin('PATCH', `${CSRS}/approve-me/approval`, { status: { conditions: [] } }, merge);
    assert.equal(removed.status, 422, removed.text);
    assert.match(removed.json.message, /status\.conditions: Forbidden: updates may not remove a condition of type "Approved"/);
    const both = await admin('PATCH', `${CSRS}/approve-me/approval`, { status: { conditions: [c, { type: 'Denied', status: 'True', reason: 'No' }] } }, merge);
    assert.equal(both.status, 422, both.text);
    assert.match(both.json.message, /status\.conditions\[1\]\.type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive/);
  });

  it('/status writes the certificate and keeps the stored Approved condition; the certificate cannot change once set', async () => {
    ok(await admin('POST', CSRS, csrObject('sign-me', request)));
    const approvedCSR = ok(await admin('PATCH', `${CSRS}/sign-me/approval`, { status: { conditions: [approved('First')] } }, merge));
    const stored = approvedCSR.status.conditions[0];
    // The write alters the Approved condition and adds one of its own: the stored Approved one is kept.
    const status = { certificate: b64(certificate), conditions: [{ ...approved('Rewritten'), message: 'changed' }, { type: 'Issued', status: 'True', reason: 'Signed' }] };
    const signed = ok(await admin('PUT', `${CSRS}/sign-me/status`, { ...approvedCSR, spec: { ...approvedCSR.spec, usages: ['server auth'] }, status }), 'status');
    assert.equal(signed.status.certificate, b64(certificate));
    assert.deepEqual(signed.status.conditions[0], stored);
    assert.equal(signed.status.conditions[1].type, 'Issued');
    assert.ok(signed.status.conditions[1].lastUpdateTime);
    assert.deepEqual(signed.spec, approvedCSR.spec);
    const again = await admin('PATCH', `${CSRS}/sign-me/status`, { status: { certificate: b64(await makeCertificate()) } }, merge);
    assert.equal(again.status, 422, again.text);
    assert.match(again.json.message, /status\.certificate: Forbidden: updates may not modify existing certificate content/);
    const notPem = await admin('POST', CSRS, csrObject('not-pem-cert', request));
    ok(notPem);
    const badCert = await admin('PATCH', `${CSRS}/not-pem-cert/status`, { status: { certificate: b64('not a certificate') } }, merge);
    assert.equal(badCert.status, 422, badCert.text);
    assert.match(badCert.json.message, /status\.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/);
    const addApproved = await admin('PATCH', `${CSRS}/not-pem-cert/status`, { status: { conditions: [approved()] } }, merge);
    assert.equal(addApproved.status, 422, addApproved.text);
    assert.match(addApproved.json.message, /updates may not add a condition of type "Approved"/);
  });

  it("refuses invalid requests with upstream's messages", async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['bad-pem', { request: b64('hello') }, /spec\.request: Invalid value: \[\]byte\{0x68, 0x65, 0x6c, 0x6c, 0x6f\}: PEM block type must be CERTIFICATE REQUEST/],
      ['no-signer', { signerName: '' }, /spec\.signerName: Required value/],
      ['bad-signer', { signerName: 'example/x' }, /spec\.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots/],
      ['no-path', { signerName: 'example.com' }, /spec\.signerName: Invalid value: "example\.com": must be a fully qualified domain and path of the form 'example\.com\/signer-name'/],
      ['legacy', { signerName: 'kubernetes.io/legacy-unknown' }, /spec\.signerName: Invalid value: "kubernetes\.io\/legacy-unknown": the legacy signerName is not allowed via this API version/],
      ['short', { expirationSeconds: 599 }, /spec\.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds \(10 minutes\)/],
      ['no-usages', { usages: [] }, /spec\.usages: Required value/],
      ['bad-usage', { usages: ['client auth', 'flying', 'client auth'] }, /spec\.usages\[1\]: Unsupported value: "flying": supported values: "any", "cert sign", .*spec\.usages\[2\]: Duplicate value: "client auth"/],
    ];
    for (const [name, spec, message] of cases) {
      const r = await admin('POST', CSRS, csrObject(name, request, spec));
      assert.equal(r.status, 422, `${name}: ${r.text}`);
      assert.equal(r.json.reason, 'Invalid');
      assert.match(r.json.message, message, name);
    }
    // A request whose signature does not verify (its last signature byte changed) is refused too.
    const der = Buffer.from(new x509.Pkcs10CertificateRequest(request).rawData);
    der[der.length - 1] ^= 0x01;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const r = await admin('POST', CSRS, csrObject('tampered', tampered));
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec\.request: Invalid value: \[\]byte\{.*\}: x509: ECDSA verification failure/);
    // Conditions a create sends are dropped before validation: nothing to refuse there.
    ok(await admin('POST', CSRS, csrObject('sent-approved-and-denied', request, {}, { status: { conditions: [approved(), { type: 'Denied', status: 'True' }] } })));
  });

  it('kubectl get csr prints NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION; kubectl certificate approve and deny work', async () => {
    ok(await admin('POST', CSRS, csrObject('kubectl-approve', request, { expirationSeconds: 7200 })));
    ok(await admin('POST', CSRS, csrObject('kubectl-deny', request, { signerName: 'example.com/deny' })));
    const approve = await ts.kubectl(['certificate', 'approve', 'kubectl-approve']);
    assert.equal(approve.code, 0, approve.stderr);
    assert.equal(approve.stdout, 'certificatesigningrequest.certificates.k8s.io/kubectl-approve approved\n');
    const deny = await ts.kubectl(['certificate', 'deny', 'kubectl-deny']);
    assert.equal(deny.code, 0, deny.stderr);
    const get = await ts.kubectl(['get', 'csr', 'kubectl-approve', 'kubectl-deny', 'sign-me']);
    assert.equal(get.code, 0, get.stderr);
    const rows = get.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows[0], ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    const cells = (name: string) => rows.find((r) => r[0] === name)!.filter((_, i) => i !== 1);
    assert.deepEqual(cells('kubectl-approve'), ['kubectl-approve', 'example.com/e2e', 'admin', '120m', 'Approved']);
    assert.deepEqual(cells('kubectl-deny'), ['kubectl-deny', 'example.com/deny', 'admin', '60m', 'Denied']);
    assert.deepEqual(cells('sign-me'), ['sign-me', 'example.com/e2e', 'admin', '60m', 'Approved,Issued']);
    const stored = ok(await admin('GET', `${CSRS}/kubectl-approve`));
    assert.equal(stored.status.conditions[0].reason, 'KubectlApprove');
  });

  it('lists and watches by the field selector spec.signerName; other labels are refused', async () => {
    ok(await admin('POST', CSRS, csrObject('selected-1', request, { signerName: 'example.com/selected' })));
    ok(await admin('POST', CSRS, csrObject('selected-2', request, { signerName: 'example.com/selected' })));
    const list = ok(await admin('GET', `${CSRS}?fieldSelector=${encodeURIComponent('spec.signerName=example.com/selected')}`));
    assert.deepEqual(list.items.map((i: any) => i.metadata.name).sort(), ['selected-1', 'selected-2']);
    const kubectl = await ts.kubectl(['get', 'csr', '--field-selector', 'spec.signerName=example.com/selected', '-o', 'name']);
    assert.equal(kubectl.stdout, 'certificatesigningrequest.certificates.k8s.io/selected-1\ncertificatesigningrequest.certificates.k8s.io/selected-2\n');
    const bad = await admin('GET', `${CSRS}?fieldSelector=${encodeURIComponent('spec.usages=x')}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'field label not supported: spec.usages');
    const ns = await admin('GET', `${CSRS}?fieldSelector=${encodeURIComponent('metadata.namespace=x')}`);
    assert.equal(ns.status, 400);
    const deleted = ok(await admin('DELETE', `${CSRS}?fieldSelector=${encodeURIComponent('spec.signerName=example.com/selected')}`));
    assert.deepEqual(deleted.items.map((i: any) => i.metadata.name).sort(), ['selected-1', 'selected-2']);
  });

  it('approving needs `approve` on signers (the signer or <domain>/*); signing needs `sign`', async () => {
    ok(await bob('POST', CSRS, csrObject('bobs', request)));
    const stored = ok(await bob('GET', `${CSRS}/bobs`));
    const refused = await bob('PUT', `${CSRS}/bobs/approval`, { ...stored, status: { conditions: [approved()] } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'certificatesigningrequests.certificates.k8s.io "bobs" is forbidden: user not permitted to approve requests with signerName "example.com/e2e"');
    const unsigned = await bob('PATCH', `${CSRS}/bobs/status`, { status: { certificate: b64(certificate) } }, merge);
    assert.equal(unsigned.status, 403, unsigned.text);
    assert.equal(unsigned.json.message, 'certificatesigningrequests.certificates.k8s.io "bobs" is forbidden: user not permitted to sign requests with signerName "example.com/e2e"');
    // A status write that changes neither the certificate nor the conditions needs no `sign`.
    ok(await bob('PATCH', `${CSRS}/bobs/status`, { metadata: { labels: { seen: 'yes' } } }, merge), 'label through /status');

    ok(await admin('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'example-signer' },
      rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve', 'sign'] }],
    }));
    ok(await admin('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'bob-example-signer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'example-signer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    }));
    const current = ok(await bob('GET', `${CSRS}/bobs`));
    const allowed = ok(await bob('PUT', `${CSRS}/bobs/approval`, { ...current, status: { conditions: [approved()] } }), 'approval with approve on example.com/*');
    assert.equal(allowed.status.conditions[0].type, 'Approved');
    const signed = ok(await bob('PATCH', `${CSRS}/bobs/status`, { status: { certificate: b64(certificate) } }, merge), 'status with sign');
    assert.equal(signed.status.certificate, b64(certificate));
    // A signer of another domain is still out of reach.
    ok(await bob('POST', CSRS, csrObject('bobs-other', request, { signerName: 'other.io/signer' })));
    const other = await bob('PATCH', `${CSRS}/bobs-other/approval`, { status: { conditions: [approved()] } }, merge);
    assert.equal(other.status, 403, other.text);
  });

  it('refuses kube-apiserver-client requests for the system:masters group', async () => {
    const masters = await makeRequest('CN=mallory, O=system:masters');
    const r = await admin('POST', CSRS, csrObject('masters', masters, { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] }));
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    // Another group, or another signer, is fine.
    ok(await admin('POST', CSRS, csrObject('client', request, { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] })));
    ok(await admin('POST', CSRS, csrObject('masters-elsewhere', masters, { signerName: 'example.com/masters' })));
  });

  it('kubectl create records no managed fields under spec or status (the main endpoint resets them)', async () => {
    const manifest = JSON.stringify({ ...csrObject('kubectl-created', request), metadata: { name: 'kubectl-created', labels: { by: 'kubectl' } } });
    const created = await ts.kubectl(['create', '-f', '-'], { input: manifest });
    assert.equal(created.code, 0, created.stderr);
    const got = ok(await admin('GET', `${CSRS}/kubectl-created`));
    const entries = got.metadata.managedFields;
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0].fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:by': {} } } });
  });

  it('serves CSRs in every workspace, each its own', async () => {
    ok(await admin('POST', '/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'csr-ws' } }));
    await waitForWorkspace(ts, 'root', 'csr-ws');
    const ws = `/clusters/root:csr-ws${CSRS}`;
    const created = ok(await admin('POST', ws, csrObject('in-workspace', request)));
    assert.equal(created.spec.username, 'admin');
    const approvedInWs = ok(await admin('PATCH', `${ws}/in-workspace/approval`, { status: { conditions: [approved()] } }, merge));
    assert.equal(approvedInWs.status.conditions[0].type, 'Approved');
    const inWs = ok(await admin('GET', ws));
    assert.deepEqual(inWs.items.map((i: any) => i.metadata.name), ['in-workspace']);
    assert.equal((await admin('GET', `${CSRS}/in-workspace`)).status, 404);
  });
});
