/**
 * kubectl and ResourceQuotas against a real atrium server with the quota controller: `kubectl create quota`,
 * `kubectl get quota` (NAME, AGE, REQUEST, LIMIT as kube-apiserver prints them), `kubectl describe quota` (used and
 * hard per resource, computed by the controller) and the refusal kubectl shows for a create that exceeds the quota.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlFails, kubectlOk } from './support/kubectl-run.js';

const ns = 'e2e-quota';
let t: TestServer;

before(async () => {
  t = await startTestServer({ server: { builtinControllers: ['resourcequota'] } });
  await kubectlOk(t, ['create', 'namespace', ns]);
});

after(async () => {
  await t?.stop();
});

test('kubectl create quota, get quota, describe quota, and an exceeded quota', async () => {
  assert.equal(await kubectlOk(t, ['create', 'quota', 'compute', '-n', ns, '--hard=configmaps=1,requests.cpu=1,limits.memory=2Gi']), 'resourcequota/compute created\n');
  const table = await eventually('the quota status', async () => {
    const out = await kubectlOk(t, ['get', 'quota', '-n', ns]);
    return out.includes('configmaps: 0/1') ? out : undefined;
  });
  const [header, row] = table.trimEnd().split('\n');
  assert.match(header!, /^NAME\s+AGE\s+REQUEST\s+LIMIT$/);
  assert.match(row!, /^compute\s+\d+s\s+configmaps: 0\/1, requests\.cpu: 0\/1\s+limits\.memory: 0\/2Gi$/);

  assert.equal(await kubectlOk(t, ['create', 'configmap', 'one', '-n', ns]), 'configmap/one created\n');
  const err = await kubectlFails(t, ['create', 'configmap', 'two', '-n', ns]);
  assert.match(err.stderr, /^error: failed to create configmap: configmaps "two" is forbidden: exceeded quota: compute, requested: configmaps=1, used: configmaps=1, limited: configmaps=1/);

  const described = await kubectlOk(t, ['describe', 'quota', 'compute', '-n', ns]);
  assert.match(described, /^Name:\s+compute$/m);
  assert.match(described, /^Namespace:\s+e2e-quota$/m);
  assert.match(described, /^Resource\s+Used\s+Hard$/m);
  assert.match(described, /^configmaps\s+1\s+1$/m);
  assert.match(described, /^limits\.memory\s+0\s+2Gi$/m);
  assert.match(described, /^requests\.cpu\s+0\s+1$/m);
});
