/**
 * What kubectl prints when the server refuses: the exact stderr lines and exit codes kubectl derives from atrium's
 * Status bodies (reason, details.kind/name, causes). kubectl formats these client-side, so a wrong reason, code or
 * detail shows up here as a different line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { kubectlFails, kubectlOk } from './support/kubectl-run.js';

const ns = 'e2e-errors';
const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

let t: TestServer;
let files: string;
before(async () => {
  t = await startTestServer();
  files = mkdtempSync(join(tmpdir(), 'atrium-e2e-errors-'));
  await kubectlOk(t, ['create', 'namespace', ns]);
});
after(async () => {
  await t?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

const notFoundCases: Array<{ args: string[]; stderr: string }> = [
  { args: ['get', 'configmaps', 'nope', '-n', ns], stderr: 'Error from server (NotFound): configmaps "nope" not found\n' },
  { args: ['get', 'configmap', 'nope', '-n', ns, '-o', 'json'], stderr: 'Error from server (NotFound): configmaps "nope" not found\n' },
  { args: ['get', 'cm', 'nope', '-n', ns, '-o', 'name'], stderr: 'Error from server (NotFound): configmaps "nope" not found\n' },
  { args: ['get', 'secret', 'nope', '-n', ns], stderr: 'Error from server (NotFound): secrets "nope" not found\n' },
  { args: ['get', 'namespace', 'nope'], stderr: 'Error from server (NotFound): namespaces "nope" not found\n' },
  { args: ['get', 'leases', 'nope', '-n', ns], stderr: 'Error from server (NotFound): leases.coordination.k8s.io "nope" not found\n' },
  { args: ['delete', 'configmap', 'nope', '-n', ns], stderr: 'Error from server (NotFound): configmaps "nope" not found\n' },
  { args: ['label', 'configmap', 'nope', '-n', ns, 'a=b'], stderr: 'Error from server (NotFound): configmaps "nope" not found\n' },
  { args: ['patch', 'configmap', 'nope', '-n', ns, '--type=merge', '-p', '{}'], stderr: 'Error from server (NotFound): configmaps "nope" not found\n' },
  // kubectl 1.32 follows a NotFound with GET /api/v1/namespaces/<ns> and reports the missing namespace instead.
  { args: ['get', 'configmap', 'x', '-n', 'no-such-namespace'], stderr: 'Error from server (NotFound): namespaces "no-such-namespace" not found\n' },
];

for (const c of notFoundCases) {
  test(`kubectl ${c.args.join(' ')} → NotFound`, async () => {
    const r = await kubectlFails(t, c.args);
    assert.equal(r.stderr, c.stderr);
    assert.equal(r.stdout, '', 'no List or partial output on NotFound');
  });
}

test('--ignore-not-found turns NotFound into an empty success', async () => {
  const r = await t.kubectl(['get', 'configmap', 'nope', '-n', ns, '--ignore-not-found']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, '');
  const d = await t.kubectl(['delete', 'configmap', 'nope', '-n', ns, '--ignore-not-found']);
  assert.equal(d.code, 0, d.stderr);
});

test('creating an existing object → AlreadyExists', async () => {
  assert.equal(await kubectlOk(t, ['create', 'namespace', 'e2e-twice']), 'namespace/e2e-twice created\n');
  const ns2 = await kubectlFails(t, ['create', 'namespace', 'e2e-twice']);
  assert.equal(ns2.stderr, 'Error from server (AlreadyExists): namespaces "e2e-twice" already exists\n');

  await kubectlOk(t, ['create', 'configmap', 'dup', '-n', ns]);
  const file = join(files, 'dup.yaml');
  writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\n  namespace: ${ns}\n`);
  const viaFile = await kubectlFails(t, ['create', '-f', file]);
  assert.equal(viaFile.stderr, `Error from server (AlreadyExists): error when creating "${file}": configmaps "dup" already exists\n`);
  // kubectl create configmap wraps the server's error in its own words.
  const generated = await kubectlFails(t, ['create', 'configmap', 'dup', '-n', ns]);
  assert.equal(generated.stderr, 'error: failed to create configmap: configmaps "dup" already exists\n');
});

test('an invalid name → The ConfigMap "Bad_Name" is invalid', async () => {
  const file = join(files, 'bad.yaml');
  writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: ${ns}\ndata: {a: b}\n`);
  const r = await kubectlFails(t, ['create', '-f', file]);
  assert.equal(r.stderr, `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${subdomainMessage}\n`);
  const viaApply = await kubectlFails(t, ['apply', '-f', file]);
  assert.equal(viaApply.stderr, `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${subdomainMessage}\n`);
  const nsBad = await kubectlFails(t, ['create', 'namespace', 'Bad_Name']);
  assert.equal(nsBad.stderr, `The Namespace "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${labelMessage}\n`);
});

test('several invalid fields are listed one per line', async () => {
  const file = join(files, 'bad-many.yaml');
  writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: many\n  namespace: ${ns}\n  labels: {"bad key": "v"}\ndata: {"bad/key": "b"}\n`);
  const r = await kubectlFails(t, ['create', '-f', file]);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines[0], 'The ConfigMap "many" is invalid: ');
  assert.ok(lines.some((l) => l.startsWith('* metadata.labels: Invalid value: "bad key": ')), r.stderr);
  assert.ok(lines.some((l) => l.startsWith('* data[bad/key]: Invalid value: "bad/key": ')), r.stderr);
  await kubectlFails(t, ['get', 'configmap', 'many', '-n', ns]);
});

test('creating in a namespace that does not exist → NotFound for the namespace', async () => {
  const r = await kubectlFails(t, ['create', 'configmap', 'orphan', '-n', 'e2e-missing-ns']);
  assert.equal(r.stderr, 'error: failed to create configmap: namespaces "e2e-missing-ns" not found\n');
});

test('an unknown resource type is reported by kubectl from discovery', async () => {
  const r = await kubectlFails(t, ['get', 'widgets']);
  assert.equal(r.stderr, 'error: the server doesn\'t have a resource type "widgets"\n');
});

test('unknown fields are rejected under strict validation and ignored with --validate=false', async () => {
  const file = join(files, 'unknown.yaml');
  writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unknown-field\n  namespace: ${ns}\nspec: {replicas: 1}\ndata: {a: b}\n`);
  const r = await kubectlFails(t, ['create', '-f', file]);
  assert.match(r.stderr, /strict decoding error: unknown field "spec"/);
  await kubectlFails(t, ['get', 'configmap', 'unknown-field', '-n', ns]);
  assert.equal(await kubectlOk(t, ['create', '-f', file, '--validate=false']), 'configmap/unknown-field created\n');
  const warn = await t.kubectl(['apply', '-f', file, '--validate=warn']);
  assert.equal(warn.code, 0, warn.stderr);
  assert.match(warn.stderr, /unknown field "spec"/);
});

test('a namespace mismatch between the file and -n is refused by kubectl', async () => {
  const file = join(files, 'other-ns.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mismatch\n  namespace: nsb\n');
  const r = await kubectlFails(t, ['create', '-f', file, '-n', ns]);
  assert.match(r.stderr, /the namespace from the provided object "nsb" does not match the namespace "e2e-errors"/);
});

test('create --raw with a body the server cannot decode → the object provided is unrecognized', async () => {
  // kubernetes test/cmd/create.sh posts a YAML pod to /api/v1/namespaces with --raw (sent as application/json).
  const file = join(files, 'raw.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: valid-pod\n');
  const r = await kubectlFails(t, ['create', '--raw', `/api/v1/namespaces`, '-f', file]);
  assert.match(r.stderr, /^Error from server \(BadRequest\): the object provided is unrecognized \(must be of type Namespace\): /);
  // A body of another registered kind is decoded as that kind, which then cannot be converted into a Namespace.
  const json = join(files, 'raw.json');
  writeFileSync(json, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw' } }));
  const wrongKind = await kubectlFails(t, ['create', '--raw', `/api/v1/namespaces`, '-f', json]);
  assert.equal(
    wrongKind.stderr,
    'Error from server (BadRequest): ConfigMap in version "v1" cannot be handled as a Namespace: converting (v1.ConfigMap) to (core.Namespace): unknown conversion\n',
  );
  await kubectlFails(t, ['get', 'namespace', 'raw']);
});
