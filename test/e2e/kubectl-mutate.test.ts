/**
 * kubectl commands that change objects (apply, edit, patch, label, annotate, replace, delete, wait --for=delete) and
 * the ones that only look (diff, explain), against a real atrium server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { LongRunningKubectl, kubectlFails, kubectlJson, kubectlOk, sleep } from './support/kubectl-run.js';

const ns = 'e2e-mutate';
let t: TestServer;
let files: string;

before(async () => {
  t = await startTestServer();
  files = mkdtempSync(join(tmpdir(), 'atrium-e2e-mutate-'));
  await kubectlOk(t, ['create', 'namespace', ns]);
});
after(async () => {
  await t?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

/** Writes a ConfigMap manifest with the given data and returns its path. */
function configMapFile(name: string, data: Record<string, string>, extraMeta = ''): string {
  const path = join(files, `${name}-${Object.values(data).join('-')}.yaml`);
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, `  namespace: ${ns}`];
  if (extraMeta) lines.push(extraMeta);
  lines.push('data:', ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`), '');
  writeFileSync(path, lines.join('\n'));
  return path;
}

async function getCm(name: string): Promise<any> {
  return kubectlJson(t, ['get', 'configmap', name, '-n', ns]);
}

test('apply creates, then reports unchanged, then configured', async () => {
  const v1 = configMapFile('applied', { mode: 'one', keep: 'k' });
  assert.equal(await kubectlOk(t, ['apply', '-f', v1]), 'configmap/applied created\n');
  const created = await getCm('applied');
  const lastApplied = JSON.parse(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  assert.deepEqual(lastApplied.data, { mode: 'one', keep: 'k' });

  assert.equal(await kubectlOk(t, ['apply', '-f', v1]), 'configmap/applied unchanged\n');
  assert.equal((await getCm('applied')).metadata.resourceVersion, created.metadata.resourceVersion, 'unchanged must not write');

  const v2 = configMapFile('applied', { mode: 'two' });
  assert.equal(await kubectlOk(t, ['apply', '-f', v2]), 'configmap/applied configured\n');
  const updated = await getCm('applied');
  // A key dropped from the manifest is removed (three-way merge against last-applied).
  assert.deepEqual(updated.data, { mode: 'two' });
  assert.ok(Number(updated.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
  assert.equal(updated.metadata.uid, created.metadata.uid);
});

test('apply keeps fields set by others that the manifest never owned', async () => {
  const file = configMapFile('shared', { owned: 'a' });
  await kubectlOk(t, ['apply', '-f', file]);
  await kubectlOk(t, ['patch', 'configmap', 'shared', '-n', ns, '--type=merge', '-p', '{"data":{"foreign":"b"}}']);
  assert.equal(await kubectlOk(t, ['apply', '-f', file]), 'configmap/shared unchanged\n');
  assert.deepEqual((await getCm('shared')).data, { owned: 'a', foreign: 'b' });
});

test('edit with a scripted EDITOR changes the object', async () => {
  await kubectlOk(t, ['create', 'configmap', 'edited', '-n', ns, '--from-literal=color=old-value']);
  const editor = join(files, 'editor.sh');
  writeFileSync(editor, '#!/bin/sh\nsed -i "s/old-value/new-value/" "$1"\n');
  chmodSync(editor, 0o755);
  const env = { EDITOR: editor, KUBE_EDITOR: editor };
  assert.equal(await kubectlOk(t, ['edit', 'configmap', 'edited', '-n', ns], { env }), 'configmap/edited edited\n');
  assert.deepEqual((await getCm('edited')).data, { color: 'new-value' });
  // Saving without a change is reported as such and writes nothing.
  const rv = (await getCm('edited')).metadata.resourceVersion;
  const r = await t.kubectl(['edit', 'configmap', 'edited', '-n', ns], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Edit cancelled, no changes made\./);
  assert.equal((await getCm('edited')).metadata.resourceVersion, rv);
});

test('patch --type merge, json and strategic', async () => {
  await kubectlOk(t, ['create', 'configmap', 'patched', '-n', ns, '--from-literal=a=1', '--from-literal=b=2']);
  assert.equal(await kubectlOk(t, ['patch', 'configmap', 'patched', '-n', ns, '--type=merge', '-p', '{"data":{"a":"10","b":null}}']), 'configmap/patched patched\n');
  assert.deepEqual((await getCm('patched')).data, { a: '10' });

  assert.equal(
    await kubectlOk(t, ['patch', 'configmap', 'patched', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/c","value":"3"},{"op":"test","path":"/data/a","value":"10"}]']),
    'configmap/patched patched\n',
  );
  assert.deepEqual((await getCm('patched')).data, { a: '10', c: '3' });

  assert.equal(await kubectlOk(t, ['patch', 'configmap', 'patched', '-n', ns, '-p', '{"metadata":{"labels":{"via":"strategic"}},"data":{"d":"4"}}']), 'configmap/patched patched\n');
  const cm = await getCm('patched');
  assert.deepEqual(cm.data, { a: '10', c: '3', d: '4' });
  assert.deepEqual(cm.metadata.labels, { via: 'strategic' });

  // A patch that changes nothing says so.
  assert.equal(await kubectlOk(t, ['patch', 'configmap', 'patched', '-n', ns, '--type=merge', '-p', '{"data":{"a":"10"}}']), 'configmap/patched patched (no change)\n');
  // A failing JSON patch test operation is an error and changes nothing.
  const failed = await kubectlFails(t, ['patch', 'configmap', 'patched', '-n', ns, '--type=json', '-p', '[{"op":"test","path":"/data/a","value":"nope"},{"op":"remove","path":"/data/a"}]']);
  // kube-apiserver answers a failed test operation with a bare 422 Invalid, which kubectl prints like this.
  assert.equal(failed.stderr, 'The request is invalid: the server rejected our request due to an error in our request\n');
  assert.deepEqual((await getCm('patched')).data, { a: '10', c: '3', d: '4' });
});

test('label: add, refuse to overwrite, --overwrite, remove with key-', async () => {
  await kubectlOk(t, ['create', 'configmap', 'labelled', '-n', ns]);
  assert.equal(await kubectlOk(t, ['label', 'configmap', 'labelled', '-n', ns, 'env=prod', 'tier=web']), 'configmap/labelled labeled\n');
  assert.deepEqual((await getCm('labelled')).metadata.labels, { env: 'prod', tier: 'web' });
  const refused = await kubectlFails(t, ['label', 'configmap', 'labelled', '-n', ns, 'env=dev']);
  assert.equal(refused.stderr, "error: 'env' already has a value (prod), and --overwrite is false\n");
  assert.equal(await kubectlOk(t, ['label', 'configmap', 'labelled', '-n', ns, 'env=dev', '--overwrite']), 'configmap/labelled labeled\n');
  assert.equal(await kubectlOk(t, ['label', 'configmap', 'labelled', '-n', ns, 'tier-']), 'configmap/labelled unlabeled\n');
  assert.deepEqual((await getCm('labelled')).metadata.labels, { env: 'dev' });
  // kubectl checks label values itself but leaves keys to the server's ObjectMeta validation.
  const invalid = await kubectlFails(t, ['label', 'configmap', 'labelled', '-n', ns, 'bad key=x']);
  assert.equal(
    invalid.stderr,
    `The ConfigMap "labelled" is invalid: metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n`,
  );
  assert.deepEqual((await getCm('labelled')).metadata.labels, { env: 'dev' });
});

test('annotate: add, refuse to overwrite, --overwrite, remove with key-', async () => {
  await kubectlOk(t, ['create', 'configmap', 'annotated', '-n', ns]);
  assert.equal(await kubectlOk(t, ['annotate', 'configmap', 'annotated', '-n', ns, 'note=first', 'example.com/owner=team a']), 'configmap/annotated annotated\n');
  assert.deepEqual((await getCm('annotated')).metadata.annotations, { note: 'first', 'example.com/owner': 'team a' });
  const refused = await kubectlFails(t, ['annotate', 'configmap', 'annotated', '-n', ns, 'note=second']);
  assert.equal(refused.stderr, "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (first)\n");
  assert.equal(await kubectlOk(t, ['annotate', 'configmap', 'annotated', '-n', ns, 'note=second', '--overwrite']), 'configmap/annotated annotated\n');
  assert.equal(await kubectlOk(t, ['annotate', 'configmap', 'annotated', '-n', ns, 'example.com/owner-']), 'configmap/annotated annotated\n');
  assert.deepEqual((await getCm('annotated')).metadata.annotations, { note: 'second' });
});

test('diff: exit 0 when the live object matches, 1 with a diff when it does not; nothing is persisted', async () => {
  const same = configMapFile('diffed', { setting: 'on' });
  await kubectlOk(t, ['apply', '-f', same]);
  const before = await getCm('diffed');
  const r0 = await t.kubectl(['diff', '-f', same]);
  assert.equal(r0.code, 0, `diff of an unchanged manifest: ${r0.stdout}${r0.stderr}`);
  assert.equal(r0.stdout, '');

  const changed = configMapFile('diffed', { setting: 'off' });
  const r1 = await t.kubectl(['diff', '-f', changed]);
  assert.equal(r1.code, 1, `diff of a changed manifest: ${r1.stdout}${r1.stderr}`);
  assert.match(r1.stdout, /^-  setting: "?on"?$/m);
  assert.match(r1.stdout, /^\+  setting: "?off"?$/m);
  assert.match(r1.stdout, /v1\.ConfigMap\.e2e-mutate\.diffed/);
  const after = await getCm('diffed');
  assert.deepEqual(after.data, { setting: 'on' });
  assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);

  // Diff of an object that does not exist yet shows it as all new, and creates nothing.
  const missing = configMapFile('not-yet', { a: 'b' });
  const r2 = await t.kubectl(['diff', '-f', missing]);
  assert.equal(r2.code, 1, r2.stderr);
  assert.match(r2.stdout, /^\+  name: not-yet$/m);
  const gone = await kubectlFails(t, ['get', 'configmap', 'not-yet', '-n', ns]);
  assert.equal(gone.stderr, 'Error from server (NotFound): configmaps "not-yet" not found\n');
});

test('explain configmap and configmap.data (OpenAPI v3)', async () => {
  const kind = await kubectlOk(t, ['explain', 'configmap']);
  assert.match(kind, /^KIND:\s+ConfigMap$/m);
  assert.match(kind, /^VERSION:\s+v1$/m);
  assert.match(kind, /^FIELDS:$/m);
  assert.match(kind, /^ {2}data\t<map\[string\]string>$/m);
  assert.match(kind, /^ {2}binaryData\t<map\[string\]string>$/m);
  assert.match(kind, /^ {2}metadata\t<ObjectMeta>$/m);
  const field = await kubectlOk(t, ['explain', 'configmap.data']);
  assert.match(field, /^KIND:\s+ConfigMap$/m);
  assert.match(field, /^FIELD:\s+data <map\[string\]string>$/m);
  const nested = await kubectlOk(t, ['explain', 'configmap.metadata.labels']);
  assert.match(nested, /^FIELD:\s+labels <map\[string\]string>$/m);
  const unknown = await kubectlFails(t, ['explain', 'configmap.nosuchfield']);
  assert.match(unknown.stderr, /field "nosuchfield" does not exist/);
});

test('replace: a full update, and a stale resourceVersion conflicts', async () => {
  await kubectlOk(t, ['create', 'configmap', 'replaced', '-n', ns, '--from-literal=v=1']);
  const current = await getCm('replaced');
  const file = join(files, 'replaced.json');
  writeFileSync(file, JSON.stringify({ ...current, data: { v: '2' } }));
  assert.equal(await kubectlOk(t, ['replace', '-f', file]), 'configmap/replaced replaced\n');
  assert.deepEqual((await getCm('replaced')).data, { v: '2' });
  // The file still carries the old resourceVersion: optimistic concurrency must refuse it.
  writeFileSync(file, JSON.stringify({ ...current, data: { v: '3' } }));
  const stale = await kubectlFails(t, ['replace', '-f', file]);
  assert.match(
    stale.stderr,
    /Operation cannot be fulfilled on configmaps "replaced": the object has been modified; please apply your changes to the latest version and try again/,
  );
  assert.deepEqual((await getCm('replaced')).data, { v: '2' });
});

test('delete one, then delete --all', async () => {
  for (const name of ['del-a', 'del-b', 'del-c']) await kubectlOk(t, ['create', 'configmap', name, '-n', 'default']);
  assert.equal(await kubectlOk(t, ['delete', 'configmap', 'del-a', '-n', 'default']), 'configmap "del-a" deleted\n');
  const r = await kubectlFails(t, ['get', 'configmap', 'del-a', '-n', 'default']);
  assert.equal(r.stderr, 'Error from server (NotFound): configmaps "del-a" not found\n');
  const out = await kubectlOk(t, ['delete', 'configmap', '--all', '-n', 'default']);
  assert.ok(out.includes('configmap "del-b" deleted\n') && out.includes('configmap "del-c" deleted\n'), out);
  assert.equal(await kubectlOk(t, ['get', 'configmap', '-n', 'default', '-o', 'name']), '');
  // Deleting by label selector across namespaces, with a dry run first.
  await kubectlOk(t, ['create', 'configmap', 'sel-1', '-n', ns]);
  await kubectlOk(t, ['label', 'configmap', 'sel-1', '-n', ns, 'deletetest=true']);
  assert.equal(
    await kubectlOk(t, ['delete', 'configmap', '-l', 'deletetest=true', '--all-namespaces', '--dry-run=server']),
    'configmap "sel-1" deleted (server dry run)\n',
  );
  await getCm('sel-1');
  assert.equal(await kubectlOk(t, ['delete', 'configmap', '-l', 'deletetest=true', '--all-namespaces']), 'configmap "sel-1" deleted\n');
  await kubectlFails(t, ['get', 'configmap', 'sel-1', '-n', ns]);
});

test('wait --for=delete returns once a finalizer is removed', async () => {
  const file = configMapFile('held', { a: 'b' }, '  finalizers: ["example.com/hold"]');
  await kubectlOk(t, ['create', '-f', file]);
  assert.equal(await kubectlOk(t, ['delete', 'configmap', 'held', '-n', ns, '--wait=false']), 'configmap "held" deleted\n');
  const terminating = await getCm('held');
  assert.ok(terminating.metadata.deletionTimestamp, 'deletion waits on the finalizer');
  assert.deepEqual(terminating.metadata.finalizers, ['example.com/hold']);

  const timedOut = await t.kubectl(['wait', '--for=delete', 'configmap/held', '-n', ns, '--timeout=1s']);
  assert.equal(timedOut.code, 1);
  assert.match(timedOut.stderr, /timed out waiting for the condition on configmaps\/held/);

  const wait = new LongRunningKubectl(t.kubeconfig, ['wait', '--for=delete', 'configmap/held', '-n', ns, '--timeout=30s']);
  await sleep(1000);
  await kubectlOk(t, ['patch', 'configmap', 'held', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  const r = await wait.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'configmap/held condition met\n');
});

test('wait --for=delete on a terminating namespace returns once it is finalized', async () => {
  const doomed = 'e2e-doomed';
  await kubectlOk(t, ['create', 'namespace', doomed]);
  assert.equal(await kubectlOk(t, ['delete', 'namespace', doomed, '--wait=false']), `namespace "${doomed}" deleted\n`);
  const wait = new LongRunningKubectl(t.kubeconfig, ['wait', '--for=delete', `namespace/${doomed}`, '--timeout=60s']);
  // Without a namespace controller the "kubernetes" finalizer stays until someone calls /finalize; do it by hand
  // (a controller that got there first leaves nothing to finalize, which is fine too).
  await sleep(1000);
  const current = await t.kubectl(['get', 'namespace', doomed, '-o', 'json']);
  if (current.code === 0) {
    const obj = JSON.parse(current.stdout);
    assert.equal(obj.status.phase, 'Terminating');
    assert.ok(obj.metadata.deletionTimestamp);
    obj.spec.finalizers = [];
    const fin = await t.kubectl(['replace', '--raw', `/api/v1/namespaces/${doomed}/finalize`, '-f', '-'], { input: JSON.stringify(obj) });
    assert.ok(fin.code === 0 || /not found/.test(fin.stderr), fin.stderr);
  }
  const r = await wait.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `namespace/${doomed} condition met\n`);
});
