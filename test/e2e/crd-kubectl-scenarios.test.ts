/**
 * The remaining scenarios of kubernetes test/cmd/crd.sh with the real kubectl, on its own Foo/Bar CRDs in
 * company.com: resource names qualified by group and by version.group, -o name, merge-patch set and unset seen
 * through go-template, `patch --local` refusing a strategic merge patch, label/annotate --all, applying a List that
 * holds two custom kinds, `apply --prune --prune-allowlist`, and a namespace deletion removing its custom resources
 * (which needs the namespace controller, so this server runs the built-in controllers).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlFails, kubectlJson, kubectlOk } from './support/kubectl-run.js';

const ns = 'e2e-crd-sh';
let t: TestServer;

const yamlOf = (...docs: unknown[]) => docs.map((d) => stringify(d)).join('---\n');

function companyCRD(plural: string, kind: string): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.company.com` },
    spec: {
      group: 'company.com',
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

const foo = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'company.com/v1', kind: 'Foo', metadata: { name }, someField: 'field1', otherField: 'field2', ...extra });
const bar = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'company.com/v1', kind: 'Bar', metadata: { name }, someField: 'field1', ...extra });

before(async () => {
  t = await startTestServer({ server: { builtinControllers: true } });
  await kubectlOk(t, ['create', 'namespace', ns]);
  await kubectlOk(t, ['apply', '-f', '-'], { input: yamlOf(companyCRD('foos', 'Foo'), companyCRD('bars', 'Bar')) });
  await kubectlOk(t, ['wait', '--for=condition=Established', 'crd/foos.company.com', 'crd/bars.company.com', '--timeout=10s']);
});
after(async () => {
  await t?.stop();
});

test('get by plural, kind, group-qualified and version-qualified names; -o name', async () => {
  await kubectlOk(t, ['create', '-n', ns, '-f', '-'], { input: yamlOf(foo('test')) });
  for (const resource of ['foos', 'foo', 'foos.company.com', 'foos.v1.company.com', 'Foo']) {
    const out = await kubectlOk(t, ['get', resource, '-n', ns, '-o', 'name']);
    assert.equal(out.trim(), 'foo.company.com/test', resource);
  }
  const one = await kubectlOk(t, ['get', 'foos.v1.company.com/test', '-n', ns, '-o', 'jsonpath={.someField}']);
  assert.equal(one, 'field1');
  const wide = await kubectlOk(t, ['get', 'foos', '-n', ns, '-o', 'wide']);
  assert.match(wide, /^NAME\s+AGE\ntest\s+\d+s\n$/);
});

test('merge patch sets and unsets a field; a strategic merge patch is refused with a hint', async () => {
  const template = ['-o', 'go-template={{.patched}}'];
  assert.equal(await kubectlOk(t, ['get', 'foo', 'test', '-n', ns, ...template]), '<no value>');
  await kubectlOk(t, ['patch', 'foo', 'test', '-n', ns, '--type=merge', '-p', '{"patched":"value1"}']);
  assert.equal(await kubectlOk(t, ['get', 'foo', 'test', '-n', ns, ...template]), 'value1');
  await kubectlOk(t, ['patch', 'foo', 'test', '-n', ns, '--type=merge', '-p', '{"patched":null}']);
  assert.equal(await kubectlOk(t, ['get', 'foo', 'test', '-n', ns, ...template]), '<no value>');
  // --allow-missing-template-keys=false turns the missing key into an error.
  const strict = await kubectlFails(t, ['get', 'foo', 'test', '-n', ns, '--allow-missing-template-keys=false', ...template]);
  assert.match(strict.stderr, /map has no entry for key "patched"/);
  const smp = await kubectlFails(t, ['patch', 'foo', 'test', '-n', ns, '-p', '{"patched":"x"}']);
  assert.match(
    smp.stderr,
    /application\/strategic-merge-patch\+json is not supported by company\.com\/v1, Kind=Foo: the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
  );
  const local = await kubectlFails(t, ['patch', '--local', '-f', '-', '-p', '{"patched":"x"}', '-o', 'yaml'], 1, { input: yamlOf({ ...foo('test'), metadata: { name: 'test', namespace: ns } }) });
  assert.match(local.stderr, /try --type merge/);
});

test('label and annotate --all', async () => {
  await kubectlOk(t, ['create', '-n', ns, '-f', '-'], { input: yamlOf(foo('second')) });
  await kubectlOk(t, ['label', 'foos', '--all', '-n', ns, 'listlabel=true']);
  await kubectlOk(t, ['annotate', 'foos', '--all', '-n', ns, 'listannotation=true']);
  const list = await kubectlJson(t, ['get', 'foos', '-n', ns]);
  assert.equal(list.items.length, 2);
  for (const item of list.items) {
    assert.equal(item.metadata.labels.listlabel, 'true', item.metadata.name);
    assert.equal(item.metadata.annotations.listannotation, 'true', item.metadata.name);
  }
  await kubectlOk(t, ['label', 'foos', '--all', '-n', ns, 'listlabel-']);
  const after = await kubectlJson(t, ['get', 'foos', '-n', ns]);
  for (const item of after.items) assert.equal(item.metadata.labels?.listlabel, undefined);
  await kubectlOk(t, ['delete', 'foo', 'second', '-n', ns]);
});

test('apply a List holding two custom kinds, then update it', async () => {
  const list = (fooExtra: Record<string, unknown>, barExtra: Record<string, unknown>) =>
    yamlOf({ apiVersion: 'v1', kind: 'List', items: [foo('test-list', fooExtra), bar('test-list', barExtra)] });
  // kubectl validates a List against /openapi/v2 in protobuf (with kubectl's default --validate=strict).
  const apply = ['apply', '-n', ns, '-f', '-'];
  const created = await kubectlOk(t, apply, { input: list({}, {}) });
  assert.match(created, /foo\.company\.com\/test-list created/);
  assert.match(created, /bar\.company\.com\/test-list created/);
  const updated = await kubectlOk(t, apply, { input: list({ newField: 'a' }, { newField: 'b' }) });
  assert.match(updated, /foo\.company\.com\/test-list configured/);
  assert.match(updated, /bar\.company\.com\/test-list configured/);
  assert.equal(await kubectlOk(t, ['get', 'foos.company.com/test-list', '-n', ns, '-o', 'jsonpath={.newField}']), 'a');
  assert.equal(await kubectlOk(t, ['get', 'bars.company.com/test-list', '-n', ns, '-o', 'jsonpath={.newField}']), 'b');
  // Remove a field by leaving it out of the applied configuration.
  await kubectlOk(t, apply, { input: list({}, { newField: 'b' }) });
  const f = await kubectlJson(t, ['get', 'foo', 'test-list', '-n', ns]);
  assert.equal(f.newField, undefined);
  await kubectlOk(t, ['delete', '-n', ns, 'foo/test-list', 'bar/test-list']);
});

test('apply --prune --prune-allowlist removes only the allowed kind', async () => {
  const labels = { pruneGroup: 'true' };
  await kubectlOk(t, ['apply', '-n', ns, '-f', '-'], { input: yamlOf({ ...foo('prune-a'), metadata: { name: 'prune-a', labels } }, { ...bar('prune-b'), metadata: { name: 'prune-b', labels } }) });
  const out = await kubectlOk(t, ['apply', '-n', ns, '--prune', '-l', 'pruneGroup=true', '--prune-allowlist=company.com/v1/Foo', '-f', '-'], {
    input: yamlOf({ ...bar('prune-b'), metadata: { name: 'prune-b', labels } }),
  });
  assert.match(out, /foo\.company\.com\/prune-a pruned/);
  await kubectlFails(t, ['get', 'foo', 'prune-a', '-n', ns]);
  assert.equal((await kubectlOk(t, ['get', 'bar', 'prune-b', '-n', ns, '-o', 'name'])).trim(), 'bar.company.com/prune-b');
  await kubectlOk(t, ['delete', 'bar', 'prune-b', '-n', ns]);
});

test('deleting a namespace deletes its custom resources', async () => {
  const doomed = 'e2e-crd-sh-doomed';
  await kubectlOk(t, ['create', 'namespace', doomed]);
  await kubectlOk(t, ['create', '-n', doomed, '-f', '-'], { input: yamlOf(foo('victim'), bar('victim')) });
  await kubectlOk(t, ['delete', 'namespace', doomed, '--wait=false']);
  await eventually(`namespace ${doomed} removed`, async () => {
    const r = await t.kubectl(['get', 'namespace', doomed, '-o', 'name']);
    if (r.code !== 0 && /NotFound|not found/.test(r.stderr)) return true;
    throw new Error(`kubectl get: ${r.stdout}${r.stderr}`);
  }, 10_000, 50);
  // The objects are gone from storage, not just hidden by the missing namespace.
  for (const path of [`/apis/company.com/v1/namespaces/${doomed}/foos`, `/apis/company.com/v1/namespaces/${doomed}/bars`]) {
    const r = await t.request('GET', path);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.items, [], path);
  }
});
