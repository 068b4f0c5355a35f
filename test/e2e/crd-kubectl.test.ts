/**
 * CRDs with the real kubectl: apply a CRD and use the new type in the very next command; get (printer columns, wide,
 * categories, short names), describe, explain, scale, a rejected object's exact error text, served/unserved versions,
 * deprecation warnings, and CRD deletion cleaning up.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { freshAge, kubectlFails, kubectlJson, kubectlOk, rowWhere, tableRows } from './support/kubectl-run.js';
import { certificateCRD, cronTabCRD, rolloutCRD, serviceMonitorCRD } from '../integration/crd-fixtures.js';

const ns = 'e2e-crd';
let t: TestServer;

before(async () => {
  t = await startTestServer();
  await kubectlOk(t, ['create', 'namespace', ns]);
});
after(async () => {
  await t?.stop();
});

const yamlOf = (...docs: unknown[]) => docs.map((d) => stringify(d)).join('---\n');

test('apply a CRD, then create and get the new type in the next commands', async () => {
  const out = await kubectlOk(t, ['apply', '-f', '-'], { input: yamlOf(cronTabCRD()) });
  assert.match(out, /customresourcedefinition\.apiextensions\.k8s\.io\/crontabs\.stable\.example\.com created/);
  const created = await kubectlOk(t, ['apply', '-n', ns, '-f', '-'], {
    input: yamlOf({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'nightly' }, spec: { cronSpec: '0 3 * * *', image: 'backup:1' } }),
  });
  assert.match(created, /crontab\.stable\.example\.com\/nightly created/);
  const rows = tableRows(await kubectlOk(t, ['get', 'crontabs', '-n', ns]));
  assert.deepEqual(rows[0], ['NAME', 'SPEC', 'REPLICAS', 'AGE']);
  // The cron spec holds spaces, so check the row by its parts.
  const line = (await kubectlOk(t, ['get', 'ct', 'nightly', '-n', ns, '--no-headers'])).trim();
  assert.match(line, /^nightly\s+0 3 \* \* \*\s+1\s+\d+s$/);
  const wide = tableRows(await kubectlOk(t, ['get', 'crontab', '-n', ns, '-o', 'wide']));
  assert.deepEqual(wide[0], ['NAME', 'SPEC', 'REPLICAS', 'IMAGE', 'AGE']);
  assert.ok(wide[1]!.includes('backup:1'));
  assert.equal((await kubectlOk(t, ['get', 'crontabs', '-n', ns, '-o', 'name'])).trim(), 'crontab.stable.example.com/nightly');
  const cat = await kubectlOk(t, ['get', 'cron', '-n', ns, '-o', 'name']);
  assert.match(cat, /crontab\.stable\.example\.com\/nightly/);
  const obj = await kubectlJson(t, ['get', 'crontab', 'nightly', '-n', ns]);
  assert.equal(obj.spec.replicas, 1, 'defaulted by the schema');
});

test('kubectl wait for Established, describe and explain', async () => {
  await kubectlOk(t, ['wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=10s']);
  const describe = await kubectlOk(t, ['describe', 'crontab', 'nightly', '-n', ns]);
  assert.match(describe, /Name:\s+nightly/);
  assert.match(describe, /API Version:\s+stable\.example\.com\/v1/);
  assert.match(describe, /Cron Spec:\s+0 3 \* \* \*/);
  const explain = await kubectlOk(t, ['explain', 'crontabs.spec']);
  assert.match(explain, /KIND:\s+CronTab/);
  assert.match(explain, /cronSpec\s+<string> -required-/);
  assert.match(explain, /replicas\s+<integer>/);
  const crdTable = tableRows(await kubectlOk(t, ['get', 'crd']));
  assert.equal(rowWhere(crdTable, 'crontabs.stable.example.com')[0], 'crontabs.stable.example.com');
});

test('kubectl scale and the scale subresource', async () => {
  const out = await kubectlOk(t, ['scale', 'crontab', 'nightly', '-n', ns, '--replicas=4']);
  assert.match(out, /crontab\.stable\.example\.com\/nightly scaled/);
  assert.equal((await kubectlJson(t, ['get', 'crontab', 'nightly', '-n', ns])).spec.replicas, 4);
  const bad = await kubectlFails(t, ['scale', 'crontab', 'nightly', '-n', ns, '--replicas=50']);
  assert.match(bad.stderr, /spec\.replicas: Invalid value: 50: spec\.replicas in body should be less than or equal to 10/);
});

test('a rejected object shows the exact upstream error text', async () => {
  const r = await kubectlFails(t, ['create', '-n', ns, '-f', '-'], 1, {
    input: yamlOf({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'broken' }, spec: { replicas: 0 } }),
  });
  assert.match(r.stderr, /^The CronTab "broken" is invalid: $/m);
  assert.match(r.stderr, /^\* spec\.cronSpec: Required value$/m);
  assert.match(r.stderr, /^\* spec\.replicas: Invalid value: 0: spec\.replicas in body should be greater than or equal to 1$/m);
  const strict = await kubectlFails(t, ['create', '-n', ns, '-f', '-'], 1, {
    input: yamlOf({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'strict' }, spec: { cronSpec: '* * * * *', colour: 'red' } }),
  });
  assert.match(strict.stderr, /unknown field "spec\.colour"/);
});

test('served and deprecated versions; unserved versions are absent', async () => {
  const beta = await t.kubectl(['get', 'crontabs.v1beta1.stable.example.com', '-n', ns, '-o', 'name']);
  assert.equal(beta.code, 0, beta.stderr);
  assert.match(beta.stderr, /Warning: stable\.example\.com\/v1beta1 CronTab is deprecated/);
  await kubectlOk(t, ['apply', '-f', '-'], { input: yamlOf(rolloutCRD()) });
  await kubectlOk(t, ['wait', '--for=condition=Established', 'crd/rollouts.rollouts.example.io', '--timeout=10s']);
  const missing = await kubectlFails(t, ['get', 'rollouts.v1beta1.rollouts.example.io', '-n', ns]);
  assert.match(missing.stderr, /the server doesn't have a resource type "rollouts"/);
  const versions = await kubectlOk(t, ['api-versions']);
  assert.match(versions, /^rollouts\.example\.io\/v1alpha1$/m);
  assert.doesNotMatch(versions, /rollouts\.example\.io\/v1beta1/);
});

test('operator-grade CRDs install and serve through kubectl', async () => {
  await kubectlOk(t, ['apply', '-f', '-'], { input: yamlOf(certificateCRD(), serviceMonitorCRD()) });
  await kubectlOk(t, ['wait', '--for=condition=Established', 'crd/certificates.certs.example.io', 'crd/servicemonitors.monitoring.example.io', '--timeout=10s']);
  await kubectlOk(t, ['apply', '-n', ns, '-f', '-'], {
    input: yamlOf(
      { apiVersion: 'certs.example.io/v1', kind: 'Certificate', metadata: { name: 'site' }, spec: { secretName: 'site-tls', dnsNames: ['site.example.com'], issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer' } } },
      { apiVersion: 'monitoring.example.io/v1', kind: 'ServiceMonitor', metadata: { name: 'api' }, spec: { selector: { matchLabels: { app: 'api' } }, endpoints: [{ port: 'http', targetPort: 8080 }] } },
      {
        apiVersion: 'rollouts.example.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'web' },
        spec: { replicas: 2, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
      },
    ),
  });
  const certs = tableRows(await kubectlOk(t, ['get', 'certs', '-n', ns, '-o', 'wide']));
  assert.deepEqual(certs[0], ['NAME', 'READY', 'SECRET', 'ISSUER', 'AGE']);
  const site = rowWhere(certs, 'site');
  // READY is a null cell (printed blank) until a controller reports the Ready condition.
  assert.deepEqual(site.slice(0, 3), ['site', 'site-tls', 'letsencrypt']);
  assert.match(site[3]!, freshAge);
  await kubectlOk(t, ['scale', 'rollout', 'web', '-n', ns, '--replicas=5']);
  assert.equal((await kubectlJson(t, ['get', 'rollout', 'web', '-n', ns])).spec.replicas, 5);
  const rejected = await kubectlFails(t, ['apply', '-n', ns, '-f', '-'], 1, {
    input: yamlOf({ apiVersion: 'certs.example.io/v1', kind: 'Certificate', metadata: { name: 'nodns' }, spec: { secretName: 'x', issuerRef: { name: 'ca' } } }),
  });
  assert.match(rejected.stderr, /spec: Invalid value: "object": at least one of commonName or dnsNames must be set/);
});

test('deleting a CRD deletes its objects and removes the type from discovery', async () => {
  await kubectlOk(t, ['delete', 'crd', 'crontabs.stable.example.com', '--timeout=20s']);
  // kubectl may still hold the type in its discovery cache (then the list is a 404), or have refreshed it.
  const gone = await kubectlFails(t, ['get', 'crontabs', '-n', ns]);
  assert.match(gone.stderr, /the server doesn't have a resource type "crontabs"|Unable to list "stable\.example\.com\/v1, Resource=crontabs": the server could not find the requested resource/);
  const resources = await kubectlOk(t, ['api-resources', '--api-group=stable.example.com']);
  assert.doesNotMatch(resources, /crontabs/);
  // Re-created cluster-scoped, the type works again at once and the old objects are gone.
  await kubectlOk(t, ['apply', '-f', '-'], { input: yamlOf(cronTabCRD({ scope: 'Cluster' })) });
  const list = await kubectlOk(t, ['get', 'crontabs', '-o', 'name']);
  assert.equal(list.trim(), '');
});
