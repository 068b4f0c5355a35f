/**
 * The `default/kubernetes` Service kube-apiserver keeps pointing at itself (controllers/kubernetesservice), observed
 * through the API of a real server: present in root and in every new workspace, as upstream writes it, and recreated
 * when deleted. Where Endpoints are served (simulated clusters), test/e2e/pcluster.test.ts checks them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../helpers/harness.js';
import { waitForWorkspace } from '../../helpers/workspaces.js';
import { services } from '../../../src/registry/builtin/workloads/resources.js';
import { eventually } from './support.js';

describe('the kubernetes Service', () => {
  let ts: TestServer;
  before(async () => {
    // Services come with the workload APIs (a bare host serves none): served here as `atrium start` serves them.
    ts = await startTestServer({ server: { builtinControllers: true, plugins: [{ name: 'services', resources: [services] }] } });
  });
  after(async () => {
    await ts?.stop();
  });

  const svc = (base: string) => `${base}/api/v1/namespaces/default/services/kubernetes`;
  const present = (base: string) =>
    eventually(`${svc(base)}`, async () => {
      const r = await ts.request('GET', svc(base));
      return r.status === 200 ? r.json : undefined;
    });

  it('exists in root as kube-apiserver writes it: 10.96.0.1, https 443 to the secure port', async () => {
    const s = await present('');
    const port = Number(new URL(ts.url).port);
    assert.deepEqual(s.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.deepEqual(s.spec, {
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
    });
    // Endpoints are not served in a workspace without compute: nothing is made there.
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).status, 404);
  });

  it('exists in a new workspace and comes back after deletion', async () => {
    const r = await ts.request('POST', '/clusters/root/apis/tenancy.kcp.io/v1alpha1/workspaces', { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name: 'ksvc' }, spec: {} });
    assert.equal(r.status, 201, r.text);
    await waitForWorkspace(ts, 'root', 'ksvc');
    const base = '/clusters/root:ksvc';
    const first = await present(base);
    assert.equal((await ts.request('DELETE', svc(base))).status, 200);
    const again = await eventually('the Service recreated', async () => {
      const g = await ts.request('GET', svc(base));
      return g.status === 200 && g.json.metadata.uid !== first.metadata.uid ? g.json : undefined;
    });
    assert.equal(again.spec.clusterIP, '10.96.0.1');
  });
});
