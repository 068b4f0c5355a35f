/**
 * kubectl version, api-resources and api-versions against a real atrium server: what kubectl prints is built from
 * /version and aggregated discovery, so these pin both wire formats through the real client.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { kubectlOk, rowWhere, tableRows } from './support/kubectl-run.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t?.stop();
});

test('kubectl version -o json reports the server version /version serves, with no skew warning', async () => {
  const r = await t.kubectl(['version', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /WARNING/, 'a 1.32 server must not trigger the version-skew warning');
  const out = JSON.parse(r.stdout);
  const raw = await t.request('GET', '/version');
  assert.equal(raw.status, 200);
  assert.deepEqual(out.serverVersion, raw.json);
  assert.equal(out.serverVersion.major, '1');
  assert.equal(out.serverVersion.minor, '32');
  assert.match(out.clientVersion.gitVersion, /^v1\.32\./);
});

test('kubectl version (text and yaml) agrees with /version', async () => {
  const raw = (await t.request('GET', '/version')).json;
  const text = await kubectlOk(t, ['version']);
  assert.match(text, /^Client Version: v1\.32\./m);
  assert.ok(text.includes(`Server Version: ${raw.gitVersion}\n`), text);
  const yaml = await kubectlOk(t, ['version', '-o', 'yaml']);
  assert.ok(yaml.includes(`gitVersion: ${raw.gitVersion}`), yaml);
  assert.ok(yaml.includes(`platform: ${raw.platform}`), yaml);
});

const expectedResources: Array<{ name: string; shortNames: string; apiVersion: string; namespaced: string; kind: string }> = [
  { name: 'configmaps', shortNames: 'cm', apiVersion: 'v1', namespaced: 'true', kind: 'ConfigMap' },
  { name: 'namespaces', shortNames: 'ns', apiVersion: 'v1', namespaced: 'false', kind: 'Namespace' },
  { name: 'serviceaccounts', shortNames: 'sa', apiVersion: 'v1', namespaced: 'true', kind: 'ServiceAccount' },
  { name: 'events', shortNames: 'ev', apiVersion: 'v1', namespaced: 'true', kind: 'Event' },
  { name: 'certificatesigningrequests', shortNames: 'csr', apiVersion: 'certificates.k8s.io/v1', namespaced: 'false', kind: 'CertificateSigningRequest' },
];

test('kubectl api-resources lists the built-in resources with shortnames, versions, scope and kind', async () => {
  const rows = tableRows(await kubectlOk(t, ['api-resources']));
  assert.deepEqual(rows[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
  for (const want of expectedResources) {
    const row = rows.find((r) => r[0] === want.name && r[2] === want.apiVersion);
    assert.ok(row, `api-resources has no ${want.name} in ${want.apiVersion}`);
    assert.deepEqual(row, [want.name, want.shortNames, want.apiVersion, want.namespaced, want.kind]);
  }
  // Resources without shortnames have an empty SHORTNAMES cell, so they split into four cells.
  assert.deepEqual(rowWhere(rows, 'secrets'), ['secrets', 'v1', 'true', 'Secret']);
  assert.deepEqual(rowWhere(rows, 'leases'), ['leases', 'coordination.k8s.io/v1', 'true', 'Lease']);
  // Subresources are not resources of their own in api-resources.
  assert.ok(!rows.some((r) => r[0]!.includes('/')), 'subresources must not be listed');
});

test('kubectl api-resources filters: --namespaced=false, --api-group, -o name, --verbs', async () => {
  const clusterScoped = (await kubectlOk(t, ['api-resources', '--namespaced=false', '-o', 'name'])).trim().split('\n');
  assert.ok(clusterScoped.includes('namespaces'), clusterScoped.join(','));
  assert.ok(!clusterScoped.includes('configmaps'));
  assert.ok(clusterScoped.includes('certificatesigningrequests.certificates.k8s.io'), clusterScoped.join(','));
  const coordination = (await kubectlOk(t, ['api-resources', '--api-group=coordination.k8s.io', '-o', 'name'])).trim().split('\n');
  assert.deepEqual(coordination, ['leases.coordination.k8s.io']);
  const wide = await kubectlOk(t, ['api-resources', '-o', 'wide']);
  assert.deepEqual(tableRows(wide)[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
  const cmLine = wide.split('\n').find((l) => l.startsWith('configmaps '));
  assert.match(cmLine ?? "", /\sConfigMap\s+create,delete,deletecollection,get,list,patch,update,watch\s*$/);
  const listable = (await kubectlOk(t, ['api-resources', '--verbs=list', '--namespaced', '-o', 'name'])).trim().split('\n');
  assert.ok(listable.includes('configmaps') && listable.includes('secrets'), listable.join(','));
});

test('kubectl api-versions lists every served group/version, agreeing with /apis', async () => {
  const versions = (await kubectlOk(t, ['api-versions'])).trim().split('\n');
  assert.ok(versions.includes('v1'));
  assert.ok(versions.includes('coordination.k8s.io/v1'));
  assert.deepEqual([...versions].sort(), versions, 'kubectl sorts api-versions');
  const apis = (await t.request('GET', '/apis', undefined, { headers: { Accept: 'application/json' } })).json;
  const fromApis = apis.groups.flatMap((g: any) => g.versions.map((v: any) => v.groupVersion));
  assert.deepEqual(versions, ['v1', ...fromApis].sort());
});

test('kubectl get --raw serves discovery documents', async () => {
  const v1 = JSON.parse(await kubectlOk(t, ['get', '--raw', '/api/v1']));
  assert.equal(v1.kind, 'APIResourceList');
  const cm = v1.resources.find((r: any) => r.name === 'configmaps');
  assert.deepEqual(cm.shortNames, ['cm']);
  assert.equal(cm.namespaced, true);
  assert.deepEqual(cm.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
});
