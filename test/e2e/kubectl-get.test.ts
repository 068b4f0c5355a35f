/**
 * kubectl get in every output format (server-side Table, json, yaml, name, wide, jsonpath, go-template), label
 * selectors, --all-namespaces, --chunk-size paging, --sort-by and get -w, against a real atrium server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { LongRunningKubectl, freshAge, kubectlOk, rowWhere, tableRows } from './support/kubectl-run.js';

const ns = 'e2e-get';
const other = 'e2e-get-other';
let t: TestServer;

before(async () => {
  t = await startTestServer();
  await kubectlOk(t, ['create', 'namespace', ns]);
  await kubectlOk(t, ['create', 'namespace', other]);
  // Names sort alpha < bravo < charlie; the "order" values sort them charlie < alpha < bravo.
  await kubectlOk(t, ['create', 'configmap', 'alpha', '-n', ns, '--from-literal=order=2']);
  await kubectlOk(t, ['create', 'configmap', 'bravo', '-n', ns, '--from-literal=order=3', '--from-literal=extra=x']);
  await kubectlOk(t, ['create', 'configmap', 'charlie', '-n', ns, '--from-literal=order=1', '--from-literal=extra=y', '--from-literal=more=z']);
  await kubectlOk(t, ['label', 'configmap', 'alpha', '-n', ns, 'tier=front', 'team=a']);
  await kubectlOk(t, ['label', 'configmap', 'bravo', '-n', ns, 'tier=back']);
  await kubectlOk(t, ['create', 'configmap', 'elsewhere', '-n', other, '--from-literal=k=v']);
  await kubectlOk(t, ['create', 'secret', 'generic', 'token', '-n', ns, '--from-literal=a=b', '--from-literal=c=d']);
});
after(async () => {
  await t?.stop();
});

test('default table for configmaps: NAME DATA AGE with the data count', async () => {
  const rows = tableRows(await kubectlOk(t, ['get', 'configmaps', '-n', ns]));
  assert.deepEqual(rows[0], ['NAME', 'DATA', 'AGE']);
  const names = rows.slice(1).map((r) => r[0]);
  for (const n of ['alpha', 'bravo', 'charlie']) assert.ok(names.includes(n), names.join(','));
  assert.equal(rowWhere(rows, 'alpha')[1], '1');
  assert.equal(rowWhere(rows, 'bravo')[1], '2');
  assert.equal(rowWhere(rows, 'charlie')[1], '3');
  assert.match(rowWhere(rows, 'alpha')[2]!, freshAge);
});

test('default table for namespaces (NAME STATUS AGE) and secrets (NAME TYPE DATA AGE)', async () => {
  const nsRows = tableRows(await kubectlOk(t, ['get', 'namespaces']));
  assert.deepEqual(nsRows[0], ['NAME', 'STATUS', 'AGE']);
  assert.equal(rowWhere(nsRows, ns)[1], 'Active');
  for (const builtin of ['default', 'kube-system', 'kube-public']) assert.equal(rowWhere(nsRows, builtin)[1], 'Active');
  const secretRows = tableRows(await kubectlOk(t, ['get', 'secrets', '-n', ns]));
  assert.deepEqual(secretRows[0], ['NAME', 'TYPE', 'DATA', 'AGE']);
  assert.deepEqual(rowWhere(secretRows, 'token').slice(0, 3), ['token', 'Opaque', '2']);
  const one = tableRows(await kubectlOk(t, ['get', 'namespace', ns, '--no-headers']));
  assert.equal(one.length, 1);
  assert.deepEqual(one[0]!.slice(0, 2), [ns, 'Active']);
});

test('default table for leases: NAME HOLDER AGE', async () => {
  const lease = JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'leader', namespace: ns }, spec: { holderIdentity: 'node-a', leaseDurationSeconds: 15 } });
  assert.equal(await kubectlOk(t, ['create', '-f', '-'], { input: lease }), 'lease.coordination.k8s.io/leader created\n');
  const rows = tableRows(await kubectlOk(t, ['get', 'leases', '-n', ns]));
  assert.deepEqual(rows[0], ['NAME', 'HOLDER', 'AGE']);
  assert.deepEqual(rowWhere(rows, 'leader').slice(0, 2), ['leader', 'node-a']);
  assert.equal(await kubectlOk(t, ['get', 'lease', 'leader', '-n', ns, '-o', 'name']), 'lease.coordination.k8s.io/leader\n');
});

test('-o json prints the object, or a List for many', async () => {
  const one = JSON.parse(await kubectlOk(t, ['get', 'cm', 'bravo', '-n', ns, '-o', 'json']));
  assert.equal(one.kind, 'ConfigMap');
  assert.equal(one.apiVersion, 'v1');
  assert.deepEqual(one.data, { order: '3', extra: 'x' });
  const list = JSON.parse(await kubectlOk(t, ['get', 'cm', '-n', ns, '-o', 'json']));
  assert.equal(list.kind, 'List');
  const names = list.items.map((i: any) => i.metadata.name);
  assert.deepEqual(names.filter((n: string) => ['alpha', 'bravo', 'charlie'].includes(n)), ['alpha', 'bravo', 'charlie']);
  for (const item of list.items) assert.equal(item.kind, 'ConfigMap');
});

test('-o yaml prints parseable YAML of the stored object', async () => {
  const doc = parseYaml(await kubectlOk(t, ['get', 'cm', 'charlie', '-n', ns, '-o', 'yaml']));
  assert.equal(doc.kind, 'ConfigMap');
  assert.equal(doc.metadata.name, 'charlie');
  assert.equal(doc.metadata.namespace, ns);
  assert.deepEqual(doc.data, { order: '1', extra: 'y', more: 'z' });
});

test('-o name prints resource/name lines', async () => {
  assert.equal(await kubectlOk(t, ['get', 'cm', 'alpha', '-n', ns, '-o', 'name']), 'configmap/alpha\n');
  assert.equal(await kubectlOk(t, ['get', 'cm', '-n', ns, '-l', 'tier', '-o', 'name']), 'configmap/alpha\nconfigmap/bravo\n');
  assert.equal(await kubectlOk(t, ['get', 'ns', ns, '-o', 'name']), `namespace/${ns}\n`);
  assert.equal(await kubectlOk(t, ['get', 'secret', 'token', '-n', ns, '-o', 'name']), 'secret/token\n');
});

test('-o wide uses the same columns as the table for configmaps', async () => {
  const rows = tableRows(await kubectlOk(t, ['get', 'cm', 'alpha', '-n', ns, '-o', 'wide']));
  assert.deepEqual(rows[0], ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(rows[1]!.slice(0, 2), ['alpha', '1']);
});

test('-o jsonpath and -o go-template', async () => {
  assert.equal(await kubectlOk(t, ['get', 'cm', 'bravo', '-n', ns, '-o', 'jsonpath={.data.extra}']), 'x');
  assert.equal(
    await kubectlOk(t, ['get', 'cm', '-n', ns, '-l', 'tier', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.data.order}{"\\n"}{end}']),
    'alpha=2\nbravo=3\n',
  );
  assert.equal(await kubectlOk(t, ['get', 'cm', 'alpha', '-n', ns, '-o', 'go-template={{.metadata.name}}:{{index .data "order"}}:{{.metadata.labels.tier}}']), 'alpha:2:front');
  assert.equal(
    await kubectlOk(t, ['get', 'cm', '-n', ns, '-l', 'tier', '-o', 'go-template={{range .items}}{{.metadata.name}} {{end}}']),
    'alpha bravo ',
  );
});

test('--show-labels adds a LABELS column', async () => {
  const rows = tableRows(await kubectlOk(t, ['get', 'cm', '-n', ns, '--show-labels']));
  assert.deepEqual(rows[0], ['NAME', 'DATA', 'AGE', 'LABELS']);
  assert.equal(rowWhere(rows, 'alpha')[3], 'team=a,tier=front');
  assert.equal(rowWhere(rows, 'bravo')[3], 'tier=back');
  assert.equal(rowWhere(rows, 'charlie')[3], '<none>');
});

const selectorCases: Array<{ selector: string; want: string[] }> = [
  { selector: 'tier=front', want: ['alpha'] },
  { selector: 'tier!=front', want: ['bravo', 'charlie'] },
  { selector: 'tier in (front,back)', want: ['alpha', 'bravo'] },
  { selector: 'tier notin (front)', want: ['bravo', 'charlie'] },
  { selector: 'tier', want: ['alpha', 'bravo'] },
  { selector: '!tier', want: ['charlie'] },
  { selector: 'tier=front,team=a', want: ['alpha'] },
  { selector: 'tier=nothing', want: [] },
];

for (const c of selectorCases) {
  test(`-l '${c.selector}'`, async () => {
    const r = await t.kubectl(['get', 'cm', '-n', ns, '-l', c.selector, '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, c.want.map((n) => `configmap/${n}\n`).join(''));
  });
}

test('an empty result prints "No resources found" on stderr for human output', async () => {
  const r = await t.kubectl(['get', 'cm', '-n', ns, '-l', 'tier=nothing']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `No resources found in ${ns} namespace.\n`);
});

test('--field-selector metadata.name', async () => {
  assert.equal(await kubectlOk(t, ['get', 'cm', '-n', ns, '--field-selector', 'metadata.name=bravo', '-o', 'name']), 'configmap/bravo\n');
  assert.equal(await kubectlOk(t, ['get', 'ns', '--field-selector', `metadata.name=${ns}`, '-o', 'name']), `namespace/${ns}\n`);
});

test('-A lists across namespaces with a NAMESPACE column', async () => {
  const rows = tableRows(await kubectlOk(t, ['get', 'cm', '-A']));
  assert.deepEqual(rows[0], ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
  assert.deepEqual(rowWhere(rows, 'elsewhere', 1).slice(0, 3), [other, 'elsewhere', '1']);
  assert.deepEqual(rowWhere(rows, 'charlie', 1).slice(0, 3), [ns, 'charlie', '3']);
  const names = JSON.parse(await kubectlOk(t, ['get', 'cm', '--all-namespaces', '-o', 'json'])).items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`);
  for (const n of [`${ns}/alpha`, `${ns}/bravo`, `${ns}/charlie`, `${other}/elsewhere`]) assert.ok(names.includes(n), names.join(','));
});

test('--chunk-size=1 pages with limit and continue and still prints everything', async () => {
  const r = await t.kubectl(['get', 'cm', '-n', ns, '--chunk-size=1', '-v=6']);
  assert.equal(r.code, 0, r.stderr);
  const rows = tableRows(r.stdout);
  assert.deepEqual(rows[0], ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(
    rows.filter((row) => ['alpha', 'bravo', 'charlie'].includes(row[0]!)).map((row) => row[0]),
    ['alpha', 'bravo', 'charlie'],
  );
  assert.equal(rows.filter((row) => row[0] === 'NAME').length, 1, 'one header across all pages');
  const requests = r.stderr.split('\n').filter((l) => /GET https:\/\/\S+\/configmaps\?/.test(l));
  assert.ok(requests.length >= 3, `expected one request per page:\n${r.stderr}`);
  assert.ok(requests.every((l) => l.includes('limit=1')), requests.join('\n'));
  assert.ok(requests.slice(1).every((l) => l.includes('continue=')), requests.join('\n'));
  const names = await kubectlOk(t, ['get', 'namespaces', '--chunk-size=1', '-o', 'name']);
  for (const n of ['default', 'kube-system', 'kube-public', ns, other]) assert.ok(names.includes(`namespace/${n}\n`), names);
});

test('--sort-by orders rows by a field', async () => {
  const byOrder = await kubectlOk(t, ['get', 'cm', '-n', ns, '-l', 'tier', '--sort-by=.data.order', '-o', 'name']);
  assert.equal(byOrder, 'configmap/alpha\nconfigmap/bravo\n');
  // Table output sorts on the objects the server embeds in the rows (includeObject=Object).
  const rows = tableRows(await kubectlOk(t, ['get', 'cm', '-n', ns, '--sort-by=.data.order']));
  assert.deepEqual(rows[0], ['NAME', 'DATA', 'AGE']);
  assert.deepEqual(rows.slice(1).map((r) => r[0]).filter((n) => ['alpha', 'bravo', 'charlie'].includes(n!)), ['charlie', 'alpha', 'bravo']);
  const braced = tableRows(await kubectlOk(t, ['get', 'cm', '-n', ns, '-l', 'tier', '--sort-by={.metadata.labels.tier}']));
  assert.deepEqual(braced.slice(1).map((r) => r[0]), ['bravo', 'alpha']);
});

test('get -w prints the initial table and then changes made while it runs', async () => {
  const watch = new LongRunningKubectl(t.kubeconfig, ['get', 'configmaps', '-n', ns, '-w', '--request-timeout=30s']);
  try {
    await watch.until(/^charlie\s+3\s+\S+\n/m);
    assert.match(watch.stdout, /^NAME\s+DATA\s+AGE\n/);
    await kubectlOk(t, ['create', 'configmap', 'watched', '-n', ns, '--from-literal=a=1']);
    await watch.until(/^watched\s+1\s+\S+\n/m);
    await kubectlOk(t, ['patch', 'configmap', 'watched', '-n', ns, '--type=merge', '-p', '{"data":{"b":"2"}}']);
    await watch.until(/^watched\s+2\s+\S+\n/m);
    // Another namespace's change must not show up in a namespaced watch.
    await kubectlOk(t, ['create', 'configmap', 'not-watched', '-n', other, '--from-literal=a=1']);
    await kubectlOk(t, ['delete', 'configmap', 'watched', '-n', ns]);
    await watch.until(/^watched\s+2\s+\S+\n[\s\S]*^watched\s+2\s+\S+\n/m);
    assert.doesNotMatch(watch.stdout, /not-watched/);
  } finally {
    await watch.stop();
  }
});

test('get --watch-only --output-watch-events reports event types', async () => {
  const watch = new LongRunningKubectl(t.kubeconfig, ['get', 'configmaps', '-n', other, '--watch-only', '--output-watch-events', '--request-timeout=30s']);
  try {
    // --watch-only prints nothing until something changes; give the watch a moment to be established.
    await new Promise((r) => setTimeout(r, 1500));
    await kubectlOk(t, ['create', 'configmap', 'evented', '-n', other, '--from-literal=a=1']);
    await watch.until(/^ADDED\s+evented\s+1\s/m);
    await kubectlOk(t, ['patch', 'configmap', 'evented', '-n', other, '--type=merge', '-p', '{"data":{"b":"2"}}']);
    await watch.until(/^MODIFIED\s+evented\s+2\s/m);
    await kubectlOk(t, ['delete', 'configmap', 'evented', '-n', other]);
    await watch.until(/^DELETED\s+evented\s+2\s/m);
    assert.match(watch.stdout, /^EVENT\s+NAME\s+DATA\s+AGE\n/);
    assert.doesNotMatch(watch.stdout, /elsewhere/, '--watch-only must not print the initial list');
  } finally {
    await watch.stop();
  }
});

test('get -w ends when --request-timeout expires', async () => {
  const started = Date.now();
  // The server ends the watch at timeout=2s and the client's own 2s timeout races it, so the exit code may be
  // either; what matters is that the watch does not outlive the timeout.
  const r = await t.kubectl(['get', 'namespaces', ns, '-w', '--request-timeout=2s'], { timeoutMs: 20_000 });
  assert.notEqual(r.code, -1, 'kubectl had to be killed');
  assert.ok(Date.now() - started < 15_000);
  assert.match(r.stdout, new RegExp(`^${ns}\\s+Active`, 'm'));
});
