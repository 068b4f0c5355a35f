/**
 * kubectl's server-side apply against atrium: `apply --server-side` (create, update, conflicts, --force-conflicts,
 * --field-manager, --dry-run=server), the migration from client-side apply (apply.sh's `legacy` scenario), and
 * `diff --server-side`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { kubectlFails, kubectlJson, kubectlOk } from './support/kubectl-run.js';

const ns = 'e2e-ssa';
let t: TestServer;
let files: string;
let fileCounter = 0;

before(async () => {
  t = await startTestServer();
  files = mkdtempSync(join(tmpdir(), 'atrium-e2e-ssa-'));
  await kubectlOk(t, ['create', 'namespace', ns]);
});
after(async () => {
  await t?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

function configMapFile(name: string, data: Record<string, string>): string {
  const path = join(files, `${name}-${fileCounter++}.yaml`);
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, `  namespace: ${ns}`, 'data:'];
  lines.push(...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`), '');
  writeFileSync(path, lines.join('\n'));
  return path;
}

async function getCm(name: string): Promise<any> {
  return kubectlJson(t, ['get', 'configmap', name, '-n', ns, '--show-managed-fields']);
}

test('apply --server-side creates, then updates, owned by manager kubectl', async () => {
  const out = await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('ssa1', { a: '1' })]);
  assert.match(out, /configmap\/ssa1 serverside-applied/);
  await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('ssa1', { a: '2', b: '3' })]);
  const cm = await getCm('ssa1');
  assert.deepEqual(cm.data, { a: '2', b: '3' });
  assert.deepEqual(
    cm.metadata.managedFields.map((e: any) => [e.manager, e.operation]),
    [['kubectl', 'Apply']],
  );
});

test('conflicts fail, --force-conflicts and --field-manager take ownership', async () => {
  await kubectlOk(t, ['apply', '--server-side', '--field-manager=team-a', '-f', configMapFile('ssa2', { key: 'a' })]);
  const r = await kubectlFails(t, ['apply', '--server-side', '--field-manager=team-b', '-f', configMapFile('ssa2', { key: 'b' })]);
  assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "team-a": \.data\.key/);
  assert.match(r.stderr, /--force-conflicts/);
  await kubectlOk(t, ['apply', '--server-side', '--field-manager=team-b', '--force-conflicts', '-f', configMapFile('ssa2', { key: 'b' })]);
  const cm = await getCm('ssa2');
  assert.equal(cm.data.key, 'b');
  assert.deepEqual(cm.metadata.managedFields.map((e: any) => e.manager), ['team-b']);
});

test('apply --server-side --dry-run=server changes nothing', async () => {
  await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('ssa3', { a: '1' })]);
  const before = await getCm('ssa3');
  const out = await kubectlOk(t, ['apply', '--server-side', '--dry-run=server', '-f', configMapFile('ssa3', { a: '9' }), '-o', 'json']);
  assert.equal(JSON.parse(out).data.a, '9');
  const afterCm = await getCm('ssa3');
  assert.equal(afterCm.data.a, '1');
  assert.equal(afterCm.metadata.resourceVersion, before.metadata.resourceVersion);
});

test('client-side apply then server-side apply migrates ownership; dropping a key removes it (apply.sh legacy)', async () => {
  await kubectlOk(t, ['apply', '-f', configMapFile('legacy', { key: 'value', legacy: 'unused' })]);
  const csa = await getCm('legacy');
  assert.ok(csa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  assert.ok(csa.metadata.managedFields.some((e: any) => e.manager === 'kubectl-client-side-apply' && e.operation === 'Update'));
  await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('legacy', { key: 'value', legacy: 'unused' })]);
  const migrated = await getCm('legacy');
  assert.ok(!migrated.metadata.managedFields.some((e: any) => e.manager === 'kubectl-client-side-apply'), JSON.stringify(migrated.metadata.managedFields));
  await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('legacy', { key: 'value' })]);
  const pruned = await getCm('legacy');
  assert.deepEqual(pruned.data, { key: 'value' });
});

test('server-side apply of a changed value after client-side apply does not conflict', async () => {
  await kubectlOk(t, ['apply', '-f', configMapFile('upgrade', { a: '1' })]);
  await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('upgrade', { a: '2' })]);
  assert.equal((await getCm('upgrade')).data.a, '2');
  const last = JSON.parse((await getCm('upgrade')).metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  assert.equal(last.data.a, '2', 'the last-applied annotation follows server-side applies');
});

test('diff --server-side: exit 0 when unchanged, 1 with the change when changed', async () => {
  await kubectlOk(t, ['apply', '--server-side', '-f', configMapFile('ssadiff', { a: '1' })]);
  const same = await t.kubectl(['diff', '--server-side', '-f', configMapFile('ssadiff', { a: '1' })]);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  const changed = await t.kubectl(['diff', '--server-side', '-f', configMapFile('ssadiff', { a: '2' })]);
  assert.equal(changed.code, 1, changed.stderr);
  assert.match(changed.stdout, /-\s+a: "1"/);
  assert.match(changed.stdout, /\+\s+a: "2"/);
  assert.equal((await getCm('ssadiff')).data.a, '1');
});
