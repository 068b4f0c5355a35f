/**
 * kubectl create (namespace, configmap, secret generic/tls/docker-registry, serviceaccount, -f, --dry-run=server)
 * against a real atrium server. kubectl 1.32 sends these bodies as protobuf, so this also exercises body decoding.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { kubectlFails, kubectlJson, kubectlOk } from './support/kubectl-run.js';

const ns = 'e2e-create';
let t: TestServer;
let files: string;
before(async () => {
  t = await startTestServer();
  files = mkdtempSync(join(tmpdir(), 'atrium-e2e-create-'));
  assert.equal(await kubectlOk(t, ['create', 'namespace', ns]), `namespace/${ns} created\n`);
});
after(async () => {
  await t?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

test('create namespace: the namespace is Active and labelled with its name', async () => {
  const got = await kubectlJson(t, ['get', 'namespace', ns]);
  assert.equal(got.kind, 'Namespace');
  assert.equal(got.status.phase, 'Active');
  assert.equal(got.metadata.labels['kubernetes.io/metadata.name'], ns);
  assert.match(got.metadata.uid, /^[0-9a-f-]{36}$/);
  assert.match(got.metadata.resourceVersion, /^\d+$/);
});

test('create configmap --from-literal stores each literal under data', async () => {
  assert.equal(await kubectlOk(t, ['create', 'configmap', 'literals', '-n', ns, '--from-literal=a=1', '--from-literal=greeting=hello world']), 'configmap/literals created\n');
  const cm = await kubectlJson(t, ['get', 'configmap', 'literals', '-n', ns]);
  assert.deepEqual(cm.data, { a: '1', greeting: 'hello world' });
  assert.equal(cm.binaryData, undefined);
  assert.equal(cm.metadata.namespace, ns);
});

test('create configmap --from-file puts text under data and non-UTF-8 bytes under binaryData', async () => {
  const text = join(files, 'settings.conf');
  writeFileSync(text, 'key = value\nother = "quoted"\n');
  const blob = join(files, 'blob.bin');
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  writeFileSync(blob, bytes);
  assert.equal(await kubectlOk(t, ['create', 'configmap', 'from-files', '-n', ns, `--from-file=${text}`, `--from-file=payload=${blob}`]), 'configmap/from-files created\n');
  const cm = await kubectlJson(t, ['get', 'configmap', 'from-files', '-n', ns]);
  assert.deepEqual(cm.data, { 'settings.conf': 'key = value\nother = "quoted"\n' });
  assert.deepEqual(cm.binaryData, { payload: b64(bytes) });
});

test('create secret generic --type keeps the type and base64-encodes data', async () => {
  assert.equal(
    await kubectlOk(t, ['create', 'secret', 'generic', 'creds', '-n', ns, '--type=example.com/creds', '--from-literal=user=admin', '--from-literal=password=s3cr3t!']),
    'secret/creds created\n',
  );
  const s = await kubectlJson(t, ['get', 'secret', 'creds', '-n', ns]);
  assert.equal(s.type, 'example.com/creds');
  assert.deepEqual(s.data, { user: b64('admin'), password: b64('s3cr3t!') });
  // A plain generic secret defaults to Opaque.
  await kubectlOk(t, ['create', 'secret', 'generic', 'plain', '-n', ns, '--from-literal=k=v']);
  assert.equal((await kubectlJson(t, ['get', 'secret', 'plain', '-n', ns])).type, 'Opaque');
});

test('create secret tls stores the certificate and key files verbatim', async () => {
  const cert = join(files, 'tls.crt');
  const key = join(files, 'tls.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=e2e.example.com'], { stdio: 'ignore' });
  assert.equal(await kubectlOk(t, ['create', 'secret', 'tls', 'serving', '-n', ns, `--cert=${cert}`, `--key=${key}`]), 'secret/serving created\n');
  const s = await kubectlJson(t, ['get', 'secret', 'serving', '-n', ns]);
  assert.equal(s.type, 'kubernetes.io/tls');
  assert.equal(s.data['tls.crt'], readFileSync(cert).toString('base64'));
  assert.equal(s.data['tls.key'], readFileSync(key).toString('base64'));
});

test('create secret docker-registry produces the exact .dockerconfigjson kubectl computes', async () => {
  // The same inputs and expected bytes as kubernetes test/cmd/core.sh run_secrets_test.
  assert.equal(
    await kubectlOk(t, ['create', 'secret', 'docker-registry', 'test-secret', '-n', ns, '--docker-username=test-user', '--docker-password=test-password', '--docker-email=test-user@test.com']),
    'secret/test-secret created\n',
  );
  const s = await kubectlJson(t, ['get', 'secret', 'test-secret', '-n', ns]);
  assert.equal(s.type, 'kubernetes.io/dockerconfigjson');
  assert.equal(
    s.data['.dockerconfigjson'],
    'eyJhdXRocyI6eyJodHRwczovL2luZGV4LmRvY2tlci5pby92MS8iOnsidXNlcm5hbWUiOiJ0ZXN0LXVzZXIiLCJwYXNzd29yZCI6InRlc3QtcGFzc3dvcmQiLCJlbWFpbCI6InRlc3QtdXNlckB0ZXN0LmNvbSIsImF1dGgiOiJkR1Z6ZEMxMWMyVnlPblJsYzNRdGNHRnpjM2R2Y21RPSJ9fX0=',
  );
  const tmpl = await kubectlOk(t, ['get', 'secret', 'test-secret', '-n', ns, '-o', 'go-template={{.type}}']);
  assert.equal(tmpl, 'kubernetes.io/dockerconfigjson');
});

test('create serviceaccount', async () => {
  assert.equal(await kubectlOk(t, ['create', 'serviceaccount', 'robot', '-n', ns]), 'serviceaccount/robot created\n');
  const sa = await kubectlJson(t, ['get', 'sa', 'robot', '-n', ns]);
  assert.equal(sa.kind, 'ServiceAccount');
  assert.equal(sa.metadata.name, 'robot');
});

test('create -f a multi-document YAML file; stringData is merged into data and cleared', async () => {
  const file = join(files, 'objects.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: from-yaml',
      '  labels: {app: e2e}',
      'data:',
      '  key: value',
      '---',
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: string-data',
      'stringData:',
      '  token: plain-text',
      'data:',
      `  other: ${b64('x')}`,
      '',
    ].join('\n'),
  );
  assert.equal(await kubectlOk(t, ['create', '-f', file, '-n', ns]), 'configmap/from-yaml created\nsecret/string-data created\n');
  const cm = await kubectlJson(t, ['get', 'cm', 'from-yaml', '-n', ns]);
  assert.deepEqual(cm.data, { key: 'value' });
  assert.deepEqual(cm.metadata.labels, { app: 'e2e' });
  const s = await kubectlJson(t, ['get', 'secret', 'string-data', '-n', ns]);
  assert.deepEqual(s.data, { other: b64('x'), token: b64('plain-text') });
  assert.equal(s.stringData, undefined);
  assert.equal(s.type, 'Opaque');
});

test('create --dry-run=server validates and answers but persists nothing', async () => {
  const before = await kubectlJson(t, ['get', 'configmaps', '-n', ns]);
  assert.equal(
    await kubectlOk(t, ['create', 'configmap', 'dry', '-n', ns, '--from-literal=a=b', '--dry-run=server']),
    'configmap/dry created (server dry run)\n',
  );
  const printed = JSON.parse(await kubectlOk(t, ['create', 'configmap', 'dry', '-n', ns, '--from-literal=a=b', '--dry-run=server', '-o', 'json']));
  assert.equal(printed.metadata.name, 'dry');
  assert.ok(printed.metadata.uid, 'a server dry run fills in server-set fields');
  assert.ok(printed.metadata.creationTimestamp);
  const r = await kubectlFails(t, ['get', 'configmap', 'dry', '-n', ns]);
  assert.equal(r.stderr, 'Error from server (NotFound): configmaps "dry" not found\n');
  // Server dry run still runs validation.
  const bad = await kubectlFails(t, ['create', 'namespace', 'Not_Valid', '--dry-run=server']);
  assert.match(bad.stderr, /Namespace "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"/);
  const afterList = await kubectlJson(t, ['get', 'configmaps', '-n', ns]);
  assert.deepEqual(afterList.items.map((i: any) => i.metadata.name), before.items.map((i: any) => i.metadata.name));
});

test('create with generateName gets a unique generated name', async () => {
  const file = join(files, 'generated.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\ndata: {a: b}\n');
  const first = await kubectlOk(t, ['create', '-f', file, '-n', ns, '-o', 'name']);
  const second = await kubectlOk(t, ['create', '-f', file, '-n', ns, '-o', 'name']);
  assert.match(first, /^configmap\/gen-[a-z0-9]{5}\n$/);
  assert.match(second, /^configmap\/gen-[a-z0-9]{5}\n$/);
  assert.notEqual(first, second);
});
